package dev.kafkamirror.broker.agent.kafka4_4.stop;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.kafkamirror.broker.core.stop.StopState;
import dev.kafkamirror.broker.core.stop.StopStateKey;
import dev.kafkamirror.broker.core.stop.StopStep;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

class StopStateCodecTest {

  private static final StopStateKey KEY = new StopStateKey("a-to-b", "Zm9vYmFyYmF6cXV4MTIzNA", 7);
  private static final String WHERE = "__cluster_mirror_state-3@42";

  @Test
  void aStateReadsBackAsWritten() throws Exception {
    StopState written =
        StopState.fetchersRemoved(KEY, "orders", 5, 2, 1_000L)
            .withTruncateTarget(120L)
            .withTruncatedTo(120L, 4)
            .withMirroredEnd(120L, "src-id")
            .withBarrier(120L)
            .advance(StopStep.STOPPED, 6, 3, 2_000L);
    StopStateCodec.VersionedKey key =
        StopStateCodec.decodeKey(StopStateCodec.encodeKey(KEY, 6), WHERE);
    assertThat(key.key()).isEqualTo(KEY);
    assertThat(key.leaderEpoch()).isEqualTo(6);
    assertThat(StopStateCodec.decodeValue(key, StopStateCodec.encodeValue(written), WHERE))
        .isEqualTo(written);
  }

  @Test
  void theSourceEpochOfTheLastMirroredBatchReadsBackAndOldRecordsWithoutItStillDecode()
      throws Exception {
    // Given a persisted last mirrored offset with the source's epoch of its batch
    StopState persisted =
        StopState.fetchersRemoved(KEY, "orders", 5, 2, 1_000L)
            .withTruncateTarget(150L)
            .withTruncatedTo(150L, 5)
            .withMirroredEnd(150L, "src-id")
            .withMirroredSourceEpoch(9)
            .advance(StopStep.OFFSETS_PERSISTED, 5, 2, 2_000L);
    StopStateCodec.VersionedKey key = new StopStateCodec.VersionedKey(KEY, 5);
    // Then it reads back with the source epoch
    StopState read = StopStateCodec.decodeValue(key, StopStateCodec.encodeValue(persisted), WHERE);
    assertThat(read).isEqualTo(persisted);
    assertThat(read.lastMirroredSourceEpoch()).isEqualTo(9);
    // And a record written before the field existed decodes with -1 (unknown)
    byte[] old =
        ("{\"v\":0,\"topic\":\"orders\",\"writerBrokerId\":1,\"step\":\"OFFSETS_PERSISTED\","
                + "\"truncateTargetOffset\":5,\"truncatedToOffset\":5,\"lastMirroredOffset\":5,"
                + "\"lastMirroredEpoch\":0,\"barrierOffset\":-1,\"sourceClusterId\":\"s\","
                + "\"updatedAtMs\":0}")
            .getBytes(StandardCharsets.UTF_8);
    StopState decodedOld = StopStateCodec.decodeValue(key, old, WHERE);
    assertThat(decodedOld.lastMirroredSourceEpoch()).isEqualTo(-1);
    assertThat(decodedOld.lastMirroredOffset()).isEqualTo(5L);
  }

  @Test
  void anUnknownVersionIsATypedErrorNamingWhereItWasRead() {
    byte[] key =
        "{\"v\":1,\"mirror\":\"m\",\"topicId\":\"x\",\"partition\":0,\"leaderEpoch\":1}"
            .getBytes(StandardCharsets.UTF_8);
    assertThatThrownBy(() -> StopStateCodec.decodeKey(key, WHERE))
        .isInstanceOf(StopStateCodec.StopStateFormatException.class)
        .hasMessageContaining(WHERE)
        .hasMessageContaining("version 1");
  }

  @Test
  void aValueWithAnUnknownStepOrMissingFieldIsRefused() {
    StopStateCodec.VersionedKey key = new StopStateCodec.VersionedKey(KEY, 1);
    byte[] unknownStep =
        ("{\"v\":0,\"topic\":\"orders\",\"writerBrokerId\":1,\"step\":\"HALFWAY\","
                + "\"truncateTargetOffset\":-1,\"truncatedToOffset\":-1,\"lastMirroredOffset\":-1,"
                + "\"lastMirroredEpoch\":-1,\"barrierOffset\":-1,\"updatedAtMs\":0}")
            .getBytes(StandardCharsets.UTF_8);
    assertThatThrownBy(() -> StopStateCodec.decodeValue(key, unknownStep, WHERE))
        .hasMessageContaining("unknown step 'HALFWAY'")
        .hasMessageContaining(WHERE);
    byte[] barrierWithoutOffset =
        ("{\"v\":0,\"topic\":\"orders\",\"writerBrokerId\":1,\"step\":\"BARRIER_WRITTEN\","
                + "\"truncateTargetOffset\":5,\"truncatedToOffset\":5,\"lastMirroredOffset\":5,"
                + "\"lastMirroredEpoch\":0,\"barrierOffset\":-1,\"sourceClusterId\":\"s\","
                + "\"updatedAtMs\":0}")
            .getBytes(StandardCharsets.UTF_8);
    assertThatThrownBy(() -> StopStateCodec.decodeValue(key, barrierWithoutOffset, WHERE))
        .hasMessageContaining("needs barrierOffset");
    assertThatThrownBy(
            () ->
                StopStateCodec.decodeValue(key, "not json".getBytes(StandardCharsets.UTF_8), WHERE))
        .hasMessageContaining("not JSON");
  }

  @Test
  void everyRecordOfOnePartitionLandsInOneStatePartition() {
    int first = StopStateStore.partitionOf(KEY, 10);
    for (int i = 0; i < 5; i++) {
      assertThat(StopStateStore.partitionOf(new StopStateKey("a-to-b", KEY.topicId(), 7), 10))
          .isEqualTo(first);
    }
    assertThat(first).isBetween(0, 9);
  }
}
