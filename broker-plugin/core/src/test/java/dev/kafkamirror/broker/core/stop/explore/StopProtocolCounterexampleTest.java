package dev.kafkamirror.broker.core.stop.explore;

import static org.assertj.core.api.Assertions.assertThat;

import dev.kafkamirror.broker.core.stop.StopStep;
import dev.kafkamirror.broker.core.stop.rules.Decision;
import dev.kafkamirror.broker.core.stop.rules.LocalState;
import dev.kafkamirror.broker.core.stop.rules.StopCall;
import org.junit.jupiter.api.Test;

/**
 * The explorer can fail: seeded broken rules give counterexample traces, and so does a Kafka
 * behaviour the real rules do not account for (the finding below).
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
        StopProtocolExplorationTest.explore(
            new PartitionModel(broken, StopProtocolExplorationTest.FAULTS, true), 1);
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
        StopProtocolExplorationTest.explore(
            new PartitionModel(broken, StopProtocolExplorationTest.FAULTS, true), 1);
    // Then the trace ends at the truncation below the recorded target
    assertThat(result.violation()).startsWith("a truncation never below a recorded target");
    assertThat(result.trace().get(result.trace().size() - 1).action())
        .contains("truncates its log to 0");
  }

  /**
   * Finding (issue 11 item 2): with Kafka 4.4 as modelled, a leader that truncated itself in place
   * (the batches above the target are of an older epoch, so no fence) still counts its followers'
   * log ends from their last fetch before the truncation; appending the barrier then raises the
   * high watermark over it at once, and BARRIER_WRITTEN is recorded while in-sync followers still
   * hold the truncated batch at the barrier's offset. A crash of the leader then would elect one of
   * them, without the barrier. When this is fixed (or Kafka is shown to behave otherwise), this
   * test fails and goes, and the exploration test runs the model with {@code false}.
   */
  @Test
  void findingTheBarrierCountsAsReplicatedOnFollowerEndsFromBeforeTheTruncation() {
    // Given the real rules on a Kafka whose leader keeps its followers' ends across its truncation
    PartitionModel kafka44 =
        new PartitionModel(RuleSet.REAL, StopProtocolExplorationTest.FAULTS, false);
    // When the explorer runs one action off the fault-free stops
    StateExplorer.Result result = StopProtocolExplorationTest.explore(kafka44, 1);
    // Then BARRIER_WRITTEN is recorded while an in-sync follower has no barrier
    assertThat(result.violation()).startsWith("a recorded barrier is on every in-sync replica");
    assertThat(result.printedTrace()).contains("records BARRIER_WRITTEN");
  }
}
