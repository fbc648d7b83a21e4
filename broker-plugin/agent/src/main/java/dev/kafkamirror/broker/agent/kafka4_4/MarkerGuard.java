package dev.kafkamirror.broker.agent.kafka4_4;

import dev.kafkamirror.broker.agent.kafka4_4.mirror.MirrorClassificationPendingException;
import dev.kafkamirror.broker.agent.kafka4_4.mirror.MirrorRegistry;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.UnsupportedForMessageFormatException;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.RecordBatch;
import org.apache.kafka.storage.internals.log.AppendOrigin;
import org.apache.kafka.storage.internals.log.UnifiedLog;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Defence in depth on the partition leader: a COORDINATOR-origin append (a transaction marker) to a
 * partition that must stay read-only ({@link MirrorRegistry#readOnlyReason}) is refused, unless the
 * plugin writes it itself ({@link PluginAppends}) or it consists of MIRROR_PID_RESET barriers only
 * (which no transaction coordinator writes).
 *
 * <p>The transaction coordinator already refuses to add a mirror partition to a transaction ({@link
 * TransactionGuard}); this catches a transaction that held the partition before it became a mirror.
 * The refusal is an {@link UnsupportedForMessageFormatException}: the coordinator's marker handler
 * then drops the partition from the transaction's pending markers (as it does for a log that cannot
 * hold markers) and completes the transaction, instead of retrying the marker forever. The mirror
 * partition gets no marker: a marker there would shift the mirror's offsets, and with a colliding
 * producer id end a mirrored transaction.
 *
 * <p>Fail closed: when the guard cannot decide, the marker is refused. Thread-safe.
 */
public final class MarkerGuard {

  private static final Logger LOG =
      LoggerFactory.getLogger("dev.kafkamirror.broker.agent.MarkerGuard");

  private static final AtomicLong refused = new AtomicLong();

  private MarkerGuard() {}

  /** Entry of {@code UnifiedLog.appendAsLeader}. */
  public static void checkCoordinatorAppend(
      UnifiedLog log, MemoryRecords records, AppendOrigin origin) {
    if (origin != AppendOrigin.COORDINATOR || PluginAppends.active()) {
      return;
    }
    TopicPartition tp = log.topicPartition();
    String reason;
    try {
      reason = refusal(tp, records).orElse(null);
    } catch (MirrorClassificationPendingException e) {
      // Not known yet (this broker has not read the cluster's mirror membership since it started):
      // a retriable refusal, so the coordinator retries the marker instead of dropping it.
      throw new org.apache.kafka.common.errors.NotEnoughReplicasException(e.getMessage());
    } catch (Throwable t) {
      reason = "cannot tell whether " + tp + " is a mirror partition (" + t + ")";
    }
    if (reason == null) {
      return;
    }
    refused.incrementAndGet();
    String message =
        "refusing a transaction marker for "
            + tp
            + " ("
            + describeBatches(records)
            + "): "
            + reason
            + "; a destination transaction must not touch a mirror partition";
    LOG.error(message);
    throw new UnsupportedForMessageFormatException(message);
  }

  private static Optional<String> refusal(TopicPartition tp, MemoryRecords records) {
    Optional<String> reason = MirrorRegistry.instance().readOnlyReason(tp);
    if (reason.isEmpty()) {
      return reason;
    }
    for (RecordBatch batch : records.batches()) {
      if (!(KafkaBatches.isBarrier(batch) && batch.producerId() == RecordBatch.NO_PRODUCER_ID)) {
        return reason;
      }
    }
    return Optional.empty();
  }

  private static String describeBatches(MemoryRecords records) {
    StringBuilder out = new StringBuilder();
    for (RecordBatch batch : records.batches()) {
      if (out.length() > 0) {
        out.append(", ");
      }
      out.append(batch.isControlBatch() ? "control batch" : "batch")
          .append(" of producer id ")
          .append(batch.producerId())
          .append(" epoch ")
          .append(batch.producerEpoch());
    }
    return out.toString();
  }

  /** Markers this broker refused, for describe. */
  public static long refusedMarkers() {
    return refused.get();
  }
}
