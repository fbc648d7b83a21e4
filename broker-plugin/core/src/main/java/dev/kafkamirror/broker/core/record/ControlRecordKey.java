package dev.kafkamirror.broker.core.record;

import java.nio.ByteBuffer;
import java.util.OptionalInt;

/**
 * The key of a Kafka control record: {@code Version int16, Type int16}, big-endian, 4 bytes. Types
 * 0 to 6 are Kafka's (ABORT, COMMIT, LEADER_CHANGE, SNAPSHOT_HEADER, SNAPSHOT_FOOTER,
 * KRAFT_VERSION, KRAFT_VOTERS); this plugin adds {@value #MIRROR_PID_RESET}. A Kafka 4.4 client
 * parses type 7 as {@code UNKNOWN} and skips the batch, like every control batch.
 */
public final class ControlRecordKey {

  /** The control record type of the mirror PID reset barrier. */
  public static final short MIRROR_PID_RESET = 7;

  /** The key version this plugin writes. Readers accept any non-negative version, as Kafka does. */
  public static final short CURRENT_KEY_VERSION = 0;

  /** Size of the key in bytes. */
  public static final int SIZE_BYTES = 4;

  private ControlRecordKey() {}

  /** The 4-byte key {@code {CURRENT_KEY_VERSION, type}}. */
  public static ByteBuffer encode(short type) {
    ByteBuffer key = ByteBuffer.allocate(SIZE_BYTES);
    key.putShort(CURRENT_KEY_VERSION);
    key.putShort(type);
    return key.flip();
  }

  /**
   * The control type of {@code key}, read without moving its position; empty when the key is too
   * short or its version is negative (Kafka rejects those too).
   */
  public static OptionalInt typeOf(ByteBuffer key) {
    if (key == null || key.remaining() < SIZE_BYTES) {
      return OptionalInt.empty();
    }
    short version = key.getShort(key.position());
    if (version < 0) {
      return OptionalInt.empty();
    }
    return OptionalInt.of(key.getShort(key.position() + 2));
  }

  /** True when {@code key} is the key of a {@code MIRROR_PID_RESET} record. */
  public static boolean isMirrorPidReset(ByteBuffer key) {
    OptionalInt type = typeOf(key);
    return type.isPresent() && type.getAsInt() == MIRROR_PID_RESET;
  }
}
