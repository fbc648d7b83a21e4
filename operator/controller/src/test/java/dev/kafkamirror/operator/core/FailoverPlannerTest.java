package dev.kafkamirror.operator.core;

import static dev.kafkamirror.operator.core.Observations.MIRROR;
import static dev.kafkamirror.operator.core.Observations.OTHER_SOURCE;
import static dev.kafkamirror.operator.core.Observations.SOURCE;
import static dev.kafkamirror.operator.core.Observations.SOURCE_TOPIC_ID;
import static dev.kafkamirror.operator.core.Observations.described;
import static dev.kafkamirror.operator.core.Observations.intent;
import static dev.kafkamirror.operator.core.Observations.mirror;
import static dev.kafkamirror.operator.core.Observations.stop;
import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class FailoverPlannerTest {

  private static final MirrorIntent STOP = intent(MirrorIntent.Target.STOPPED);

  @ParameterizedTest(name = "step {0} -> {1}")
  @CsvSource({
    "FETCHERS_REMOVED, TRUNCATE",
    "TRUNCATING, TRUNCATE",
    "TRUNCATED, PERSIST_OFFSETS",
    "OFFSETS_PERSISTED, WRITE_BARRIER",
    "BARRIER_WRITTEN, MAKE_WRITABLE"
  })
  void aStopResumesFromTheStepTheLeaderPersisted(String step, Action expected) {
    // Given a partition whose leader reports a durable stop step
    PartitionObservation o = described(0, mirror("STOPPING", 0), stop(step, null));

    // When the stop is planned
    FailoverPlan plan = FailoverPlanner.plan(STOP, List.of(o), null, 1_000);

    // Then the next step follows the persisted one
    assertThat(plan.decisions())
        .singleElement()
        .extracting(PartitionDecision::action)
        .isEqualTo(expected);
    assertThat(plan.decisions().get(0).phase()).isEqualTo(PartitionPhase.STOPPING);
  }

  @Test
  void aMirroringPartitionFirstLosesItsFetchers() {
    // Given a mirroring partition with no stop state
    PartitionObservation o = described(0, mirror("MIRRORING", 10), null);

    // When a stop is planned
    FailoverPlan plan = FailoverPlanner.plan(STOP, List.of(o), null, 1_000);

    // Then fetchers are removed first, whatever the lag (Immediate)
    assertThat(plan.decisions().get(0).action()).isEqualTo(Action.REMOVE_FETCHERS);
    assertThat(Action.REMOVE_FETCHERS.route()).isEqualTo(Action.Route.ALL_REPLICAS);
  }

  @Test
  void aPartitionIsStoppedOnlyWithStepStoppedABarrierAndAStoppedMirror() {
    // Given STOPPED step with a barrier but the mirror not yet STOPPED, and one fully stopped
    PartitionObservation half = described(0, mirror("STOPPING", 0), stop("STOPPED", 120L));
    PartitionObservation done = described(1, mirror("STOPPED", 0), stop("STOPPED", 120L));
    PartitionObservation noBarrier = described(2, mirror("STOPPED", 0), stop("STOPPED", null));

    // When planned
    FailoverPlan plan = FailoverPlanner.plan(STOP, List.of(half, done, noBarrier), null, 1_000);

    // Then only the fully stopped partition is STOPPED; the others are made writable (again)
    assertThat(plan.decisions())
        .extracting(PartitionDecision::phase)
        .containsExactly(PartitionPhase.STOPPING, PartitionPhase.STOPPED, PartitionPhase.STOPPING);
    assertThat(plan.decisions())
        .extracting(PartitionDecision::action)
        .containsExactly(Action.MAKE_WRITABLE, Action.NONE, Action.MAKE_WRITABLE);
  }

  @ParameterizedTest(name = "target {0}")
  @CsvSource({"MIRRORING", "PAUSED", "STOPPED"})
  void aPartitionAligningForAFailbackIsLeftToThePluginAndNeverMadeWritable(
      MirrorIntent.Target target) {
    // Given a partition the plugin reports ALIGNING (a failback truncating it to the agreed offset)
    PartitionObservation o = described(0, mirror("ALIGNING", 0), null);

    // When any target is planned
    FailoverPlan plan = FailoverPlanner.plan(intent(target), List.of(o), null, 1_000);

    // Then nothing is called, the phase is ALIGNING (never FAILED as 'Stopped is final'), and the
    // message says it waits for MIRRORING
    PartitionDecision d = plan.decisions().get(0);
    assertThat(d.action()).isEqualTo(Action.NONE);
    assertThat(d.phase()).isEqualTo(PartitionPhase.ALIGNING);
    assertThat(d.message()).contains("orders-0", "ALIGNING", "MIRRORING");
  }

  @Test
  void partitionsProceedIndependently() {
    // Given three partitions at different steps and one whose leader is unreachable
    List<PartitionObservation> os =
        List.of(
            described(0, mirror("MIRRORING", 0), null),
            described(1, mirror("STOPPING", 0), stop("TRUNCATED", null)),
            described(2, mirror("STOPPED", 0), stop("STOPPED", 7L)),
            PartitionObservation.failed(
                Observations.key(3), 2, List.of(2), "UNREACHABLE", "broker 2 unreachable"));

    // When planned
    FailoverPlan plan = FailoverPlanner.plan(STOP, os, null, 1_000);

    // Then each gets its own next step and the unreachable one waits
    assertThat(plan.decisions())
        .extracting(PartitionDecision::action)
        .containsExactly(Action.REMOVE_FETCHERS, Action.PERSIST_OFFSETS, Action.NONE, Action.WAIT);
    assertThat(plan.decisions().get(3).message()).contains("broker 2 unreachable");
  }

  @Test
  void dataFromAnotherSourceClusterIsRefusedForEveryPartition() {
    // Given one partition whose mirrored data names another source cluster
    PartitionObservation good = described(0, mirror("MIRRORING", 0), null);
    PartitionObservation foreign =
        described(
            1,
            new PartitionObservation.Mirror(
                "orders", "MIRRORING", OTHER_SOURCE, SOURCE, 5L, 0L, null, null, null),
            null);

    // When a stop is planned
    FailoverPlan plan = FailoverPlanner.plan(STOP, List.of(good, foreign), null, 1_000);

    // Then nothing is touched and the refusal names partition and both cluster ids
    assertThat(plan.hasWork()).isFalse();
    assertThat(plan.refusals())
        .singleElement()
        .asString()
        .contains("orders-1", OTHER_SOURCE, SOURCE);
  }

  @Test
  void aPartitionOfAnotherMirrorIsRefused() {
    // Given a partition registered under another mirror name
    PartitionObservation o =
        described(
            0,
            new PartitionObservation.Mirror(
                "payments", "MIRRORING", SOURCE, SOURCE, 5L, 0L, null, null, null),
            null);

    // When planned
    FailoverPlan plan = FailoverPlanner.plan(STOP, List.of(o), null, 1_000);

    // Then it is refused, naming both mirrors
    assertThat(plan.refusals()).singleElement().asString().contains("payments", "orders");
  }

  @Test
  void afterCatchUpWaitsWhileAnyPartitionLags() {
    // Given one caught-up and one lagging partition
    List<PartitionObservation> os =
        List.of(
            described(0, mirror("MIRRORING", 0), null), described(1, mirror("MIRRORING", 3), null));

    // When an AfterCatchUp stop is planned within the timeout
    FailoverPlan plan = FailoverPlanner.plan(Observations.afterCatchUp(), os, 500L, 1_000);

    // Then nothing is stopped yet
    assertThat(plan.catchUp()).isEqualTo(FailoverPlan.CatchUp.WAITING);
    assertThat(plan.decisions()).extracting(PartitionDecision::action).containsOnly(Action.WAIT);
    assertThat(plan.decisions().get(1).message()).contains("lag 3 records");
  }

  @Test
  void afterCatchUpPastTheTimeoutReportsAndDoesNotStop() {
    // Given a lagging partition
    List<PartitionObservation> os = List.of(described(0, mirror("MIRRORING", 3), null));

    // When planned after the timeout
    FailoverPlan plan = FailoverPlanner.plan(Observations.afterCatchUp(), os, 1_001L, 1_000);

    // Then it is reported, and nothing is called
    assertThat(plan.catchUp()).isEqualTo(FailoverPlan.CatchUp.TIMED_OUT);
    assertThat(plan.hasWork()).isFalse();
    assertThat(plan.decisions().get(0).message()).contains("not stopped");
  }

  @Test
  void afterCatchUpAtZeroLagStops() {
    // Given every partition at zero lag
    List<PartitionObservation> os = List.of(described(0, mirror("MIRRORING", 0), null));

    // When planned
    FailoverPlan plan = FailoverPlanner.plan(Observations.afterCatchUp(), os, 10L, 1_000);

    // Then the stop begins
    assertThat(plan.catchUp()).isEqualTo(FailoverPlan.CatchUp.CAUGHT_UP);
    assertThat(plan.decisions().get(0).action()).isEqualTo(Action.REMOVE_FETCHERS);
  }

  @Test
  void afterCatchUpNoLongerWaitsOnceTheStopBegan() {
    // Given a stop that began (an operator restart mid-stop) while another partition lags
    List<PartitionObservation> os =
        List.of(
            described(0, mirror("STOPPING", 0), stop("FETCHERS_REMOVED", null)),
            described(1, mirror("MIRRORING", 9), null));

    // When planned
    FailoverPlan plan = FailoverPlanner.plan(Observations.afterCatchUp(), os, 5_000L, 1_000);

    // Then the stop continues on every partition
    assertThat(plan.decisions())
        .extracting(PartitionDecision::action)
        .containsExactly(Action.TRUNCATE, Action.REMOVE_FETCHERS);
  }

  @Test
  void mirroringStartsUnregisteredPartitionsAndResumesPausedOnes() {
    // Given an unregistered, a paused and a mirroring partition
    List<PartitionObservation> os =
        List.of(
            described(0, null, null),
            described(1, mirror("PAUSED", 0), null),
            described(2, mirror("MIRRORING", 0), null));

    // When Mirroring is planned
    FailoverPlan plan = FailoverPlanner.plan(intent(MirrorIntent.Target.MIRRORING), os, null, 0);

    // Then
    assertThat(plan.decisions())
        .extracting(PartitionDecision::action)
        .containsExactly(Action.START_MIRRORING, Action.RESUME, Action.NONE);
  }

  @Test
  void aMirroringPartitionCarriesWhatThePluginLastReportedGoingWrongIntoItsMessage() {
    // Given a mirroring partition the source never answered, and a caught-up one
    String why =
        "no answer from the source since this registration at 2026-12-04T18:02:40Z (over 30 s);"
            + " lag unknown; no leader for orders-0 on source a";
    PartitionObservation.Mirror stalled =
        new PartitionObservation.Mirror(
            MIRROR, "MIRRORING", SOURCE, SOURCE, -1L, -1L, why, null, SOURCE_TOPIC_ID);
    List<PartitionObservation> os =
        List.of(described(0, stalled, null), described(1, mirror("MIRRORING", 0), null));

    // When Mirroring is planned
    FailoverPlan plan = FailoverPlanner.plan(intent(MirrorIntent.Target.MIRRORING), os, null, 0);

    // Then nothing is called for either, and the stalled one says why in its message
    assertThat(plan.decisions()).extracting(PartitionDecision::action).containsOnly(Action.NONE);
    assertThat(plan.decisions().get(0).message()).isEqualTo(why);
    assertThat(plan.decisions().get(1).message()).isNull();
  }

  @Test
  void aStoppedPartitionNeverMirrorsAgain() {
    // Given a stopped partition
    PartitionObservation o = described(0, mirror("STOPPED", 0), stop("STOPPED", 4L));

    // When Mirroring is planned
    FailoverPlan plan =
        FailoverPlanner.plan(intent(MirrorIntent.Target.MIRRORING), List.of(o), null, 0);

    // Then nothing is called and the partition is reported failed
    assertThat(plan.decisions().get(0).action()).isEqualTo(Action.NONE);
    assertThat(plan.decisions().get(0).phase()).isEqualTo(PartitionPhase.FAILED);
    assertThat(plan.decisions().get(0).message()).contains("orders-0", "Stopped is final");
  }

  @Test
  void pausedPausesMirroringPartitions() {
    // Given a mirroring partition
    PartitionObservation o = described(0, mirror("MIRRORING", 0), null);

    // When Paused is planned
    FailoverPlan plan =
        FailoverPlanner.plan(intent(MirrorIntent.Target.PAUSED), List.of(o), null, 0);

    // Then
    assertThat(plan.decisions().get(0).action()).isEqualTo(Action.PAUSE);
  }

  @Test
  void anOldPluginWithoutStopStateIsRefused() {
    // Given a plugin that reports no stop state after remove-fetchers, even with a barrier of this
    // source at its log end
    PartitionObservation bare = Observations.legacy(0, "STOPPING", List.of());
    PartitionObservation withBarrier =
        Observations.legacy(
            1, "STOPPING", List.of(new PartitionObservation.BarrierReset("LEADER", 100L, SOURCE)));

    // When planned
    FailoverPlan plan = FailoverPlanner.plan(STOP, List.of(bare, withBarrier), null, 0);

    // Then both fail, naming the partition, and neither is made writable
    assertThat(plan.decisions())
        .allSatisfy(
            d -> {
              assertThat(d.phase()).isEqualTo(PartitionPhase.FAILED);
              assertThat(d.action()).isEqualTo(Action.NONE);
              assertThat(d.message()).contains(d.key().toString()).contains("upgrade the plugin");
            });
  }

  @Test
  void aPartitionWithoutLeaderWaitsAndSaysSo() {
    // Given no leader
    PartitionObservation o =
        PartitionObservation.failed(Observations.key(0), null, List.of(1), null, null);

    // When planned
    FailoverPlan plan = FailoverPlanner.plan(STOP, List.of(o), null, 0);

    // Then
    assertThat(plan.decisions().get(0).action()).isEqualTo(Action.WAIT);
    assertThat(plan.decisions().get(0).message()).contains("orders-0", "no leader");
  }

  @Test
  void followersWithoutAMirrorRegistrationAreStartedSoThatALeaderMoveStaysReadOnly() {
    // Given a mirroring leader whose follower on broker 3 has no registration
    PartitionObservation o =
        described(0, mirror("MIRRORING", 0), null).withReplicasWithoutMirror(List.of(3));

    // When Mirroring is planned
    FailoverPlan plan =
        FailoverPlanner.plan(intent(MirrorIntent.Target.MIRRORING), List.of(o), null, 0);

    // Then start is sent again (to every replica), and the message names the broker
    assertThat(plan.decisions().get(0).action()).isEqualTo(Action.START_MIRRORING);
    assertThat(plan.decisions().get(0).phase()).isEqualTo(PartitionPhase.MIRRORING);
    assertThat(plan.decisions().get(0).message()).contains("[3]", "orders-0");
  }

  @Test
  void aMirrorWhosePluginFoundAnotherSourceClusterIsFailedAndNeverMirroring() {
    // Given a leader whose plugin stopped fetching because the source reports another cluster id
    PartitionObservation o =
        described(
            0,
            new PartitionObservation.Mirror(
                "orders",
                "SOURCE_MISMATCH",
                SOURCE,
                SOURCE,
                -1L,
                -1L,
                "source broker 1 reports cluster id "
                    + OTHER_SOURCE
                    + " but orders-0 mirrors "
                    + SOURCE,
                null,
                null),
            null);

    // When Mirroring is planned
    FailoverPlan plan =
        FailoverPlanner.plan(intent(MirrorIntent.Target.MIRRORING), List.of(o), null, 1_000);

    // Then it is FAILED, the message names both cluster ids, and the mirror is registered again
    // with the spec's source: the plugin keeps it halted for the same source and verifies afresh
    // for another one, so a spec corrected to the right address resumes it
    PartitionDecision d = plan.decisions().get(0);
    assertThat(d.phase()).isEqualTo(PartitionPhase.FAILED);
    assertThat(d.action()).isEqualTo(Action.START_MIRRORING);
    assertThat(d.message()).contains(OTHER_SOURCE, SOURCE, "orders-0");

    // And when Paused is planned, nothing is called (a registration would resume fetching)
    assertThat(
            FailoverPlanner.plan(intent(MirrorIntent.Target.PAUSED), List.of(o), null, 1_000)
                .decisions()
                .get(0)
                .action())
        .isEqualTo(Action.NONE);

    // And a stop may still proceed (nothing from the other cluster was appended)
    FailoverPlan stop = FailoverPlanner.plan(STOP, List.of(o), null, 1_000);
    assertThat(stop.decisions().get(0).action()).isEqualTo(Action.REMOVE_FETCHERS);
  }

  @Test
  void aStopOnATopicThatAllowsUncleanElectionWaitsUnlessTheSpecOverridesIt() {
    // Given a mirroring partition of a topic whose unclean leader election is enabled, and a
    // stopped one of the same topic
    PartitionObservation mirroring = described(0, mirror("MIRRORING", 0), null);
    PartitionObservation stopped = described(1, mirror("STOPPED", 0), stop("STOPPED", 120L));
    java.util.Map<String, String> unclean = java.util.Map.of("orders", "topic config");

    // When a stop is planned
    FailoverPlan plan =
        FailoverPlanner.plan(STOP, List.of(mirroring, stopped), null, 1_000, unclean, false);

    // Then nothing destructive is called: the unstopped partition waits with a reason naming the
    // topic, and the plan carries the hazard
    assertThat(plan.decisions())
        .extracting(PartitionDecision::action)
        .containsExactly(Action.WAIT, Action.NONE);
    assertThat(plan.decisions().get(0).message()).contains("orders-0", "unclean leader election");
    assertThat(plan.stopHazards())
        .singleElement()
        .asString()
        .contains("orders", "topic config", "spec.stop.allowUncleanLeaderElection");
    assertThat(plan.hasWork()).isFalse();

    // And with the override the stop proceeds
    FailoverPlan overridden =
        FailoverPlanner.plan(STOP, List.of(mirroring, stopped), null, 1_000, unclean, true);
    assertThat(overridden.decisions().get(0).action()).isEqualTo(Action.REMOVE_FETCHERS);
    assertThat(overridden.stopHazards()).isEmpty();

    // And mirroring is not held back by the setting
    FailoverPlan mirroringPlan =
        FailoverPlanner.plan(
            intent(MirrorIntent.Target.MIRRORING), List.of(mirroring), null, 1_000, unclean, false);
    assertThat(mirroringPlan.stopHazards()).isEmpty();
  }
}
