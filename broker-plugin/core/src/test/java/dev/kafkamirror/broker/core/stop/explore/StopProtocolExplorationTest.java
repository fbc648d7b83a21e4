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

  /** One crash, one leadership move, one ISR drop, one timed-out state write. */
  static final Budget FAULTS = new Budget(1, 1, 1, 1);

  static final Predicate<World> WRITABLE =
      w -> w.leader() >= 0 && w.replicas().get(w.leader()).local() == LocalState.STOPPED;

  static StateExplorer.Result explore(PartitionModel model, int depth) {
    List<StateExplorer.Step> inPlace = StateExplorer.run(model, NominalStops.IN_PLACE);
    List<StateExplorer.Step> fenced = StateExplorer.run(model, NominalStops.FENCED);
    StateExplorer.Result result =
        StateExplorer.explore(model, List.of(inPlace, fenced), depth, WRITABLE);
    System.out.println(
        "stop protocol exploration: " + result.figures() + ", writable states " + result.reached());
    System.out.println(result.printedTrace());
    return result;
  }

  @Test
  void everyInterleavingUpToTheStatedDepthKeepsTheStopInvariants() {
    // Given the real rules, two operators and the fault budget, on a Kafka whose leader forgets its
    // followers' log ends when it truncates itself (see the finding below)
    PartitionModel model = new PartitionModel(RuleSet.REAL, FAULTS, true);
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
}
