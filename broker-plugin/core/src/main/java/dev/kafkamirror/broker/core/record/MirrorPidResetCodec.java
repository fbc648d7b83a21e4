package dev.kafkamirror.broker.core.record;

import dev.kafkamirror.broker.core.record.MalformedBarrierException.Reason;
import java.nio.BufferUnderflowException;
import java.nio.ByteBuffer;
import java.nio.CharBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CharsetDecoder;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;

/**
 * Encodes and decodes {@link MirrorPidResetRecord} values byte-compatibly with Kafka's
 * flexible-version message encoding, version 0:
 *
 * <pre>
 * Version          int16 (big-endian)
 * SourceClusterId  compact string: unsigned varint (length + 1), then UTF-8 bytes
 * tagged fields    unsigned varint count, then per field: unsigned varint tag, unsigned varint size, bytes
 * </pre>
 *
 * <p>Decoding is strict: every deviation gives a {@link MalformedBarrierException} naming the
 * record's position and a {@link Reason}; no other exception escapes. Unknown tagged fields are
 * skipped, as Kafka does, so a later writer may add optional fields without breaking this reader.
 *
 * <p>Stateless and thread-safe.
 */
public final class MirrorPidResetCodec {

  /** Kafka's limit on the length of a string field. */
  static final int MAX_STRING_LENGTH = 0x7fff;

  private MirrorPidResetCodec() {}

  /** The encoded value; a fresh buffer positioned at 0. */
  public static ByteBuffer encode(MirrorPidResetRecord record) {
    if (record.version() != MirrorPidResetRecord.CURRENT_VERSION) {
      throw new IllegalArgumentException(
          "cannot encode MirrorPidResetRecord version "
              + record.version()
              + "; this plugin writes version "
              + MirrorPidResetRecord.CURRENT_VERSION);
    }
    byte[] id = encodeUtf8(record.sourceClusterId());
    if (id.length > MAX_STRING_LENGTH) {
      throw new IllegalArgumentException(
          "sourceClusterId is "
              + id.length
              + " UTF-8 bytes long; Kafka strings hold at most "
              + MAX_STRING_LENGTH);
    }
    ByteBuffer out =
        ByteBuffer.allocate(
            2
                + Varints.sizeOfUnsignedVarint(id.length + 1)
                + id.length
                + Varints.sizeOfUnsignedVarint(0));
    out.putShort(record.version());
    Varints.writeUnsignedVarint(id.length + 1, out);
    out.put(id);
    Varints.writeUnsignedVarint(0, out);
    return out.flip();
  }

  /**
   * Decodes a value without moving {@code value}'s position.
   *
   * @param value the record's value, or null
   * @param position where the record sits, for the error message
   * @throws MalformedBarrierException when the value is not a valid version-0 record
   */
  public static MirrorPidResetRecord decode(ByteBuffer value, RecordPosition position)
      throws MalformedBarrierException {
    if (value == null) {
      throw new MalformedBarrierException(
          position, Reason.MISSING_VALUE, "the record has no value");
    }
    ByteBuffer in = value.duplicate();
    try {
      short version = in.getShort();
      if (version != MirrorPidResetRecord.CURRENT_VERSION) {
        throw new MalformedBarrierException(
            position,
            Reason.UNSUPPORTED_VERSION,
            "version "
                + version
                + ", this plugin reads version "
                + MirrorPidResetRecord.CURRENT_VERSION);
      }
      int lengthPlusOne = readUnsignedVarint(in, position, "SourceClusterId length");
      if (lengthPlusOne == 0) {
        throw new MalformedBarrierException(
            position, Reason.NULL_SOURCE_CLUSTER_ID, "SourceClusterId is null");
      }
      int length = lengthPlusOne - 1;
      if (length > MAX_STRING_LENGTH) {
        throw new MalformedBarrierException(
            position,
            Reason.TRUNCATED,
            "SourceClusterId length " + length + " exceeds " + MAX_STRING_LENGTH);
      }
      if (length > in.remaining()) {
        throw new MalformedBarrierException(
            position,
            Reason.TRUNCATED,
            "SourceClusterId needs " + length + " bytes, " + in.remaining() + " remain");
      }
      if (length == 0) {
        throw new MalformedBarrierException(
            position, Reason.EMPTY_SOURCE_CLUSTER_ID, "SourceClusterId is empty");
      }
      ByteBuffer idBytes = in.slice(in.position(), length);
      in.position(in.position() + length);
      String sourceClusterId = decodeUtf8(idBytes, position);
      skipTaggedFields(in, position);
      if (in.hasRemaining()) {
        throw new MalformedBarrierException(
            position, Reason.TRAILING_BYTES, in.remaining() + " bytes after the last field");
      }
      return new MirrorPidResetRecord(version, sourceClusterId);
    } catch (BufferUnderflowException e) {
      throw new MalformedBarrierException(
          position, Reason.TRUNCATED, "the value ends inside a field");
    }
  }

  private static byte[] encodeUtf8(String text) {
    try {
      ByteBuffer bytes =
          StandardCharsets.UTF_8
              .newEncoder()
              .onMalformedInput(CodingErrorAction.REPORT)
              .onUnmappableCharacter(CodingErrorAction.REPORT)
              .encode(CharBuffer.wrap(text));
      byte[] out = new byte[bytes.remaining()];
      bytes.get(out);
      return out;
    } catch (CharacterCodingException e) {
      throw new IllegalArgumentException(
          "sourceClusterId " + text + " is not valid Unicode (a lone surrogate?): " + e, e);
    }
  }

  private static void skipTaggedFields(ByteBuffer in, RecordPosition position)
      throws MalformedBarrierException {
    int count = readUnsignedVarint(in, position, "tagged field count");
    long previousTag = -1;
    for (int i = 0; i < count; i++) {
      int tag = readUnsignedVarint(in, position, "tag");
      if (tag <= previousTag) {
        throw new MalformedBarrierException(
            position,
            Reason.INVALID_TAGGED_FIELDS,
            "tag " + tag + " follows tag " + previousTag + "; tags must increase strictly");
      }
      previousTag = tag;
      int size = readUnsignedVarint(in, position, "size of tag " + tag);
      if (size > in.remaining()) {
        throw new MalformedBarrierException(
            position,
            Reason.TRUNCATED,
            "tagged field " + tag + " needs " + size + " bytes, " + in.remaining() + " remain");
      }
      in.position(in.position() + size);
    }
  }

  private static int readUnsignedVarint(ByteBuffer in, RecordPosition position, String what)
      throws MalformedBarrierException {
    try {
      return Varints.readUnsignedVarint(in);
    } catch (IllegalArgumentException e) {
      throw new MalformedBarrierException(
          position, Reason.INVALID_VARINT, what + ": " + e.getMessage());
    }
  }

  private static String decodeUtf8(ByteBuffer bytes, RecordPosition position)
      throws MalformedBarrierException {
    CharsetDecoder decoder =
        StandardCharsets.UTF_8
            .newDecoder()
            .onMalformedInput(CodingErrorAction.REPORT)
            .onUnmappableCharacter(CodingErrorAction.REPORT);
    try {
      CharBuffer chars = decoder.decode(bytes);
      return chars.toString();
    } catch (CharacterCodingException e) {
      throw new MalformedBarrierException(
          position, Reason.INVALID_UTF8, "SourceClusterId is not valid UTF-8: " + e);
    }
  }
}
