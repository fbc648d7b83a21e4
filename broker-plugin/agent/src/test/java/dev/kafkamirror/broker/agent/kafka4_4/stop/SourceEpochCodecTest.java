package dev.kafkamirror.broker.agent.kafka4_4.stop;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.kafkamirror.broker.core.mirror.SourceEpochHistory;
import dev.kafkamirror.broker.core.stop.StopStateKey;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.Test;

class SourceEpochCodecTest {

  private static final StopStateKey KEY = new StopStateKey("a-to-b", "Zm9vYmFyYmF6cXV4MTIzNA", 7);
  private static final String WHERE = "__cluster_mirror_state-3@42";

  @Test
  void aHistoryReadsBackAsWrittenAndIsKeyedLikeTheStopState() throws Exception {
    SourceEpochHistory history =
        SourceEpochHistory.of(
            List.of(new SourceEpochHistory.Entry(0, 0), new SourceEpochHistory.Entry(4, 100)));
    byte[] key = SourceEpochCodec.key(KEY);
    assertThat(MembershipCodec.kindOf(key)).isEqualTo(SourceEpochCodec.KIND);
    SourceEpochCodec.Decoded d =
        SourceEpochCodec.decode(key, SourceEpochCodec.value("orders", 6, 2, history, 5L), WHERE);
    assertThat(d.key()).isEqualTo(KEY);
    assertThat(d.topic()).isEqualTo("orders");
    assertThat(d.leaderEpoch()).isEqualTo(6);
    assertThat(d.recordedAtMs()).isEqualTo(5L);
    assertThat(d.history()).isEqualTo(history);
  }

  @Test
  void aHistoryThatDoesNotIncreaseOrIsMalformedIsATypedErrorNamingWhere() {
    byte[] key = SourceEpochCodec.key(KEY);
    byte[] backwards =
        "{\"v\":0,\"topic\":\"orders\",\"leaderEpoch\":1,\"epochs\":[[4,0],[2,10]]}"
            .getBytes(StandardCharsets.UTF_8);
    assertThatThrownBy(() -> SourceEpochCodec.decode(key, backwards, WHERE))
        .isInstanceOf(StopStateCodec.StopStateFormatException.class)
        .hasMessageContaining(WHERE)
        .hasMessageContaining("strictly increase");
    byte[] notPairs =
        "{\"v\":0,\"topic\":\"orders\",\"leaderEpoch\":1,\"epochs\":[[4]]}"
            .getBytes(StandardCharsets.UTF_8);
    assertThatThrownBy(() -> SourceEpochCodec.decode(key, notPairs, WHERE))
        .hasMessageContaining("not [epoch, offset]");
  }

  @Test
  void aHistoryOfAnotherVersionIsATypedErrorNamingWhereAndThePart() {
    byte[] value =
        "{\"v\":2,\"topic\":\"orders\",\"leaderEpoch\":1,\"epochs\":[[4,0]]}"
            .getBytes(StandardCharsets.UTF_8);
    assertThatThrownBy(() -> SourceEpochCodec.decode(SourceEpochCodec.key(KEY), value, WHERE))
        .isInstanceOf(StopStateCodec.StopStateFormatException.class)
        .hasMessageContaining(WHERE)
        .hasMessageContaining("source-epoch value has version 2");
  }
}
