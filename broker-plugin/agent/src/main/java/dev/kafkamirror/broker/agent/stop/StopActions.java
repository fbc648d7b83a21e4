package dev.kafkamirror.broker.agent.stop;

import dev.kafkamirror.broker.agent.TestFaults;
import dev.kafkamirror.broker.agent.control.PartitionOperationException;
import dev.kafkamirror.broker.core.stop.StopState;
import dev.kafkamirror.broker.core.stop.StopStep;
import dev.kafkamirror.broker.core.stop.rules.Decision;
import dev.kafkamirror.broker.core.stop.rules.Decision.Act;
import dev.kafkamirror.broker.core.stop.rules.LocalState;
import dev.kafkamirror.broker.core.stop.rules.PartitionView;
import dev.kafkamirror.broker.core.stop.rules.StopRules;
import dev.kafkamirror.contract.PartitionError.Code;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Applies the Kafka actions of one round of {@link StopExecutor}: truncations and barrier appends
 * under the partition's lock (re-checked there, so two callers at once truncate and append once),
 * the fences in one request, bounded waits for the high watermark, and the registry change that
 * lets clients write. The test crash points sit exactly where they sat in the stop sequence.
 */
final class StopActions {

  private static final long BARRIER_POLL_MS = 5L;

  private final StopPartitions partitions;
  private final StopStore store;
  private final StopFence fence;

  StopActions(StopPartitions partitions, StopStore store, StopFence fence) {
    this.partitions = partitions;
    this.store = store;
    this.fence = fence;
  }

  void apply(StopRun run, Map<StopTarget, Decision> decided) {
    Map<StopTarget, Integer> moves = new LinkedHashMap<>();
    Map<StopTarget, Long> moveTargets = new LinkedHashMap<>();
    List<StopTarget> open = new ArrayList<>();
    Map<StopTarget, Long> truncations = new LinkedHashMap<>();
    for (Map.Entry<StopTarget, Decision> e : decided.entrySet()) {
      StopTarget t = e.getKey();
      if (!(e.getValue() instanceof Act act) || run.answered(t.ref())) {
        continue;
      }
      try {
        Decision.Action a = act.action();
        if (a instanceof Decision.Truncate tr) {
          truncations.put(t, tr.offset());
        } else if (a instanceof Decision.MoveLeadership m) {
          moves.put(t, m.toBroker());
          moveTargets.put(t, m.truncateTarget());
        } else if (a instanceof Decision.AppendBarrier b) {
          appendBarrier(run, t, b.sourceClusterId());
        } else if (a instanceof Decision.AwaitHighWatermark w) {
          await(run, t, w.barrierOffset());
        } else if (a instanceof Decision.OpenForWrites) {
          open.add(t);
        }
      } catch (PartitionOperationException ex) {
        run.fail(t.ref(), ex);
      }
    }
    truncateAll(run, truncations);
    fence(run, moves, moveTargets);
    if (!open.isEmpty()) {
      // STOPPED is durable: only now may clients write.
      partitions.advanceAll(open, LocalState.STOPPED);
    }
  }

  /**
   * Waits, one partition after the other, for every {@link Decision.AwaitHighWatermark} of the
   * round (each bounded by the call's time), and returns the partitions it waited for; a partition
   * whose earlier wait in this call ran out fails with the timeout. Changes nothing.
   */
  List<StopTarget> awaitHighWatermarks(StopRun run, Map<StopTarget, Decision> decided) {
    List<StopTarget> waited = new ArrayList<>();
    for (Map.Entry<StopTarget, Decision> e : decided.entrySet()) {
      StopTarget t = e.getKey();
      if (!(e.getValue() instanceof Act act)
          || !(act.action() instanceof Decision.AwaitHighWatermark w)
          || run.answered(t.ref())) {
        continue;
      }
      try {
        await(run, t, w.barrierOffset());
      } catch (PartitionOperationException ex) {
        run.fail(t.ref(), ex);
      }
      waited.add(t);
    }
    return waited;
  }

  /**
   * Truncates every partition of the round that the rules asked to, as one batch: Kafka writes its
   * recovery-point checkpoint (every log of the directory, flushed) once per truncation request, so
   * 333 truncations one by one wrote it 333 times. The batch holds every partition's lock (taken in
   * name order, so two callers at once cannot deadlock) while it checks each log end again and
   * truncates, so a concurrent caller neither truncates twice nor appends a barrier in between. The
   * states were recorded before this runs (the executor writes before it acts); a partition whose
   * truncation fails fails alone.
   */
  private void truncateAll(StopRun run, Map<StopTarget, Long> truncations) {
    if (truncations.isEmpty()) {
      return;
    }
    List<StopTarget> ordered = new ArrayList<>(truncations.keySet());
    ordered.sort(java.util.Comparator.comparing(StopTarget::name));
    withLocks(ordered, 0, () -> truncateLocked(run, truncations));
  }

  private static void withLocks(List<StopTarget> targets, int from, Runnable body) {
    if (from == targets.size()) {
      body.run();
      return;
    }
    synchronized (targets.get(from).lock()) {
      withLocks(targets, from + 1, body);
    }
  }

  private void truncateLocked(StopRun run, Map<StopTarget, Long> truncations) {
    Map<StopTarget, Long> due = new LinkedHashMap<>();
    List<String> recorded = new ArrayList<>();
    for (Map.Entry<StopTarget, Long> e : truncations.entrySet()) {
      StopTarget t = e.getKey();
      long offset = e.getValue();
      if (t.logEndOffset() <= offset) {
        continue; // another caller truncated it
      }
      try {
        StopState durable = store.get(t.key()).orElse(null);
        if (durable != null && durable.step() == StopStep.TRUNCATING) {
          recorded.add(t.name() + " truncating to offset " + offset);
        }
        due.put(t, offset);
      } catch (PartitionOperationException ex) {
        run.fail(t.ref(), ex);
      }
    }
    if (due.isEmpty()) {
      return;
    }
    if (!recorded.isEmpty()) {
      TestFaults.crashPoint(
          TestFaults.CrashPoint.AFTER_TRUNCATING_RECORDED, String.join(", ", recorded));
    }
    partitions
        .truncateAll(due)
        .forEach(
            (t, ex) ->
                run.fail(
                    t.ref(),
                    ex instanceof PartitionOperationException p
                        ? p
                        : new PartitionOperationException(
                            Code.INTERNAL, t.name() + ": truncation failed: " + ex, ex)));
  }

  /**
   * One barrier however many callers: two operators (a zombie Lease holder and its successor) may
   * call this step on the same partition at once; the rule is asked again and the append happens
   * under one lock per partition, so the second caller finds the first one's barrier.
   */
  private void appendBarrier(StopRun run, StopTarget t, String source)
      throws PartitionOperationException {
    try {
      synchronized (t.lock()) {
        StopState durable = store.get(t.key()).orElse(null);
        PartitionView v = t.view(run.call(), durable, source, 0L);
        if (!StopExecutor.asks(
            StopRules.decide(run.call(), v, source), Decision.AppendBarrier.class)) {
          return; // another caller appended it; the next round takes it
        }
        long offset = t.appendBarrier(source);
        run.appended(t);
        TestFaults.crashPoint(
            TestFaults.CrashPoint.AFTER_BARRIER_APPENDED,
            t.name() + " barrier appended at offset " + offset);
        t.completeDelayedFetches();
      }
    } catch (PartitionOperationException e) {
      throw e;
    } catch (Exception e) {
      throw new PartitionOperationException(
          Code.INTERNAL, t.ref().key() + ": the barrier failed: " + e, e);
    }
  }

  /**
   * acks=all: the barrier must be below the high watermark and fetched by every in-sync follower
   * since the leader's truncation, i.e. on every in-sync replica. Kafka's high watermark alone can
   * pass the barrier on follower log ends from before the truncation.
   */
  private static void await(StopRun run, StopTarget t, long offset)
      throws PartitionOperationException {
    if (run.awaitedBefore(t)) {
      long hw = t.highWatermark();
      List<String> behind = t.followersBehind(offset + 1);
      throw new PartitionOperationException(
          Code.TIMEOUT,
          t.name()
              + ": the barrier at offset "
              + offset
              + " is written but "
              + (hw <= offset || behind.isEmpty()
                  ? "not yet below the high watermark " + hw
                  : "not yet fetched since the leader's truncation by every in-sync follower"
                      + " (the high watermark "
                      + hw
                      + " counts follower log ends from before it): "
                      + String.join(", ", behind))
              + " after "
              + run.timeoutMs()
              + " ms; repeat the call to wait again");
    }
    while ((t.highWatermark() <= offset || !t.followersBehind(offset + 1).isEmpty())
        && run.remainingNanos() > 0
        && !Thread.currentThread().isInterrupted()) {
      sleep(BARRIER_POLL_MS);
    }
  }

  private void fence(StopRun run, Map<StopTarget, Integer> moves, Map<StopTarget, Long> targets) {
    if (moves.isEmpty()) {
      return;
    }
    Map<StopTarget, StopFence.Moved> moved;
    try {
      moved = fence.moveLeadership(moves, run.timeoutMs());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      moved = Map.of();
    }
    int self;
    try {
      self = store.brokerId();
    } catch (PartitionOperationException e) {
      self = -1;
    }
    for (StopTarget t : moves.keySet()) {
      StopFence.Moved m = moved.get(t);
      String error = m == null ? "interrupted" : m.error();
      run.fail(
          t.ref(),
          error == null
              ? new PartitionOperationException(
                  Code.LEADER_MOVED,
                  t.name()
                      + ": leadership moved from broker "
                      + self
                      + " (leader epoch "
                      + t.leaderEpoch()
                      + ") to broker "
                      + m.newLeaderId()
                      + " to fence the replicas before the truncation to offset "
                      + targets.get(t)
                      + "; call truncate on broker "
                      + m.newLeaderId())
              : new PartitionOperationException(
                  Code.NOT_ENOUGH_REPLICAS,
                  t.name()
                      + ": cannot fence the replicas by moving leadership to broker "
                      + moves.get(t)
                      + ": "
                      + error));
    }
  }

  static void sleep(long ms) {
    try {
      Thread.sleep(ms);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
