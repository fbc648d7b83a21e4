package dev.kafkamirror.broker.agent.kafka4_4.mirror;

import dev.kafkamirror.broker.agent.kafka4_4.stop.StopStateStore;
import dev.kafkamirror.broker.agent.kafka4_4.stop.StopStateUnavailableException;
import dev.kafkamirror.broker.core.mirror.SourceEpochHistory;
import dev.kafkamirror.broker.core.stop.StopStateKey;
import java.util.Map;
import java.util.Optional;
import kafka.cluster.Partition;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.MutableRecordBatch;
import org.apache.kafka.common.record.internal.RecordBatch;

/**
 * The durable source epoch history of one partition this broker leads (see {@link
 * SourceEpochHistory}), as of this round; it is kept in this broker's {@link StopStateStore}.
 */
record SourceEpochs(StopStateKey key, int leaderEpoch, SourceEpochHistory history) {

  /** How long a write of the history may wait for the state topic. */
  private static final long WRITE_TIMEOUT_MS = 5_000L;

  /** Null when the partition has no topic id or the state topic is not open. */
  static SourceEpochs of(TopicPartition tp, MirrorEntry entry, Partition partition) {
    Optional<StopStateStore> store = StopStateStore.ifStarted();
    Optional<Uuid> topicId = partition.localLogOrException().topicId();
    if (entry == null || store.isEmpty() || topicId.isEmpty()) {
      return null;
    }
    StopStateKey key =
        new StopStateKey(entry.mirrorName(), topicId.get().toString(), tp.partition());
    long logEnd = partition.localLogOrException().logEndOffset();
    return new SourceEpochs(
        key, partition.getLeaderEpoch(), store.get().sourceEpochs(key).truncatedTo(logEnd));
  }

  /**
   * The write that must be acknowledged before {@code records} are appended: empty when the history
   * already holds their source epochs; null, with the entry's error set, when they must not be
   * appended at all (an epoch going backwards).
   */
  Optional<StopStateStore.SourceEpochWrite> writeBefore(
      MemoryRecords records, Partition partition, MirrorEntry entry) {
    long logEnd = partition.localLogOrException().logEndOffset();
    SourceEpochHistory next = history;
    try {
      for (MutableRecordBatch batch : records.batches()) {
        if (batch.lastOffset() < logEnd
            || batch.partitionLeaderEpoch() == RecordBatch.NO_PARTITION_LEADER_EPOCH) {
          continue;
        }
        next = next.followedBy(batch.partitionLeaderEpoch(), batch.baseOffset());
      }
    } catch (SourceEpochHistory.EpochRegressionException e) {
      entry.error(partition.topicPartition() + ": " + e.getMessage() + "; not appending");
      return null;
    }
    if (next.equals(history)) {
      return Optional.empty();
    }
    return Optional.of(
        new StopStateStore.SourceEpochWrite(
            key, partition.topicPartition().topic(), leaderEpoch, next));
  }

  /**
   * Writes {@code writes} together (all sent, then all awaited: one round trip for a fetch
   * response's many partitions, not one each).
   *
   * @return the partitions whose write was not acknowledged; their entries' errors say why, and
   *     their records must not be appended
   */
  static java.util.Set<TopicPartition> writeAll(Map<TopicPartition, Pending> writes) {
    java.util.Set<TopicPartition> notDurable = new java.util.HashSet<>();
    if (writes.isEmpty()) {
      return notDurable;
    }
    // A pending write exists only once this broker's store has started (see of()).
    StopStateStore store = StopStateStore.ifStarted().orElseThrow();
    Map<StopStateStore.SourceEpochWrite, StopStateUnavailableException> failed =
        store.writeSourceEpochs(
            writes.values().stream().map(Pending::write).toList(), WRITE_TIMEOUT_MS);
    for (Map.Entry<TopicPartition, Pending> e : writes.entrySet()) {
      StopStateUnavailableException why = failed.get(e.getValue().write());
      if (why != null) {
        notDurable(e.getValue().partition(), e.getValue().entry(), why);
        notDurable.add(e.getKey());
      }
    }
    return notDurable;
  }

  /** A write of one partition's history, with the partition and entry it is for. */
  record Pending(StopStateStore.SourceEpochWrite write, Partition partition, MirrorEntry entry) {}

  private static void notDurable(
      Partition partition, MirrorEntry entry, StopStateUnavailableException e) {
    entry.error(
        "not appending to "
            + partition.topicPartition()
            + " until its source epochs are durable: "
            + e.getMessage());
  }
}
