package dev.kafkamirror.broker.core.stop.explore;

import static org.assertj.core.api.Assertions.assertThat;

import dev.kafkamirror.broker.core.stop.explore.PartitionModel.Budget;
import dev.kafkamirror.broker.core.stop.explore.PartitionModel.World;
import dev.kafkamirror.broker.core.stop.rules.LocalState;
import java.util.List;
import java.util.function.Predicate;
import org.junit.jupiter.api.Test;

/**
 * The stop protocol's real rules ({@code StopRules}) checked by an explicit-state explorer over a
 * model of one partition with three replicas, two operators and faults (see {@link
 * PartitionModel}).
 */
class StopProtocolExplorationTest {

  /** Actions explored beyond every state of the fault-free stops; see docs/broker-plugin.md. */
  static final int DEPTH = Integer.getInteger("explore.depth", 3);

  /** One crash, one leadership move, one ISR drop, one timed-out state write, one client write. */
  static final Budget FAULTS = new Budget(1, 1, 1, 1, 1);

  static final Predicate<World> WRITABLE =
      w -> w.leader() >= 0 && w.replicas().get(w.leader()).local() == LocalState.STOPPED;

  static StateExplorer.Result explore(PartitionModel model, int depth) {
    List<StateExplorer.Step> inPlace = StateExplorer.run(model, NominalStops.IN_PLACE);
    List<StateExplorer.Step> fenced = StateExplorer.run(model, NominalStops.FENCED);
    return explore(model, List.of(inPlace, fenced), depth);
  }

  static StateExplorer.Result explore(
      PartitionModel model, List<List<StateExplorer.Step>> runs, int depth) {
    StateExplorer.Result result = StateExplorer.explore(model, runs, depth, WRITABLE);
    System.out.println(
        "stop protocol exploration: " + result.figures() + ", writable states " + result.reached());
    System.out.println(result.printedTrace());
    return result;
  }

  /** The first broken invariant along a run, or null. */
  static String firstViolation(List<StateExplorer.Step> run) {
    for (StateExplorer.Step step : run) {
      if (step.violation() != null) {
        return step.violation();
      }
      String broken = PartitionModel.invariantViolation(step.state()).orElse(null);
      if (broken != null) {
        return broken;
      }
    }
    return null;
  }

  /**
   * The explorer's depth-4 counterexample on the first rules: a second truncate call after the
   * barrier was appended (and replicated) but before BARRIER_WRITTEN was recorded found the log
   * longer than the recorded truncation offset, fenced, and the new leader truncated the barrier
   * away on itself; the leadership moved back and BARRIER_WRITTEN was recorded while that in-sync
   * replica held no barrier.
   */
  @Test
  void aTruncateRepeatedAfterTheBarrierAppendLeavesTheBarrierInPlace() {
    // Given a stop whose barrier is appended and on every replica, not yet recorded
    PartitionModel model = new PartitionModel(RuleSet.REAL, FAULTS, PartitionModel.Options.FIXED);
    List<StateExplorer.Step> run =
        StateExplorer.run(model, NominalStops.IN_PLACE_UNTIL_THE_BARRIER_IS_FETCHED);
    assertThat(run).hasSize(11);
    World appended = run.get(10).state();
    assertThat(appended.replicas())
        .allSatisfy(r -> assertThat(r.log()).hasSize(2).last().hasToString("B1"));
    // When a second operator calls truncate on the leader
    List<String> truncate =
        model.successors(appended).stream()
            .map(PartitionModel.Transition::label)
            .filter(l -> l.startsWith("operator calls truncate on broker 0"))
            .toList();
    // Then it neither moves leadership nor truncates: the log already ends with the barrier at the
    // recorded truncation offset
    assertThat(truncate).noneMatch(l -> l.contains("LEADER_MOVED") || l.contains("truncates"));
  }

  @Test
  void everyInterleavingUpToTheStatedDepthKeepsTheStopInvariants() {
    // Given the real rules, two operators and the fault budget, on a Kafka whose leader forgets its
    // followers' log ends when it truncates itself (see the finding below)
    PartitionModel model = new PartitionModel(RuleSet.REAL, FAULTS, PartitionModel.Options.FIXED);
    // When every interleaving up to the depth is explored from every state of both fault-free stops
    assertThat(StateExplorer.run(model, NominalStops.IN_PLACE))
        .hasSize(NominalStops.IN_PLACE.size() + 1);
    assertThat(StateExplorer.run(model, NominalStops.FENCED))
        .hasSize(NominalStops.FENCED.size() + 1);
    StateExplorer.Result result = explore(model, DEPTH);
    // Then no invariant breaks, and the exploration did reach writable partitions
    assertThat(result.violation()).isNull();
    assertThat(result.depth()).isEqualTo(DEPTH);
    assertThat(result.reached()).isPositive();
  }

  @Test
  void everyInterleavingFromAQuiescentPartitionUpToTheStatedDepthKeepsTheStopInvariants() {
    // Given the real rules, two operators and the fault budget, and a quiescent partition: every
    // replica holds a committed transaction, the high watermark is at the log end
    PartitionModel model =
        new PartitionModel(
            RuleSet.REAL, FAULTS, PartitionModel.Options.FIXED, PartitionModel.Start.QUIESCENT);
    List<StateExplorer.Step> nominal = StateExplorer.run(model, NominalStops.QUIESCENT);
    List<StateExplorer.Step> fenced = StateExplorer.run(model, NominalStops.QUIESCENT_FENCED);
    for (List<StateExplorer.Step> run : List.of(nominal, fenced)) {
      assertThat(run.get(run.size() - 1).state().replicas())
          .allSatisfy(r -> assertThat(r.local()).isEqualTo(LocalState.STOPPED));
    }
    assertThat(nominal).hasSize(NominalStops.QUIESCENT.size() + 1);
    assertThat(fenced).hasSize(NominalStops.QUIESCENT_FENCED.size() + 1);
    // When every interleaving up to the depth is explored from every state of its two fault-free
    // stops (the first without a truncate call: remove-fetchers records the truncation; the second
    // after the fetcher mirrored a new transaction, with the fence)
    StateExplorer.Result result = explore(model, List.of(nominal, fenced), DEPTH);
    // Then no invariant breaks, and the exploration did reach writable partitions
    assertThat(result.violation()).isNull();
    assertThat(result.depth()).isEqualTo(DEPTH);
    assertThat(result.reached()).isPositive();
  }
}
