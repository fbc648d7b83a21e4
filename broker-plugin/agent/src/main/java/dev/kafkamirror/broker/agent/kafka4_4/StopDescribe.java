package dev.kafkamirror.broker.agent.kafka4_4;

import dev.kafkamirror.broker.agent.kafka4_4.mirror.MirrorEntry;
import dev.kafkamirror.broker.agent.kafka4_4.mirror.MirrorRegistry;
import dev.kafkamirror.broker.agent.kafka4_4.mirror.MirrorState;
import dev.kafkamirror.broker.agent.kafka4_4.stop.StopStateStore;
import dev.kafkamirror.broker.agent.kafka4_4.stop.StopStateUnavailableException;
import dev.kafkamirror.broker.core.stop.StopState;
import dev.kafkamirror.broker.core.stop.StopStateKey;
import dev.kafkamirror.contract.Fields;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import kafka.cluster.Partition;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.storage.internals.log.UnifiedLog;
import scala.Option;

/**
 * The durable stop fields of describe (and of every stop step's answer), read monotonically: a
 * leader answers from a stop-state table it has read up to date in its current leader epoch.
 *
 * <p>Thread-safe.
 */
final class StopDescribe {

  private StopDescribe() {}

  /** How long describe waits for the stop state to be read up to date after a leader change. */
  private static final long DESCRIBE_SYNC_MS = 2_000L;

  /**
   * After a describe sync failed, describe answers without trying again for this long (a batch of
   * many partitions must not wait {@link #DESCRIBE_SYNC_MS} for each of them).
   */
  private static final long DESCRIBE_SYNC_RETRY_NANOS = TimeUnit.SECONDS.toNanos(5);

  private static volatile long describeSyncRetryAtNanos = System.nanoTime();
  private static volatile String describeSyncError;

  /**
   * The durable stop fields of a local partition, for describe; empty when none.
   *
   * <p>Monotonic: a leader answers from a table it has read up to date in its current leader epoch
   * (see {@link StopStateStore#isCurrentAsLeader}), so it never reports an earlier step than any
   * leader reported before (a new leader's reader could otherwise still be behind the records its
   * predecessor wrote). The first describe after a leader change syncs once for every partition
   * this broker leads whose stop has begun; when that sync fails the answer says so ({@code
   * stateCurrent} false, {@code stateError}).
   */
  static Map<String, Object> describeStop(TopicPartition tp, UnifiedLog log) {
    Optional<MirrorEntry> entry = MirrorRegistry.instance().entry(tp);
    Optional<StopStateStore> store = StopStateStore.ifStarted();
    Optional<Uuid> topicId = log.topicId();
    if (entry.isEmpty() || store.isEmpty() || topicId.isEmpty()) {
      return Map.of();
    }
    StopStateKey key =
        new StopStateKey(entry.get().mirrorName(), topicId.get().toString(), tp.partition());
    String stale = syncIfNewLeader(store.get(), tp, entry.get(), key);
    Map<String, Object> fields = store.get().get(key).map(StopDescribe::fields).orElse(Map.of());
    Optional<String> resetFailure = ResetCheck.lastFailure(tp);
    if (fields.isEmpty() || (resetFailure.isEmpty() && stale == null)) {
      return fields;
    }
    Map<String, Object> more = new LinkedHashMap<>(fields);
    // This replica refused to turn writable: its reset could not be verified.
    resetFailure.ifPresent(f -> more.put("resetCheckError", f));
    if (stale != null) {
      more.put(Fields.Stop.STATE_CURRENT, false);
      more.put(Fields.Stop.STATE_ERROR, stale);
    }
    return more;
  }

  /**
   * Syncs the store once when this broker leads {@code tp} in a leader epoch it has not synced in,
   * for every such partition of its registry whose stop has begun; the error when that fails.
   */
  private static String syncIfNewLeader(
      StopStateStore store, TopicPartition tp, MirrorEntry entry, StopStateKey key) {
    Optional<Partition> partition = onlinePartition(tp);
    if (partition.isEmpty()
        || !partition.get().isLeader()
        || !stopBegun(entry)
        || store.isCurrentAsLeader(key, partition.get().getLeaderEpoch())) {
      return null;
    }
    Map<StopStateKey, Integer> toSync = new HashMap<>();
    for (Map.Entry<TopicPartition, MirrorEntry> e : MirrorRegistry.instance().all().entrySet()) {
      if (!stopBegun(e.getValue())) {
        continue;
      }
      Optional<Partition> p = onlinePartition(e.getKey());
      if (p.isEmpty() || !p.get().isLeader() || p.get().log().isEmpty()) {
        continue;
      }
      Optional<Uuid> id = p.get().log().get().topicId();
      if (id.isEmpty()) {
        continue;
      }
      StopStateKey k =
          new StopStateKey(e.getValue().mirrorName(), id.get().toString(), e.getKey().partition());
      int epoch = p.get().getLeaderEpoch();
      if (!store.isCurrentAsLeader(k, epoch)) {
        toSync.put(k, epoch);
      }
    }
    toSync.put(key, partition.get().getLeaderEpoch());
    String lastError = describeSyncError;
    if (lastError != null && System.nanoTime() - describeSyncRetryAtNanos < 0) {
      return lastError;
    }
    try {
      store.syncAsLeader(toSync, DESCRIBE_SYNC_MS);
      describeSyncError = null;
      return null;
    } catch (StopStateUnavailableException e) {
      describeSyncRetryAtNanos = System.nanoTime() + DESCRIBE_SYNC_RETRY_NANOS;
      describeSyncError = e.getMessage();
      return e.getMessage();
    }
  }

  private static boolean stopBegun(MirrorEntry entry) {
    return entry.state() != MirrorState.MIRRORING && entry.state() != MirrorState.PAUSED;
  }

  private static Optional<Partition> onlinePartition(TopicPartition tp) {
    return BrokerHandles.replicaManager()
        .flatMap(
            rm -> {
              Option<Partition> p = rm.onlinePartition(tp);
              return p.isDefined() ? Optional.of(p.get()) : Optional.empty();
            });
  }

  private static Map<String, Object> fields(StopState s) {
    Map<String, Object> out = new LinkedHashMap<>();
    out.put(Fields.Stop.STEP, s.step().name());
    out.put(Fields.Stop.STEP_NUMBER, s.step().number());
    out.put(Fields.Stop.STATE_LEADER_EPOCH, s.leaderEpoch());
    out.put(Fields.Stop.WRITER_BROKER_ID, s.writerBrokerId());
    out.put(Fields.Stop.TRUNCATE_TARGET_OFFSET, s.truncateTargetOffset());
    out.put(Fields.Stop.TRUNCATED_TO_OFFSET, s.truncatedToOffset());
    out.put(Fields.Stop.LAST_MIRRORED_OFFSET, s.lastMirroredOffset());
    out.put(Fields.Stop.LAST_MIRRORED_EPOCH, s.lastMirroredEpoch());
    out.put(Fields.Stop.LAST_MIRRORED_SOURCE_EPOCH, s.lastMirroredSourceEpoch());
    out.put(Fields.Stop.BARRIER_OFFSET, s.barrierOffset());
    out.put(Fields.Stop.SOURCE_CLUSTER_ID, s.sourceClusterId());
    out.put(Fields.Stop.UPDATED_AT_MS, s.updatedAtMs());
    return out;
  }
}
