package dev.kafkamirror.broker.agent.kafka4_4.mirror;

import dev.kafkamirror.broker.agent.kafka4_4.BrokerHandles;
import dev.kafkamirror.broker.core.mirror.SourceAlignment;
import java.lang.reflect.Method;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.locks.ReentrantReadWriteLock;
import kafka.cluster.Partition;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.MutableRecordBatch;
import org.apache.kafka.storage.internals.log.LogAppendInfo;
import org.apache.kafka.storage.internals.log.UnifiedLog;
import scala.Option;

/**
 * Appends source batches to the local leader's log as they are: offsets, producer ids, epochs,
 * sequences, CRCs and compression kept. Only the partition leader epoch field (outside the CRC) is
 * set to the destination's current leader epoch, so that the destination's epoch history stays its
 * own. The source's epochs are kept beside the log instead: the fetcher records them in the state
 * topic before it calls this (see {@code SourceEpochHistory}).
 *
 * <p>Kafka 4.4 silently skips (INFO log only) every batch from the first one whose partition leader
 * epoch is higher than the replica's; the append result is checked against the batches sent, so
 * such a skip, or any other shortfall, is an error, never data quietly missing.
 *
 * <p>Called from one fetcher thread per source; the append itself runs under the partition's
 * leader-ISR read lock (inside Kafka's {@code appendRecordsToFollowerOrFutureReplica}).
 */
final class MirrorAppender {

  private static final Method MAYBE_INCREMENT_LEADER_HW;
  private static final Method LEADER_ISR_UPDATE_LOCK;

  static {
    try {
      MAYBE_INCREMENT_LEADER_HW =
          Partition.class.getDeclaredMethod("maybeIncrementLeaderHW", UnifiedLog.class, long.class);
      MAYBE_INCREMENT_LEADER_HW.setAccessible(true);
      LEADER_ISR_UPDATE_LOCK = Partition.class.getDeclaredMethod("leaderIsrUpdateLock");
      LEADER_ISR_UPDATE_LOCK.setAccessible(true);
    } catch (NoSuchMethodException e) {
      throw new ExceptionInInitializerError(e);
    }
  }

  private MirrorAppender() {}

  /** The result of one append. */
  record Appended(long firstOffset, long lastOffset, int batches) {}

  /**
   * Appends {@code records} (as fetched from the source, starting at or before the local log end)
   * and advances the high watermark as far as the ISR allows.
   *
   * @return what was appended, or null when nothing new was in {@code records}
   * @throws MirrorAppendException when the batches do not line up with the local log or were not
   *     all written
   */
  static Appended append(Partition partition, MemoryRecords records) throws MirrorAppendException {
    UnifiedLog log = partition.localLogOrException();
    long logEnd = log.logEndOffset();
    int epoch = partition.getLeaderEpoch();
    List<MutableRecordBatch> batches = new ArrayList<>();
    for (MutableRecordBatch batch : records.batches()) {
      if (batch.lastOffset() >= logEnd) {
        batches.add(batch);
      }
    }
    if (batches.isEmpty()) {
      return null;
    }
    long first = batches.get(0).baseOffset();
    long last = batches.get(batches.size() - 1).lastOffset();
    // Above the log end: the offsets in between are not on the source (its cleaner removed them).
    // Across the end of an empty log: Kafka starts the log at the batch's base, as for a follower.
    if (SourceAlignment.firstBatch(log.logStartOffset(), logEnd, first, batches.get(0).lastOffset())
        == SourceAlignment.FirstBatch.REFUSE) {
      throw new MirrorAppendException(
          partition.topicPartition()
              + ": the source batch starts at offset "
              + first
              + " but the local log ends at "
              + logEnd
              + "; offsets would not be preserved");
    }
    int skippedBytes = 0;
    for (MutableRecordBatch batch : records.batches()) {
      if (batch.lastOffset() < logEnd) {
        skippedBytes += batch.sizeInBytes();
      }
    }
    java.nio.ByteBuffer buffer = records.buffer().duplicate();
    buffer.position(buffer.position() + skippedBytes);
    MemoryRecords toAppend = MemoryRecords.readableRecords(buffer.slice());
    for (MutableRecordBatch batch : toAppend.batches()) {
      batch.setPartitionLeaderEpoch(epoch);
    }
    Option<LogAppendInfo> info =
        partition.appendRecordsToFollowerOrFutureReplica(toAppend, false, epoch);
    long appendedLast = info.isDefined() ? info.get().lastOffset() : -1L;
    if (appendedLast < first || log.logEndOffset() != appendedLast + 1) {
      throw new MirrorAppendException(
          partition.topicPartition()
              + ": Kafka wrote up to offset "
              + appendedLast
              + " of batches "
              + first
              + ".."
              + last
              + " (log end now "
              + log.logEndOffset()
              + "); a silent skip, refusing to go on");
    }
    // appendedLast < last is expected when a barrier inside the fetch cut the append: the rest is
    // fetched again
    // from the new log end.
    advanceHighWatermark(partition, log);
    BrokerHandles.completeDelayedFetches(partition.topicPartition());
    return new Appended(first, appendedLast, batches.size());
  }

  /**
   * Raises the leader's log start offset to {@code offset} (at or below its high watermark) under
   * the leader-ISR read lock, as Kafka's deleteRecords does; followers follow from fetch responses.
   */
  static void raiseLogStart(Partition partition, UnifiedLog log, long offset) {
    try {
      ReentrantReadWriteLock lock =
          (ReentrantReadWriteLock) LEADER_ISR_UPDATE_LOCK.invoke(partition);
      lock.readLock().lock();
      try {
        log.maybeIncrementLogStartOffset(
            offset,
            org.apache.kafka.storage.internals.log.LogStartOffsetIncrementReason
                .LeaderOffsetIncremented);
      } finally {
        lock.readLock().unlock();
      }
    } catch (ReflectiveOperationException e) {
      throw new IllegalStateException(
          "cannot raise the log start offset of " + partition.topicPartition(), e);
    }
  }

  /**
   * Advances the leader's high watermark to the minimum log end of the ISR (stock Kafka does this
   * on fetch).
   */
  static void advanceHighWatermark(Partition partition, UnifiedLog log) {
    try {
      ReentrantReadWriteLock lock =
          (ReentrantReadWriteLock) LEADER_ISR_UPDATE_LOCK.invoke(partition);
      lock.readLock().lock();
      try {
        MAYBE_INCREMENT_LEADER_HW.invoke(partition, log, System.currentTimeMillis());
      } finally {
        lock.readLock().unlock();
      }
    } catch (ReflectiveOperationException e) {
      throw new IllegalStateException(
          "cannot advance the high watermark of " + partition.topicPartition(), e);
    }
  }

  /** Batches that do not line up with the local log, or a write that fell short. */
  static final class MirrorAppendException extends Exception {
    private static final long serialVersionUID = 1L;

    MirrorAppendException(String message) {
      super(message);
    }
  }
}
