package dev.kafkamirror.operator.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

class MetadataRequestPlannerTest {

  @Test
  void aTopicWiderThanOneRequestIsCreatedWithWhatFitsAndGrownInSteps() {
    // Given a topic of 25,000 partitions created with 2 configs, 9,000 records per request
    Map<String, Integer> targets = Map.of("wide", 25_000);

    // When its creation is planned
    MetadataRequestPlanner.Plan plan =
        MetadataRequestPlanner.forCreation(targets, Map.of("wide", 2), 9_000);

    // Then it is created with 8,997 partitions (1 topic record + 2 config records + 8,997 = 9,000)
    // and raised to 17,997, then to 25,000
    assertThat(plan.creates()).containsExactly(Map.of("wide", 8_997));
    assertThat(plan.grows()).containsExactly(Map.of("wide", 17_997), Map.of("wide", 25_000));
  }

  @Test
  void manyTopicsArePackedIntoRequestsThatEachStayWithinTheBudget() {
    // Given three topics of 4,000 partitions with 3 configs each
    Map<String, Integer> targets = Map.of("a", 4_000, "b", 4_000, "c", 4_000);
    Map<String, Integer> configs = Map.of("a", 3, "b", 3, "c", 3);

    // When their creation is planned with 9,000 records per request
    MetadataRequestPlanner.Plan plan = MetadataRequestPlanner.forCreation(targets, configs, 9_000);

    // Then a and b share the first CreateTopics (8,008 records) and c has the second: each topic is
    // created whole, nothing is left to grow
    assertThat(plan.creates()).containsExactly(Map.of("a", 4_000, "b", 4_000), Map.of("c", 4_000));
    assertThat(plan.grows()).isEmpty();
  }

  @Test
  void topicsThatFitInOneRequestAreCreatedInOne() {
    // Given the ordinary case: a few narrow topics
    Map<String, Integer> targets = Map.of("orders", 12, "payments", 3);

    // When their creation is planned with the operator's budget
    MetadataRequestPlanner.Plan plan =
        MetadataRequestPlanner.forCreation(
            targets,
            Map.of("orders", 2, "payments", 2),
            MetadataRequestPlanner.RECORDS_PER_REQUEST);

    // Then one CreateTopics, as before the budget existed
    assertThat(plan.creates()).containsExactly(Map.of("orders", 12, "payments", 3));
    assertThat(plan.grows()).isEmpty();
  }

  @Test
  void growthFromAPartialCreationStartsFromTheCurrentCountAndSkipsTopicsAlreadyThere() {
    // Given a topic an interrupted creation left at 100 of 20,100, one already at its target, one
    // with more than its target, and one the destination lacks
    Map<String, Integer> current = Map.of("wide", 100, "done", 7, "bigger", 9);
    Map<String, Integer> targets = Map.of("wide", 20_100, "done", 7, "bigger", 5, "absent", 4);

    // When the growth is planned with 9,000 partitions per request
    List<Map<String, Integer>> grows = MetadataRequestPlanner.forGrowth(current, targets, 9_000);

    // Then only wide is raised, 9,000 partitions at a time, from 100
    assertThat(grows)
        .containsExactly(Map.of("wide", 9_100), Map.of("wide", 18_100), Map.of("wide", 20_100));
  }

  @Test
  void anyPlanKeepsEveryRequestWithinTheBudgetAndEndsAtEveryTarget() {
    // Given random sets of topics, counts, configs and budgets
    Random random = new Random(20261203L);
    for (int round = 0; round < 500; round++) {
      int budget = 6 + random.nextInt(50);
      Map<String, Integer> targets = new TreeMap<>();
      Map<String, Integer> configs = new HashMap<>();
      for (int t = random.nextInt(6); t >= 0; t--) {
        targets.put("t" + t, 1 + random.nextInt(200));
        configs.put("t" + t, random.nextInt(4));
      }

      // When their creation is planned
      MetadataRequestPlanner.Plan plan =
          MetadataRequestPlanner.forCreation(targets, configs, budget);

      // Then no request costs more than the budget, no topic is created twice, counts only rise,
      // and every topic ends at its target
      Map<String, Integer> counts = new TreeMap<>();
      for (Map<String, Integer> create : plan.creates()) {
        int cost = 0;
        for (Map.Entry<String, Integer> e : create.entrySet()) {
          assertThat(counts).doesNotContainKey(e.getKey());
          cost += 1 + configs.get(e.getKey()) + e.getValue();
          counts.put(e.getKey(), e.getValue());
        }
        assertThat(cost)
            .as("round %d budget %d: %s", round, budget, plan)
            .isLessThanOrEqualTo(budget);
      }
      for (Map<String, Integer> grow : plan.grows()) {
        int cost = 0;
        for (Map.Entry<String, Integer> e : grow.entrySet()) {
          assertThat(e.getValue()).isGreaterThan(counts.get(e.getKey()));
          cost += e.getValue() - counts.get(e.getKey());
          counts.put(e.getKey(), e.getValue());
        }
        assertThat(cost)
            .as("round %d budget %d: %s", round, budget, plan)
            .isLessThanOrEqualTo(budget);
      }
      assertThat(counts).isEqualTo(targets);
    }
  }

  @Test
  void aCountBelowOneABudgetTooSmallOrTooManyConfigsForOneRequestIsRefused() {
    assertThatThrownBy(() -> MetadataRequestPlanner.forCreation(Map.of("t", 0), Map.of(), 10))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("topic t cannot be created with 0 partitions");
    assertThatThrownBy(() -> MetadataRequestPlanner.forCreation(Map.of("t", 5), Map.of("t", 9), 10))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("topic t has 9 configs");
    assertThatThrownBy(() -> MetadataRequestPlanner.forGrowth(Map.of(), Map.of(), 1))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("budget of 1 records");
  }
}
