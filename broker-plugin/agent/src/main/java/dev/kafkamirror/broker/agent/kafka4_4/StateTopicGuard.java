package dev.kafkamirror.broker.agent.kafka4_4;

import dev.kafkamirror.broker.agent.kafka4_4.stop.StateRecordAuth;
import java.nio.ByteBuffer;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.kafka.common.InvalidRecordException;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.Record;
import org.apache.kafka.common.record.internal.RecordBatch;
import org.apache.kafka.storage.internals.log.AppendOrigin;
import org.apache.kafka.storage.internals.log.RecordValidationException;
import org.apache.kafka.storage.internals.log.UnifiedLog;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Only the plugin writes the stop-state topic: a client append to it (the plugin's own writer is a
 * client too) is refused with INVALID_RECORD unless every record carries a valid {@value
 * StateRecordAuth#HEADER} (see {@link StateRecordAuth}). Refusals are counted and logged, naming
 * the partition and the first record that failed, never the secret.
 *
 * <p>Fail closed: a broker without a state secret refuses every client write to the topic, and a
 * check that throws refuses the write.
 *
 * <p>Thread-safe; runs on request handler threads.
 */
public final class StateTopicGuard {

  private static final Logger LOG =
      LoggerFactory.getLogger("dev.kafkamirror.broker.agent.StateTopicGuard");

  private static final AtomicLong refused = new AtomicLong();
  private static volatile String lastRefusal;

  private StateTopicGuard() {}

  /** Entry of {@code UnifiedLog.appendAsLeader}. */
  public static void checkStateTopicWrite(
      UnifiedLog log, MemoryRecords records, AppendOrigin origin) {
    if (origin != AppendOrigin.CLIENT) {
      return;
    }
    String stateTopic = StateRecordAuth.configuredTopic();
    if (stateTopic == null || !stateTopic.equals(log.topicPartition().topic())) {
      return;
    }
    String reason;
    try {
      reason = firstUnverified(stateTopic, log.topicPartition().partition(), records).orElse(null);
    } catch (Throwable t) {
      reason = "the records could not be checked: " + t;
    }
    if (reason == null) {
      return;
    }
    refused.incrementAndGet();
    String message =
        "refusing a client write to "
            + log.topicPartition()
            + ": only the cluster mirror plugin writes the stop-state topic "
            + stateTopic
            + " and "
            + reason;
    lastRefusal = message;
    LOG.error(message);
    throw new RecordValidationException(new InvalidRecordException(message), List.of());
  }

  static Optional<String> firstUnverified(String stateTopic, int partition, MemoryRecords records) {
    Optional<StateRecordAuth> auth = StateRecordAuth.configured();
    if (auth.isEmpty()) {
      return Optional.of("this broker cannot verify any: " + StateRecordAuth.unavailableReason());
    }
    for (RecordBatch batch : records.batches()) {
      if (batch.isControlBatch()) {
        return Optional.of("the batch at offset " + batch.baseOffset() + " is a control batch");
      }
      int index = 0;
      for (Record record : batch) {
        Header mac = null;
        for (Header h : record.headers()) {
          if (StateRecordAuth.HEADER.equals(h.key())) {
            mac = h;
          }
        }
        Optional<String> bad =
            auth.get()
                .check(
                    stateTopic,
                    partition,
                    bytes(record.key()),
                    bytes(record.value()),
                    mac == null ? null : mac.value());
        if (bad.isPresent()) {
          return Optional.of("record " + index + " of the batch does not verify: " + bad.get());
        }
        index++;
      }
    }
    return Optional.empty();
  }

  private static byte[] bytes(ByteBuffer buffer) {
    if (buffer == null) {
      return null;
    }
    byte[] out = new byte[buffer.remaining()];
    buffer.duplicate().get(out);
    return out;
  }

  /** Client writes to the state topic this broker refused, for describe. */
  public static long refusedWrites() {
    return refused.get();
  }

  /** The last refusal's message, if any. */
  public static Optional<String> lastRefusal() {
    return Optional.ofNullable(lastRefusal);
  }
}
