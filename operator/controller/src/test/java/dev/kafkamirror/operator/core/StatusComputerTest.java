package dev.kafkamirror.operator.core;

import static dev.kafkamirror.operator.core.Observations.described;
import static dev.kafkamirror.operator.core.Observations.intent;
import static dev.kafkamirror.operator.core.Observations.mirror;
import static dev.kafkamirror.operator.core.Observations.stop;
import static org.assertj.core.api.Assertions.assertThat;

import dev.kafkamirror.operator.api.v1alpha1.ClusterMirrorStatus;
import dev.kafkamirror.operator.api.v1alpha1.Condition;
import dev.kafkamirror.operator.api.v1alpha1.Conditions;
import dev.kafkamirror.operator.api.v1alpha1.MirrorPhase;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class StatusComputerTest {

  private static final Instant T0 = Instant.parse("2026-11-29T10:00:00Z");
  private static final Instant T1 = Instant.parse("2026-11-29T10:00:07Z");

  private static ClusterMirrorStatus compute(
      MirrorIntent.Target target,
      List<PartitionObservation> os,
      ClusterMirrorStatus previous,
      Instant now,
      long generation) {
    FailoverPlan plan = FailoverPlanner.plan(intent(target), os, null, 1_000);
    return StatusComputer.compute(
        new StatusInputs(generation, target, plan, os, previous, null, null, 1_000),
        Clock.fixed(now, ZoneOffset.UTC));
  }

  private static Condition condition(ClusterMirrorStatus s, String type) {
    return s.getConditions().stream()
        .filter(c -> c.getType().equals(type))
        .findFirst()
        .orElseThrow();
  }

  @Test
  void stoppedIsTrueOnlyWhenEveryPartitionIsStopped() {
    // Given one stopped and one stopping partition, then both stopped
    List<PartitionObservation> half =
        List.of(
            described(0, mirror("STOPPED", 0), stop("STOPPED", 100L)),
            described(1, mirror("STOPPING", 0), stop("BARRIER_WRITTEN", 100L)));
    List<PartitionObservation> all =
        List.of(
            described(0, mirror("STOPPED", 0), stop("STOPPED", 100L)),
            described(1, mirror("STOPPED", 0), stop("STOPPED", 100L)));

    // When the status is computed for each
    ClusterMirrorStatus first = compute(MirrorIntent.Target.STOPPED, half, null, T0, 3);
    ClusterMirrorStatus second = compute(MirrorIntent.Target.STOPPED, all, first, T1, 3);

    // Then Stopped turns True only at the end, with counts, times and the printer column
    assertThat(condition(first, Conditions.STOPPED).getStatus()).isEqualTo("False");
    assertThat(condition(first, Conditions.STOPPED).getReason())
        .isEqualTo(Reasons.STOP_IN_PROGRESS);
    assertThat(first.getStoppedOfTotal()).isEqualTo("1/2");
    assertThat(first.getStopStartedAt()).isEqualTo(T0.toString());
    assertThat(first.getStopFinishedAt()).isNull();
    assertThat(condition(second, Conditions.STOPPED).getStatus()).isEqualTo("True");
    assertThat(condition(second, Conditions.STOPPED).getObservedGeneration()).isEqualTo(3);
    assertThat(condition(second, Conditions.READY).getStatus()).isEqualTo("True");
    assertThat(second.getStoppedOfTotal()).isEqualTo("2/2");
    assertThat(second.getStopStartedAt()).isEqualTo(T0.toString());
    assertThat(second.getStopFinishedAt()).isEqualTo(T1.toString());
    assertThat(second.getPartitions()).extracting(p -> p.getBarrierOffset()).containsOnly(100L);
    assertThat(second.getPartitions()).extracting(p -> p.getTruncatedToOffset()).containsOnly(100L);
  }

  @Test
  void theMirroringConditionNamesAPartitionOfUnknownLagWithWhatThePluginReported() {
    // Given three mirroring partitions: one caught up, two the source never answered, the second
    // of them with the reason the plugin recorded
    String why =
        "no answer from the source since this registration at 2026-12-04T18:02:40Z (over 30 s);"
            + " lag unknown; no leader for orders-2 on source a";
    List<PartitionObservation> os =
        List.of(
            described(0, mirror("MIRRORING", 0), null),
            described(1, mirror("MIRRORING", -1), null),
            described(
                2,
                new PartitionObservation.Mirror(
                    "orders",
                    "MIRRORING",
                    Observations.SOURCE,
                    Observations.SOURCE,
                    -1L,
                    -1L,
                    why,
                    null,
                    null),
                null));

    // When the status is computed
    ClusterMirrorStatus status = compute(MirrorIntent.Target.MIRRORING, os, null, T0, 1);

    // Then the condition counts both and names the one that says why, with its reason
    assertThat(condition(status, Conditions.MIRRORING).getMessage())
        .contains("lag unknown on 2 (no answer from the source yet)")
        .contains("orders-2: " + why);
    // And the partition's own entry carries the reason
    assertThat(messageOf(status, 2)).isEqualTo(why);
  }

  @Test
  void aSourceSilentForLongerThanTheBoundDegradesTheMirrorWithoutStallingIt() {
    // Given two mirroring partitions whose source has been silent: one for 1 minute, one for 3
    String why = "orders-1 on source a: NOT_LEADER_OR_FOLLOWER";
    List<PartitionObservation> os =
        List.of(
            described(0, silentSince(T0.minusSeconds(60), null), null),
            described(1, silentSince(T0.minusSeconds(180), why), null));

    // When the status is computed
    ClusterMirrorStatus status = compute(MirrorIntent.Target.MIRRORING, os, null, T0, 1);

    // Then the mirror is Degraded for the one over the bound, naming it, since when and why
    Condition degraded = condition(status, Conditions.DEGRADED);
    assertThat(degraded.getStatus()).isEqualTo("True");
    assertThat(degraded.getReason()).isEqualTo(Reasons.SOURCE_NOT_ANSWERING);
    assertThat(degraded.getMessage())
        .startsWith("1 of 2 mirroring partitions have had no answer from the source")
        .contains("orders-1", T0.minusSeconds(180).toString(), why);
    // And not Stalled: the plugin keeps asking, the operator has nothing to retry
    assertThat(condition(status, Conditions.STALLED).getStatus()).isEqualTo("False");

    // When the silence is under the bound on every partition, Then nothing is degraded
    ClusterMirrorStatus fine =
        compute(
            MirrorIntent.Target.MIRRORING,
            List.of(described(0, silentSince(T0.minusSeconds(60), null), null)),
            null,
            T0,
            1);
    assertThat(condition(fine, Conditions.DEGRADED).getStatus()).isEqualTo("False");
  }

  /** A MIRRORING leader whose source has not answered since {@code since}. */
  private static PartitionObservation.Mirror silentSince(Instant since, String lastError) {
    return new PartitionObservation.Mirror(
        "orders",
        "MIRRORING",
        Observations.SOURCE,
        Observations.SOURCE,
        1L,
        -1L,
        lastError,
        null,
        null,
        since.toString());
  }

  @Test
  void lastTransitionTimeMovesOnlyWhenTheStatusChanges() {
    // Given a mirroring resource observed twice, then paused
    List<PartitionObservation> os = List.of(described(0, mirror("MIRRORING", 4), null));
    ClusterMirrorStatus first = compute(MirrorIntent.Target.MIRRORING, os, null, T0, 1);
    ClusterMirrorStatus again = compute(MirrorIntent.Target.MIRRORING, os, first, T1, 1);

    // Then Mirroring keeps its first transition time, and reports the lag
    assertThat(condition(again, Conditions.MIRRORING).getStatus()).isEqualTo("True");
    assertThat(condition(again, Conditions.MIRRORING).getLastTransitionTime())
        .isEqualTo(T0.toString());
    assertThat(again.getMaxLagRecords()).isEqualTo(4);
    assertThat(again.getPartitionCounts().getMirroring()).isEqualTo(1);
  }

  @Test
  void anUnknownLagNeverReadsAsZero() {
    // Given two mirroring partitions, one caught up and one that has not fetched yet (lag -1)
    List<PartitionObservation> os =
        List.of(
            described(0, mirror("MIRRORING", 0), null),
            described(1, mirror("MIRRORING", -1), null));

    // When the status is computed
    ClusterMirrorStatus status = compute(MirrorIntent.Target.MIRRORING, os, null, T0, 1);

    // Then maxLagRecords is absent rather than 0, and the Mirroring condition says why
    assertThat(status.getMaxLagRecords()).isNull();
    assertThat(condition(status, Conditions.MIRRORING).getMessage())
        .contains("lag unknown on 1 (no answer from the source yet)");
    assertThat(status.getPartitions())
        .filteredOn(p -> p.getPartition() == 1)
        .extracting(p -> p.getLagRecords())
        .containsExactly((Long) null);

    // And once it has fetched, the maximum is reported
    List<PartitionObservation> fetched =
        List.of(
            described(0, mirror("MIRRORING", 0), null), described(1, mirror("MIRRORING", 7), null));
    assertThat(compute(MirrorIntent.Target.MIRRORING, fetched, status, T1, 1).getMaxLagRecords())
        .isEqualTo(7);
  }

  @Test
  void aRefusalIsDegradedAndNotReady() {
    // Given mirrored data from another source cluster
    List<PartitionObservation> os = List.of(described(0, mirroringFromOtherSource(), null));

    // When the status is computed
    ClusterMirrorStatus s = compute(MirrorIntent.Target.STOPPED, os, null, T0, 2);

    // Then
    assertThat(condition(s, Conditions.DEGRADED).getStatus()).isEqualTo("True");
    assertThat(condition(s, Conditions.DEGRADED).getReason())
        .isEqualTo(Reasons.SOURCE_CLUSTER_MISMATCH);
    assertThat(condition(s, Conditions.DEGRADED).getMessage()).contains(Observations.OTHER_SOURCE);
    assertThat(condition(s, Conditions.READY).getStatus()).isEqualTo("False");
    assertThat(condition(s, Conditions.STOPPED).getStatus()).isEqualTo("False");
    assertThat(s.getStopStartedAt()).isNull();
  }

  @Test
  void thePartitionListIsBoundedAndShowsTheLeastAdvancedFirst() {
    // Given 5 stopped partitions and one still mirroring
    List<PartitionObservation> os = new ArrayList<>();
    for (int p = 0; p < 5; p++) {
      os.add(described(p, mirror("STOPPED", 0), stop("STOPPED", 10L)));
    }
    os.add(described(5, mirror("MIRRORING", 2), null));
    FailoverPlan plan = FailoverPlanner.plan(intent(MirrorIntent.Target.STOPPED), os, null, 0);

    // When the status is computed with a bound of 3
    ClusterMirrorStatus s =
        StatusComputer.compute(
            new StatusInputs(1, MirrorIntent.Target.STOPPED, plan, os, null, null, null, 3),
            Clock.fixed(T0, ZoneOffset.UTC));

    // Then the list has 3 entries, the mirroring one first, and the counts cover all 6
    assertThat(s.getPartitions()).hasSize(3);
    assertThat(s.getPartitions().get(0).getPartition()).isEqualTo(5);
    assertThat(s.getPartitionCounts().getTotal()).isEqualTo(6);
    assertThat(s.getPartitionCounts().getStopped()).isEqualTo(5);
  }

  @Test
  void anInvalidSpecIsDegradedWithTheMessage() {
    // Given a spec error
    ClusterMirrorStatus s =
        StatusComputer.compute(
            new StatusInputs(
                4,
                MirrorIntent.Target.MIRRORING,
                null,
                List.of(),
                null,
                "spec.destination.control.secretRef: Secret ns/x does not exist",
                null,
                10),
            Clock.fixed(T0, ZoneOffset.UTC));

    // Then
    assertThat(s.getObservedGeneration()).isEqualTo(4);
    assertThat(condition(s, Conditions.DEGRADED).getReason()).isEqualTo(Reasons.INVALID_SPEC);
    assertThat(condition(s, Conditions.DEGRADED).getMessage()).contains("ns/x");
    assertThat(s.getConditions()).extracting(Condition::getObservedGeneration).containsOnly(4L);
  }

  @Test
  void waitingForCatchUpRecordsWhenTheWaitBegan() {
    // Given a lagging partition under AfterCatchUp
    List<PartitionObservation> os = List.of(described(0, mirror("MIRRORING", 8), null));
    FailoverPlan plan = FailoverPlanner.plan(Observations.afterCatchUp(), os, null, 1_000);

    // When computed
    ClusterMirrorStatus s =
        StatusComputer.compute(
            new StatusInputs(1, MirrorIntent.Target.STOPPED, plan, os, null, null, null, 10),
            Clock.fixed(T0, ZoneOffset.UTC));

    // Then
    assertThat(s.getCatchUpStartedAt()).isEqualTo(T0.toString());
    assertThat(condition(s, Conditions.STOPPED).getReason())
        .isEqualTo(Reasons.WAITING_FOR_CATCH_UP);
    assertThat(s.getStopStartedAt()).isNull();
  }

  @Test
  void aSourceMismatchInThePluginIsDegradedAndNotMirroring() {
    // Given one partition mirroring and one whose plugin stopped fetching from another cluster
    List<PartitionObservation> os =
        List.of(
            described(0, mirror("MIRRORING", 0), null),
            described(
                1,
                new PartitionObservation.Mirror(
                    "orders",
                    "SOURCE_MISMATCH",
                    Observations.SOURCE,
                    Observations.SOURCE,
                    -1L,
                    -1L,
                    "source reports cluster id " + Observations.OTHER_SOURCE,
                    null,
                    null),
                null));

    // When the status is computed for Mirroring
    ClusterMirrorStatus s = compute(MirrorIntent.Target.MIRRORING, os, null, T0, 1);

    // Then Degraded with SourceClusterMismatch, never Mirroring=True, the partition FAILED
    assertThat(condition(s, Conditions.DEGRADED).getStatus()).isEqualTo("True");
    assertThat(condition(s, Conditions.DEGRADED).getReason())
        .isEqualTo(Reasons.SOURCE_CLUSTER_MISMATCH);
    assertThat(condition(s, Conditions.DEGRADED).getMessage()).contains(Observations.OTHER_SOURCE);
    assertThat(condition(s, Conditions.MIRRORING).getStatus()).isEqualTo("False");
    assertThat(condition(s, Conditions.READY).getStatus()).isEqualTo("False");
    assertThat(s.getPartitionCounts().getMirroring()).isEqualTo(1);
    assertThat(s.getPartitionCounts().getFailed()).isEqualTo(1);
  }

  @Test
  void aPartitionThePluginHaltedIsDegradedWithThePluginsReasonAndCanStillBeStopped() {
    // Given one partition mirroring and one the plugin halted: its source topic was created again
    PartitionObservation.Mirror halted =
        halted(
            "SourceTopicRecreated",
            "orders-1 of mirror orders: the source topic orders now has topic id NEW, but this"
                + " partition mirrors topic id OLD");
    List<PartitionObservation> os =
        List.of(described(0, mirror("MIRRORING", 0), null), described(1, halted, null));

    // When the status is computed for Mirroring
    ClusterMirrorStatus s = compute(MirrorIntent.Target.MIRRORING, os, null, T0, 1);

    // Then Degraded with the plugin's reason and both ids, never Mirroring=True, the partition
    // FAILED with the reason in its message, and lag not 0
    assertThat(condition(s, "Degraded").getStatus()).isEqualTo("True");
    assertThat(condition(s, "Degraded").getReason()).isEqualTo("SourceTopicRecreated");
    assertThat(condition(s, "Degraded").getMessage()).contains("NEW", "OLD");
    assertThat(condition(s, "Mirroring").getStatus()).isEqualTo("False");
    assertThat(s.getPartitionCounts().getFailed()).isEqualTo(1);
    assertThat(s.getPartitions())
        .filteredOn(p -> p.getPartition() == 1)
        .singleElement()
        .satisfies(
            p -> {
              assertThat(p.getState()).isEqualTo("FAILED");
              assertThat(p.getMessage()).startsWith("SourceTopicRecreated: ").contains("NEW");
              assertThat(java.util.Objects.equals(p.getLagRecords(), 0L)).as("lag 0").isFalse();
            });

    // And a stop still removes its fetchers: what it holds matches its source
    FailoverPlan stop = FailoverPlanner.plan(intent(MirrorIntent.Target.STOPPED), os, null, 0);
    assertThat(stop.decisions())
        .filteredOn(d -> d.key().partition() == 1)
        .singleElement()
        .extracting(PartitionDecision::action)
        .isEqualTo(Action.REMOVE_FETCHERS);
  }

  @Test
  void partitionsHaltedForDifferentReasonsAreAllNamedInDegraded() {
    // Given two partitions halted for different reasons and one mirroring
    List<PartitionObservation> os =
        List.of(
            described(0, mirror("MIRRORING", 0), null),
            described(1, halted("SourceTopicRecreated", "orders-1: recreated"), null),
            described(2, halted("SourceRetentionOverrun", "orders-2: overrun"), null));

    // When the status is computed
    ClusterMirrorStatus s = compute(MirrorIntent.Target.MIRRORING, os, null, T0, 1);

    // Then Degraded counts the halted partitions per reason, the first one's message follows
    Condition degraded = condition(s, "Degraded");
    assertThat(degraded.getReason()).isEqualTo("SourceTopicRecreated");
    assertThat(degraded.getMessage())
        .startsWith(
            "2 partitions halted mirroring (SourceTopicRecreated: 1, SourceRetentionOverrun: 1)")
        .contains("orders-1: recreated");
  }

  @Test
  void aPartitionStoppedAfterItsMirrorHaltedKeepsSayingSoAndNoOtherDoes() {
    // Given a previous status in which partition 0 was stopped after its mirror halted, partition
    // 1 had another message, and partition 2 (still mirroring) carries the note by mistake
    ClusterMirrorStatus previous = new ClusterMirrorStatus();
    String note = FailoverPlanner.HALTED_BEFORE_STOP + "SourceTopicRecreated: orders-0: recreated";
    previous.setPartitions(
        List.of(
            partitionStatus(0, "STOPPED", note),
            partitionStatus(1, "STOPPING", "NOT_LEADER from broker 2"),
            partitionStatus(2, "MIRRORING", note)));
    List<PartitionObservation> os =
        List.of(
            described(0, mirror("STOPPED", 0), stop("STOPPED", 100L)),
            described(1, mirror("STOPPED", 0), stop("STOPPED", 100L)),
            described(2, mirror("MIRRORING", 0), null));

    // When the status is computed again
    ClusterMirrorStatus s = compute(MirrorIntent.Target.STOPPED, os, previous, T1, 1);

    // Then partition 0 keeps the note, once; partition 1's old message is gone; partition 2,
    // which is not stopping, shows no note
    assertThat(messageOf(s, 0)).isEqualTo(note);
    assertThat(messageOf(s, 1)).isNull();
    assertThat(String.valueOf(messageOf(s, 2))).doesNotContain(FailoverPlanner.HALTED_BEFORE_STOP);

    // And computed once more from that status, the note is still there exactly once
    ClusterMirrorStatus again = compute(MirrorIntent.Target.STOPPED, os, s, T1, 1);
    assertThat(messageOf(again, 0)).isEqualTo(note);
  }

  /** A MIRRORING partition whose data came from another source cluster than it expects. */
  private static PartitionObservation.Mirror mirroringFromOtherSource() {
    return new PartitionObservation.Mirror(
        "orders", "MIRRORING", Observations.OTHER_SOURCE, null, 1L, 0L, null, null, null);
  }

  /** A MIRRORING partition whose plugin has not checked the source's cluster id yet. */
  private static PartitionObservation.Mirror mirroringUnverified() {
    return new PartitionObservation.Mirror(
        "orders", "MIRRORING", null, Observations.SOURCE, -1L, -1L, null, null, null);
  }

  private static PartitionObservation.Mirror halted(String reason, String message) {
    return new PartitionObservation.Mirror(
        "orders",
        "FAILED",
        Observations.SOURCE,
        Observations.SOURCE,
        49L,
        -1L,
        message,
        reason,
        null);
  }

  private static dev.kafkamirror.operator.api.v1alpha1.PartitionStatus partitionStatus(
      int partition, String state, String message) {
    dev.kafkamirror.operator.api.v1alpha1.PartitionStatus p =
        new dev.kafkamirror.operator.api.v1alpha1.PartitionStatus();
    p.setTopic(Observations.key(partition).topic());
    p.setPartition(partition);
    p.setState(state);
    p.setMessage(message);
    return p;
  }

  private static String messageOf(ClusterMirrorStatus s, int partition) {
    return s.getPartitions().stream()
        .filter(p -> p.getPartition() == partition)
        .findFirst()
        .orElseThrow()
        .getMessage();
  }

  @Test
  void aStopHeldBackByUncleanElectionIsDegradedWithItsOwnReason() {
    // Given a mirroring partition of a topic that allows unclean leader election
    List<PartitionObservation> os = List.of(described(0, mirror("MIRRORING", 0), null));
    FailoverPlan plan =
        FailoverPlanner.plan(
            intent(MirrorIntent.Target.STOPPED),
            os,
            null,
            1_000,
            java.util.Map.of("orders", "topic config"),
            false);

    // When the status is computed
    ClusterMirrorStatus s =
        StatusComputer.compute(
            new StatusInputs(1, MirrorIntent.Target.STOPPED, plan, os, null, null, null, 1_000),
            Clock.fixed(T0, ZoneOffset.UTC));

    // Then Degraded says why and what to do; the stop has not started
    assertThat(condition(s, Conditions.DEGRADED).getStatus()).isEqualTo("True");
    assertThat(condition(s, Conditions.DEGRADED).getReason())
        .isEqualTo(Reasons.UNCLEAN_LEADER_ELECTION_ENABLED);
    assertThat(condition(s, Conditions.DEGRADED).getMessage())
        .contains("orders", "unclean.leader.election.enable=false");
    assertThat(condition(s, Conditions.STOPPED).getStatus()).isEqualTo("False");
    assertThat(s.getStopStartedAt()).isNull();
  }

  @Test
  void stoppedDoesNotStepBackWhenAStoppedPartitionCannotBeObservedForAWhile() {
    // Given every partition was STOPPED under generation 3
    List<PartitionObservation> all =
        List.of(
            described(0, mirror("STOPPED", 0), stop("STOPPED", 100L)),
            described(1, mirror("STOPPED", 0), stop("STOPPED", 100L)));
    ClusterMirrorStatus stopped = compute(MirrorIntent.Target.STOPPED, all, null, T0, 3);
    assertThat(condition(stopped, Conditions.STOPPED).getStatus()).isEqualTo("True");
    // When partition 1's leader cannot be reached in the next round
    List<PartitionObservation> gap =
        List.of(
            described(0, mirror("STOPPED", 0), stop("STOPPED", 100L)),
            PartitionObservation.failed(
                Observations.key(1), 2, List.of(1, 2, 3), "IO", "broker 2 is restarting"));
    ClusterMirrorStatus next = compute(MirrorIntent.Target.STOPPED, gap, stopped, T1, 3);
    // Then Stopped stays True (and keeps its transition time), and Degraded says what is unseen
    assertThat(condition(next, Conditions.STOPPED).getStatus()).isEqualTo("True");
    assertThat(condition(next, Conditions.STOPPED).getLastTransitionTime())
        .isEqualTo(T0.toString());
    assertThat(condition(next, Conditions.STOPPED).getMessage())
        .contains("1 cannot be observed now");
    assertThat(condition(next, Conditions.DEGRADED).getStatus()).isEqualTo("True");
    assertThat(next.getStopFinishedAt()).isEqualTo(T0.toString());
  }

  @Test
  void stoppedTurnsFalseWhenAPartitionIsSeenInAnEarlierPhaseOrTheSpecChanged() {
    List<PartitionObservation> all =
        List.of(
            described(0, mirror("STOPPED", 0), stop("STOPPED", 100L)),
            described(1, mirror("STOPPED", 0), stop("STOPPED", 100L)));
    ClusterMirrorStatus stopped = compute(MirrorIntent.Target.STOPPED, all, null, T0, 3);
    // A partition reported back at BARRIER_WRITTEN is not hidden
    List<PartitionObservation> back =
        List.of(
            described(0, mirror("STOPPED", 0), stop("STOPPED", 100L)),
            described(1, mirror("STOPPING", 0), stop("BARRIER_WRITTEN", 100L)));
    assertThat(
            condition(
                    compute(MirrorIntent.Target.STOPPED, back, stopped, T1, 3), Conditions.STOPPED)
                .getStatus())
        .isEqualTo("False");
    // And an unobservable partition under a new generation does not inherit the old Stopped
    List<PartitionObservation> gap =
        List.of(
            described(0, mirror("STOPPED", 0), stop("STOPPED", 100L)),
            PartitionObservation.failed(
                Observations.key(1), 2, List.of(1, 2, 3), "IO", "broker 2 is restarting"));
    assertThat(
            condition(compute(MirrorIntent.Target.STOPPED, gap, stopped, T1, 4), Conditions.STOPPED)
                .getStatus())
        .isEqualTo("False");
  }

  @Test
  void mirroringIsNotTrueBeforeThePluginVerifiedTheSourceClusterId() {
    // Given a partition registered and MIRRORING whose plugin has not checked the source's id yet
    // (describe's sourceClusterId is null until the check), and later one that has
    PartitionObservation unverified = described(0, mirroringUnverified(), null);
    PartitionObservation verified = described(0, mirror("MIRRORING", 0), null);

    // When the status is computed for each
    ClusterMirrorStatus before =
        compute(MirrorIntent.Target.MIRRORING, List.of(unverified), null, T0, 1);
    ClusterMirrorStatus after =
        compute(MirrorIntent.Target.MIRRORING, List.of(verified), before, T1, 1);

    // Then Mirroring (and Ready) wait for the verification
    assertThat(condition(before, Conditions.MIRRORING).getStatus()).isEqualTo("False");
    assertThat(condition(before, Conditions.MIRRORING).getMessage()).contains("not verified");
    assertThat(condition(before, Conditions.READY).getStatus()).isEqualTo("False");
    assertThat(condition(after, Conditions.MIRRORING).getStatus()).isEqualTo("True");
  }

  @Test
  void sourcePartitionsNotOnTheDestinationKeepMirroringFalseAndLagUnknown() {
    // Given every destination partition MIRRORING at lag 0, and orders grown on the source to 4
    List<PartitionObservation> os =
        List.of(
            described(0, mirror("MIRRORING", 0), null), described(1, mirror("MIRRORING", 0), null));
    FailoverPlan plan =
        FailoverPlanner.plan(intent(MirrorIntent.Target.MIRRORING), os, null, 1_000);
    List<PartitionGrowthPlanner.Pending> pending =
        PartitionGrowthPlanner.plan(
                java.util.Map.of("orders", 4),
                java.util.Map.of("orders", 2),
                java.util.Set.of(),
                false)
            .pending();

    // When the status is computed with the pending partitions
    ClusterMirrorStatus s =
        StatusComputer.compute(
            StatusInputs.builder(1, MirrorIntent.Target.MIRRORING, null, 1_000)
                .plan(plan)
                .observations(os)
                .pendingPartitions(pending)
                .build(),
            Clock.fixed(T0, ZoneOffset.UTC));

    // Then neither Mirroring nor Ready is True, both name the topic and partitions, no lag 0
    assertThat(condition(s, Conditions.MIRRORING).getStatus()).isEqualTo("False");
    assertThat(condition(s, Conditions.MIRRORING).getReason())
        .isEqualTo(Reasons.SOURCE_PARTITIONS_PENDING);
    assertThat(condition(s, Conditions.MIRRORING).getMessage())
        .contains("topic orders partitions 2..3 (source has 4, destination 2)");
    assertThat(condition(s, Conditions.READY).getStatus()).isEqualTo("False");
    assertThat(condition(s, Conditions.READY).getReason())
        .isEqualTo(Reasons.SOURCE_PARTITIONS_PENDING);
    assertThat(s.getMaxLagRecords()).isNull();
    // (kstatus: in progress, for the same reason, not Current)
    assertThat(condition(s, Conditions.RECONCILING).getStatus()).isEqualTo("True");
    assertThat(condition(s, Conditions.RECONCILING).getReason())
        .isEqualTo(Reasons.SOURCE_PARTITIONS_PENDING);
    assertThat(s.getPhase()).isEqualTo(MirrorPhase.Starting);
    assertThat(kstatusOf(s)).isEqualTo("InProgress");

    // And without pending partitions the same observation is Mirroring at lag 0
    ClusterMirrorStatus inLine =
        StatusComputer.compute(
            StatusInputs.builder(1, MirrorIntent.Target.MIRRORING, null, 1_000)
                .plan(plan)
                .observations(os)
                .build(),
            Clock.fixed(T0, ZoneOffset.UTC));
    assertThat(condition(inLine, Conditions.MIRRORING).getStatus()).isEqualTo("True");
    assertThat(inLine.getMaxLagRecords()).isZero();
  }

  @Test
  void aStopThatDidNotCarrySourcePartitionsOverSaysSoWhenStopped() {
    // Given every destination partition STOPPED, and a source partition never mirrored
    List<PartitionObservation> os =
        List.of(described(0, mirror("STOPPED", 0), stop("STOPPED", 100L)));
    FailoverPlan plan = FailoverPlanner.plan(intent(MirrorIntent.Target.STOPPED), os, null, 1_000);
    List<PartitionGrowthPlanner.Pending> pending =
        PartitionGrowthPlanner.plan(
                java.util.Map.of("orders", 2),
                java.util.Map.of("orders", 1),
                java.util.Set.of("orders"),
                true)
            .pending();

    // When the status is computed
    ClusterMirrorStatus s =
        StatusComputer.compute(
            StatusInputs.builder(1, MirrorIntent.Target.STOPPED, null, 1_000)
                .plan(plan)
                .observations(os)
                .pendingPartitions(pending)
                .build(),
            Clock.fixed(T0, ZoneOffset.UTC));

    // Then Stopped is True and its message names the partition the stop did not carry over
    assertThat(condition(s, Conditions.STOPPED).getStatus()).isEqualTo("True");
    assertThat(condition(s, Conditions.STOPPED).getMessage())
        .contains("source partitions never mirrored")
        .contains("topic orders partition 1 (source has 2, destination 1)");
  }

  /** What kstatus computes from Reconciling and Stalled (generation observed): its own rule. */
  private static String kstatusOf(ClusterMirrorStatus s) {
    if (Conditions.isReconciling(s)) {
      return "InProgress";
    }
    return Conditions.isStalled(s) ? "Failed" : "Current";
  }

  @Test
  void aStopInProgressIsReconcilingAndAFinishedStopIsNeitherReconcilingNorStalled() {
    // Given a stop with one partition STOPPED and one at BARRIER_WRITTEN, then both STOPPED
    List<PartitionObservation> half =
        List.of(
            described(0, mirror("STOPPED", 0), stop("STOPPED", 100L)),
            described(1, mirror("STOPPING", 0), stop("BARRIER_WRITTEN", 100L)));
    List<PartitionObservation> all =
        List.of(
            described(0, mirror("STOPPED", 0), stop("STOPPED", 100L)),
            described(1, mirror("STOPPED", 0), stop("STOPPED", 100L)));

    // When the status is computed for each
    ClusterMirrorStatus stopping = compute(MirrorIntent.Target.STOPPED, half, null, T0, 3);
    ClusterMirrorStatus stopped = compute(MirrorIntent.Target.STOPPED, all, stopping, T1, 3);

    // Then the stop reads Reconciling (StopInProgress, counts in the message), phase Stopping
    assertThat(condition(stopping, Conditions.RECONCILING).getStatus()).isEqualTo("True");
    assertThat(condition(stopping, Conditions.RECONCILING).getReason())
        .isEqualTo(Reasons.STOP_IN_PROGRESS);
    assertThat(condition(stopping, Conditions.RECONCILING).getMessage())
        .contains("1 of 2 partitions STOPPED");
    assertThat(condition(stopping, Conditions.STALLED).getStatus()).isEqualTo("False");
    assertThat(stopping.getPhase()).isEqualTo(MirrorPhase.Stopping);
    assertThat(kstatusOf(stopping)).isEqualTo("InProgress");
    // And the finished stop is neither, phase Stopped, each condition once
    assertThat(condition(stopped, Conditions.RECONCILING).getStatus()).isEqualTo("False");
    assertThat(condition(stopped, Conditions.RECONCILING).getLastTransitionTime())
        .isEqualTo(T1.toString());
    assertThat(condition(stopped, Conditions.STALLED).getStatus()).isEqualTo("False");
    assertThat(stopped.getPhase()).isEqualTo(MirrorPhase.Stopped);
    assertThat(kstatusOf(stopped)).isEqualTo("Current");
    assertThat(stopped.getConditions())
        .extracting(Condition::getType)
        .containsExactlyInAnyOrderElementsOf(Conditions.TYPES);
  }

  @Test
  void waitingForCatchUpIsReconcilingAndATimedOutCatchUpIsStalled() {
    // Given a lagging partition under AfterCatchUp, waiting, then timed out
    List<PartitionObservation> os = List.of(described(0, mirror("MIRRORING", 8), null));
    FailoverPlan waiting = FailoverPlanner.plan(Observations.afterCatchUp(), os, null, 1_000);
    FailoverPlan timedOut = FailoverPlanner.plan(Observations.afterCatchUp(), os, 2_000L, 1_000);

    // When computed
    ClusterMirrorStatus w =
        StatusComputer.compute(
            new StatusInputs(1, MirrorIntent.Target.STOPPED, waiting, os, null, null, null, 10),
            Clock.fixed(T0, ZoneOffset.UTC));
    ClusterMirrorStatus t =
        StatusComputer.compute(
            new StatusInputs(1, MirrorIntent.Target.STOPPED, timedOut, os, w, null, null, 10),
            Clock.fixed(T1, ZoneOffset.UTC));

    // Then waiting is progress; the timeout needs a human (Stalled with Degraded's reason)
    assertThat(condition(w, Conditions.RECONCILING).getReason())
        .isEqualTo(Reasons.WAITING_FOR_CATCH_UP);
    assertThat(kstatusOf(w)).isEqualTo("InProgress");
    assertThat(condition(t, Conditions.STALLED).getStatus()).isEqualTo("True");
    assertThat(condition(t, Conditions.STALLED).getReason()).isEqualTo(Reasons.CATCH_UP_TIMED_OUT);
    assertThat(condition(t, Conditions.RECONCILING).getStatus()).isEqualTo("False");
    assertThat(t.getPhase()).isEqualTo(MirrorPhase.Failed);
    assertThat(kstatusOf(t)).isEqualTo("Failed");
  }

  @Test
  void aSourceMismatchOrAHaltedMirrorIsStalledWhileMirroringButAStopTakesThemForward() {
    // Given a partition the plugin halted (source topic recreated) and one mirroring
    List<PartitionObservation> os =
        List.of(
            described(0, mirror("MIRRORING", 0), null),
            described(1, halted("SourceTopicRecreated", "orders-1: recreated"), null));

    // When computed for Mirroring, then for Stopped
    ClusterMirrorStatus mirroring = compute(MirrorIntent.Target.MIRRORING, os, null, T0, 1);
    ClusterMirrorStatus stopping = compute(MirrorIntent.Target.STOPPED, os, mirroring, T1, 2);

    // Then Mirroring cannot progress without a human: Stalled with the plugin's reason
    assertThat(condition(mirroring, Conditions.STALLED).getStatus()).isEqualTo("True");
    assertThat(condition(mirroring, Conditions.STALLED).getReason())
        .isEqualTo("SourceTopicRecreated");
    assertThat(condition(mirroring, Conditions.STALLED).getMessage()).contains("orders-1");
    assertThat(mirroring.getPhase()).isEqualTo(MirrorPhase.Failed);
    assertThat(kstatusOf(mirroring)).isEqualTo("Failed");
    // And the stop goes on: Degraded still says so, but it is progress, not Stalled
    assertThat(condition(stopping, Conditions.DEGRADED).getStatus()).isEqualTo("True");
    assertThat(condition(stopping, Conditions.STALLED).getStatus()).isEqualTo("False");
    assertThat(condition(stopping, Conditions.RECONCILING).getStatus()).isEqualTo("True");
    assertThat(stopping.getPhase()).isEqualTo(MirrorPhase.Stopping);
  }

  @Test
  void aRefusedStopIsStalledAndAnUnreachableDestinationIsRetried() {
    // Given mirrored data from another source cluster (the stop is refused)
    List<PartitionObservation> os = List.of(described(0, mirroringFromOtherSource(), null));
    ClusterMirrorStatus refused = compute(MirrorIntent.Target.STOPPED, os, null, T0, 2);
    // And a destination that does not answer
    ClusterMirrorStatus unreachable =
        StatusComputer.compute(
            new StatusInputs(
                2,
                MirrorIntent.Target.STOPPED,
                null,
                List.of(),
                null,
                null,
                "destination localhost:9092: timed out",
                10),
            Clock.fixed(T0, ZoneOffset.UTC));

    // Then the refusal is Stalled (kstatus Failed), the outage is Reconciling (InProgress)
    assertThat(condition(refused, Conditions.STALLED).getReason())
        .isEqualTo(Reasons.SOURCE_CLUSTER_MISMATCH);
    assertThat(kstatusOf(refused)).isEqualTo("Failed");
    assertThat(condition(unreachable, Conditions.STALLED).getStatus()).isEqualTo("False");
    assertThat(condition(unreachable, Conditions.RECONCILING).getReason())
        .isEqualTo(Reasons.DESTINATION_UNREACHABLE);
    assertThat(condition(unreachable, Conditions.RECONCILING).getMessage())
        .contains("localhost:9092");
    assertThat(kstatusOf(unreachable)).isEqualTo("InProgress");
  }

  @Test
  void aSourceThatRefusesTheCredentialsIsDegradedAndStalledButNeverHoldsAStop() {
    // Given a registered partition whose plugin never reached the source, and a source that
    // refused the operator's credentials
    PartitionObservation unverified = described(0, mirroringUnverified(), null);
    String refusal =
        "ClusterMirror ns/orders-mirror: the source cluster source.example:9093 refused the"
            + " credentials of spec.source.security (SaslAuthenticationException: ...)";

    // When the status is computed while mirroring, and while a stop is wanted
    ClusterMirrorStatus mirroring = withRefusal(MirrorIntent.Target.MIRRORING, unverified, refusal);
    ClusterMirrorStatus stopping = withRefusal(MirrorIntent.Target.STOPPED, unverified, refusal);

    // Then mirroring is Degraded and Stalled with the reason and message, never Mirroring or Ready
    assertThat(condition(mirroring, Conditions.DEGRADED).getStatus()).isEqualTo("True");
    assertThat(condition(mirroring, Conditions.DEGRADED).getReason())
        .isEqualTo(Reasons.SOURCE_AUTHENTICATION_FAILED);
    assertThat(condition(mirroring, Conditions.DEGRADED).getMessage()).isEqualTo(refusal);
    assertThat(condition(mirroring, Conditions.STALLED).getStatus()).isEqualTo("True");
    assertThat(condition(mirroring, Conditions.MIRRORING).getStatus()).isEqualTo("False");
    assertThat(condition(mirroring, Conditions.READY).getStatus()).isEqualTo("False");
    // And a stop, which never needs the source, is not held by it
    assertThat(condition(stopping, Conditions.DEGRADED).getReason())
        .isNotEqualTo(Reasons.SOURCE_AUTHENTICATION_FAILED);
  }

  @Test
  void aDestinationThatRefusesTheCredentialsIsDegradedAndStalledAlsoDuringAStop() {
    // Given a destination that refused the operator's credentials: nothing could be observed
    String refusal =
        "ClusterMirror ns/orders-mirror: the destination cluster dest.example:9094 refused the"
            + " credentials of spec.destination.security (SaslAuthenticationException: ...)";

    // When the status is computed while mirroring, and while a stop is wanted
    ClusterMirrorStatus mirroring = destinationRefused(MirrorIntent.Target.MIRRORING, refusal);
    ClusterMirrorStatus stopping = destinationRefused(MirrorIntent.Target.STOPPED, refusal);

    // Then both are Degraded and Stalled with the reason and message: waiting does not help, and
    // a stop needs the destination
    for (ClusterMirrorStatus s : List.of(mirroring, stopping)) {
      assertThat(condition(s, Conditions.DEGRADED).getStatus()).isEqualTo("True");
      assertThat(condition(s, Conditions.DEGRADED).getReason())
          .isEqualTo(Reasons.DESTINATION_AUTHENTICATION_FAILED);
      assertThat(condition(s, Conditions.DEGRADED).getMessage()).isEqualTo(refusal);
      assertThat(condition(s, Conditions.STALLED).getStatus()).isEqualTo("True");
      assertThat(condition(s, Conditions.READY).getStatus()).isEqualTo("False");
    }
    assertThat(condition(mirroring, Conditions.MIRRORING).getStatus()).isEqualTo("False");
    assertThat(condition(stopping, Conditions.STOPPED).getStatus()).isEqualTo("False");
  }

  private static ClusterMirrorStatus destinationRefused(
      MirrorIntent.Target target, String refusal) {
    return StatusComputer.compute(
        StatusInputs.builder(1, target, null, 1_000)
            .destinationAuthenticationError(refusal)
            .build(),
        Clock.fixed(T0, ZoneOffset.UTC));
  }

  private static ClusterMirrorStatus withRefusal(
      MirrorIntent.Target target, PartitionObservation o, String refusal) {
    FailoverPlan plan = FailoverPlanner.plan(intent(target), List.of(o), null, 1_000);
    return StatusComputer.compute(
        StatusInputs.builder(1, target, null, 1_000)
            .plan(plan)
            .observations(List.of(o))
            .sourceAuthenticationError(refusal)
            .build(),
        Clock.fixed(T0, ZoneOffset.UTC));
  }

  @Test
  void mirroringAtTargetIsCurrentAndPausingIsInProgress() {
    // Given every partition MIRRORING and verified, then a Paused spec still mirroring
    List<PartitionObservation> os = List.of(described(0, mirror("MIRRORING", 3), null));
    ClusterMirrorStatus m = compute(MirrorIntent.Target.MIRRORING, os, null, T0, 1);
    ClusterMirrorStatus p = compute(MirrorIntent.Target.PAUSED, os, m, T1, 2);

    // Then
    assertThat(m.getPhase()).isEqualTo(MirrorPhase.Mirroring);
    assertThat(kstatusOf(m)).isEqualTo("Current");
    assertThat(p.getPhase()).isEqualTo(MirrorPhase.Pausing);
    assertThat(condition(p, Conditions.RECONCILING).getReason()).isEqualTo(Reasons.PAUSING);
    assertThat(kstatusOf(p)).isEqualTo("InProgress");
  }

  @Test
  void theFirstVisitSeedsEveryConditionUnknownAndReconcilingTrue() {
    // When the seed of generation 5 is computed
    ClusterMirrorStatus seed = StatusComputer.seed(5, Clock.fixed(T0, ZoneOffset.UTC));

    // Then every type is there, Unknown but Reconciling, with the metav1.Condition fields set
    assertThat(seed.getConditions())
        .extracting(Condition::getType)
        .containsExactlyElementsOf(Conditions.TYPES);
    assertThat(seed.getConditions())
        .filteredOn(c -> !c.getType().equals(Conditions.RECONCILING))
        .extracting(Condition::getStatus)
        .containsOnly(Conditions.UNKNOWN);
    assertThat(condition(seed, Conditions.RECONCILING).getStatus()).isEqualTo("True");
    assertThat(seed.getConditions())
        .allSatisfy(
            c -> {
              assertThat(c.getReason()).isEqualTo(Reasons.FIRST_OBSERVATION);
              assertThat(c.getMessage()).isNotBlank();
              assertThat(c.getLastTransitionTime()).isEqualTo(T0.toString());
              assertThat(c.getObservedGeneration()).isEqualTo(5);
            });
    assertThat(seed.getObservedGeneration()).isEqualTo(5);
    assertThat(seed.getPhase()).isEqualTo(MirrorPhase.Pending);
    assertThat(kstatusOf(seed)).isEqualTo("InProgress");
    // And the counts every written status has, all 0 (clients read them without a null check)
    assertThat(seed.getPartitionCounts()).isNotNull();
    assertThat(
            List.of(
                seed.getPartitionCounts().getTotal(),
                seed.getPartitionCounts().getMirroring(),
                seed.getPartitionCounts().getPaused(),
                seed.getPartitionCounts().getStopping(),
                seed.getPartitionCounts().getStopped(),
                seed.getPartitionCounts().getFailed()))
        .containsOnly(0);
    assertThat(seed.getStoppedOfTotal()).isEqualTo("0/0");
    assertThat(seed.getMaxLagRecords()).as("unknown, not 0").isNull();
  }
}
