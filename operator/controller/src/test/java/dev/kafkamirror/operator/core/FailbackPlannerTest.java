package dev.kafkamirror.operator.core;

import static dev.kafkamirror.operator.core.Observations.OTHER_SOURCE;
import static dev.kafkamirror.operator.core.Observations.SOURCE;
import static dev.kafkamirror.operator.core.Observations.described;
import static dev.kafkamirror.operator.core.Observations.intent;
import static dev.kafkamirror.operator.core.Observations.key;
import static dev.kafkamirror.operator.core.Observations.mirror;
import static dev.kafkamirror.operator.core.Observations.stop;
import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * Where a failback aligns: only to the source's completed, recorded stop of a mirror of this very
 * destination; everything else is a FAILED partition that is never started.
 */
class FailbackPlannerTest {

  /** The destination A (the former source) has the id the source's stops name: SOURCE. */
  private static final String A = SOURCE;

  private static final String B = "CCCCCCCCCCCCCCCCCCCCCC";

  private static final String CLUSTER_MIRROR = "team/b-to-a";

  private static PartitionObservation notMirrored(int partition) {
    return described(partition, null, null);
  }

  @Test
  void aCompletedStopOfAMirrorOfThisDestinationGivesItsLastMirroredOffsetAndSourceEpoch() {
    // Given B's partition 0 STOPPED behind its barrier, mirrored from A (offset 99, A's epoch 4)
    Map<PartitionKey, PartitionObservation> onB =
        Map.of(key(0), described(0, mirror("STOPPED", 0), stop("STOPPED", 120L)));

    // When the failback plans partition 0
    FailbackPlanner.Alignments a =
        FailbackPlanner.alignments(CLUSTER_MIRROR, List.of(key(0)), onB, B, A);

    // Then A is aligned to exactly B's recorded stop, in the topic B mirrored
    assertThat(a.problems()).isEmpty();
    assertThat(a.alignTo())
        .containsExactly(
            Map.entry(key(0), new FailbackPlanner.AlignTo(99, 4, Observations.SOURCE_TOPIC_ID)));
  }

  @Test
  void aStopWhoseLeaderDoesNotNameTheTopicItMirroredIsRefusedUnlessItMirroredNothing() {
    // Given B's partitions STOPPED, mirrored from A, described by leaders that do not report the
    // id of A's topic they copied: partition 0 with 99 records mirrored, partition 1 with none
    PartitionObservation.Mirror noTopicId =
        new PartitionObservation.Mirror("b-mirror", "STOPPED", A, A, 99L, 0L, null, null, null);
    PartitionObservation.Stop nothingMirrored =
        new PartitionObservation.Stop("STOPPED", 5, 0L, 0L, 0L, A, 4);
    Map<PartitionKey, PartitionObservation> onB =
        Map.of(
            key(0), described(0, noTopicId, stop("STOPPED", 120L)),
            key(1), described(1, noTopicId, nothingMirrored));

    // When the failback plans them
    FailbackPlanner.Alignments a =
        FailbackPlanner.alignments(CLUSTER_MIRROR, List.of(key(0), key(1)), onB, B, A);

    // Then 0 is refused (A's topic could be another incarnation under the same name), naming the
    // ClusterMirror, the partition, both clusters, the missing field, the reason and what to do
    assertThat(a.problems().get(key(0)))
        .contains(
            "ClusterMirror " + CLUSTER_MIRROR,
            "orders-0",
            B,
            A,
            "mirror.sourceTopicId",
            "FailbackTopicReplaced",
            "nothing is truncated",
            "Upgrade the plugin");
    // And 1 aligns at 0, where any incarnation is discarded whole and reported
    assertThat(a.alignTo()).containsExactly(Map.entry(key(1), new FailbackPlanner.AlignTo(0, 4)));
  }

  @Test
  void aPartitionRefusedForAMissingTopicIdIsNeverStartedButFailsWithTheReason() {
    // Given a failback plan that starts partition 0, whose leader on B does not name A's topic
    PartitionObservation.Mirror noTopicId =
        new PartitionObservation.Mirror("b-mirror", "STOPPED", A, A, 99L, 0L, null, null, null);
    FailbackPlanner.Alignments a =
        FailbackPlanner.alignments(
            CLUSTER_MIRROR,
            List.of(key(0)),
            Map.of(key(0), described(0, noTopicId, stop("STOPPED", 120L))),
            B,
            A);
    FailoverPlan plan =
        FailoverPlanner.plan(
            intent(MirrorIntent.Target.MIRRORING), List.of(notMirrored(0)), null, 1000);
    assertThat(FailbackPlanner.starts(plan)).containsExactly(key(0));

    // When the alignments are applied to the plan
    FailoverPlan applied = FailbackPlanner.withAlignments(plan, a);

    // Then the partition waits FAILED with the refusal as its message: no start is sent to A
    PartitionDecision d = applied.decisions().get(0);
    assertThat(d.action()).isEqualTo(Action.WAIT);
    assertThat(d.phase()).isEqualTo(PartitionPhase.FAILED);
    assertThat(d.message()).isEqualTo(a.problems().get(key(0)));
  }

  @Test
  void aSourceStillMirroringOrStoppingOrNeverStoppedOrUnreadableAlignsNothing() {
    // Given partition 0 still MIRRORING on B, 1 at step TRUNCATED, 2 not described (unreachable)
    Map<PartitionKey, PartitionObservation> onB =
        Map.of(
            key(0), described(0, mirror("MIRRORING", 0), null),
            key(1), described(1, mirror("STOPPING", 0), stop("TRUNCATED", null)),
            key(2),
                PartitionObservation.failed(
                    key(2), 1, List.of(1), "UNREACHABLE", "broker 1 at b:9 unreachable"));

    // When the failback plans them and partition 3, which B does not describe at all
    FailbackPlanner.Alignments a =
        FailbackPlanner.alignments(
            CLUSTER_MIRROR, List.of(key(0), key(1), key(2), key(3)), onB, B, A);

    // Then none is aligned, and each says why, naming the partition and the source
    assertThat(a.alignTo()).isEmpty();
    assertThat(a.problems().get(key(0))).contains("orders-0", B, "no recorded stop");
    assertThat(a.problems().get(key(1))).contains("orders-1", "step TRUNCATED", "state: Stopped");
    assertThat(a.problems().get(key(2))).contains("orders-2", "unreachable", "spec.source.control");
    assertThat(a.problems().get(key(3))).contains("orders-3", "cannot read");
  }

  @Test
  void aStopOfAMirrorOfAnotherClusterIsNeverUsedToTruncateThisOne() {
    // Given B's stop names OTHER_SOURCE as its source, not A
    PartitionObservation.Stop other =
        new PartitionObservation.Stop("STOPPED", 5, 100L, 99L, 120L, OTHER_SOURCE, 4);
    Map<PartitionKey, PartitionObservation> onB =
        Map.of(key(0), described(0, mirror("STOPPED", 0), other));

    // When the failback plans partition 0 of A
    FailbackPlanner.Alignments a =
        FailbackPlanner.alignments(CLUSTER_MIRROR, List.of(key(0)), onB, B, A);

    // Then it is refused, naming both cluster ids
    assertThat(a.alignTo()).isEmpty();
    assertThat(a.problems().get(key(0))).contains(OTHER_SOURCE, A, "orders-0");
  }

  @Test
  void aStopWithoutItsSourceEpochOrLastMirroredOffsetIsRefusedNotSent() {
    // Given stops recorded without the source epoch (a plugin before the epoch history), with -1
    // as the epoch, and without a last mirrored offset
    PartitionObservation.Stop noEpoch =
        new PartitionObservation.Stop("STOPPED", 5, 100L, 99L, 120L, A);
    PartitionObservation.Stop minusOne =
        new PartitionObservation.Stop("STOPPED", 5, 100L, 99L, 120L, A, -1);
    PartitionObservation.Stop noOffset =
        new PartitionObservation.Stop("STOPPED", 5, 100L, null, 120L, A, 4);
    Map<PartitionKey, PartitionObservation> onB =
        Map.of(
            key(0), described(0, mirror("STOPPED", 0), noEpoch),
            key(1), described(1, mirror("STOPPED", 0), minusOne),
            key(2), described(2, mirror("STOPPED", 0), noOffset));

    // When the failback plans them
    FailbackPlanner.Alignments a =
        FailbackPlanner.alignments(CLUSTER_MIRROR, List.of(key(0), key(1), key(2)), onB, B, A);

    // Then none is aligned (no call can truncate them), and each says why, naming the partition
    // and both clusters
    assertThat(a.alignTo()).isEmpty();
    assertThat(a.problems().get(key(0)))
        .contains("orders-0", B, A, "recorded last mirrored offset 99", "FailbackEpochUnknown");
    assertThat(a.problems().get(key(1))).contains("orders-1", "FailbackEpochUnknown");
    assertThat(a.problems().get(key(2)))
        .contains("orders-2", B, A, "without a last mirrored offset", "nothing is truncated");
  }

  @Test
  void aStartWithoutAKnownAlignmentBecomesAFailedWaitAndAnAlignedOneIsKept() {
    // Given A's partitions 0 and 1 not mirrored, the plan starts both
    FailoverPlan plan =
        FailoverPlanner.plan(
            intent(MirrorIntent.Target.MIRRORING),
            List.of(notMirrored(0), notMirrored(1)),
            null,
            1000);
    assertThat(FailbackPlanner.starts(plan)).containsExactly(key(0), key(1));

    // When only partition 0's alignment is known
    FailoverPlan aligned =
        FailbackPlanner.withAlignments(
            plan,
            new FailbackPlanner.Alignments(
                Map.of(key(0), new FailbackPlanner.AlignTo(99, 4)),
                Map.of(key(1), "partition orders-1 on the source cluster B has no recorded stop")));

    // Then 0 is started, 1 waits FAILED with the reason and is not started
    assertThat(aligned.decisions().get(0).action()).isEqualTo(Action.START_MIRRORING);
    PartitionDecision refused = aligned.decisions().get(1);
    assertThat(refused.action()).isEqualTo(Action.WAIT);
    assertThat(refused.phase()).isEqualTo(PartitionPhase.FAILED);
    assertThat(refused.message()).contains("orders-1", "no recorded stop");
  }

  @Test
  void aFailbackTakesOverOnlyACompletedStopOfAnEarlierMirror() {
    // Given the destination's partition 0 STOPPED behind its barrier under the earlier mirror
    // "earlier", and partition 1 still MIRRORING under it
    PartitionObservation.Mirror stopped =
        new PartitionObservation.Mirror(
            "earlier", "STOPPED", SOURCE, SOURCE, 99L, 0L, null, null, null);
    PartitionObservation.Mirror mirroring =
        new PartitionObservation.Mirror(
            "earlier", "MIRRORING", SOURCE, SOURCE, 99L, 0L, null, null, null);
    PartitionObservation done = described(0, stopped, stop("STOPPED", 120L));
    PartitionObservation running = described(1, mirroring, null);
    MirrorIntent failback =
        new MirrorIntent(MirrorIntent.Target.MIRRORING, "fb", SOURCE, false, true);
    MirrorIntent plain = new MirrorIntent(MirrorIntent.Target.MIRRORING, "fb", SOURCE, false);

    // Then a failback starts the completed one, naming the earlier mirror
    FailoverPlan taken = FailoverPlanner.plan(failback, List.of(done), null, 1000);
    assertThat(taken.refusals()).isEmpty();
    assertThat(taken.decisions().get(0).action()).isEqualTo(Action.START_MIRRORING);
    assertThat(taken.decisions().get(0).message()).contains("orders-0", "earlier", "fb");
    // but neither a plain start nor a failback takes over another mirror that is not stopped
    assertThat(FailoverPlanner.plan(plain, List.of(done), null, 1000).refusals())
        .singleElement()
        .asString()
        .contains("registered under mirror earlier");
    FailoverPlan refused = FailoverPlanner.plan(failback, List.of(done, running), null, 1000);
    assertThat(refused.refusals()).singleElement().asString().contains("orders-1", "earlier");
    assertThat(refused.decisions()).allMatch(d -> d.action() == Action.NONE);
  }
}
