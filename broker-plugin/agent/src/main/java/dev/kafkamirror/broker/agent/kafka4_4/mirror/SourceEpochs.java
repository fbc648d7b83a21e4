package dev.kafkamirror.broker.agent.kafka4_4.mirror;

import dev.kafkamirror.broker.agent.kafka4_4.stop.StopStateStore;
import dev.kafkamirror.broker.agent.kafka4_4.stop.StopStateUnavailableException;
import dev.kafkamirror.broker.core.mirror.SourceEpochHistory;
import dev.kafkamirror.broker.core.stop.StopStateKey;
import java.util.Optional;
import kafka.cluster.Partition;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.MutableRecordBatch;
import org.apache.kafka.common.record.internal.RecordBatch;

/**
 * The durable source epoch history of one partition this broker leads (see {@link
 * SourceEpochHistory}), as of this round, and where it is kept.
 */
record SourceEpochs(
    StopStateStore store, StopStateKey key, int leaderEpoch, SourceEpochHistory history) {

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
        store.get(),
        key,
        partition.getLeaderEpoch(),
        store.get().sourceEpochs(key).truncatedTo(logEnd));
  }

  /**
   * Makes the source epochs of {@code records} durable before they are appended: when a batch
   * beyond the local log end starts a source epoch the history does not hold, the new history is
   * written (acks=all) first. False, with the entry's error set, when the append must not happen.
   */
  boolean recordBefore(MemoryRecords records, Partition partition, MirrorEntry entry) {
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
      return false;
    }
    if (next.equals(history)) {
      return true;
    }
    try {
      store.writeSourceEpochs(
          key, partition.topicPartition().topic(), leaderEpoch, next, WRITE_TIMEOUT_MS);
      return true;
    } catch (StopStateUnavailableException e) {
      entry.error(
          "not appending to "
              + partition.topicPartition()
              + " until its source epochs are durable: "
              + e.getMessage());
      return false;
    }
  }
}
