package dev.kafkamirror.broker.agent.kafka4_4;

import dev.kafkamirror.broker.agent.control.PartitionRef;
import dev.kafkamirror.broker.agent.control.StepOutcome;
import dev.kafkamirror.broker.agent.kafka4_4.mirror.MirrorRegistry;
import dev.kafkamirror.broker.agent.kafka4_4.stop.LeaderFence;
import dev.kafkamirror.broker.agent.kafka4_4.stop.StopStateStore;
import dev.kafkamirror.broker.agent.stop.StopExecutor;
import dev.kafkamirror.broker.core.stop.StopStep;
import dev.kafkamirror.broker.core.stop.rules.StopRules;
import java.time.Clock;
import java.util.List;
import java.util.Map;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.storage.internals.log.UnifiedLog;

/**
 * The safe stop sequence of mirror partitions on a Kafka 4.4 broker, one batched call per step:
 *
 * <ol>
 *   <li>{@link #removeFetchers}: no mirror append is in flight or will start (any replica); the
 *       leader records {@link StopStep#FETCHERS_REMOVED} and, with nothing to truncate, then the
 *       record the truncate step would make next (steps 2 and 3 then have nothing left to do).
 *   <li>{@link #truncate}: the leader records the truncation target (its last stable offset, on an
 *       established high watermark) as {@link StopStep#TRUNCATING} <em>before</em> truncating,
 *       fences the replicas with a new leader epoch when the log holds batches of the current epoch
 *       ({@link LeaderFence}; the call then answers LEADER_MOVED and the new leader continues),
 *       truncates, and records {@link StopStep#TRUNCATED}.
 *   <li>{@link #persistOffsets}: records the last mirrored offset, its leader epoch and the source
 *       cluster id ({@link StopStep#OFFSETS_PERSISTED}), which a failback needs.
 *   <li>{@link #barrier}: appends the MIRROR_PID_RESET barrier (acks=all: waits until it is below
 *       the high watermark) and records {@link StopStep#BARRIER_WRITTEN}.
 *   <li>{@link #makeWritable}: records {@link StopStep#STOPPED}, then lets clients write.
 * </ol>
 *
 * <p>The decisions are {@link StopRules} (pure, in broker-plugin/core); {@link StopExecutor} runs
 * each call; this class wires them to the broker: {@link KafkaStopPartitions} (partitions, logs and
 * the registry), {@link KafkaStopStore} (the stop-state topic) and {@link KafkaStopFence}.
 *
 * <p>Invariants: every step is idempotent and reads the durable state before acting (synced in the
 * call, unless this broker has synced since it became the leader in the partitions' current leader
 * epochs, see {@link StopStateStore#isCurrentAsLeader}), so it can be repeated after any crash or
 * leader move, on any broker; progress is recorded before the destructive truncation and the
 * barrier's precondition is recorded before the barrier; the barrier is appended only at the
 * recorded truncation offset; a partition becomes writable only after STOPPED is recorded, which
 * happens only after the barrier is on every in-sync replica.
 *
 * <p>Thread-safe: state lives in the registry, the store and the logs.
 */
public final class KafkaStopSequence {

  private final StopExecutor executor;

  KafkaStopSequence(StopExecutor executor) {
    this.executor = executor;
  }

  /** The stop sequence wired to this broker's registry and stop-state store (the composition). */
  public static KafkaStopSequence onThisBroker(Clock clock) {
    KafkaStopStore store = new KafkaStopStore(StopStateStore::get);
    return new KafkaStopSequence(
        new StopExecutor(
            new KafkaStopPartitions(MirrorRegistry.instance()),
            store,
            new KafkaStopFence(store),
            clock));
  }

  /**
   * Step 1 on every replica: stop mirror appends; the leader records FETCHERS_REMOVED, then the
   * truncate step's record when its log has nothing to truncate.
   */
  public List<StepOutcome> removeFetchers(List<PartitionRef> refs, long timeoutMs) {
    return executor.removeFetchers(refs, timeoutMs);
  }

  /** Step 2 on the leader: fix the target, fence if needed, truncate to it. */
  public List<StepOutcome> truncate(List<PartitionRef> refs, long timeoutMs) {
    return executor.truncate(refs, timeoutMs);
  }

  /** Step 3 on the leader: record the last mirrored offset, its epoch and the source. */
  public List<StepOutcome> persistOffsets(List<PartitionRef> refs, long timeoutMs) {
    return executor.persistOffsets(refs, timeoutMs);
  }

  /**
   * Step 4 on the leader: the barrier at the recorded truncation offset, acks=all. Partitions that
   * are not mirrors get a barrier too (for tests and manual repairs), as before the stop sequence.
   */
  public List<StepOutcome> barrier(
      List<PartitionRef> refs, long timeoutMs, KafkaPartitionControl plainBarrier) {
    return executor.barrier(refs, timeoutMs, plainBarrier::appendBarrier);
  }

  /**
   * Step 5: on the leader, records STOPPED once the barrier is on every in-sync replica, then lets
   * clients write; on a follower, follows a STOPPED already recorded.
   */
  public List<StepOutcome> makeWritable(List<PartitionRef> refs, long timeoutMs) {
    return executor.makeWritable(refs, timeoutMs);
  }

  /** The durable stop fields of a local partition, for describe; see {@link StopDescribe}. */
  static Map<String, Object> describeStop(TopicPartition tp, UnifiedLog log) {
    return StopDescribe.describeStop(tp, log);
  }
}
