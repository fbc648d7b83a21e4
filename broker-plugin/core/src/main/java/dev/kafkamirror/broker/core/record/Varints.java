package dev.kafkamirror.broker.core.record;

import java.nio.BufferUnderflowException;
import java.nio.ByteBuffer;

/**
 * Kafka's variable-length integers: unsigned varints (LEB128, at most 5 bytes for an int) for
 * flexible-version messages, and zig-zag signed varints/varlongs for the fields of a v2 record.
 */
final class Varints {

  private Varints() {}

  static int sizeOfUnsignedVarint(int value) {
    int bytes = 1;
    while ((value & 0xffffff80) != 0) {
      bytes++;
      value >>>= 7;
    }
    return bytes;
  }

  static void writeUnsignedVarint(int value, ByteBuffer out) {
    while ((value & 0xffffff80) != 0) {
      out.put((byte) ((value & 0x7f) | 0x80));
      value >>>= 7;
    }
    out.put((byte) value);
  }

  /**
   * Reads an unsigned varint that must fit a non-negative int.
   *
   * @throws IllegalArgumentException when it is longer than 5 bytes or exceeds {@link
   *     Integer#MAX_VALUE}
   * @throws BufferUnderflowException when the buffer ends inside it
   */
  static int readUnsignedVarint(ByteBuffer in) {
    long value = 0;
    for (int shift = 0; shift < 35; shift += 7) {
      byte b = in.get();
      value |= (long) (b & 0x7f) << shift;
      if ((b & 0x80) == 0) {
        if (value > Integer.MAX_VALUE) {
          throw new IllegalArgumentException(
              "unsigned varint " + value + " exceeds Integer.MAX_VALUE");
        }
        return (int) value;
      }
    }
    throw new IllegalArgumentException("unsigned varint longer than 5 bytes");
  }

  static int sizeOfVarint(int value) {
    return sizeOfUnsignedVarint((value << 1) ^ (value >> 31));
  }

  static void writeVarint(int value, ByteBuffer out) {
    writeUnsignedVarint((value << 1) ^ (value >> 31), out);
  }

  static int sizeOfVarlong(long value) {
    long v = (value << 1) ^ (value >> 63);
    int bytes = 1;
    while ((v & 0xffffffffffffff80L) != 0L) {
      bytes++;
      v >>>= 7;
    }
    return bytes;
  }

  static void writeVarlong(long value, ByteBuffer out) {
    long v = (value << 1) ^ (value >> 63);
    while ((v & 0xffffffffffffff80L) != 0L) {
      out.put((byte) ((v & 0x7f) | 0x80));
      v >>>= 7;
    }
    out.put((byte) v);
  }
}
