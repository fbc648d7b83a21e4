package dev.kafkamirror.broker.core.stop.explore;

import static org.assertj.core.api.Assertions.assertThat;

import dev.kafkamirror.broker.core.stop.StopStep;
import dev.kafkamirror.broker.core.stop.rules.Decision;
import dev.kafkamirror.broker.core.stop.rules.LocalState;
import dev.kafkamirror.broker.core.stop.rules.StopCall;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The explorer can fail: seeded broken rules give counterexample traces, and so did the two
 * findings below before their fixes (each test shows the trace before and none after).
 */
class StopProtocolCounterexampleTest {

  @Test
  void aMakeWritableThatOpensBeforeStoppedIsDurableGivesACounterexample() {
    // Given the real rules, except that make-writable lets clients write as soon as the barrier is
    // recorded, before STOPPED is
    RuleSet broken =
        (call, v, source) ->
            call == StopCall.MAKE_WRITABLE
                    && v.leader()
                    && v.durable() != null
                    && v.durable().step() == StopStep.BARRIER_WRITTEN
                    && v.local() != LocalState.STOPPED
                ? new Decision.Act(new Decision.OpenForWrites())
                : RuleSet.REAL.decide(call, v, source);
    // When the explorer runs
    StateExplorer.Result result =
        StopProtocolExplorationTest.explore(withTheAgentsFixes(broken), 1);
    // Then it returns a trace that ends where the leader is writable without a durable STOPPED
    assertThat(result.violation()).startsWith("writable only once STOPPED is durable");
    assertThat(result.trace().get(result.trace().size() - 1).action())
        .contains("make-writable")
        .contains("registry STOPPED");
    assertThat(result.printedTrace()).contains("broken: writable only once STOPPED is durable");
  }

  @Test
  void aTruncationBelowTheRecordedTargetGivesACounterexample() {
    // Given the real rules, except that the truncation goes one offset below the target
    RuleSet broken =
        (call, v, source) -> {
          Decision d = RuleSet.REAL.decide(call, v, source);
          if (d instanceof Decision.Act a
              && a.action() instanceof Decision.Truncate t
              && t.offset() > 0) {
            return new Decision.Act(new Decision.Truncate(t.offset() - 1));
          }
          return d;
        };
    // When the explorer runs
    StateExplorer.Result result =
        StopProtocolExplorationTest.explore(withTheAgentsFixes(broken), 1);
    // Then the trace ends at the truncation below the recorded target
    assertThat(result.violation()).startsWith("a truncation never below a recorded target");
    assertThat(result.trace().get(result.trace().size() - 1).action())
        .contains("truncates its log to 0");
  }

  /**
   * The bug of 1b03e40, which one whole-suite run met once: a leader elected moments ago planned
   * the truncation on the high watermark it had as a follower. Without the rule's waits for an
   * established high watermark and for every in-sync follower's fetch of its log end, the explorer
   * finds it within three actions off the fault-free stops (the leader crashes after
   * remove-fetchers, truncate on the new leader, its truncation).
   */
  @Test
  void aTruncationPlannedOnAStaleHighWatermarkGivesACounterexample() {
    // Given the real rules, except that the truncate rule takes any high watermark as established
    // and the in-sync followers as caught up
    RuleSet broken =
        (call, v, source) ->
            RuleSet.REAL.decide(
                call,
                call == StopCall.TRUNCATE
                    ? v.withLog(
                            v.logEndOffset(),
                            v.logEndOffset(),
                            v.lastStableOffset(),
                            v.lastBatchEpoch(),
                            v.barrierAtEnd())
                        .withIsrFetchedLogEnd(true)
                    : v,
                source);
    // When the explorer runs
    StateExplorer.Result result =
        StopProtocolExplorationTest.explore(withTheAgentsFixes(broken), 3);
    // Then committed mirrored records below the last stable offset are truncated
    assertThat(result.violation()).startsWith("nothing below the last stable offset is lost");
    assertThat(result.printedTrace()).contains("leads in epoch 2");
  }

  /**
   * The explorer's depth-6 counterexample (2026-12-05, found once the model's fetcher read the stop
   * state as the agent's does), action by action: leadership moves to an in-sync follower that
   * lacks the old leader's last append (the COMMIT of a transaction), the stop plans its target
   * there, the new leader crashes before the old one fetched from it, and the old one leads again
   * with the COMMIT, which becomes stable under it (its ISR is itself alone); the recorded target
   * then cuts it.
   */
  static final List<String> TARGET_BEFORE_THE_ISR_FETCHED =
      List.of(
          "broker 2 fetches",
          "the mirror fetcher appends the source's offset 2 on broker 0",
          "operator calls remove-fetchers on broker 0",
          "broker 1 falls out of the ISR",
          "leadership moves to broker 2",
          "operator calls truncate on broker 2",
          "broker 2 crashes",
          "operator calls truncate on broker 0");

  /**
   * Finding (2026-12-05), fixed: a new leader's high watermark can equal its log end before any
   * follower fetched from it, so the wait for an established high watermark let it plan the target
   * while an in-sync follower still held records above it. The rule now also waits until every
   * in-sync follower has fetched its log end in its epoch ({@code isrFetchedLogEnd}).
   */
  @Test
  void aTargetPlannedBeforeTheIsrFetchedFromANewLeaderCutsStableRecords() {
    // Given the real rules, and the same rules with the ISR taken as caught up by the truncate rule
    RuleSet broken =
        (call, v, source) ->
            RuleSet.REAL.decide(
                call, call == StopCall.TRUNCATE ? v.withIsrFetchedLogEnd(true) : v, source);
    PartitionModel withoutTheWait = withTheAgentsFixes(broken);
    PartitionModel real = withTheAgentsFixes(RuleSet.REAL);
    // When the counterexample's actions run on both
    List<StateExplorer.Step> cut = StateExplorer.run(withoutTheWait, TARGET_BEFORE_THE_ISR_FETCHED);
    List<StateExplorer.Step> kept = StateExplorer.run(real, TARGET_BEFORE_THE_ISR_FETCHED);
    // Then without the wait the stable COMMIT is cut; with it, every action runs, the new leader
    // records no target before the old one fetched from it, and nothing stable is lost
    assertThat(cut).hasSize(TARGET_BEFORE_THE_ISR_FETCHED.size() + 1);
    assertThat(StopProtocolExplorationTest.firstViolation(cut))
        .startsWith("nothing below the last stable offset is lost");
    assertThat(kept).hasSize(TARGET_BEFORE_THE_ISR_FETCHED.size() + 1);
    assertThat(kept.get(6).action()).endsWith("truncate answers TIMEOUT");
    assertThat(kept.get(8).action()).contains("target 3 truncatedTo 3");
    assertThat(StopProtocolExplorationTest.firstViolation(kept)).isNull();
  }

  /**
   * Finding (issue 11 item 2), fixed: a leader that truncated itself still counts, in Kafka 4.4,
   * its followers' log ends from their last fetch before the truncation (a diverging fetch does not
   * update them; {@code BarrierFollowerConfirmationIT} shows it on real brokers). Appending the
   * barrier then raises the high watermark over it at once; an agent that took that as "on every
   * in-sync replica" recorded BARRIER_WRITTEN while in-sync followers still held the truncated
   * batch at the barrier's offset, and a crash of the leader then would elect one of them, without
   * the barrier. The barrier rule now also waits until every in-sync follower has fetched up to the
   * log end since the truncation ({@code PartitionView.isrFetchedLogEnd}).
   */
  @Test
  void theBarrierCountsOnlyOnceEveryInSyncFollowerFetchedItSinceTheTruncation() {
    // Given Kafka 4.4 as it is, with the agent before the fix and with the fix
    PartitionModel beforeTheFix =
        new PartitionModel(
            RuleSet.REAL,
            StopProtocolExplorationTest.FAULTS,
            new PartitionModel.Options(false, true));
    PartitionModel fixed = withTheAgentsFixes(RuleSet.REAL);
    // When the explorer runs one action off the fault-free stops
    StateExplorer.Result asItWas = StopProtocolExplorationTest.explore(beforeTheFix, 1);
    StateExplorer.Result now = StopProtocolExplorationTest.explore(fixed, 1);
    // Then before the fix BARRIER_WRITTEN is recorded while an in-sync follower has no barrier;
    // with the fix no invariant breaks
    assertThat(asItWas.violation()).startsWith("a recorded barrier is on every in-sync replica");
    assertThat(asItWas.printedTrace()).contains("records BARRIER_WRITTEN");
    assertThat(now.violation()).as(now.printedTrace()).isNull();
  }

  /**
   * The explorer's depth-5 counterexample, action by action; with the followers' fetches the
   * barrier rule now waits for on each new leader.
   */
  static final List<String> CALL_ACROSS_TWO_LEADER_CHANGES =
      NominalStops.then(
          NominalStops.IN_PLACE_UNTIL_THE_BARRIER_IS_FETCHED,
          List.of(
              "leadership moves to broker 2",
              "broker 0 fetches",
              "broker 1 fetches",
              "operator calls barrier on broker 2",
              "operator calls make-writable on broker 2",
              "broker 2 crashes",
              "broker 1 fetches",
              "operator's barrier call on broker 0 goes on"));

  /**
   * Finding (issue 11 item 2): a call syncs the state topic once, when it starts. A barrier call on
   * broker 0 that waits while leadership moves to broker 2, which records BARRIER_WRITTEN and
   * STOPPED, and comes back to broker 0 (broker 2 crashed) goes on from broker 0's table of before:
   * the rule records BARRIER_WRITTEN in the new, higher epoch, and the stop that counts goes back
   * from STOPPED. An executor that syncs again whenever it leads in an epoch it has not synced in
   * does not.
   */
  @Test
  void findingACallThatOutlivesTwoLeaderChangesMovesTheStopBack() {
    // Given today's executor (one sync per call), then one that syncs again in a new epoch
    PartitionModel today =
        new PartitionModel(
            RuleSet.REAL,
            StopProtocolExplorationTest.FAULTS,
            new PartitionModel.Options(true, false));
    PartitionModel resyncing = withTheAgentsFixes(RuleSet.REAL);
    // When the waiting barrier call goes on after leadership went to broker 2 and came back
    List<StateExplorer.Step> run = StateExplorer.run(today, CALL_ACROSS_TWO_LEADER_CHANGES);
    List<StateExplorer.Step> fixed = StateExplorer.run(resyncing, CALL_ACROSS_TWO_LEADER_CHANGES);
    // Then today's executor moves the stop back from STOPPED; the resyncing one does not
    assertThat(run).hasSize(CALL_ACROSS_TWO_LEADER_CHANGES.size() + 1);
    assertThat(StopProtocolExplorationTest.firstViolation(run))
        .startsWith("no step goes back: the recorded stop was STOPPED");
    assertThat(StopProtocolExplorationTest.firstViolation(fixed)).isNull();
  }

  /** The model with the rules given and the agent as it is (both executor fixes in place). */
  private static PartitionModel withTheAgentsFixes(RuleSet rules) {
    return new PartitionModel(
        rules, StopProtocolExplorationTest.FAULTS, PartitionModel.Options.FIXED);
  }
}
