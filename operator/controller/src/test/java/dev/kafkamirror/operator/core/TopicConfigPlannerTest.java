package dev.kafkamirror.operator.core;

import static org.assertj.core.api.Assertions.assertThat;

import dev.kafkamirror.operator.api.v1alpha1.TopicConfigSync;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

class TopicConfigPlannerTest {

  private static final Set<String> DEFAULT = TopicConfigPlanner.synced(null, null);

  @Test
  void theDestinationsSafetySettingsAreNeverSyncedWhateverTheIncludeListSays() {
    // Given an include list naming min.insync.replicas and unclean leader election
    Set<String> synced =
        TopicConfigPlanner.synced(
            List.of("retention.ms", "min.insync.replicas", "unclean.leader.election.enable"), null);

    // Then only retention.ms is synced
    assertThat(synced).containsExactly("retention.ms");
    assertThat(DEFAULT).doesNotContainAnyElementsOf(TopicConfigSync.NEVER_SYNCED);
    assertThat(DEFAULT).contains("retention.ms", "cleanup.policy", "max.message.bytes");
  }

  @Test
  void excludeWinsOverTheDefaultSet() {
    assertThat(TopicConfigPlanner.synced(null, List.of("retention.ms")))
        .doesNotContain("retention.ms")
        .contains("cleanup.policy");
  }

  @Test
  void aDifferingEffectiveValueIsSetAndEqualOnesAreNot() {
    // Given a source kept forever and compacted, and a destination with its defaults
    Map<String, Map<String, String>> source =
        Map.of(
            "orders",
            Map.of(
                "retention.ms", "-1",
                "cleanup.policy", "compact,delete",
                "max.message.bytes", "1048588",
                "min.insync.replicas", "1"));
    Map<String, Map<String, String>> destination =
        Map.of(
            "orders",
            Map.of(
                "retention.ms", "604800000",
                "cleanup.policy", "delete,compact",
                "max.message.bytes", "1048588",
                "min.insync.replicas", "2"));

    // When planned
    TopicConfigPlanner.Plan plan = TopicConfigPlanner.plan(source, destination, DEFAULT, Set.of());

    // Then only retention changes: a list value in another order is the same, and
    // min.insync.replicas stays the destination's
    assertThat(plan.changes())
        .containsExactly(
            new TopicConfigPlanner.Change("orders", "retention.ms", "-1", "604800000"));
    assertThat(plan.byTopic()).isEqualTo(Map.of("orders", Map.of("retention.ms", "-1")));
    assertThat(plan.topicsChecked()).isEqualTo(1);
    assertThat(plan.topicsInSync()).isZero();
  }

  @Test
  void aFrozenTopicATopicMissingOnTheDestinationAndAConfigTheSourceDoesNotReportAreLeftAlone() {
    Map<String, Map<String, String>> source =
        Map.of(
            "stopped", Map.of("retention.ms", "-1"),
            "absent", Map.of("retention.ms", "-1"),
            "old-source", Map.of());
    Map<String, Map<String, String>> destination =
        Map.of(
            "stopped", Map.of("retention.ms", "1"),
            "old-source", Map.of("message.timestamp.after.max.ms", "3600000"));

    TopicConfigPlanner.Plan plan =
        TopicConfigPlanner.plan(source, destination, DEFAULT, Set.of("stopped"));

    assertThat(plan.changes()).isEmpty();
    assertThat(plan.topicsFrozen()).isEqualTo(1);
    assertThat(plan.topicsChecked()).isEqualTo(1);
    assertThat(plan.topicsInSync()).isEqualTo(1);
  }

  @Test
  void aConfigTheDestinationDoesNotReportIsSet() {
    TopicConfigPlanner.Plan plan =
        TopicConfigPlanner.plan(
            Map.of("t", Map.of("segment.ms", "3600000")), Map.of("t", Map.of()), DEFAULT, Set.of());
    assertThat(plan.changes())
        .containsExactly(new TopicConfigPlanner.Change("t", "segment.ms", "3600000", null));
  }

  @Test
  void creationTakesOnlyTheSyncedConfigsTheSourceHas() {
    assertThat(
            TopicConfigPlanner.forCreation(
                Map.of("retention.ms", "-1", "min.insync.replicas", "1", "unknown.x", "y"),
                DEFAULT))
        .isEqualTo(Map.of("retention.ms", "-1"));
  }
}
