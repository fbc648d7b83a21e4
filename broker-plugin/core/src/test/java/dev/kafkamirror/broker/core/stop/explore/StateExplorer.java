package dev.kafkamirror.broker.core.stop.explore;

import dev.kafkamirror.broker.core.stop.explore.PartitionModel.Transition;
import dev.kafkamirror.broker.core.stop.explore.PartitionModel.World;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Predicate;

/**
 * An explicit-state explorer: breadth first from the model's initial state over every enabled
 * action, each distinct state once (the visited set holds the states themselves: they are canonical
 * values, operators' calls sorted, timestamps fixed), up to a depth bound. Every state is checked
 * against the state invariants when first reached, every action against the transition rules.
 * Breadth first, so a counterexample it returns is a shortest one.
 *
 * <p>Single-threaded; one instance per run.
 */
final class StateExplorer {

  /** One action of a trace, the state it led to and the transition rule it broke, if any. */
  record Step(String action, World state, String violation) {
    Step(String action, World state) {
      this(action, state, null);
    }
  }

  /**
   * What a run found.
   *
   * @param states distinct states reached
   * @param transitions actions executed
   * @param depth the deepest level fully explored (the bound, unless the space ended earlier)
   * @param millis wall time
   * @param cpuMillis CPU time of the exploring thread (the wall time on a loaded machine is more)
   * @param reached states satisfying the run's "reached" predicate (shows the depth is enough)
   * @param violation the broken invariant, or null
   * @param trace the actions from the initial state to the violating state (first: the initial
   *     state, action null)
   */
  record Result(
      long states,
      long transitions,
      int depth,
      long millis,
      long cpuMillis,
      long reached,
      String violation,
      List<Step> trace) {

    boolean foundViolation() {
      return violation != null;
    }

    String figures() {
      return states
          + " states, "
          + transitions
          + " transitions, depth "
          + depth
          + ", "
          + millis
          + " ms ("
          + cpuMillis
          + " ms CPU)"
          + (violation == null
              ? ", no invariant broken"
              : ", counterexample of " + (trace.size() - 1) + " actions");
    }

    /** The counterexample, one action per line, then the state that broke the invariant. */
    String printedTrace() {
      if (violation == null) {
        return "no counterexample";
      }
      StringBuilder b = new StringBuilder();
      b.append("counterexample, ")
          .append(trace.size() - 1)
          .append(" actions from the initial state\n");
      b.append("  initial: ").append(trace.get(0).state()).append('\n');
      for (int i = 1; i < trace.size(); i++) {
        b.append(String.format("  %2d. %s%n", i, trace.get(i).action()));
      }
      b.append("broken: ").append(violation).append('\n');
      b.append("in the state:\n");
      for (String part : trace.get(trace.size() - 1).state().toString().split(" \\| ")) {
        b.append("  ").append(part).append('\n');
      }
      return b.toString();
    }
  }

  private record Parent(World from, String action) {}

  private StateExplorer() {}

  /** {@link #explore(PartitionModel, List, int, Predicate)} from the initial state alone. */
  static Result explore(PartitionModel model, int maxDepth, Predicate<World> reachedPredicate) {
    return explore(model, List.of(), maxDepth, reachedPredicate);
  }

  /**
   * Explores every sequence of up to {@code maxDepth} actions from the initial state and from every
   * state of each of {@code runs} (paths of actions from the initial state, for example a
   * fault-free stop), so that the depth bound is spent on deviations from the run rather than on
   * reaching its late steps.
   */
  static Result explore(
      PartitionModel model,
      List<List<Step>> runs,
      int maxDepth,
      Predicate<World> reachedPredicate) {
    long start = System.nanoTime();
    long cpuStart = CPU.getCurrentThreadCpuTime();
    World initial = model.initial();
    Map<Key, Parent> seen = new HashMap<>();
    seen.put(new Key(initial), new Parent(null, null));
    List<World> frontier = new ArrayList<>();
    frontier.add(initial);
    for (List<Step> run : runs) {
      World at = initial;
      for (Step s : run.subList(1, run.size())) {
        if (seen.putIfAbsent(new Key(s.state()), new Parent(at, s.action())) == null) {
          frontier.add(s.state());
        }
        if (s.violation() != null) {
          return new Result(
              seen.size(),
              0,
              0,
              millis(start),
              cpuMillis(cpuStart),
              0,
              s.violation(),
              pathTo(seen, s.state()));
        }
        at = s.state();
      }
    }
    long reached = 0;
    for (World w : frontier) {
      Optional<String> broken = PartitionModel.invariantViolation(w);
      if (broken.isPresent()) {
        return new Result(
            seen.size(),
            0,
            0,
            millis(start),
            cpuMillis(cpuStart),
            0,
            broken.get(),
            pathTo(seen, w));
      }
      reached += reachedPredicate.test(w) ? 1 : 0;
    }
    long transitions = 0;
    int depth = 0;
    while (depth < maxDepth && !frontier.isEmpty()) {
      List<World> next = new ArrayList<>();
      for (World w : frontier) {
        for (Transition t : model.successors(w)) {
          transitions++;
          String violation = t.violation();
          Key key = new Key(t.next());
          boolean fresh = !seen.containsKey(key);
          if (violation == null && fresh) {
            violation = PartitionModel.invariantViolation(t.next()).orElse(null);
          }
          if (violation != null) {
            List<Step> trace = pathTo(seen, w);
            trace.add(new Step(t.label(), t.next()));
            return new Result(
                seen.size() + 1L,
                transitions,
                depth + 1,
                millis(start),
                cpuMillis(cpuStart),
                reached,
                violation,
                trace);
          }
          if (fresh) {
            seen.put(key, new Parent(w, t.label()));
            next.add(t.next());
            if (reachedPredicate.test(t.next())) {
              reached++;
            }
          }
        }
      }
      frontier = next;
      depth++;
    }
    return new Result(
        seen.size(),
        transitions,
        depth,
        millis(start),
        cpuMillis(cpuStart),
        reached,
        null,
        List.of());
  }

  /**
   * A run of the model chosen by action: from the initial state, each step takes the first enabled
   * action whose label starts with the next of {@code actions}. The run ends early where no such
   * action is enabled (rules that behave differently) or where an action broke a transition rule
   * (its last step then names it).
   */
  static List<Step> run(PartitionModel model, List<String> actions) {
    List<Step> path = new ArrayList<>();
    World at = model.initial();
    path.add(new Step(null, at));
    for (String action : actions) {
      Transition chosen = null;
      for (Transition t : model.successors(at)) {
        if (t.label().startsWith(action)) {
          chosen = t;
          break;
        }
      }
      if (chosen == null) {
        return path;
      }
      at = chosen.next();
      path.add(new Step(chosen.label(), at, chosen.violation()));
      if (chosen.violation() != null) {
        return path;
      }
    }
    return path;
  }

  /** A visited-set key: the state with its hash computed once (states are deep values). */
  private static final class Key {
    private final World world;
    private final int hash;

    Key(World world) {
      this.world = world;
      this.hash = world.hashCode();
    }

    @Override
    public boolean equals(Object o) {
      return o instanceof Key k && k.hash == hash && k.world.equals(world);
    }

    @Override
    public int hashCode() {
      return hash;
    }
  }

  private static List<Step> pathTo(Map<Key, Parent> seen, World w) {
    List<Step> path = new ArrayList<>();
    World at = w;
    while (at != null) {
      Parent p = seen.get(new Key(at));
      path.add(new Step(p.action(), at));
      at = p.from();
    }
    Collections.reverse(path);
    return path;
  }

  private static final java.lang.management.ThreadMXBean CPU =
      java.lang.management.ManagementFactory.getThreadMXBean();

  private static long cpuMillis(long startNanos) {
    return (CPU.getCurrentThreadCpuTime() - startNanos) / 1_000_000L;
  }

  private static long millis(long startNanos) {
    return (System.nanoTime() - startNanos) / 1_000_000L;
  }
}
