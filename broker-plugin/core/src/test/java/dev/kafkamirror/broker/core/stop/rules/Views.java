package dev.kafkamirror.broker.core.stop.rules;

import dev.kafkamirror.broker.core.stop.StopState;
import dev.kafkamirror.broker.core.stop.StopStateKey;
import dev.kafkamirror.broker.core.stop.StopStep;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Random;
import java.util.Set;

/** Partition views for the rule tests: fixed ones, and random but self-consistent ones. */
final class Views {

  static final StopStateKey KEY = new StopStateKey("m1", "topic-id-1", 0);
  static final String SOURCE = "source-cluster-a";

  private Views() {}

  /** A three-replica mirror led by broker 1 at epoch 5, 16 records, all committed and stable. */
  static PartitionView mirroringLeader() {
    return new PartitionView(
        KEY,
        "t",
        null,
        LocalState.MIRRORING,
        1,
        true,
        1,
        5,
        16L,
        16L,
        16L,
        4,
        -1L,
        0,
        List.of(1, 2, 3),
        Set.of(1, 2, 3),
        Set.of(1, 2, 3),
        SOURCE,
        null,
        true,
        1_000L,
        true);
  }

  /**
   * A random view whose log figures are consistent (last stable offset <= high watermark <= log
   * end), whose durable state (if any) is of the current or an older epoch, and whose replica sets
   * contain the broker.
   */
  static PartitionView random(long seed) {
    Random r = new Random(seed);
    int epoch = r.nextInt(6);
    int brokerId = 1 + r.nextInt(3);
    boolean leader = r.nextInt(4) != 0;
    long leo = r.nextInt(21);
    long hw = r.nextInt(3) == 0 ? r.nextInt((int) leo + 1) : leo;
    long lso = r.nextInt(3) == 0 ? r.nextInt((int) hw + 1) : hw;
    int lastEpoch = leo == 0 ? -1 : r.nextInt(epoch + 1);
    long barrierAtEnd = leo > 0 && r.nextInt(3) == 0 ? leo - 1 : -1L;
    int open = r.nextInt(5) == 0 ? r.nextInt(4) - 1 : 0;
    List<Integer> replicas = new ArrayList<>(List.of(1, 2, 3));
    java.util.Collections.shuffle(replicas, r);
    replicas = replicas.subList(0, 1 + r.nextInt(3));
    if (!replicas.contains(brokerId)) {
      replicas = new ArrayList<>(replicas);
      replicas.set(0, brokerId);
    }
    Set<Integer> isr = subset(r, replicas, brokerId);
    Set<Integer> holders = subset(r, replicas, brokerId);
    String known = pick(r, null, SOURCE, "source-cluster-b");
    String reset = r.nextInt(4) == 0 ? "t-0: producer 7 survived the barrier" : null;
    boolean rule = r.nextInt(10) != 0;
    LocalState local = LocalState.values()[r.nextInt(4)];
    StopState durable = r.nextInt(5) == 0 ? null : durable(r, epoch, leo);
    return new PartitionView(
        KEY,
        "t",
        durable,
        local,
        brokerId,
        leader,
        leader ? brokerId : r.nextInt(4) - 1,
        epoch,
        leo,
        hw,
        lso,
        lastEpoch,
        barrierAtEnd,
        open,
        replicas,
        isr,
        holders,
        known,
        reset,
        rule,
        2_000L,
        r.nextInt(4) != 0);
  }

  private static StopState durable(Random r, int maxEpoch, long leo) {
    StopStep step = StopStep.values()[r.nextInt(StopStep.values().length)];
    int epoch = r.nextInt(maxEpoch + 1);
    long target = r.nextInt((int) leo + 3);
    long truncatedTo = r.nextInt(3) == 0 ? r.nextInt((int) target + 1) : target;
    long barrier = truncatedTo + (r.nextInt(3) == 0 ? 1 : 0);
    StopState s = StopState.fetchersRemoved(KEY, "t", epoch, 1 + r.nextInt(3), 500L);
    if (step.atLeast(StopStep.TRUNCATING)) {
      s = s.withTruncateTarget(target);
    }
    if (step.atLeast(StopStep.TRUNCATED)) {
      s = s.withTruncatedTo(truncatedTo, epoch);
    }
    if (step.atLeast(StopStep.OFFSETS_PERSISTED)) {
      s = s.withMirroredEnd(truncatedTo, r.nextInt(4) == 0 ? "source-cluster-b" : SOURCE);
    }
    if (step.atLeast(StopStep.BARRIER_WRITTEN)) {
      s = s.withBarrier(barrier);
    }
    return s.advance(step, epoch, s.writerBrokerId(), 500L);
  }

  private static Set<Integer> subset(Random r, List<Integer> replicas, int always) {
    Set<Integer> out = new HashSet<>();
    out.add(always);
    for (Integer b : replicas) {
      if (r.nextBoolean()) {
        out.add(b);
      }
    }
    return out;
  }

  @SafeVarargs
  private static <T> T pick(Random r, T... choices) {
    return choices[r.nextInt(choices.length)];
  }
}
