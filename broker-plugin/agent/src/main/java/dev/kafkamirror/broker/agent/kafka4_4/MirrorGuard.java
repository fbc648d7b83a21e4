package dev.kafkamirror.broker.agent.kafka4_4;

import dev.kafkamirror.broker.agent.kafka4_4.mirror.MirrorRegistry;
import java.util.List;
import org.apache.kafka.common.InvalidRecordException;
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
 * <p>This is the one place the plugin throws into the broker on purpose, and only Kafka's own
 * validation exception, which the produce path turns into an INVALID_RECORD answer. Any other
 * failure here lets the write through and is logged: a guard that cannot decide must not take the
 * broker down.
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
    } catch (Throwable t) {
      LOG.error("mirror guard could not decide; letting the write through", t);
      return;
    }
    if (reason != null) {
      throw new RecordValidationException(new InvalidRecordException(reason), List.of());
    }
  }
}
