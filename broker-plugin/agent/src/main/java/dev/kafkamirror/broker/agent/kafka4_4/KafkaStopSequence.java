package dev.kafkamirror.broker.agent.kafka4_4;

import dev.kafkamirror.broker.agent.TestFaults;
import dev.kafkamirror.broker.agent.control.PartitionOperationException;
import dev.kafkamirror.broker.agent.control.PartitionRef;
import dev.kafkamirror.broker.agent.control.StepOutcome;
import dev.kafkamirror.broker.agent.kafka4_4.mirror.ClusterMembership;
import dev.kafkamirror.broker.agent.kafka4_4.mirror.MirrorEntry;
import dev.kafkamirror.broker.agent.kafka4_4.mirror.MirrorRegistry;
import dev.kafkamirror.broker.agent.kafka4_4.mirror.MirrorState;
import dev.kafkamirror.broker.agent.kafka4_4.stop.LeaderFence;
import dev.kafkamirror.broker.agent.kafka4_4.stop.StopStateStore;
import dev.kafkamirror.broker.agent.kafka4_4.stop.StopStateUnavailableException;
import dev.kafkamirror.broker.core.record.BarrierBatch;
import dev.kafkamirror.broker.core.record.MirrorPidResetRecord;
import dev.kafkamirror.broker.core.stop.FenceChoice;
import dev.kafkamirror.broker.core.stop.FencedStopStateException;
import dev.kafkamirror.broker.core.stop.StopChecks;
import dev.kafkamirror.broker.core.stop.StopState;
import dev.kafkamirror.broker.core.stop.StopStateKey;
import dev.kafkamirror.broker.core.stop.StopStep;
import dev.kafkamirror.contract.Fields;
import dev.kafkamirror.contract.PartitionError.Code;
import java.io.IOException;
import java.time.Clock;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import kafka.cluster.Partition;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.errors.NotEnoughReplicasException;
import org.apache.kafka.common.errors.NotLeaderOrFollowerException;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.RecordBatch;
import org.apache.kafka.server.common.RequestLocal;
import org.apache.kafka.storage.internals.log.AppendOrigin;
import org.apache.kafka.storage.internals.log.LogAppendInfo;
import org.apache.kafka.storage.internals.log.UnifiedLog;
import org.apache.kafka.storage.internals.log.VerificationGuard;
import scala.Option;

/**
 * The safe stop sequence of mirror partitions on a Kafka 4.4 broker, one batched call per step:
 *
 * <ol>
 *   <li>{@link #removeFetchers}: no mirror append is in flight or will start (any replica); the
 *       leader records {@link StopStep#FETCHERS_REMOVED}.
 *   <li>{@link #truncate}: the leader records the truncation target (its last stable offset) as
 *       {@link StopStep#TRUNCATING} <em>before</em> truncating, fences the replicas with a new
 *       leader epoch when the log holds batches of the current epoch ({@link LeaderFence}; the call
 *       then answers {@link Code#LEADER_MOVED} and the new leader continues), truncates, and
 *       records {@link StopStep#TRUNCATED}.
 *   <li>{@link #persistOffsets}: records the last mirrored offset, its leader epoch and the source
 *       cluster id ({@link StopStep#OFFSETS_PERSISTED}), which a failback needs.
 *   <li>{@link #barrier}: appends the MIRROR_PID_RESET barrier (acks=all: waits until it is below
 *       the high watermark) and records {@link StopStep#BARRIER_WRITTEN}.
 *   <li>{@link #makeWritable}: records {@link StopStep#STOPPED}, then lets clients write.
 * </ol>
 *
 * <p>Invariants: every step is idempotent and reads the durable state before acting (synced in the
 * call, unless this broker has synced since it became the leader in the partitions' current leader
 * epochs, see {@link StopStateStore#isCurrentAsLeader}), so it can be repeated after any crash or
 * leader move, on any broker; progress is recorded before the destructive truncation and the
 * barrier's precondition is recorded before the barrier; the barrier is appended only at the
 * recorded truncation offset, so a leader that has not truncated yet cannot put it anywhere else; a
 * partition becomes writable only after STOPPED is recorded, which happens only after the barrier
 * is on every in-sync replica.
 *
 * <p>Thread-safe: state lives in the registry, the store and the logs.
 */
public final class KafkaStopSequence {

  private static final long POLL_MS = 5L;
  private static final long FENCE_SYNC_TIMEOUT_MS = 5_000L;

  /** See {@link #lockOf}; one small object per mirror partition ever stopped here. */
  private static final Map<TopicPartition, Object> PARTITION_LOCKS =
      new java.util.concurrent.ConcurrentHashMap<>();

  /** One partition of a call, resolved on this broker. */
  private record Target(
      PartitionRef ref,
      TopicPartition tp,
      Partition partition,
      UnifiedLog log,
      MirrorEntry entry,
      StopStateKey key) {}

  private final Clock clock;

  public KafkaStopSequence(Clock clock) {
    this.clock = clock;
  }

  /** Step 1 on every replica: stop mirror appends; the leader records FETCHERS_REMOVED. */
  public List<StepOutcome> removeFetchers(List<PartitionRef> refs, long timeoutMs) {
    Map<PartitionRef, StepOutcome> out = new LinkedHashMap<>();
    List<Target> leaders = new ArrayList<>();
    List<Target> all = new ArrayList<>();
    for (PartitionRef ref : refs) {
      try {
        Target t = resolve(ref, false);
        all.add(t);
        if (t.partition().isLeader()) {
          leaders.add(t);
        }
      } catch (PartitionOperationException e) {
        out.put(ref, StepOutcome.failed(ref, e));
      }
    }
    MirrorRegistry.instance()
        .advanceAll(all.stream().map(Target::tp).toList(), MirrorState.STOPPING);
    Map<PartitionRef, PartitionOperationException> failed = new HashMap<>();
    if (!leaders.isEmpty()) {
      try {
        StopStateStore store = store();
        syncUnlessCurrent(store, leaders.stream().map(Target::ref).toList(), timeoutMs);
        List<StopState> writes = new ArrayList<>();
        Map<StopState, Target> writers = new HashMap<>();
        for (Target t : leaders) {
          if (store.get(t.key()).isEmpty()) {
            StopState s =
                StopState.fetchersRemoved(
                    t.key(), t.tp().topic(), epoch(t), store.brokerId(), clock.millis());
            writes.add(s);
            writers.put(s, t);
          }
        }
        failed.putAll(write(store, writes, writers, timeoutMs));
      } catch (PartitionOperationException e) {
        leaders.forEach(t -> failed.put(t.ref(), e));
      }
    }
    putOutcomes(all, failed, out);
    return ordered(refs, out);
  }

  /**
   * The truncation target is the leader's last stable offset, which is bounded by its high
   * watermark. A leader elected moments ago still has the high watermark it had as a follower,
   * which can lag its log end by a whole fetch round (followers learn the leader's high watermark
   * one fetch after the data), and only raises it once its followers fetch again; planning the
   * target then would truncate committed mirrored records (StopSequenceCrashIT saw a new leader
   * truncate to 0 with 16 records in every replica). After fetcher removal nothing is appended, so
   * an established high watermark is the log end: wait for it (bounded by the call), or refuse and
   * have the caller call again.
   */
  private static void requireEstablishedHighWatermark(Target t, long deadlineNanos)
      throws PartitionOperationException {
    while (t.log().highWatermark() < t.log().logEndOffset() && System.nanoTime() < deadlineNanos) {
      try {
        Thread.sleep(20L);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        break;
      }
    }
    long hw = t.log().highWatermark();
    long leo = t.log().logEndOffset();
    if (hw < leo) {
      throw new PartitionOperationException(
          Code.TIMEOUT,
          t.tp()
              + ": the high watermark "
              + hw
              + " of leader epoch "
              + epoch(t)
              + " has not reached the log end "
              + leo
              + " yet (a new leader, or an in-sync follower still catching up), so the last"
              + " stable offset is not known and nothing is truncated; call truncate again");
    }
  }

  /** Step 2 on the leader: fix the target, fence if needed, truncate to it. */
  public List<StepOutcome> truncate(List<PartitionRef> refs, long timeoutMs) {
    Map<PartitionRef, StepOutcome> out = new LinkedHashMap<>();
    StopStateStore store = syncedStoreOrFailAll(refs, timeoutMs, out);
    if (store == null) {
      return ordered(refs, out);
    }
    List<StopState> announce = new ArrayList<>();
    Map<StopState, Target> announcers = new HashMap<>();
    Map<Target, Long> toTruncate = new LinkedHashMap<>();
    Map<Target, Integer> toFence = new LinkedHashMap<>();
    Map<Target, StopState> base = new HashMap<>();
    long hwDeadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(timeoutMs);
    for (PartitionRef ref : refs) {
      try {
        Target t = resolve(ref, true);
        StopState durable = startedStop(t, store);
        base.put(t, durable);
        if (durable.step().atLeast(StopStep.BARRIER_WRITTEN)) {
          out.put(ref, StepOutcome.ok(ref, view(t)));
          continue;
        }
        if (!durable.step().atLeast(StopStep.TRUNCATING) && BarrierHooks.ruleEnabled()) {
          requireEstablishedHighWatermark(t, hwDeadline);
        }
        // With the barrier rule switched off (stock comparisons only) the failover is a stock
        // one: nothing is truncated.
        long stockTarget = BarrierHooks.ruleEnabled() ? -1L : t.log().logEndOffset();
        long target =
            stockTarget >= 0 && !durable.step().atLeast(StopStep.TRUNCATING)
                ? stockTarget
                : durable.step().atLeast(StopStep.TRUNCATED)
                    ? durable.truncatedToOffset()
                    : durable.step().atLeast(StopStep.TRUNCATING)
                        ? durable.truncateTargetOffset()
                        : t.log().lastStableOffset();
        if (!durable.step().atLeast(StopStep.TRUNCATING)) {
          if (t.log().logEndOffset() <= target) {
            // Nothing to truncate, so nothing destructive follows: TRUNCATED is recorded directly
            // below, without announcing TRUNCATING first (one acks=all write fewer).
            base.put(t, durable.withTruncateTarget(target));
          } else {
            StopState s =
                durable
                    .withTruncateTarget(target)
                    .advance(StopStep.TRUNCATING, epoch(t), store.brokerId(), clock.millis());
            announce.add(s);
            announcers.put(s, t);
          }
        }
        Integer fenceTo = t.log().logEndOffset() > target && !fenced(t) ? fenceTarget(t) : null;
        if (fenceTo != null) {
          toFence.put(t, fenceTo);
        } else {
          toTruncate.put(t, target);
        }
      } catch (PartitionOperationException e) {
        out.put(ref, StepOutcome.failed(ref, e));
      }
    }
    // Progress before anything destructive: the target is durable before any truncation or fence.
    Map<PartitionRef, PartitionOperationException> failed =
        write(store, announce, announcers, timeoutMs);
    failed.forEach((ref, e) -> out.put(ref, StepOutcome.failed(ref, e)));
    toFence.keySet().removeIf(t -> failed.containsKey(t.ref()));
    toTruncate.keySet().removeIf(t -> failed.containsKey(t.ref()));
    announce.forEach(s -> base.put(announcers.get(s), s));

    if (!toFence.isEmpty()) {
      Map<TopicPartition, Integer> moves = new LinkedHashMap<>();
      toFence.forEach((t, leader) -> moves.put(t.tp(), leader));
      Map<TopicPartition, LeaderFence.Moved> moved;
      try {
        moved = LeaderFence.moveLeadership(store.admin(), moves, timeoutMs);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        moved = Map.of();
      }
      for (Target t : toFence.keySet()) {
        LeaderFence.Moved m = moved.get(t.tp());
        String error = m == null ? "interrupted" : m.error();
        out.put(
            t.ref(),
            StepOutcome.failed(
                t.ref(),
                error == null
                    ? new PartitionOperationException(
                        Code.LEADER_MOVED,
                        t.tp()
                            + ": leadership moved from broker "
                            + store.brokerId()
                            + " (leader epoch "
                            + epoch(t)
                            + ") to broker "
                            + m.newLeaderId()
                            + " to fence the replicas before the truncation to offset "
                            + base.get(t).truncateTargetOffset()
                            + "; call truncate on broker "
                            + m.newLeaderId())
                    : new PartitionOperationException(
                        Code.NOT_ENOUGH_REPLICAS,
                        t.tp()
                            + ": cannot fence the replicas by moving leadership to broker "
                            + toFence.get(t)
                            + ": "
                            + error)));
      }
    }

    List<StopState> done = new ArrayList<>();
    Map<StopState, Target> doers = new HashMap<>();
    for (Map.Entry<Target, Long> e : toTruncate.entrySet()) {
      Target t = e.getKey();
      try {
        long target = e.getValue();
        synchronized (lockOf(t.tp())) {
          if (t.log().logEndOffset() > target) {
            if (base.get(t).step() == StopStep.TRUNCATING) {
              TestFaults.crashPoint(
                  TestFaults.CrashPoint.AFTER_TRUNCATING_RECORDED,
                  t.tp() + " truncating to offset " + target);
            }
            t.partition().truncateTo(target, false);
            realignLeaderEpochStart(t.partition(), t.log().logEndOffset());
            BrokerHandles.completeDelayedFetches(t.tp());
          }
        }
        int[] counts = KafkaPartitionControl.producerCounts(t.log());
        Optional<String> open =
            StopChecks.openTransactionsAfterTruncation(t.tp().toString(), counts[1], target);
        if (open.isPresent() && BarrierHooks.ruleEnabled()) {
          throw new PartitionOperationException(Code.INTERNAL, open.get());
        }
        StopState durable = base.get(t);
        if (!durable.step().atLeast(StopStep.TRUNCATED)) {
          RecordBatch last = KafkaPartitionControl.lastBatch(t.log());
          StopState s =
              durable
                  .withTruncatedTo(
                      t.log().logEndOffset(), last == null ? -1 : last.partitionLeaderEpoch())
                  .advance(StopStep.TRUNCATED, epoch(t), store.brokerId(), clock.millis());
          done.add(s);
          doers.put(s, t);
        }
      } catch (PartitionOperationException ex) {
        out.put(t.ref(), StepOutcome.failed(t.ref(), ex));
      } catch (IOException | RuntimeException ex) {
        out.put(
            t.ref(),
            StepOutcome.failed(
                t.ref(),
                new PartitionOperationException(
                    Code.INTERNAL, t.tp() + ": truncation failed: " + ex, ex)));
      }
    }
    Map<PartitionRef, PartitionOperationException> failedDone =
        write(store, done, doers, timeoutMs);
    putOutcomes(toTruncate.keySet(), failedDone, out);
    return ordered(refs, out);
  }

  /** Step 3 on the leader: record the last mirrored offset, its epoch and the source. */
  public List<StepOutcome> persistOffsets(List<PartitionRef> refs, long timeoutMs) {
    Map<PartitionRef, StepOutcome> out = new LinkedHashMap<>();
    StopStateStore store = syncedStoreOrFailAll(refs, timeoutMs, out);
    if (store == null) {
      return ordered(refs, out);
    }
    List<StopState> writes = new ArrayList<>();
    Map<StopState, Target> writers = new HashMap<>();
    List<Target> targets = new ArrayList<>();
    for (PartitionRef ref : refs) {
      try {
        Target t = resolve(ref, true);
        StopState durable = requireStep(t, store, StopStep.TRUNCATED, "truncate");
        checkSource(t, ref.sourceClusterId(), durable);
        targets.add(t);
        if (!durable.step().atLeast(StopStep.OFFSETS_PERSISTED)) {
          StopState s =
              durable
                  .withMirroredEnd(durable.truncatedToOffset(), ref.sourceClusterId())
                  // the source's epoch of the last batch kept, for a failback
                  .withMirroredSourceEpoch(
                      store.sourceEpochs(t.key()).epochAt(durable.truncatedToOffset() - 1))
                  .advance(StopStep.OFFSETS_PERSISTED, epoch(t), store.brokerId(), clock.millis());
          writes.add(s);
          writers.put(s, t);
        }
      } catch (PartitionOperationException e) {
        out.put(ref, StepOutcome.failed(ref, e));
      }
    }
    Map<PartitionRef, PartitionOperationException> failed =
        write(store, writes, writers, timeoutMs);
    putOutcomes(targets, failed, out);
    return ordered(refs, out);
  }

  /**
   * Step 4 on the leader: the barrier at the recorded truncation offset, acks=all. Partitions that
   * are not mirrors get a barrier too (for tests and manual repairs), as before the stop sequence.
   */
  public List<StepOutcome> barrier(
      List<PartitionRef> refs, long timeoutMs, KafkaPartitionControl plainBarrier) {
    Map<PartitionRef, StepOutcome> out = new LinkedHashMap<>();
    long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(timeoutMs);
    Map<Target, Long> written = new LinkedHashMap<>();
    Map<Target, Boolean> appendedNow = new HashMap<>();
    StopStateStore store = null;
    for (PartitionRef ref : refs) {
      try {
        TopicPartition tp = new TopicPartition(ref.topic(), ref.partition());
        if (MirrorRegistry.instance().entry(tp).isEmpty()) {
          out.put(ref, StepOutcome.ok(ref, plainBarrier.appendBarrier(ref, remainingMs(deadline))));
          continue;
        }
        if (store == null) {
          store = store();
          syncUnlessCurrent(store, mirrorRefs(refs), remainingMs(deadline));
        }
        Target t = resolve(ref, true);
        StopState durable = requireStep(t, store, StopStep.OFFSETS_PERSISTED, "persist-offsets");
        if (!ref.sourceClusterId().equals(durable.sourceClusterId())) {
          throw new PartitionOperationException(
              Code.INVALID_STATE,
              t.tp()
                  + ": the recorded source cluster is "
                  + durable.sourceClusterId()
                  + ", not "
                  + ref.sourceClusterId()
                  + "; the barrier must name the source the partition mirrored");
        }
        if (durable.step().atLeast(StopStep.BARRIER_WRITTEN)) {
          written.put(t, durable.barrierOffset());
          appendedNow.put(t, false);
          continue;
        }
        // One barrier however many callers: two operators (a zombie Lease holder and its
        // successor) may call this step on the same partition at once; the check and the append
        // happen under one lock per partition, so the second caller finds the first one's barrier.
        synchronized (lockOf(t.tp())) {
          appendBarrierUnlessPresent(t, durable, ref, written, appendedNow);
        }
      } catch (PartitionOperationException e) {
        out.put(ref, StepOutcome.failed(ref, e));
      } catch (NotLeaderOrFollowerException e) {
        out.put(
            ref,
            StepOutcome.failed(
                ref,
                new PartitionOperationException(
                    Code.NOT_LEADER, ref.key() + ": " + e.getMessage(), e)));
      } catch (NotEnoughReplicasException e) {
        out.put(
            ref,
            StepOutcome.failed(
                ref,
                new PartitionOperationException(
                    Code.NOT_ENOUGH_REPLICAS, ref.key() + ": " + e.getMessage(), e)));
      } catch (IOException | RuntimeException e) {
        out.put(
            ref,
            StepOutcome.failed(
                ref,
                new PartitionOperationException(
                    Code.INTERNAL, ref.key() + ": the barrier failed: " + e, e)));
      }
    }
    return awaitBarriersAndRecord(refs, out, written, appendedNow, store, deadline, timeoutMs);
  }

  /**
   * Appends the barrier at the recorded truncation offset unless the log already ends with it; the
   * caller holds the partition's lock.
   */
  private static void appendBarrierUnlessPresent(
      Target t,
      StopState durable,
      PartitionRef ref,
      Map<Target, Long> written,
      Map<Target, Boolean> appendedNow)
      throws PartitionOperationException, IOException {
    long existing = KafkaPartitionControl.lastBatchBarrierOffset(t.log(), ref.sourceClusterId());
    if (existing >= durable.truncatedToOffset()) {
      written.put(t, existing);
      appendedNow.put(t, false);
      return;
    }
    long leo = t.log().logEndOffset();
    if (leo != durable.truncatedToOffset()) {
      throw new PartitionOperationException(
          Code.INVALID_STATE,
          t.tp()
              + ": the log ends at offset "
              + leo
              + ", not at the recorded truncation offset "
              + durable.truncatedToOffset()
              + " (a replica that became leader has not truncated yet); call truncate again");
    }
    MemoryRecords barrier =
        MemoryRecords.readableRecords(
            BarrierBatch.build(
                MirrorPidResetRecord.of(ref.sourceClusterId()), System.currentTimeMillis()));
    LogAppendInfo info =
        t.partition()
            .appendRecordsToLeader(
                barrier,
                AppendOrigin.COORDINATOR,
                -1,
                RequestLocal.noCaching(),
                VerificationGuard.SENTINEL,
                (short) 0);
    written.put(t, info.lastOffset());
    appendedNow.put(t, true);
    TestFaults.crashPoint(
        TestFaults.CrashPoint.AFTER_BARRIER_APPENDED,
        t.tp() + " barrier appended at offset " + info.lastOffset());
    BrokerHandles.completeDelayedFetches(t.tp());
  }

  private List<StepOutcome> awaitBarriersAndRecord(
      List<PartitionRef> refs,
      Map<PartitionRef, StepOutcome> out,
      Map<Target, Long> written,
      Map<Target, Boolean> appendedNow,
      StopStateStore store,
      long deadline,
      long timeoutMs) {
    // acks=all: every barrier must be below the high watermark, i.e. on every in-sync replica.
    List<StopState> writes = new ArrayList<>();
    Map<StopState, Target> writers = new HashMap<>();
    for (Map.Entry<Target, Long> e : written.entrySet()) {
      Target t = e.getKey();
      long offset = e.getValue();
      while (t.log().highWatermark() <= offset && System.nanoTime() < deadline) {
        sleep();
      }
      if (t.log().highWatermark() <= offset) {
        out.put(
            t.ref(),
            StepOutcome.failed(
                t.ref(),
                new PartitionOperationException(
                    Code.TIMEOUT,
                    t.tp()
                        + ": the barrier at offset "
                        + offset
                        + " is written but not yet below the high watermark "
                        + t.log().highWatermark()
                        + " after "
                        + timeoutMs
                        + " ms; repeat the call to wait again")));
        continue;
      }
      StopState durable = store.get(t.key()).orElseThrow();
      if (!durable.step().atLeast(StopStep.BARRIER_WRITTEN)) {
        StopState s =
            durable
                .withBarrier(offset)
                .advance(StopStep.BARRIER_WRITTEN, epoch(t), store.brokerId(), clock.millis());
        writes.add(s);
        writers.put(s, t);
      }
    }
    Map<PartitionRef, PartitionOperationException> failed =
        store == null ? Map.of() : write(store, writes, writers, remainingMs(deadline));
    for (Map.Entry<Target, Long> e : written.entrySet()) {
      Target t = e.getKey();
      if (out.containsKey(t.ref())) {
        continue;
      }
      PartitionOperationException error = failed.get(t.ref());
      if (error != null) {
        out.put(t.ref(), StepOutcome.failed(t.ref(), error));
      } else {
        Map<String, Object> result = new LinkedHashMap<>();
        result.put(Fields.StepResult.BARRIER_OFFSET, e.getValue());
        result.put(Fields.StepResult.APPENDED, appendedNow.get(t));
        result.put(Fields.StepResult.ABORTED_TRANSACTIONS, 0);
        result.put(Fields.StepResult.HIGH_WATERMARK, t.log().highWatermark());
        result.putAll(view(t));
        out.put(t.ref(), StepOutcome.ok(t.ref(), result));
      }
    }
    return ordered(refs, out);
  }

  /**
   * Step 5: on the leader, records STOPPED once the barrier is on every in-sync replica, then lets
   * clients write; on a follower, follows a STOPPED already recorded.
   */
  public List<StepOutcome> makeWritable(List<PartitionRef> refs, long timeoutMs) {
    Map<PartitionRef, StepOutcome> out = new LinkedHashMap<>();
    StopStateStore store = syncedStoreOrFailAll(refs, timeoutMs, out);
    if (store == null) {
      return ordered(refs, out);
    }
    List<StopState> writes = new ArrayList<>();
    Map<StopState, Target> writers = new HashMap<>();
    List<Target> ready = new ArrayList<>();
    for (PartitionRef ref : refs) {
      try {
        Target t = resolve(ref, false);
        if (!t.partition().isLeader()) {
          StopState durable = store.get(t.key()).orElse(null);
          if (durable == null || durable.step() != StopStep.STOPPED) {
            throw new PartitionOperationException(
                Code.INVALID_STATE,
                t.tp()
                    + ": this broker follows; the leader has not recorded STOPPED yet (stop step "
                    + (durable == null ? "none" : durable.step())
                    + ")");
          }
          requireResetVerified(t, durable.barrierOffset(), false);
          ready.add(t);
          continue;
        }
        StopState durable = requireStep(t, store, StopStep.BARRIER_WRITTEN, "barrier");
        if (t.log().highWatermark() <= durable.barrierOffset()) {
          throw new PartitionOperationException(
              Code.INVALID_STATE,
              t.tp()
                  + ": the barrier at offset "
                  + durable.barrierOffset()
                  + " is not below the high watermark "
                  + t.log().highWatermark()
                  + "; call barrier again to wait for it");
        }
        // A reset that did not happen is never reported as done: STOPPED is recorded only when
        // this leader's producer state holds nothing from before the barrier.
        requireResetVerified(t, durable.barrierOffset(), t.entry().state() != MirrorState.STOPPED);
        ready.add(t);
        if (durable.step() != StopStep.STOPPED) {
          StopState s =
              durable.advance(StopStep.STOPPED, epoch(t), store.brokerId(), clock.millis());
          writes.add(s);
          writers.put(s, t);
        }
      } catch (PartitionOperationException e) {
        out.put(ref, StepOutcome.failed(ref, e));
      }
    }
    Map<PartitionRef, PartitionOperationException> failed =
        write(store, writes, writers, timeoutMs);
    List<Target> writable = new ArrayList<>();
    for (Target t : ready) {
      PartitionOperationException e = failed.get(t.ref());
      if (e != null) {
        out.put(t.ref(), StepOutcome.failed(t.ref(), e));
      } else {
        writable.add(t);
      }
    }
    if (!writes.isEmpty() && !writable.isEmpty()) {
      TestFaults.crashPoint(
          TestFaults.CrashPoint.AFTER_STOPPED_RECORDED,
          "STOPPED recorded for " + writable.stream().map(Target::tp).toList());
    }
    // STOPPED is durable: only now may clients write.
    MirrorRegistry.instance()
        .advanceAll(writable.stream().map(Target::tp).toList(), MirrorState.STOPPED);
    for (Target t : writable) {
      out.put(t.ref(), StepOutcome.ok(t.ref(), view(t)));
    }
    return ordered(refs, out);
  }

  /** How long describe waits for the stop state to be read up to date after a leader change. */
  private static final long DESCRIBE_SYNC_MS = 2_000L;

  /**
   * After a describe sync failed, describe answers without trying again for this long (a batch of
   * many partitions must not wait {@link #DESCRIBE_SYNC_MS} for each of them).
   */
  private static final long DESCRIBE_SYNC_RETRY_NANOS = TimeUnit.SECONDS.toNanos(5);

  private static volatile long describeSyncRetryAtNanos = System.nanoTime();
  private static volatile String describeSyncError;

  /**
   * The durable stop fields of a local partition, for describe; empty when none.
   *
   * <p>Monotonic: a leader answers from a table it has read up to date in its current leader epoch
   * (see {@link StopStateStore#isCurrentAsLeader}), so it never reports an earlier step than any
   * leader reported before (a new leader's reader could otherwise still be behind the records its
   * predecessor wrote). The first describe after a leader change syncs once for every partition
   * this broker leads whose stop has begun; when that sync fails the answer says so ({@code
   * stateCurrent} false, {@code stateError}).
   */
  static Map<String, Object> describeStop(TopicPartition tp, UnifiedLog log) {
    Optional<MirrorEntry> entry = MirrorRegistry.instance().entry(tp);
    Optional<StopStateStore> store = StopStateStore.ifStarted();
    Optional<Uuid> topicId = log.topicId();
    if (entry.isEmpty() || store.isEmpty() || topicId.isEmpty()) {
      return Map.of();
    }
    StopStateKey key =
        new StopStateKey(entry.get().mirrorName(), topicId.get().toString(), tp.partition());
    String stale = syncIfNewLeader(store.get(), tp, entry.get(), key);
    Map<String, Object> fields =
        store.get().get(key).map(KafkaStopSequence::fields).orElse(Map.of());
    Optional<String> resetFailure = ResetCheck.lastFailure(tp);
    if (fields.isEmpty() || (resetFailure.isEmpty() && stale == null)) {
      return fields;
    }
    Map<String, Object> more = new LinkedHashMap<>(fields);
    // This replica refused to turn writable: its reset could not be verified.
    resetFailure.ifPresent(f -> more.put("resetCheckError", f));
    if (stale != null) {
      more.put("stateCurrent", false);
      more.put("stateError", stale);
    }
    return more;
  }

  /**
   * Syncs the store once when this broker leads {@code tp} in a leader epoch it has not synced in,
   * for every such partition of its registry whose stop has begun; the error when that fails.
   */
  private static String syncIfNewLeader(
      StopStateStore store, TopicPartition tp, MirrorEntry entry, StopStateKey key) {
    Optional<Partition> partition = onlinePartition(tp);
    if (partition.isEmpty()
        || !partition.get().isLeader()
        || !stopBegun(entry)
        || store.isCurrentAsLeader(key, partition.get().getLeaderEpoch())) {
      return null;
    }
    Map<StopStateKey, Integer> toSync = new HashMap<>();
    for (Map.Entry<TopicPartition, MirrorEntry> e : MirrorRegistry.instance().all().entrySet()) {
      if (!stopBegun(e.getValue())) {
        continue;
      }
      Optional<Partition> p = onlinePartition(e.getKey());
      if (p.isEmpty() || !p.get().isLeader() || p.get().log().isEmpty()) {
        continue;
      }
      Optional<Uuid> id = p.get().log().get().topicId();
      if (id.isEmpty()) {
        continue;
      }
      StopStateKey k =
          new StopStateKey(e.getValue().mirrorName(), id.get().toString(), e.getKey().partition());
      int epoch = p.get().getLeaderEpoch();
      if (!store.isCurrentAsLeader(k, epoch)) {
        toSync.put(k, epoch);
      }
    }
    toSync.put(key, partition.get().getLeaderEpoch());
    String lastError = describeSyncError;
    if (lastError != null && System.nanoTime() - describeSyncRetryAtNanos < 0) {
      return lastError;
    }
    try {
      store.syncAsLeader(toSync, DESCRIBE_SYNC_MS);
      describeSyncError = null;
      return null;
    } catch (StopStateUnavailableException e) {
      describeSyncRetryAtNanos = System.nanoTime() + DESCRIBE_SYNC_RETRY_NANOS;
      describeSyncError = e.getMessage();
      return e.getMessage();
    }
  }

  private static boolean stopBegun(MirrorEntry entry) {
    return entry.state() != MirrorState.MIRRORING && entry.state() != MirrorState.PAUSED;
  }

  private static Optional<Partition> onlinePartition(TopicPartition tp) {
    return BrokerHandles.replicaManager()
        .flatMap(
            rm -> {
              Option<Partition> p = rm.onlinePartition(tp);
              return p.isDefined() ? Optional.of(p.get()) : Optional.empty();
            });
  }

  private static Map<String, Object> fields(StopState s) {
    Map<String, Object> out = new LinkedHashMap<>();
    out.put(Fields.Stop.STEP, s.step().name());
    out.put(Fields.Stop.STEP_NUMBER, s.step().number());
    out.put(Fields.Stop.STATE_LEADER_EPOCH, s.leaderEpoch());
    out.put(Fields.Stop.WRITER_BROKER_ID, s.writerBrokerId());
    out.put(Fields.Stop.TRUNCATE_TARGET_OFFSET, s.truncateTargetOffset());
    out.put(Fields.Stop.TRUNCATED_TO_OFFSET, s.truncatedToOffset());
    out.put(Fields.Stop.LAST_MIRRORED_OFFSET, s.lastMirroredOffset());
    out.put(Fields.Stop.LAST_MIRRORED_EPOCH, s.lastMirroredEpoch());
    out.put(Fields.Stop.LAST_MIRRORED_SOURCE_EPOCH, s.lastMirroredSourceEpoch());
    out.put(Fields.Stop.BARRIER_OFFSET, s.barrierOffset());
    out.put(Fields.Stop.SOURCE_CLUSTER_ID, s.sourceClusterId());
    out.put(Fields.Stop.UPDATED_AT_MS, s.updatedAtMs());
    return out;
  }

  private Map<String, Object> view(Target t) {
    Map<String, Object> out = new LinkedHashMap<>();
    out.put(Fields.StepResult.STATE, t.entry().state().name());
    out.put(Fields.StepResult.LEADER_EPOCH, t.partition().getLeaderEpoch());
    out.put(Fields.StepResult.LOG_END_OFFSET, t.log().logEndOffset());
    Map<String, Object> stop = describeStop(t.tp(), t.log());
    if (!stop.isEmpty()) {
      out.put(Fields.StepResult.STOP, stop);
    }
    return out;
  }

  /**
   * Refuses, with {@link Code#INVALID_STATE}, to let {@code t} turn writable on this replica unless
   * its producer state holds nothing from before the barrier at {@code barrierOffset} ({@link
   * ResetCheck}).
   */
  private static void requireResetVerified(
      Target t, long barrierOffset, boolean noWritesSinceBarrier)
      throws PartitionOperationException {
    Optional<String> refusal =
        ResetCheck.refusal(t.tp(), t.log(), barrierOffset, noWritesSinceBarrier);
    if (refusal.isPresent()) {
      throw new PartitionOperationException(Code.INVALID_STATE, refusal.get());
    }
  }

  /** The lock that serialises this broker's destructive stop actions on one partition. */
  private static Object lockOf(TopicPartition tp) {
    return PARTITION_LOCKS.computeIfAbsent(tp, k -> new Object());
  }

  /**
   * The durable state of a stop that has begun: a partition whose fetchers this leader has not
   * stopped yet follows a recorded stop; one with no record at all starts from FETCHERS_REMOVED.
   */
  private StopState startedStop(Target t, StopStateStore store) throws PartitionOperationException {
    Optional<StopState> durable = store.get(t.key());
    MirrorState local = t.entry().state();
    if (durable.isEmpty() && (local == MirrorState.MIRRORING || local == MirrorState.PAUSED)) {
      throw new PartitionOperationException(
          Code.INVALID_STATE,
          t.tp()
              + " is "
              + local
              + " (mirror "
              + t.entry().mirrorName()
              + "); remove the fetchers first");
    }
    MirrorRegistry.instance().advanceTo(t.tp(), MirrorState.STOPPING);
    return durable.orElseGet(
        () ->
            StopState.fetchersRemoved(
                t.key(), t.tp().topic(), epoch(t), store.brokerId(), clock.millis()));
  }

  private static StopState requireStep(
      Target t, StopStateStore store, StopStep needed, String previousCall)
      throws PartitionOperationException {
    StopState durable = store.get(t.key()).orElse(null);
    if (durable == null || !durable.step().atLeast(needed)) {
      throw new PartitionOperationException(
          Code.INVALID_STATE,
          t.tp()
              + " (mirror "
              + t.entry().mirrorName()
              + ") is at stop step "
              + (durable == null ? "none" : durable.step())
              + "; "
              + needed
              + " is needed: call "
              + previousCall
              + " first");
    }
    return durable;
  }

  private static void checkSource(Target t, String requested, StopState durable)
      throws PartitionOperationException {
    if (durable.sourceClusterId() != null && !durable.sourceClusterId().equals(requested)) {
      throw new PartitionOperationException(
          Code.INVALID_STATE,
          t.tp()
              + ": the recorded source cluster is "
              + durable.sourceClusterId()
              + ", not "
              + requested);
    }
    String known =
        t.entry().sourceClusterId() != null
            ? t.entry().sourceClusterId()
            : t.entry().expectedSourceClusterId();
    if (known != null && !known.equals(requested)) {
      throw new PartitionOperationException(
          Code.INVALID_STATE,
          t.tp()
              + " mirrored data of source cluster "
              + known
              + " (mirror "
              + t.entry().mirrorName()
              + "), not "
              + requested
              + "; the stop must name the real source");
    }
  }

  /**
   * A leader's epoch starts, for Kafka, at its log end when it was elected: followers join the ISR
   * only once they reach that offset, and ListOffsets answers OFFSET_NOT_AVAILABLE while the high
   * watermark is below it. After this leader truncated below that offset, its epoch's first batch
   * (the barrier) will sit at the new log end, so that is where the epoch starts; without this, a
   * replica that comes back could not rejoin the ISR and consumers could not list offsets until the
   * log grew past the old end again.
   */
  private static void realignLeaderEpochStart(Partition partition, long logEndOffset) {
    Option<Object> start = partition.leaderEpochStartOffsetOpt();
    if (start.isDefined() && (Long) start.get() > logEndOffset) {
      partition.leaderEpochStartOffsetOpt_$eq(Option.apply((Object) logEndOffset));
    }
  }

  /** Whether every batch in the log is of an older leader epoch than the current one. */
  private static boolean fenced(Target t) throws PartitionOperationException {
    try {
      RecordBatch last = KafkaPartitionControl.lastBatch(t.log());
      return last == null || last.partitionLeaderEpoch() < t.partition().getLeaderEpoch();
    } catch (IOException e) {
      throw new PartitionOperationException(
          Code.INTERNAL, t.tp() + ": cannot read the log: " + e, e);
    }
  }

  /**
   * The in-sync replica to move leadership to; a partition without other replicas needs no fence.
   */
  /**
   * The replica the fence moves leadership to: another in-sync replica that holds the mirror
   * membership (see {@link FenceChoice}); null when there is no other replica.
   */
  private static Integer fenceTarget(Target t) throws PartitionOperationException {
    int self = BrokerHandles.replicaManager().map(rm -> rm.localBrokerId()).orElse(-1);
    List<Integer> replicas = t.partition().assignmentState().replicas();
    java.util.Set<Integer> isr = t.partition().partitionState().isr();
    String topicId = t.log().topicId().map(Object::toString).orElse("");
    FenceChoice.Choice choice =
        FenceChoice.choose(
            self, replicas, isr, ClusterMembership.holders(topicId, t.tp().partition()));
    if (choice.refusal() != null) {
      // A holder's acknowledgement may be on its way: read the topic up to date once more.
      try {
        StopStateStore.get().sync(FENCE_SYNC_TIMEOUT_MS);
      } catch (StopStateUnavailableException e) {
        // decided below from what was read
      }
      choice =
          FenceChoice.choose(
              self, replicas, isr, ClusterMembership.holders(topicId, t.tp().partition()));
    }
    if (choice.noOtherReplica()) {
      return null;
    }
    if (choice.target() != null) {
      return choice.target();
    }
    throw new PartitionOperationException(
        Code.NOT_ENOUGH_REPLICAS,
        t.tp()
            + ": cannot fence before truncating: "
            + choice.refusal()
            + "; a replica that comes back would keep the truncated records, and one that does not"
            + " hold the membership would lead a mirror it does not know. Repeat when a replica"
            + " that holds it is back in sync");
  }

  private Target resolve(PartitionRef ref, boolean requireLeader)
      throws PartitionOperationException {
    TopicPartition tp = new TopicPartition(ref.topic(), ref.partition());
    Partition partition = KafkaPartitionControl.localPartition(tp);
    if (partition.log().isEmpty()) {
      throw new PartitionOperationException(
          Code.UNKNOWN_PARTITION, tp + " has no local log on this broker");
    }
    UnifiedLog log = partition.log().get();
    MirrorEntry entry =
        MirrorRegistry.instance()
            .entry(tp)
            .orElseThrow(
                () ->
                    new PartitionOperationException(
                        Code.INVALID_STATE,
                        tp
                            + " is not a mirror on this broker; the stop steps apply to mirror partitions"));
    Uuid topicId =
        log.topicId()
            .orElseThrow(
                () ->
                    new PartitionOperationException(
                        Code.BROKER_NOT_READY, tp + " has no topic id yet"));
    if (requireLeader && !partition.isLeader()) {
      throw new PartitionOperationException(
          Code.NOT_LEADER,
          "this broker is not the leader of "
              + tp
              + " (leader "
              + (partition.leaderReplicaIdOpt().isDefined()
                  ? partition.leaderReplicaIdOpt().get()
                  : "none")
              + "); call the leader");
    }
    return new Target(
        ref,
        tp,
        partition,
        log,
        entry,
        new StopStateKey(entry.mirrorName(), topicId.toString(), tp.partition()));
  }

  private static int epoch(Target t) {
    return t.partition().getLeaderEpoch();
  }

  private static StopStateStore store() throws PartitionOperationException {
    try {
      return StopStateStore.get();
    } catch (StopStateUnavailableException e) {
      throw unavailable(e);
    }
  }

  /**
   * Reads the stop state up to date, unless it already is for every partition of the call: each is
   * led by this broker in a leader epoch in which it has synced before ({@link
   * StopStateStore#isCurrentAsLeader}). A call on a follower, or on a partition this broker has not
   * synced as leader in its current epoch, syncs. Refs that do not resolve are left to the step,
   * which reports them.
   */
  private void syncUnlessCurrent(StopStateStore store, List<PartitionRef> refs, long timeoutMs)
      throws PartitionOperationException {
    Map<StopStateKey, Integer> leaderEpochs = new HashMap<>();
    boolean current = true;
    for (PartitionRef ref : refs) {
      Target t;
      try {
        t = resolve(ref, false);
      } catch (PartitionOperationException e) {
        continue;
      }
      if (!t.partition().isLeader()) {
        current = false;
        continue;
      }
      int epoch = epoch(t);
      leaderEpochs.put(t.key(), epoch);
      current &= store.isCurrentAsLeader(t.key(), epoch);
    }
    if (current && !leaderEpochs.isEmpty()) {
      return;
    }
    try {
      store.syncAsLeader(leaderEpochs, timeoutMs);
    } catch (StopStateUnavailableException e) {
      throw unavailable(e);
    }
  }

  /**
   * The stop-state store, up to date for {@code refs}. When it cannot be had, every ref fails with
   * STATE_STORE_UNAVAILABLE in {@code out} and the answer is null: no step acts without it.
   */
  private StopStateStore syncedStoreOrFailAll(
      List<PartitionRef> refs, long timeoutMs, Map<PartitionRef, StepOutcome> out) {
    try {
      StopStateStore store = store();
      syncUnlessCurrent(store, refs, timeoutMs);
      return store;
    } catch (PartitionOperationException e) {
      refs.forEach(r -> out.put(r, StepOutcome.failed(r, e)));
      return null;
    }
  }

  /** The refs of partitions that are mirrors on this broker. */
  private static List<PartitionRef> mirrorRefs(List<PartitionRef> refs) {
    return refs.stream()
        .filter(
            r ->
                MirrorRegistry.instance()
                    .entry(new TopicPartition(r.topic(), r.partition()))
                    .isPresent())
        .toList();
  }

  /** The outcome of each target that has none yet: its write's failure, or ok with its view. */
  private void putOutcomes(
      Collection<Target> targets,
      Map<PartitionRef, PartitionOperationException> failed,
      Map<PartitionRef, StepOutcome> out) {
    for (Target t : targets) {
      if (out.containsKey(t.ref())) {
        continue;
      }
      PartitionOperationException e = failed.get(t.ref());
      out.put(
          t.ref(), e != null ? StepOutcome.failed(t.ref(), e) : StepOutcome.ok(t.ref(), view(t)));
    }
  }

  private static PartitionOperationException unavailable(StopStateUnavailableException e) {
    return new PartitionOperationException(Code.STATE_STORE_UNAVAILABLE, e.getMessage(), e);
  }

  /** Writes, and maps each failure to its partition. */
  private static Map<PartitionRef, PartitionOperationException> write(
      StopStateStore store, List<StopState> states, Map<StopState, Target> owners, long timeoutMs) {
    Map<PartitionRef, PartitionOperationException> failed = new HashMap<>();
    if (states.isEmpty()) {
      return failed;
    }
    // Every call brought the store up to date for its partitions (syncUnlessCurrent) first.
    for (StopStateStore.WriteOutcome o : store.writeAll(states, timeoutMs, false)) {
      if (o.error() == null) {
        continue;
      }
      PartitionRef ref = owners.get(o.state()).ref();
      failed.put(
          ref,
          o.error() instanceof FencedStopStateException
              ? new PartitionOperationException(Code.FENCED, o.error().getMessage(), o.error())
              : o.error() instanceof StopStateUnavailableException u
                  ? unavailable(u)
                  : new PartitionOperationException(
                      Code.INTERNAL, ref.key() + ": " + o.error(), o.error()));
    }
    return failed;
  }

  private static List<StepOutcome> ordered(
      List<PartitionRef> refs, Map<PartitionRef, StepOutcome> out) {
    List<StepOutcome> list = new ArrayList<>(refs.size());
    for (PartitionRef ref : refs) {
      StepOutcome o = out.get(ref);
      list.add(
          o != null
              ? o
              : StepOutcome.failed(
                  ref, new PartitionOperationException(Code.INTERNAL, ref.key() + ": no outcome")));
    }
    return list;
  }

  private static long remainingMs(long deadlineNanos) {
    return Math.max(1L, TimeUnit.NANOSECONDS.toMillis(deadlineNanos - System.nanoTime()));
  }

  private static void sleep() {
    try {
      Thread.sleep(POLL_MS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
