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

  private static PartitionObservation notMirrored(int partition) {
    return described(partition, null, null);
  }

  @Test
  void aCompletedStopOfAMirrorOfThisDestinationGivesItsLastMirroredOffsetAndSourceEpoch() {
    // Given B's partition 0 STOPPED behind its barrier, mirrored from A (offset 99, A's epoch 4)
    Map<PartitionKey, PartitionObservation> onB =
        Map.of(key(0), described(0, mirror("STOPPED", 0), stop("STOPPED", 120L)));

    // When the failback plans partition 0
    FailbackPlanner.Alignments a = FailbackPlanner.alignments(List.of(key(0)), onB, B, A);

    // Then A is aligned to exactly B's recorded stop
    assertThat(a.problems()).isEmpty();
    assertThat(a.alignTo()).containsExactly(Map.entry(key(0), new FailbackPlanner.AlignTo(99, 4)));
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
        FailbackPlanner.alignments(List.of(key(0), key(1), key(2), key(3)), onB, B, A);

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
    FailbackPlanner.Alignments a = FailbackPlanner.alignments(List.of(key(0)), onB, B, A);

    // Then it is refused, naming both cluster ids
    assertThat(a.alignTo()).isEmpty();
    assertThat(a.problems().get(key(0))).contains(OTHER_SOURCE, A, "orders-0");
  }

  @Test
  void anUnknownSourceEpochIsSentAsMinusOneForThePluginToRefuseNotGuessed() {
    // Given a stop recorded without the source epoch (a plugin before the epoch history)
    PartitionObservation.Stop noEpoch =
        new PartitionObservation.Stop("STOPPED", 5, 100L, 99L, 120L, A);
    Map<PartitionKey, PartitionObservation> onB =
        Map.of(key(0), described(0, mirror("STOPPED", 0), noEpoch));

    // When the failback plans it
    FailbackPlanner.Alignments a = FailbackPlanner.alignments(List.of(key(0)), onB, B, A);

    // Then the epoch is -1 (the plugin refuses FailbackEpochUnknown), not some other value
    assertThat(a.alignTo().get(key(0))).isEqualTo(new FailbackPlanner.AlignTo(99, -1));
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
}
