package dev.kafkamirror.broker.agent.kafka4_4;

import dev.kafkamirror.broker.agent.kafka4_4.mirror.MirrorClassificationPendingException;
import dev.kafkamirror.broker.agent.kafka4_4.mirror.MirrorRegistry;
import java.util.List;
import org.apache.kafka.common.InvalidRecordException;
import org.apache.kafka.common.errors.NotEnoughReplicasException;
import org.apache.kafka.storage.internals.log.AppendOrigin;
import org.apache.kafka.storage.internals.log.RecordValidationException;
import org.apache.kafka.storage.internals.log.UnifiedLog;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Refuses client writes to partitions that are mirrors (MIRRORING, PAUSED or STOPPING) with a
 * clear, non-retriable error: the producer gets {@code InvalidRecordException} naming the
 * partition, the mirror and its state. Broker-internal appends (the mirror fetcher, replication,
 * the barrier, transaction markers) pass.
 *
 * <p>Fails closed: while this broker cannot tell yet whether a partition is a mirror (it has not
 * read the cluster's mirror membership since it started, see {@link MirrorRegistry#readOnlyReason})
 * the write is refused with the retriable NOT_ENOUGH_REPLICAS, so producers retry; and when the
 * guard itself fails, the write is refused with INVALID_RECORD naming the failure. Only Kafka's own
 * exceptions are thrown into the broker, on purpose.
 */
public final class MirrorGuard {

  private static final Logger LOG =
      LoggerFactory.getLogger("dev.kafkamirror.broker.agent.MirrorGuard");

  private MirrorGuard() {}

  /** Entry of {@code UnifiedLog.appendAsLeader(…, AppendOrigin, …)}. */
  public static void checkClientWrite(UnifiedLog log, AppendOrigin origin) {
    if (origin != AppendOrigin.CLIENT) {
      return;
    }
    String reason;
    try {
      reason = MirrorRegistry.instance().readOnlyReason(log.topicPartition()).orElse(null);
    } catch (MirrorClassificationPendingException e) {
      throw new NotEnoughReplicasException(e.getMessage());
    } catch (Throwable t) {
      LOG.error(
          "mirror guard could not decide for {}; refusing the write", log.topicPartition(), t);
      reason =
          "the cluster mirror guard could not decide whether "
              + log.topicPartition()
              + " is a read-only mirror ("
              + t
              + "); refusing the write";
    }
    if (reason != null) {
      throw new RecordValidationException(new InvalidRecordException(reason), List.of());
    }
  }
}
