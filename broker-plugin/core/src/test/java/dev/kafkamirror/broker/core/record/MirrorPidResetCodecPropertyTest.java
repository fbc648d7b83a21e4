package dev.kafkamirror.broker.core.record;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.ByteBuffer;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.constraints.Size;

/** Property tests of the value codec: round trips, and only typed errors for broken input. */
class MirrorPidResetCodecPropertyTest {

  private static final RecordPosition POSITION = new RecordPosition("t", 0, 7L);

  @Provide
  Arbitrary<String> clusterIds() {
    return Arbitraries.strings()
        .ofMinLength(1)
        .ofMaxLength(300)
        .all()
        .filter(s -> s.codePoints().noneMatch(c -> Character.getType(c) == Character.SURROGATE));
  }

  @Property(tries = 500)
  void roundTrips(@ForAll("clusterIds") String id) throws Exception {
    ByteBuffer encoded = MirrorPidResetCodec.encode(MirrorPidResetRecord.of(id));
    assertThat(MirrorPidResetCodec.decode(encoded, POSITION))
        .isEqualTo(MirrorPidResetRecord.of(id));
  }

  @Property(tries = 500)
  void everyTruncationIsATypedError(
      @ForAll("clusterIds") String id, @ForAll @IntRange(min = 0, max = 10_000) int cut) {
    ByteBuffer encoded = MirrorPidResetCodec.encode(MirrorPidResetRecord.of(id));
    int length = cut % encoded.remaining();
    ByteBuffer truncated = encoded.slice(0, length);
    assertThatThrownBy(() -> MirrorPidResetCodec.decode(truncated, POSITION))
        .isInstanceOf(MalformedBarrierException.class);
  }

  @Property(tries = 2_000)
  void everyByteCorruptionDecodesOrIsATypedError(
      @ForAll("clusterIds") String id,
      @ForAll @IntRange(min = 0, max = 10_000) int where,
      @ForAll byte replacement) {
    ByteBuffer encoded = MirrorPidResetCodec.encode(MirrorPidResetRecord.of(id));
    int index = where % encoded.remaining();
    encoded.put(index, replacement);
    assertDecodesOrTypedError(encoded);
  }

  @Property(tries = 2_000)
  void arbitraryBytesNeverEscapeAsAnUntypedException(@ForAll @Size(max = 64) byte[] bytes) {
    assertDecodesOrTypedError(ByteBuffer.wrap(bytes));
  }

  private static void assertDecodesOrTypedError(ByteBuffer value) {
    try {
      MirrorPidResetRecord record = MirrorPidResetCodec.decode(value, POSITION);
      assertThat(record.sourceClusterId()).isNotEmpty();
    } catch (MalformedBarrierException e) {
      assertThat(e.position()).isEqualTo(POSITION);
      assertThat(e.reason()).isNotNull();
    }
  }
}
