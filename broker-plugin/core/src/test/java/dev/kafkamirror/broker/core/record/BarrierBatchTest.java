package dev.kafkamirror.broker.core.record;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import org.apache.kafka.common.record.internal.ControlRecordType;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.MutableRecordBatch;
import org.apache.kafka.common.record.internal.Record;
import org.apache.kafka.common.record.internal.RecordBatch;
import org.junit.jupiter.api.Test;

/** The barrier batch, read back by Kafka 4.4's own record classes. */
class BarrierBatchTest {

  @Test
  void kafkaReadsTheBarrierAsAValidControlBatchWithoutProducer() throws Exception {
    // Given a barrier batch for source cluster "A-cluster"
    ByteBuffer bytes = BarrierBatch.build(MirrorPidResetRecord.of("A-cluster"), 1_700_000_000_000L);

    // When Kafka parses it
    MemoryRecords records = MemoryRecords.readableRecords(bytes);
    List<MutableRecordBatch> batches = new ArrayList<>();
    records.batches().forEach(batches::add);

    // Then it is one valid v2 control batch owned by no producer
    assertThat(batches).hasSize(1);
    MutableRecordBatch batch = batches.get(0);
    batch.ensureValid();
    assertThat(batch.magic()).isEqualTo(RecordBatch.MAGIC_VALUE_V2);
    assertThat(batch.isControlBatch()).isTrue();
    assertThat(batch.isTransactional()).isFalse();
    assertThat(batch.hasProducerId()).isFalse();
    assertThat(batch.producerId()).isEqualTo(RecordBatch.NO_PRODUCER_ID);
    assertThat(batch.producerEpoch()).isEqualTo(RecordBatch.NO_PRODUCER_EPOCH);
    assertThat(batch.baseSequence()).isEqualTo(RecordBatch.NO_SEQUENCE);
    assertThat(batch.maxTimestamp()).isEqualTo(1_700_000_000_000L);
    assertThat(batch.sizeInBytes()).isEqualTo(bytes.remaining());
    // And its one record has key {0, 7}, which Kafka 4.4 does not know, and our value
    List<Record> inside = new ArrayList<>();
    batch.forEach(inside::add);
    assertThat(inside).hasSize(1);
    Record record = inside.get(0);
    assertThat(ControlRecordType.parseTypeId(record.key())).isEqualTo((short) 7);
    assertThat(ControlRecordType.parse(record.key())).isEqualTo(ControlRecordType.UNKNOWN);
    assertThat(ControlRecordKey.isMirrorPidReset(record.key())).isTrue();
    assertThat(MirrorPidResetCodec.decode(record.value(), new RecordPosition("t", 0, 0)))
        .isEqualTo(MirrorPidResetRecord.of("A-cluster"));
    assertThat(record.headers()).isEmpty();
  }

  @Test
  void aFlippedBitFailsKafkasCrcCheck() {
    ByteBuffer bytes = BarrierBatch.build(MirrorPidResetRecord.of("A"), 0L);
    bytes.put(bytes.limit() - 3, (byte) (bytes.get(bytes.limit() - 3) ^ 0x01));
    MutableRecordBatch batch = MemoryRecords.readableRecords(bytes).batches().iterator().next();
    assertThat(batch.isValid()).isFalse();
  }

  @Test
  void onlyTypeSevenKeysAreBarriers() {
    assertThat(ControlRecordKey.isMirrorPidReset(ControlRecordType.ABORT.recordKey())).isFalse();
    assertThat(ControlRecordKey.isMirrorPidReset(ControlRecordType.COMMIT.recordKey())).isFalse();
    assertThat(ControlRecordKey.isMirrorPidReset(ControlRecordKey.encode((short) 7))).isTrue();
    assertThat(ControlRecordKey.isMirrorPidReset(ByteBuffer.wrap(new byte[] {0, 0, 0}))).isFalse();
    assertThat(ControlRecordKey.isMirrorPidReset(ByteBuffer.wrap(new byte[] {-1, -1, 0, 7})))
        .isFalse();
    assertThat(ControlRecordKey.isMirrorPidReset(null)).isFalse();
  }
}
