package dev.kafkamirror.broker.core.stop;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Map;
import org.junit.jupiter.api.Test;

class MembershipTableTest {

  private static MirrorMembership member(String topicId, String mirror) {
    return new MirrorMembership(
        topicId, 0, "orders", mirror, "src", 1, Map.of("bootstrap.servers", "a:9092"), 0L);
  }

  private static MirrorMembership member(String topicId, String mirror, int generation) {
    return new MirrorMembership(
        topicId,
        0,
        "orders",
        mirror,
        "src",
        1,
        Map.of("bootstrap.servers", "a:9092"),
        0L,
        null,
        generation);
  }

  @Test
  void aFailbackGenerationReplacesTheStoppedMembershipWhateverOrderTheRecordsAreReadIn() {
    // Given orders-0 was a member of m1, then (failbacks) of m3 at generation 1 and m5 at 2
    MirrorMembership m1 = member("T1", "m1", 0);
    MirrorMembership m3 = member("T1", "m3", 1);
    MirrorMembership m5 = member("T1", "m5", 2);
    for (java.util.List<MirrorMembership> order :
        java.util.List.of(
            java.util.List.of(m1, m3, m5),
            java.util.List.of(m5, m1, m3),
            java.util.List.of(m1, m5, m3),
            java.util.List.of(m3, m5, m1))) {
      // When a reader folds them in this order
      MembershipTable table = new MembershipTable();
      order.forEach(table::apply);
      // Then the highest generation is the member, and another mirror of the same generation is
      // still refused
      assertThat(table.member("T1", 0)).as(order.toString()).contains(m5);
      assertThat(table.apply(member("T1", "intruder", 2))).isPresent();
      assertThat(table.member("T1", 0)).contains(m5);
    }
  }

  @Test
  void theFirstMembershipOfAPartitionWinsAndAnotherMirrorIsReported() {
    // Given orders-0 recorded as a member of m1
    MembershipTable table = new MembershipTable();
    assertThat(table.apply(member("T1", "m1"))).isEmpty();
    // When a record names it a member of m2
    // Then it is ignored and reported, and the partition stays a member of m1
    assertThat(table.apply(member("T1", "m2")))
        .get()
        .asString()
        .contains("already a member of mirror m1");
    assertThat(table.member("T1", 0))
        .get()
        .extracting(MirrorMembership::mirrorName)
        .isEqualTo("m1");
    // And the same record again changes nothing
    assertThat(table.apply(member("T1", "m1"))).isEmpty();
    assertThat(table.membersNamed("orders", 0)).hasSize(1);
  }

  @Test
  void aTopicCreatedAgainUnderTheSameNameIsADifferentPartition() {
    MembershipTable table = new MembershipTable();
    table.apply(member("T1", "m1"));
    assertThat(table.member("T2", 0)).isEmpty();
    assertThat(table.membersNamed("orders", 0))
        .extracting(MirrorMembership::topicId)
        .containsExactly("T1");
    assertThat(table.membersNamed("orders", 1)).isEmpty();
  }

  @Test
  void holdersAccumulatePerTopicIdAndPartition() {
    MembershipTable table = new MembershipTable();
    table.applyHolder("T1", 0, 2);
    table.applyHolder("T1", 0, 1);
    table.applyHolder("T1", 0, 2);
    table.applyHolder("T2", 0, 3);
    assertThat(table.holders("T1", 0)).containsExactly(1, 2);
    assertThat(table.isHolder("T1", 0, 3)).isFalse();
    assertThat(table.holders("T1", 1)).isEmpty();
  }
}
