package dev.kafkamirror.broker.agent.kafka4_4;

import dev.kafkamirror.broker.core.producerstate.BatchSummary;
import dev.kafkamirror.broker.core.record.ControlRecordKey;
import dev.kafkamirror.broker.core.record.MalformedBarrierException;
import dev.kafkamirror.broker.core.record.MirrorPidResetCodec;
import dev.kafkamirror.broker.core.record.MirrorPidResetRecord;
import dev.kafkamirror.broker.core.record.RecordPosition;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.record.internal.Record;
import org.apache.kafka.common.record.internal.RecordBatch;
import org.apache.kafka.common.record.internal.Records;

/** Reads Kafka 4.4 record batches for the barrier rule. Stateless. */
final class KafkaBatches {

  private KafkaBatches() {}

  /**
   * Whether {@code batch} is a MIRROR_PID_RESET barrier: a control batch whose first record has key
   * type 7.
   */
  static boolean isBarrier(RecordBatch batch) {
    if (!batch.isControlBatch()) {
      return false;
    }
    Iterator<Record> records = batch.iterator();
    return records.hasNext() && ControlRecordKey.isMirrorPidReset(records.next().key());
  }

  static BatchSummary summarize(RecordBatch batch) {
    return new BatchSummary(
        batch.baseOffset(),
        batch.lastOffset(),
        batch.sizeInBytes(),
        batch.producerId(),
        batch.isControlBatch(),
        isBarrier(batch));
  }

  static List<BatchSummary> summarize(Records records) {
    List<BatchSummary> out = new ArrayList<>();
    for (RecordBatch batch : records.batches()) {
      out.add(summarize(batch));
    }
    return out;
  }

  static boolean containsControlBatch(Records records) {
    for (RecordBatch batch : records.batches()) {
      if (batch.isControlBatch()) {
        return true;
      }
    }
    return false;
  }

  static boolean containsBarrier(Records records) {
    for (RecordBatch batch : records.batches()) {
      if (isBarrier(batch)) {
        return true;
      }
    }
    return false;
  }

  /** The barrier's value, or the reason it cannot be read. */
  static Decoded decode(RecordBatch barrier, TopicPartition tp) {
    Iterator<Record> records = barrier.iterator();
    RecordPosition position = new RecordPosition(tp.topic(), tp.partition(), barrier.baseOffset());
    if (!records.hasNext()) {
      return new Decoded(null, "barrier batch at " + position + " holds no record");
    }
    try {
      MirrorPidResetRecord value = MirrorPidResetCodec.decode(records.next().value(), position);
      return new Decoded(value, null);
    } catch (MalformedBarrierException e) {
      return new Decoded(null, e.getMessage());
    }
  }

  /** A decoded barrier value, or why it could not be decoded. */
  record Decoded(MirrorPidResetRecord value, String malformed) {}
}
