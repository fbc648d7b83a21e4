package dev.kafkamirror.operator.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.kafkamirror.operator.core.GroupOffsetPlanner.DestinationGroup;
import dev.kafkamirror.operator.core.GroupOffsetPlanner.GroupDecision;
import dev.kafkamirror.operator.core.GroupOffsetPlanner.LogRange;
import dev.kafkamirror.operator.core.GroupOffsetPlanner.Outcome;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

class GroupOffsetPlannerTest {

  private static final PartitionKey P0 = new PartitionKey("orders", 0);
  private static final PartitionKey P1 = new PartitionKey("orders", 1);
  private static final PartitionKey P2 = new PartitionKey("orders", 2);
  private static final DestinationGroup EMPTY = new DestinationGroup("EMPTY", 0);
  private static final Map<PartitionKey, LogRange> RANGES =
      Map.of(P0, new LogRange(0, 100), P1, new LogRange(0, 100), P2, new LogRange(0, 100));

  @Test
  void anIdleGroupGetsOnlyTheSourceCommitsTheDestinationLacks() {
    // Given a group committed at 10 and 20 on the source, at 10 on the destination, Empty there
    // When decided
    GroupDecision d =
        GroupOffsetPlanner.decide(
            "g", Map.of(P0, 10L, P1, 20L), Map.of(P0, 10L), EMPTY, RANGES, Set.of(P0, P1));

    // Then only the missing commit is written, nothing clamped, nothing behind afterwards
    assertThat(d.outcome()).isEqualTo(Outcome.WRITE);
    assertThat(d.writes()).containsExactly(Map.entry(P1, 20L));
    assertThat(d.clamped()).isEmpty();
    assertThat(d.partitionsBehind()).isZero();
  }

  @Test
  void nothingIsWrittenWhenTheDestinationAlreadyHoldsEveryCommit() {
    GroupDecision d =
        GroupOffsetPlanner.decide(
            "g",
            Map.of(P0, 10L, P1, 20L),
            Map.of(P0, 10L, P1, 20L),
            DestinationGroup.ABSENT,
            RANGES,
            Set.of(P0, P1));

    assertThat(d.outcome()).isEqualTo(Outcome.UNCHANGED);
    assertThat(d.writes()).isEmpty();
  }

  @Test
  void aGroupWithMembersOnTheDestinationIsNeverWrittenAndCountsWhatDiffers() {
    // Given a group with one member on the destination whose commits differ from the source's
    GroupDecision d =
        GroupOffsetPlanner.decide(
            "g",
            Map.of(P0, 10L, P1, 20L),
            Map.of(P0, 7L, P1, 20L),
            new DestinationGroup("STABLE", 1),
            RANGES,
            Set.of(P0, P1));

    // Then nothing is written and one partition is behind
    assertThat(d.outcome()).isEqualTo(Outcome.SKIPPED_ACTIVE);
    assertThat(d.writes()).isEmpty();
    assertThat(d.partitionsBehind()).isEqualTo(1);
  }

  @Test
  void aRebalancingOrUnknownGroupWithoutMembersCountsAsActive() {
    for (String state : List.of("PREPARING_REBALANCE", "UNKNOWN", "ASSIGNING", "RECONCILING")) {
      GroupDecision d =
          GroupOffsetPlanner.decide(
              "g", Map.of(P0, 10L), Map.of(), new DestinationGroup(state, 0), RANGES, Set.of(P0));
      assertThat(d.outcome()).as(state).isEqualTo(Outcome.SKIPPED_ACTIVE);
    }
    for (String state : List.of("EMPTY", "DEAD", "ABSENT")) {
      assertThat(new DestinationGroup(state, 0).idle()).as(state).isTrue();
    }
  }

  @Test
  void aCommitBeyondTheDestinationsLogEndIsClampedToItAndOneBelowItsStartToTheStart() {
    // Given the destination holds [5, 40] of P0 and [0, 100] of P1
    Map<PartitionKey, LogRange> ranges = Map.of(P0, new LogRange(5, 40), P1, new LogRange(0, 100));

    // When the source committed 60 on P0 (beyond the destination's end), or 3 (below its start)
    GroupDecision beyond =
        GroupOffsetPlanner.decide(
            "g", Map.of(P0, 60L, P1, 50L), Map.of(), EMPTY, ranges, Set.of(P0, P1));
    GroupDecision below =
        GroupOffsetPlanner.decide("g", Map.of(P0, 3L), Map.of(), EMPTY, ranges, Set.of(P0));

    // Then P0 is committed at the log end (40), resp. the log start (5), reported as clamped
    assertThat(beyond.writes()).containsExactly(Map.entry(P0, 40L), Map.entry(P1, 50L));
    assertThat(beyond.clamped()).containsExactly(P0);
    assertThat(beyond.partitionsBehind()).isEqualTo(1);
    assertThat(below.writes()).containsExactly(Map.entry(P0, 5L));
    assertThat(below.clamped()).containsExactly(P0);
  }

  @Test
  void aPartitionNotEligibleOrWithoutAKnownRangeIsNeverWritten() {
    // Given P1 is writable already (not eligible) and P2's range is unknown
    GroupDecision d =
        GroupOffsetPlanner.decide(
            "g",
            Map.of(P0, 10L, P1, 20L, P2, 30L),
            Map.of(),
            EMPTY,
            Map.of(P0, new LogRange(0, 100), P1, new LogRange(0, 100)),
            Set.of(P0, P2));

    assertThat(d.writes()).containsExactly(Map.entry(P0, 10L));
    assertThat(d.noRange()).containsExactly(P2);
    assertThat(d.partitionsBehind()).isEqualTo(1);
  }

  @Test
  void groupSelectionExcludeWinsAndNoIncludeSelectsNothing() {
    GroupSelector s = GroupSelector.of(List.of("app-.*", "billing"), List.of("app-test-.*"));
    assertThat(s.select(List.of("app-1", "app-test-1", "billing", "billing-2", "other")))
        .containsExactly("app-1", "billing");
    assertThat(GroupSelector.of(null, List.of(".*")).selectsAny()).isFalse();
    assertThat(GroupSelector.NONE.select(List.of("a"))).isEmpty();
  }

  @Test
  void aBadGroupPatternNamesTheFieldIndexAndPattern() {
    assertThatThrownBy(() -> GroupSelector.of(List.of("ok", "(unclosed"), null))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("spec.consumerGroups.include[1]")
        .hasMessageContaining("(unclosed");
  }
}
