package dev.kafkamirror.broker.agent.kafka4_4;

import dev.kafkamirror.broker.core.producerstate.OpenTransaction;
import dev.kafkamirror.broker.core.producerstate.ResetVerification;
import java.util.ArrayList;
import java.util.ConcurrentModificationException;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.storage.internals.log.ProducerStateEntry;
import org.apache.kafka.storage.internals.log.UnifiedLog;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Verifies on this replica, before a mirror partition turns writable here, that the barrier really
 * reset its producer state ({@link ResetVerification}); remembers the last failure per partition
 * for describe ({@code stop.resetCheckError}) and logs each new failure once.
 *
 * <p>With the barrier rule switched off ({@code cluster.mirror.barrier.rule.enable=false}, stock
 * Kafka's behaviour on purpose) nothing is reset and nothing is verified.
 *
 * <p>Callers: the leader in make-writable before it records STOPPED, a follower answering
 * make-writable, and the adoption of a recorded STOPPED. A replica that fails stays read-only.
 *
 * <p>Thread-safe. The producer state is read without the log's lock (a follower's fetcher may
 * append meanwhile); a read that keeps meeting concurrent changes counts as a failure.
 */
final class ResetCheck {

  private static final Logger LOG =
      LoggerFactory.getLogger("dev.kafkamirror.broker.agent.ResetCheck");
  private static final Map<TopicPartition, String> FAILURES = new ConcurrentHashMap<>();

  private ResetCheck() {}

  /**
   * Why {@code tp} must not turn writable here; empty when the reset is verified.
   *
   * @param noWritesSinceBarrier true on the leader before the partition turns writable (no client
   *     can have written since the barrier, so every producer entry is from before it)
   */
  static Optional<String> refusal(
      TopicPartition tp, UnifiedLog log, long barrierOffset, boolean noWritesSinceBarrier) {
    if (!BarrierHooks.ruleEnabled()) {
      // The rule is switched off on purpose (cluster.mirror.barrier.rule.enable=false shows stock
      // Kafka's behaviour): no reset happens, so there is none to verify.
      return Optional.empty();
    }
    int brokerId = BrokerHandles.replicaManager().map(rm -> rm.localBrokerId()).orElse(-1);
    long logEnd = log.logEndOffset();
    if (logEnd <= barrierOffset) {
      // Not a failure (yet): this replica has not replicated the barrier, so it has not reset.
      return Optional.of(
          tp
              + ": the replica on broker "
              + brokerId
              + " has not replicated the barrier at offset "
              + barrierOffset
              + " yet (its log ends at "
              + logEnd
              + "); it stays read-only until it has and its reset is verified; call again");
    }
    Optional<String> refusal;
    try {
      refusal = read(tp, log, barrierOffset, noWritesSinceBarrier, brokerId);
    } catch (RuntimeException e) {
      refusal =
          Optional.of(
              tp
                  + ": cannot verify on broker "
                  + brokerId
                  + " that the barrier at offset "
                  + barrierOffset
                  + " reset the producer state ("
                  + e
                  + "); the partition stays read-only here; call make-writable again");
    }
    if (refusal.isEmpty()) {
      FAILURES.remove(tp);
    } else if (!refusal.get().equals(FAILURES.put(tp, refusal.get()))) {
      dev.kafkamirror.broker.agent.kafka4_4.mirror.MirrorMBeans.resetCheckFailed();
      LOG.error(refusal.get());
    }
    return refusal;
  }

  /** The last failed verification of {@code tp} on this broker, if the last one failed. */
  static Optional<String> lastFailure(TopicPartition tp) {
    return Optional.ofNullable(FAILURES.get(tp));
  }

  private static Optional<String> read(
      TopicPartition tp,
      UnifiedLog log,
      long barrierOffset,
      boolean noWritesSinceBarrier,
      int brokerId) {
    for (int attempt = 0; ; attempt++) {
      try {
        List<ResetVerification.ProducerEntry> entries = new ArrayList<>();
        for (ProducerStateEntry e : log.producerStateManager().activeProducers().values()) {
          entries.add(new ResetVerification.ProducerEntry(e.producerId(), e.lastDataOffset()));
        }
        List<OpenTransaction> open =
            new KafkaProducerStateTarget(log.producerStateManager(), null).openTransactions();
        return ResetVerification.refusal(
            tp.toString(), brokerId, barrierOffset, noWritesSinceBarrier, entries, open);
      } catch (ConcurrentModificationException e) {
        if (attempt > 10) {
          throw e;
        }
      }
    }
  }
}
