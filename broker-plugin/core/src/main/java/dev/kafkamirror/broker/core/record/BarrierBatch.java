package dev.kafkamirror.broker.core.record;

import java.nio.ByteBuffer;
import java.util.zip.CRC32C;

/**
 * Writes the {@code MIRROR_PID_RESET} barrier as a Kafka record batch, magic v2, in the wire and
 * log format every Kafka version since 0.11 reads:
 *
 * <ul>
 *   <li>a control batch (attribute bit 5), not transactional, no compression, CreateTime;
 *   <li>producer id -1, producer epoch -1, base sequence -1: the barrier belongs to no producer, so
 *       it never becomes an entry of the producer state it resets;
 *   <li>exactly one record: key {@code {version 0, type 7}}, value a {@link MirrorPidResetRecord},
 *       no headers;
 *   <li>a CRC-32C over everything from the attributes on, as Kafka checks it.
 * </ul>
 *
 * <p>Kafka's {@code MemoryRecordsBuilder} refuses control types it does not know, so the batch is
 * written here. The base offset is 0 and the partition leader epoch is -1: a leader append assigns
 * both.
 *
 * <p>Stateless and thread-safe.
 */
public final class BarrierBatch {

  static final int BASE_OFFSET_OFFSET = 0;
  static final int LENGTH_OFFSET = 8;
  static final int PARTITION_LEADER_EPOCH_OFFSET = 12;
  static final int MAGIC_OFFSET = 16;
  static final int CRC_OFFSET = 17;
  static final int ATTRIBUTES_OFFSET = 21;
  static final int RECORDS_OFFSET = 61;
  static final int LOG_OVERHEAD = 12;
  static final byte MAGIC_V2 = 2;
  static final short CONTROL_FLAG = 0x20;
  static final int NO_PARTITION_LEADER_EPOCH = -1;

  private BarrierBatch() {}

  /**
   * The barrier batch for {@code record}, created at {@code timestampMs}; a fresh buffer positioned
   * at 0.
   */
  public static ByteBuffer build(MirrorPidResetRecord record, long timestampMs) {
    ByteBuffer key = ControlRecordKey.encode(ControlRecordKey.MIRROR_PID_RESET);
    ByteBuffer value = MirrorPidResetCodec.encode(record);
    int bodySize =
        1 // record attributes
            + Varints.sizeOfVarlong(0L) // timestamp delta
            + Varints.sizeOfVarint(0) // offset delta
            + Varints.sizeOfVarint(key.remaining())
            + key.remaining()
            + Varints.sizeOfVarint(value.remaining())
            + value.remaining()
            + Varints.sizeOfVarint(0); // header count
    int recordSize = Varints.sizeOfVarint(bodySize) + bodySize;
    ByteBuffer batch = ByteBuffer.allocate(RECORDS_OFFSET + recordSize);

    batch.putLong(0L); // base offset
    batch.putInt(RECORDS_OFFSET + recordSize - LOG_OVERHEAD); // batch length
    batch.putInt(NO_PARTITION_LEADER_EPOCH);
    batch.put(MAGIC_V2);
    batch.putInt(0); // CRC, filled in below
    batch.putShort(
        CONTROL_FLAG); // attributes: control, no compression, CreateTime, not transactional
    batch.putInt(0); // last offset delta
    batch.putLong(timestampMs); // base timestamp
    batch.putLong(timestampMs); // max timestamp
    batch.putLong(-1L); // producer id
    batch.putShort((short) -1); // producer epoch
    batch.putInt(-1); // base sequence
    batch.putInt(1); // record count

    Varints.writeVarint(bodySize, batch);
    batch.put((byte) 0);
    Varints.writeVarlong(0L, batch);
    Varints.writeVarint(0, batch);
    Varints.writeVarint(key.remaining(), batch);
    batch.put(key);
    Varints.writeVarint(value.remaining(), batch);
    batch.put(value);
    Varints.writeVarint(0, batch);

    CRC32C crc = new CRC32C();
    crc.update(batch.array(), ATTRIBUTES_OFFSET, batch.capacity() - ATTRIBUTES_OFFSET);
    batch.putInt(CRC_OFFSET, (int) crc.getValue());
    return batch.flip();
  }
}
