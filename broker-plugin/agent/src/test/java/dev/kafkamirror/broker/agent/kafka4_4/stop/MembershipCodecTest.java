package dev.kafkamirror.broker.agent.kafka4_4.stop;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.kafkamirror.broker.core.stop.MirrorMembership;
import dev.kafkamirror.broker.core.stop.StopStateKey;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import org.junit.jupiter.api.Test;

class MembershipCodecTest {

  private static final String WHERE = "__cluster_mirror_state-3@42";
  private static final MirrorMembership M =
      new MirrorMembership(
          "Zm9vYmFyYmF6cXV4MTIzNA",
          7,
          "orders",
          "a-to-b",
          "src-id",
          2,
          Map.of("bootstrap.servers", "a:9092"),
          1_000L);

  @Test
  void aMembershipReadsBackAsWrittenAndIsTellableFromAStopStateKey() throws Exception {
    byte[] key = MembershipCodec.memberKey(M);
    assertThat(MembershipCodec.kindOf(key)).isEqualTo(MembershipCodec.MEMBER);
    assertThat(MembershipCodec.kindOf(StopStateCodec.encodeKey(M.stopStateKey(), 3))).isNull();
    MembershipCodec.Decoded d = MembershipCodec.decode(key, MembershipCodec.memberValue(M), WHERE);
    assertThat(d.member()).isEqualTo(M);
    assertThat(d.holderBroker()).isNull();
  }

  @Test
  void theSourceTopicIdReadsBackAndARecordWithoutOneHasNone() throws Exception {
    // Given a membership that records the source topic's id
    MirrorMembership withSource =
        new MirrorMembership(
            M.topicId(),
            7,
            "orders",
            "a-to-b",
            "src-id",
            2,
            Map.of(),
            1_000L,
            "c291cmNldG9waWNpZDEyMw");
    // Then it reads back as written, and one written without it reads back without it
    assertThat(
            MembershipCodec.decode(
                    MembershipCodec.memberKey(withSource),
                    MembershipCodec.memberValue(withSource),
                    WHERE)
                .member()
                .sourceTopicId())
        .isEqualTo("c291cmNldG9waWNpZDEyMw");
    assertThat(
            MembershipCodec.decode(
                    MembershipCodec.memberKey(M), MembershipCodec.memberValue(M), WHERE)
                .member()
                .sourceTopicId())
        .isNull();
  }

  @Test
  void aHolderRecordNamesTheBroker() throws Exception {
    byte[] key = MembershipCodec.holderKey(M, 3);
    assertThat(MembershipCodec.kindOf(key)).isEqualTo(MembershipCodec.HOLDER);
    MembershipCodec.Decoded d =
        MembershipCodec.decode(key, MembershipCodec.holderValue(M, 5L), WHERE);
    assertThat(d.member()).isNull();
    assertThat(d.holderBroker()).isEqualTo(3);
    assertThat(d.topicId()).isEqualTo(M.topicId());
    assertThat(d.partition()).isEqualTo(7);
  }

  @Test
  void aMembershipGoesToTheStatePartitionOfItsStopState() {
    StopStateKey key = new StopStateKey("a-to-b", M.topicId(), 7);
    assertThat(StopStateStore.partitionOf(M.stopStateKey(), 10))
        .isEqualTo(StopStateStore.partitionOf(key, 10));
  }

  @Test
  void anUnknownKindIsATypedErrorNamingWhereItWasRead() {
    byte[] key =
        "{\"v\":0,\"kind\":\"other\",\"mirror\":\"m\",\"topicId\":\"x\",\"partition\":0}"
            .getBytes(StandardCharsets.UTF_8);
    assertThatThrownBy(
            () ->
                MembershipCodec.decode(
                    key, "{\"v\":0,\"topic\":\"t\"}".getBytes(StandardCharsets.UTF_8), WHERE))
        .isInstanceOf(StopStateCodec.StopStateFormatException.class)
        .hasMessageContaining(WHERE)
        .hasMessageContaining("unknown record kind 'other'");
  }

  @Test
  void aMembershipRecordOfAnotherVersionIsATypedErrorNamingWhereAndThePart() {
    byte[] key =
        "{\"v\":0,\"kind\":\"member\",\"mirror\":\"m\",\"topicId\":\"x\",\"partition\":0}"
            .getBytes(StandardCharsets.UTF_8);
    assertThatThrownBy(
            () ->
                MembershipCodec.decode(
                    key, "{\"v\":1,\"topic\":\"t\"}".getBytes(StandardCharsets.UTF_8), WHERE))
        .isInstanceOf(StopStateCodec.StopStateFormatException.class)
        .hasMessageContaining(WHERE)
        .hasMessageContaining("membership value has version 1");
  }
}
