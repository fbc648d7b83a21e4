package dev.kafkamirror.broker.agent.kafka4_4;

import dev.kafkamirror.broker.agent.kafka4_4.stop.StopStateStore;
import dev.kafkamirror.contract.Fields.WriteGuards;
import java.util.LinkedHashMap;
import java.util.Map;

/** What this broker's write guards refused, and stop-state records it ignored, for describe. */
final class WriteGuardCounters {

  private WriteGuardCounters() {}

  static Map<String, Object> describe() {
    Map<String, Object> out = new LinkedHashMap<>();
    out.put(WriteGuards.REFUSED_TRANSACTION_ADDS, TransactionGuard.refusedAdds());
    out.put(WriteGuards.REFUSED_TRANSACTION_MARKERS, MarkerGuard.refusedMarkers());
    out.put(WriteGuards.REFUSED_STATE_TOPIC_WRITES, StateTopicGuard.refusedWrites());
    StateTopicGuard.lastRefusal()
        .ifPresent(r -> out.put(WriteGuards.LAST_REFUSED_STATE_TOPIC_WRITE, r));
    StopStateStore.ifStarted()
        .ifPresent(
            store -> {
              out.put(WriteGuards.UNVERIFIED_STATE_RECORDS, store.unverifiedRecords());
              store
                  .lastUnverifiedRecord()
                  .ifPresent(r -> out.put(WriteGuards.LAST_UNVERIFIED_STATE_RECORD, r));
            });
    return out;
  }
}
