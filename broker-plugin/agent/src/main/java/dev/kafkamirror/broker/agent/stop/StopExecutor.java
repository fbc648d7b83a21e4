package dev.kafkamirror.broker.agent.stop;

import dev.kafkamirror.broker.agent.TestFaults;
import dev.kafkamirror.broker.agent.control.PartitionOperationException;
import dev.kafkamirror.broker.agent.control.PartitionRef;
import dev.kafkamirror.broker.agent.control.StepOutcome;
import dev.kafkamirror.broker.core.stop.FencedStopStateException;
import dev.kafkamirror.broker.core.stop.StopState;
import dev.kafkamirror.broker.core.stop.StopStateKey;
import dev.kafkamirror.broker.core.stop.StopStep;
import dev.kafkamirror.broker.core.stop.rules.Decision;
import dev.kafkamirror.broker.core.stop.rules.Decision.Act;
import dev.kafkamirror.broker.core.stop.rules.Decision.Done;
import dev.kafkamirror.broker.core.stop.rules.Decision.Record;
import dev.kafkamirror.broker.core.stop.rules.Decision.Refuse;
import dev.kafkamirror.broker.core.stop.rules.LocalState;
import dev.kafkamirror.broker.core.stop.rules.PartitionView;
import dev.kafkamirror.broker.core.stop.rules.StopCall;
import dev.kafkamirror.broker.core.stop.rules.StopRules;
import dev.kafkamirror.contract.Fields;
import dev.kafkamirror.contract.PartitionError.Code;
import java.time.Clock;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Runs one batched stop call: the per-step skeleton, written once. It resolves the partitions,
 * brings the stop state up to date, and then in rounds asks each partition's rule ({@link
 * StopRules}) with a fresh view, writes every decided state in one acks=all batch, applies the
 * Kafka actions ({@link StopActions}), and answers a partition once its rule says done or refuses.
 *
 * <p>Invariants: within a round every state is written before any action is applied, so progress is
 * durable before anything destructive; a failed write fails its partition, never the batch; a
 * partition gets exactly one outcome; an unavailable store fails every partition that needs it. The
 * one exception to "decide, write, act" is a wait for the high watermark: it changes nothing, so it
 * runs before the round's write and the partitions it waited for are decided again and recorded in
 * that same write (barriers that replicate at different times are one acks=all write, not two).
 *
 * <p>Thread-safe: per call state lives in a {@link StopRun}; the collaborators are thread-safe.
 */
public final class StopExecutor {

  /**
   * Debug: one line per round of a call, splitting its time between the new-epoch stop-state read,
   * the rules' decisions (with their waits), the stop-state write and the Kafka actions.
   */
  private static final org.slf4j.Logger LOG =
      org.slf4j.LoggerFactory.getLogger("dev.kafkamirror.broker.agent.StopExecutor");

  /** A call needs at most four rounds (record, act, record, done); more means a rule loops. */
  static final int MAX_ROUNDS = 8;

  private static final long HW_POLL_MS = 20L;
  private static final long LEADERSHIP_WAIT_MS = 1_000L;
  private static final long FENCE_SYNC_TIMEOUT_MS = 5_000L;

  private final StopPartitions partitions;
  private final StopStore store;
  private final StopActions actions;
  private final Clock clock;

  public StopExecutor(StopPartitions partitions, StopStore store, StopFence fence, Clock clock) {
    this.partitions = partitions;
    this.store = store;
    this.actions = new StopActions(partitions, store, fence);
    this.clock = clock;
  }

  /** A barrier on a partition that is not a mirror (tests and manual repairs). */
  @FunctionalInterface
  public interface PlainBarrier {
    Map<String, Object> append(PartitionRef ref, long timeoutMs) throws PartitionOperationException;
  }

  /**
   * Step 1 on every replica: stop mirror appends; the leader records FETCHERS_REMOVED and, when its
   * log has nothing to truncate, the truncate step's record in the next round ({@link
   * StopRules#removeFetchers}). The appends stop before the leader's rule is asked, so the view it
   * decides on no longer changes.
   */
  public List<StepOutcome> removeFetchers(List<PartitionRef> refs, long timeoutMs) {
    StopRun run = new StopRun(StopCall.REMOVE_FETCHERS, timeoutMs);
    List<StopTarget> all = resolveAll(run, refs, false);
    partitions.advanceAll(all, LocalState.STOPPING);
    List<StopTarget> leaders = all.stream().filter(StopTarget::isLeader).toList();
    if (!leaders.isEmpty()) {
      try {
        syncUnlessCurrent(leaders.stream().map(StopTarget::ref).toList(), timeoutMs);
        rounds(run, leaders);
      } catch (PartitionOperationException e) {
        leaders.forEach(t -> run.fail(t.ref(), e));
      }
    }
    all.forEach(t -> run.okUnlessAnswered(t.ref(), t.describe()));
    return run.ordered(refs);
  }

  /** Step 2 on the leader: fix the target, fence if needed, truncate to it. */
  public List<StepOutcome> truncate(List<PartitionRef> refs, long timeoutMs) {
    return onLeaders(new StopRun(StopCall.TRUNCATE, timeoutMs), refs, true);
  }

  /** Step 3 on the leader: record the last mirrored offset, its epoch and the source. */
  public List<StepOutcome> persistOffsets(List<PartitionRef> refs, long timeoutMs) {
    return onLeaders(new StopRun(StopCall.PERSIST_OFFSETS, timeoutMs), refs, true);
  }

  /**
   * Step 4 on the leader: the barrier at the recorded truncation offset, acks=all. Partitions that
   * are not mirrors get a plain barrier (for tests and manual repairs), as before the stop
   * sequence.
   */
  public List<StepOutcome> barrier(List<PartitionRef> refs, long timeoutMs, PlainBarrier plain) {
    StopRun run = new StopRun(StopCall.BARRIER, timeoutMs);
    List<PartitionRef> mirrors = new ArrayList<>();
    for (PartitionRef ref : refs) {
      if (partitions.isMirror(ref)) {
        mirrors.add(ref);
        continue;
      }
      try {
        run.ok(ref, plain.append(ref, run.remainingMs()));
      } catch (PartitionOperationException e) {
        run.fail(ref, e);
      }
    }
    if (!mirrors.isEmpty()) {
      awaitLeadership(run, mirrors);
      try {
        syncUnlessCurrent(mirrors, run.remainingMs());
      } catch (PartitionOperationException e) {
        mirrors.forEach(r -> run.fail(r, e));
        return run.ordered(refs);
      }
      rounds(run, resolveAll(run, mirrors, true));
    }
    return run.ordered(refs);
  }

  /**
   * Step 5: on the leader, records STOPPED once the barrier is on every in-sync replica, then lets
   * clients write; on a follower, follows a STOPPED already recorded.
   */
  public List<StepOutcome> makeWritable(List<PartitionRef> refs, long timeoutMs) {
    return onLeaders(new StopRun(StopCall.MAKE_WRITABLE, timeoutMs), refs, false);
  }

  private List<StepOutcome> onLeaders(StopRun run, List<PartitionRef> refs, boolean leaderOnly) {
    if (leaderOnly) {
      awaitLeadership(run, refs);
    }
    try {
      syncUnlessCurrent(refs, run.timeoutMs());
    } catch (PartitionOperationException e) {
      refs.forEach(r -> run.fail(r, e));
      return run.ordered(refs);
    }
    rounds(run, resolveAll(run, refs, leaderOnly));
    return run.ordered(refs);
  }

  /**
   * Before a leader-only step: a leader that moved here (a fence, an election) is in the broker's
   * metadata before the broker applies it, and the operator calls the broker its metadata names.
   * Waiting a little for that leadership saves the operator a round (seconds at 1,000 partitions);
   * the wait is at most {@value #LEADERSHIP_WAIT_MS} ms and a quarter of the call's time.
   */
  private void awaitLeadership(StopRun run, List<PartitionRef> refs) {
    partitions.awaitLeadership(refs, Math.min(LEADERSHIP_WAIT_MS, run.timeoutMs() / 4));
  }

  private List<StopTarget> resolveAll(StopRun run, List<PartitionRef> refs, boolean leaderOnly) {
    List<StopTarget> targets = new ArrayList<>();
    for (PartitionRef ref : refs) {
      try {
        targets.add(partitions.resolve(ref, leaderOnly));
      } catch (PartitionOperationException e) {
        run.fail(ref, e);
      }
    }
    return targets;
  }

  /** Asks, records, acts, until every target is answered. */
  void rounds(StopRun run, List<StopTarget> targets) {
    List<StopTarget> active = new ArrayList<>(targets);
    for (int round = 1; !active.isEmpty(); round++) {
      Map<StopTarget, Decision> decided = new LinkedHashMap<>();
      long started = System.nanoTime();
      syncWhereLeadingInNewEpoch(run, active);
      long synced = System.nanoTime();
      for (StopTarget t : active) {
        if (run.answered(t.ref())) {
          continue;
        }
        try {
          Decision d = withSourceEpoch(t, decideWithRetries(run, t, round == 1));
          if (round > MAX_ROUNDS) {
            throw new PartitionOperationException(
                Code.INTERNAL,
                t.name()
                    + ": the "
                    + run.call().callName()
                    + " call did not finish in "
                    + MAX_ROUNDS
                    + " rounds (last decision "
                    + d
                    + ")");
          }
          decided.put(t, d);
        } catch (PartitionOperationException e) {
          run.fail(t.ref(), e);
        }
      }
      long waitedFrom = System.nanoTime();
      awaitBeforeWriting(run, decided);
      long decidedAt = System.nanoTime();
      write(run, decided);
      long written = System.nanoTime();
      actions.apply(run, decided);
      if (LOG.isDebugEnabled()) {
        long records = decided.values().stream().filter(d -> d instanceof Record).count();
        long acts = decided.values().stream().filter(d -> d instanceof Act).count();
        LOG.debug(
            "stop round {} of {}: {} partitions, sync {} ms, decide {} ms (high watermark waits"
                + " before the write {} ms), write {} records {} ms, act {} actions {} ms",
            round,
            run.call().callName(),
            active.size(),
            (synced - started) / 1_000_000L,
            (decidedAt - synced) / 1_000_000L,
            (decidedAt - waitedFrom) / 1_000_000L,
            records,
            (written - decidedAt) / 1_000_000L,
            acts,
            (System.nanoTime() - written) / 1_000_000L);
      }
      decided.forEach(
          (t, d) -> {
            if (d instanceof Done) {
              run.okUnlessAnswered(t.ref(), result(run, t));
            } else if (d instanceof Refuse r) {
              run.fail(t.ref(), new PartitionOperationException(code(r.kind()), r.message()));
            }
          });
      active = active.stream().filter(t -> !run.answered(t.ref())).toList();
    }
  }

  /**
   * Runs the round's waits for the high watermark ({@link Decision.AwaitHighWatermark}) before its
   * write and decides those partitions again on a fresh view, so that a barrier that reached the
   * high watermark meanwhile is recorded in this round's write. A wait changes nothing, so the
   * invariant "written before anything destructive" holds; the stop state is read again where the
   * wait outlived a leadership change, as at the start of every round. A partition whose wait ran
   * out is decided to wait again, and the round's act then reports its timeout, as before.
   */
  private void awaitBeforeWriting(StopRun run, Map<StopTarget, Decision> decided) {
    List<StopTarget> waited = actions.awaitHighWatermarks(run, decided);
    if (waited.isEmpty()) {
      return;
    }
    // A leadership that moved away and back during the wait is a new epoch: read the stop state
    // again first, as every round does, or the decision would record an earlier step over a
    // later one another leader recorded meanwhile.
    syncWhereLeadingInNewEpoch(run, waited.stream().filter(t -> !run.answered(t.ref())).toList());
    for (StopTarget t : waited) {
      if (run.answered(t.ref())) {
        decided.remove(t);
        continue;
      }
      try {
        decided.put(t, withSourceEpoch(t, decideWithRetries(run, t, false)));
      } catch (PartitionOperationException e) {
        run.fail(t.ref(), e);
        decided.remove(t);
      }
    }
  }

  /**
   * Reads the stop state up to date again for the partitions this broker now leads in a leader
   * epoch it has not synced in. A call that waited (for the high watermark, say) while leadership
   * went to another broker, which recorded later steps, and came back, must not decide from its
   * table of before: it would record an earlier step in the newer epoch over the later one, and the
   * stop would go back (found by the stop protocol explorer). A partition whose sync fails fails
   * alone.
   */
  private void syncWhereLeadingInNewEpoch(StopRun run, List<StopTarget> active) {
    Map<StopStateKey, Integer> stale = new HashMap<>();
    List<StopTarget> staleTargets = new ArrayList<>();
    for (StopTarget t : active) {
      try {
        if (t.isLeader() && !store.isCurrentAsLeader(t.key(), t.leaderEpoch())) {
          stale.put(t.key(), t.leaderEpoch());
          staleTargets.add(t);
        }
      } catch (PartitionOperationException e) {
        run.fail(t.ref(), e);
      }
    }
    if (stale.isEmpty()) {
      return;
    }
    try {
      store.syncAsLeader(stale, Math.max(1L, run.remainingMs()));
    } catch (PartitionOperationException e) {
      staleTargets.forEach(t -> run.fail(t.ref(), e));
    }
  }

  /** The rule's decision on a fresh view. */
  Decision decide(StopRun run, StopTarget t) throws PartitionOperationException {
    StopState durable = store.get(t.key()).orElse(null);
    PartitionView v = t.view(run.call(), durable, t.ref().sourceClusterId(), clock.millis());
    return StopRules.decide(run.call(), v, t.ref().sourceClusterId());
  }

  private Decision decideWithRetries(StopRun run, StopTarget t, boolean first)
      throws PartitionOperationException {
    if (first && run.call() == StopCall.TRUNCATE) {
      StopState durable = store.get(t.key()).orElse(null);
      PartitionView v = t.view(run.call(), durable, null, clock.millis());
      if (v.leader() && StopRules.stopBegun(v)) {
        // The stop has begun cluster-wide: no mirror append starts here any more.
        partitions.advanceAll(List.of(t), LocalState.STOPPING);
      }
    }
    Decision d = decide(run, t);
    while (d instanceof Refuse r
        && r.retry() == Decision.Retry.WHEN_HIGH_WATERMARK_ESTABLISHED
        && run.remainingNanos() > 0
        && !Thread.currentThread().isInterrupted()) {
      StopActions.sleep(HW_POLL_MS);
      d = decide(run, t);
    }
    if (d instanceof Refuse r && r.retry() == Decision.Retry.AFTER_MEMBERSHIP_SYNC) {
      // A holder's acknowledgement may be on its way: read the topic up to date once more.
      try {
        store.sync(FENCE_SYNC_TIMEOUT_MS);
      } catch (PartitionOperationException e) {
        // decided below from what was read
      }
      d = decide(run, t);
    }
    return d;
  }

  /**
   * The OFFSETS_PERSISTED record with the source's leader epoch of the last mirrored batch kept,
   * which a failback needs; the rules stay agnostic of it (it is the store's, not the partition's).
   * Whichever call records the step (persist-offsets, or truncate when the source is known).
   */
  private Decision withSourceEpoch(StopTarget t, Decision d) throws PartitionOperationException {
    if (d instanceof Record r && r.state().step() == StopStep.OFFSETS_PERSISTED) {
      StopState s = r.state();
      return new Record(
          s.withMirroredSourceEpoch(store.sourceEpochAt(t.key(), s.truncatedToOffset() - 1)));
    }
    return d;
  }

  /** Writes every decided state in one batch; a failed write fails its partition alone. */
  private void write(StopRun run, Map<StopTarget, Decision> decided) {
    List<StopState> states = new ArrayList<>();
    List<StopTarget> owners = new ArrayList<>();
    decided.forEach(
        (t, d) -> {
          if (d instanceof Record r) {
            states.add(r.state());
            owners.add(t);
          }
        });
    if (states.isEmpty()) {
      return;
    }
    List<Exception> errors;
    try {
      errors = store.writeAll(states, run.writeTimeoutMs());
    } catch (PartitionOperationException e) {
      owners.forEach(t -> run.fail(t.ref(), e));
      return;
    }
    List<String> stoppedRecorded = new ArrayList<>();
    for (int i = 0; i < states.size(); i++) {
      Exception e = errors.get(i);
      PartitionRef ref = owners.get(i).ref();
      if (e == null) {
        if (states.get(i).step() == StopStep.STOPPED) {
          stoppedRecorded.add(owners.get(i).name());
        }
        continue;
      }
      run.fail(
          ref,
          e instanceof FencedStopStateException
              ? new PartitionOperationException(Code.FENCED, e.getMessage(), e)
              : e instanceof PartitionOperationException p
                  ? p
                  : new PartitionOperationException(Code.INTERNAL, ref.key() + ": " + e, e));
    }
    if (!stoppedRecorded.isEmpty()) {
      // Here, right after the write, and not where this call opens the partitions: the broker's
      // stop-state reader may adopt the durable STOPPED first, and this call then finds nothing to
      // open (StopStepCrashPointIT failed that way, 1 run in 3).
      TestFaults.crashPoint(
          TestFaults.CrashPoint.AFTER_STOPPED_RECORDED, "STOPPED recorded for " + stoppedRecorded);
    }
  }

  /** A done partition's answer: its view; the barrier's offset and whether it was appended now. */
  private Map<String, Object> result(StopRun run, StopTarget t) {
    if (run.call() != StopCall.BARRIER) {
      return t.describe();
    }
    Map<String, Object> out = new LinkedHashMap<>();
    long offset;
    try {
      offset = store.get(t.key()).map(StopState::barrierOffset).orElse(-1L);
    } catch (PartitionOperationException e) {
      offset = -1L;
    }
    out.put(Fields.StepResult.BARRIER_OFFSET, offset);
    out.put(Fields.StepResult.APPENDED, run.appendedHere(t));
    out.put(Fields.StepResult.ABORTED_TRANSACTIONS, 0);
    out.put(Fields.StepResult.HIGH_WATERMARK, t.highWatermark());
    out.putAll(t.describe());
    return out;
  }

  /**
   * Reads the stop state up to date, unless it already is for every partition of the call: each is
   * led by this broker in a leader epoch in which it has synced before. A call on a follower, or on
   * a partition this broker has not synced as leader in its current epoch, syncs. Refs that do not
   * resolve are left to the step, which reports them.
   */
  private void syncUnlessCurrent(List<PartitionRef> refs, long timeoutMs)
      throws PartitionOperationException {
    Map<StopStateKey, Integer> leaderEpochs = new HashMap<>();
    boolean current = true;
    for (PartitionRef ref : refs) {
      StopTarget t;
      try {
        t = partitions.resolve(ref, false);
      } catch (PartitionOperationException e) {
        continue;
      }
      if (!t.isLeader()) {
        current = false;
        continue;
      }
      int epoch = t.leaderEpoch();
      leaderEpochs.put(t.key(), epoch);
      current &= store.isCurrentAsLeader(t.key(), epoch);
    }
    if (current && !leaderEpochs.isEmpty()) {
      return;
    }
    store.syncAsLeader(leaderEpochs, timeoutMs);
  }

  private static Code code(Decision.RefusalKind kind) {
    return switch (kind) {
      case INVALID_STATE -> Code.INVALID_STATE;
      case NOT_LEADER -> Code.NOT_LEADER;
      case NOT_ENOUGH_REPLICAS -> Code.NOT_ENOUGH_REPLICAS;
      case TIMEOUT -> Code.TIMEOUT;
      case INTERNAL -> Code.INTERNAL;
    };
  }

  /** Whether {@code d} asks for {@code action}'s kind. */
  static boolean asks(Decision d, Class<? extends Decision.Action> action) {
    return d instanceof Act a && action.isInstance(a.action());
  }
}
