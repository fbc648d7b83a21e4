package dev.kafkamirror.operator.core;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

class PartitionGrowthPlannerTest {

  @Test
  void aTopicTheSourceGrewIsGrownToTheSourcesCountAndListedUntilThen() {
    // Given orders with 5 partitions on the source and 2 on the destination, payments in line
    Map<String, Integer> source = Map.of("orders", 5, "payments", 3);
    Map<String, Integer> destination = Map.of("orders", 2, "payments", 3);

    // When the growth is planned while mirroring
    PartitionGrowthPlanner.Plan plan =
        PartitionGrowthPlanner.plan(source, destination, Set.of(), false);

    // Then orders is grown to 5, and partitions 2..4 are pending with both counts named
    assertThat(plan.grow()).containsExactly(Map.entry("orders", 5));
    assertThat(plan.pending()).hasSize(1);
    PartitionGrowthPlanner.Pending p = plan.pending().get(0);
    assertThat(p.range()).isEqualTo("2..4");
    assertThat(p.describe())
        .contains("topic orders partitions 2..4 (source has 5, destination 2)")
        .contains("being added");
  }

  @Test
  void aStopNeverAddsPartitionsButStillNamesTheOnesItDoesNotCarryOver() {
    // Given orders grown from 2 to 3 on the source
    Map<String, Integer> source = Map.of("orders", 3);
    Map<String, Integer> destination = Map.of("orders", 2);

    // When the growth is planned while a stop is wanted
    PartitionGrowthPlanner.Plan plan =
        PartitionGrowthPlanner.plan(source, destination, Set.of(), true);

    // Then nothing is added, and partition 2 is listed as held by the stop
    assertThat(plan.grow()).isEmpty();
    assertThat(plan.pending()).hasSize(1);
    assertThat(plan.pending().get(0).range()).isEqualTo("2");
    assertThat(plan.pending().get(0).describe())
        .startsWith("topic orders partition 2 (source has 3, destination 2)")
        .contains("a stop never adds partitions");
  }

  @Test
  void aTopicWithStoppedPartitionsIsNeverGrown() {
    // Given orders failed over (a partition STOPPED) and grown on the source, payments not
    Map<String, Integer> source = Map.of("orders", 4, "payments", 4);
    Map<String, Integer> destination = Map.of("orders", 2, "payments", 2);

    // When the growth is planned while mirroring
    PartitionGrowthPlanner.Plan plan =
        PartitionGrowthPlanner.plan(source, destination, Set.of("orders"), false);

    // Then only payments grows; orders is listed, held by its stopped partitions
    assertThat(plan.grow()).containsExactly(Map.entry("payments", 4));
    assertThat(plan.pending())
        .extracting(PartitionGrowthPlanner.Pending::topic)
        .containsExactly("orders", "payments");
    assertThat(plan.pending().get(0).why()).contains("STOPPED or STOPPING");
  }

  @Test
  void aDestinationWithAsManyOrMorePartitionsOrNoTopicYetIsLeftAlone() {
    // Given a topic in line, one the destination has more of, one it does not have yet
    Map<String, Integer> source = Map.of("a", 3, "b", 2, "c", 6);
    Map<String, Integer> destination = Map.of("a", 3, "b", 4);

    // When the growth is planned
    PartitionGrowthPlanner.Plan plan =
        PartitionGrowthPlanner.plan(source, destination, Set.of(), false);

    // Then nothing is grown (never shrunk; a missing topic is created elsewhere) nor pending
    assertThat(plan.grow()).isEmpty();
    assertThat(plan.pending()).isEmpty();
  }
}
