package dev.kafkamirror.broker.core.record;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.kafkamirror.broker.core.record.MalformedBarrierException.Reason;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import org.apache.kafka.common.protocol.ByteBufferAccessor;
import org.junit.jupiter.api.Test;

class MirrorPidResetCodecTest {

  private static final RecordPosition POSITION = new RecordPosition("orders", 3, 42L);

  @Test
  void encodesExactlyAsKafkasFlexibleMessageWriterWould() {
    // Given the bytes Kafka's own accessor writes for {int16 0, compact string, no tagged fields}
    String id = "kRuaeCniQ6C8P6rT2fHJ2A";
    ByteBuffer expected = ByteBuffer.allocate(64);
    ByteBufferAccessor kafka = new ByteBufferAccessor(expected);
    kafka.writeShort((short) 0);
    byte[] idBytes = id.getBytes(StandardCharsets.UTF_8);
    kafka.writeUnsignedVarint(idBytes.length + 1);
    kafka.writeByteArray(idBytes);
    kafka.writeUnsignedVarint(0);
    expected.flip();

    // When the codec encodes the same record
    ByteBuffer encoded = MirrorPidResetCodec.encode(MirrorPidResetRecord.of(id));

    // Then the bytes are identical
    assertThat(encoded).isEqualTo(expected);
  }

  @Test
  void decodesWhatItEncodesWithoutMovingTheBuffer() throws Exception {
    ByteBuffer encoded = MirrorPidResetCodec.encode(MirrorPidResetRecord.of("source-ä-☃"));
    int position = encoded.position();

    MirrorPidResetRecord decoded = MirrorPidResetCodec.decode(encoded, POSITION);

    assertThat(decoded).isEqualTo(MirrorPidResetRecord.of("source-ä-☃"));
    assertThat(encoded.position()).isEqualTo(position);
  }

  @Test
  void skipsUnknownTaggedFieldsInIncreasingOrder() throws Exception {
    // Given a value carrying two tagged fields this version does not know
    ByteBuffer value = ByteBuffer.allocate(64);
    value.putShort((short) 0);
    value.put((byte) 4).put("abc".getBytes(StandardCharsets.UTF_8));
    value.put((byte) 2); // two tagged fields
    value.put((byte) 1).put((byte) 2).put((byte) 9).put((byte) 9);
    value.put((byte) 5).put((byte) 0);
    value.flip();

    // When decoded, then the known fields come out and the tags are skipped
    assertThat(MirrorPidResetCodec.decode(value, POSITION))
        .isEqualTo(MirrorPidResetRecord.of("abc"));
  }

  @Test
  void rejectsRepeatedTagsAndTrailingBytesAndOtherVersionsNamingThePosition() {
    assertReason(bytes(0, 0, 4, 'a', 'b', 'c', 2, 1, 0, 1, 0), Reason.INVALID_TAGGED_FIELDS);
    assertReason(bytes(0, 0, 4, 'a', 'b', 'c', 0, 7), Reason.TRAILING_BYTES);
    assertReason(bytes(0, 1, 4, 'a', 'b', 'c', 0), Reason.UNSUPPORTED_VERSION);
    assertReason(bytes(0, 0, 0, 0), Reason.NULL_SOURCE_CLUSTER_ID);
    assertReason(bytes(0, 0, 1, 0), Reason.EMPTY_SOURCE_CLUSTER_ID);
    assertReason(bytes(0, 0, 3, 0xc3, 0x28, 0), Reason.INVALID_UTF8);
    assertReason(bytes(0, 0, 0xff, 0xff, 0xff, 0xff, 0x7f), Reason.INVALID_VARINT);
    assertReason(bytes(0, 0, 9, 'a'), Reason.TRUNCATED);
    assertReason(bytes(0), Reason.TRUNCATED);
    assertThatThrownBy(() -> MirrorPidResetCodec.decode(null, POSITION))
        .isInstanceOfSatisfying(
            MalformedBarrierException.class,
            e -> assertThat(e.reason()).isEqualTo(Reason.MISSING_VALUE));
  }

  @Test
  void refusesToEncodeABarrierWithoutSource() {
    assertThatThrownBy(() -> MirrorPidResetRecord.of(""))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("must name its source cluster");
  }

  @Test
  void refusesToEncodeALoneSurrogate() {
    assertThatThrownBy(() -> MirrorPidResetCodec.encode(MirrorPidResetRecord.of("a\ud800b")))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("not valid Unicode");
  }

  @Test
  void shippedSchemaMatchesTheCodec() throws Exception {
    try (InputStream in =
        MirrorPidResetRecord.class.getResourceAsStream("MirrorPidResetRecord.json")) {
      JsonNode schema = new ObjectMapper().readTree(in);
      assertThat(schema.get("name").asText()).isEqualTo("MirrorPidResetRecord");
      assertThat(schema.get("type").asText()).isEqualTo("data");
      assertThat(schema.get("validVersions").asText()).isEqualTo("0");
      assertThat(schema.get("flexibleVersions").asText()).isEqualTo("0+");
      assertThat(schema.get("fields")).hasSize(2);
      assertThat(schema.get("fields").get(0).get("name").asText()).isEqualTo("Version");
      assertThat(schema.get("fields").get(0).get("type").asText()).isEqualTo("int16");
      assertThat(schema.get("fields").get(1).get("name").asText()).isEqualTo("SourceClusterId");
      assertThat(schema.get("fields").get(1).get("type").asText()).isEqualTo("string");
    }
  }

  private static void assertReason(ByteBuffer value, Reason reason) {
    assertThatThrownBy(() -> MirrorPidResetCodec.decode(value, POSITION))
        .isInstanceOfSatisfying(
            MalformedBarrierException.class,
            e -> {
              assertThat(e.reason()).isEqualTo(reason);
              assertThat(e.getMessage())
                  .contains("topic=orders")
                  .contains("partition=3")
                  .contains("offset=42");
            });
  }

  private static ByteBuffer bytes(int... values) {
    ByteBuffer buffer = ByteBuffer.allocate(values.length);
    for (int v : values) {
      buffer.put((byte) v);
    }
    return buffer.flip();
  }
}
