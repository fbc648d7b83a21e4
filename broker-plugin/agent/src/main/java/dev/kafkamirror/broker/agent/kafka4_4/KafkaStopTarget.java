package dev.kafkamirror.broker.agent.kafka4_4;

import dev.kafkamirror.broker.agent.control.PartitionOperationException;
import dev.kafkamirror.broker.agent.control.PartitionRef;
import dev.kafkamirror.broker.agent.kafka4_4.mirror.ClusterMembership;
import dev.kafkamirror.broker.agent.kafka4_4.mirror.MirrorEntry;
import dev.kafkamirror.broker.agent.kafka4_4.mirror.MirrorState;
import dev.kafkamirror.broker.agent.stop.StopTarget;
import dev.kafkamirror.broker.core.record.BarrierBatch;
import dev.kafkamirror.broker.core.record.MirrorPidResetRecord;
import dev.kafkamirror.broker.core.stop.StopState;
import dev.kafkamirror.broker.core.stop.StopStateKey;
import dev.kafkamirror.broker.core.stop.StopStep;
import dev.kafkamirror.broker.core.stop.rules.LocalState;
import dev.kafkamirror.broker.core.stop.rules.PartitionView;
import dev.kafkamirror.broker.core.stop.rules.StopCall;
import dev.kafkamirror.contract.Fields;
import dev.kafkamirror.contract.PartitionError.Code;
import java.io.IOException;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import kafka.cluster.Partition;
import org.apache.kafka.common.TopicPartition;
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
 * A mirror partition of a stop call on a Kafka 4.4 broker: builds the rules' {@link PartitionView}
 * from the live partition and log, and truncates and appends the barrier as the rules ask.
 * Thread-safe: every read goes to the live partition.
 */
final class KafkaStopTarget implements StopTarget {

  /** See {@link #lock}; one small object per mirror partition ever stopped here. */
  private static final Map<TopicPartition, Object> PARTITION_LOCKS = new ConcurrentHashMap<>();

  private final PartitionRef ref;
  private final TopicPartition tp;
  private final Partition partition;
  private final UnifiedLog log;
  private final MirrorEntry entry;
  private final StopStateKey key;

  KafkaStopTarget(
      PartitionRef ref,
      TopicPartition tp,
      Partition partition,
      UnifiedLog log,
      MirrorEntry entry,
      StopStateKey key) {
    this.ref = ref;
    this.tp = tp;
    this.partition = partition;
    this.log = log;
    this.entry = entry;
    this.key = key;
  }

  TopicPartition tp() {
    return tp;
  }

  @Override
  public PartitionRef ref() {
    return ref;
  }

  @Override
  public StopStateKey key() {
    return key;
  }

  @Override
  public String name() {
    return tp.toString();
  }

  @Override
  public boolean isLeader() {
    return partition.isLeader();
  }

  @Override
  public int leaderEpoch() {
    return partition.getLeaderEpoch();
  }

  @Override
  public long logEndOffset() {
    return log.logEndOffset();
  }

  @Override
  public long highWatermark() {
    return log.highWatermark();
  }

  /**
   * Reads only what the call's rule uses: the last batch and the open transactions for truncate
   * (and, once truncated, a barrier at the end) and for remove-fetchers on a leader at
   * FETCHERS_REMOVED (the one state in which its rule asks the truncate rule), the barrier at the
   * end for the barrier call, the reset check only where make-writable would ask it (it remembers
   * its failures for describe).
   */
  @Override
  public PartitionView view(
      StopCall call, StopState durable, String requestedSourceClusterId, long nowMs)
      throws PartitionOperationException {
    boolean leader = partition.isLeader();
    long leo = log.logEndOffset();
    long hw = log.highWatermark();
    int lastBatchEpoch = -1;
    long barrierAtEnd = -1L;
    int open = 0;
    try {
      if (call == StopCall.TRUNCATE
          || (call == StopCall.REMOVE_FETCHERS
              && leader
              && durable != null
              && durable.step() == StopStep.FETCHERS_REMOVED)) {
        RecordBatch last = KafkaPartitionControl.lastBatch(log);
        lastBatchEpoch = last == null ? -1 : last.partitionLeaderEpoch();
        open = KafkaPartitionControl.producerCounts(log)[1];
        if (durable != null && durable.step().atLeast(StopStep.TRUNCATED)) {
          // A barrier already at the recorded truncation offset means the log is truncated.
          barrierAtEnd =
              KafkaPartitionControl.lastBatchBarrierOffset(log, durable.sourceClusterId());
        }
      } else if (call == StopCall.BARRIER && requestedSourceClusterId != null) {
        barrierAtEnd = KafkaPartitionControl.lastBatchBarrierOffset(log, requestedSourceClusterId);
      }
    } catch (IOException e) {
      throw new PartitionOperationException(Code.INTERNAL, tp + ": cannot read the log: " + e, e);
    }
    String topicId = log.topicId().map(Object::toString).orElse("");
    Set<Integer> holders =
        call == StopCall.TRUNCATE ? ClusterMembership.holders(topicId, tp.partition()) : Set.of();
    String known =
        entry.sourceClusterId() != null ? entry.sourceClusterId() : entry.expectedSourceClusterId();
    String reset = null;
    if (call == StopCall.MAKE_WRITABLE && durable != null) {
      boolean followerAsks = !leader && durable.step() == StopStep.STOPPED;
      boolean leaderAsks =
          leader
              && durable.step().atLeast(StopStep.BARRIER_WRITTEN)
              && hw > durable.barrierOffset();
      if (followerAsks || leaderAsks) {
        reset =
            ResetCheck.refusal(
                    tp,
                    log,
                    durable.barrierOffset(),
                    leader && entry.state() != MirrorState.STOPPED)
                .orElse(null);
      }
    }
    Option<Object> leaderId = partition.leaderReplicaIdOpt();
    return new PartitionView(
        key,
        tp.topic(),
        durable,
        LocalState.valueOf(entry.state().name()),
        BrokerHandles.replicaManager().map(rm -> rm.localBrokerId()).orElse(-1),
        leader,
        leaderId.isDefined() ? (Integer) leaderId.get() : -1,
        partition.getLeaderEpoch(),
        leo,
        hw,
        log.lastStableOffset(),
        lastBatchEpoch,
        barrierAtEnd,
        open,
        List.copyOf(partition.assignmentState().replicas()),
        Set.copyOf(partition.partitionState().isr()),
        holders,
        known,
        reset,
        BarrierHooks.ruleEnabled(),
        nowMs,
        leader && followersBehind(leo).isEmpty());
  }

  @Override
  public List<String> followersBehind(long endOffset) {
    int self = BrokerHandles.replicaManager().map(rm -> rm.localBrokerId()).orElse(-1);
    return FollowerFetches.behind(partition, tp, self, endOffset);
  }

  @Override
  public void truncateTo(long offset) {
    partition.truncateTo(offset, false);
    afterTruncation();
  }

  Partition partition() {
    return partition;
  }

  /** What follows a truncation of this partition's log (one by one or in a batch). */
  void afterTruncation() {
    // Kafka keeps the followers' fetch states from before: only fetches from now on count.
    FollowerFetches.truncated(tp, partition.getLeaderEpoch());
    realignLeaderEpochStart(log.logEndOffset());
    BrokerHandles.completeDelayedFetches(tp);
  }

  @Override
  public long appendBarrier(String sourceClusterId) throws PartitionOperationException {
    MemoryRecords barrier =
        MemoryRecords.readableRecords(
            BarrierBatch.build(
                MirrorPidResetRecord.of(sourceClusterId), System.currentTimeMillis()));
    try {
      LogAppendInfo info =
          partition.appendRecordsToLeader(
              barrier,
              AppendOrigin.COORDINATOR,
              -1,
              RequestLocal.noCaching(),
              VerificationGuard.SENTINEL,
              (short) 0);
      dev.kafkamirror.broker.agent.kafka4_4.mirror.MirrorMBeans.barrierWritten(
          dev.kafkamirror.broker.agent.kafka4_4.mirror.MirrorRegistry.instance()
              .entry(tp)
              .map(dev.kafkamirror.broker.agent.kafka4_4.mirror.MirrorEntry::mirrorName)
              .orElse(null));
      return info.lastOffset();
    } catch (NotLeaderOrFollowerException e) {
      throw new PartitionOperationException(Code.NOT_LEADER, ref.key() + ": " + e.getMessage(), e);
    } catch (NotEnoughReplicasException e) {
      throw new PartitionOperationException(
          Code.NOT_ENOUGH_REPLICAS, ref.key() + ": " + e.getMessage(), e);
    }
  }

  @Override
  public void completeDelayedFetches() {
    BrokerHandles.completeDelayedFetches(tp);
  }

  @Override
  public Object lock() {
    return PARTITION_LOCKS.computeIfAbsent(tp, k -> new Object());
  }

  @Override
  public Map<String, Object> describe() {
    Map<String, Object> out = new LinkedHashMap<>();
    out.put(Fields.StepResult.STATE, entry.state().name());
    out.put(Fields.StepResult.LEADER_EPOCH, partition.getLeaderEpoch());
    out.put(Fields.StepResult.LOG_END_OFFSET, log.logEndOffset());
    Map<String, Object> stop = StopDescribe.describeStop(tp, log);
    if (!stop.isEmpty()) {
      out.put(Fields.StepResult.STOP, stop);
    }
    return out;
  }

  /**
   * A leader's epoch starts, for Kafka, at its log end when it was elected: followers join the ISR
   * only once they reach that offset, and ListOffsets answers OFFSET_NOT_AVAILABLE while the high
   * watermark is below it. After this leader truncated below that offset, its epoch's first batch
   * (the barrier) will sit at the new log end, so that is where the epoch starts; without this, a
   * replica that comes back could not rejoin the ISR and consumers could not list offsets until the
   * log grew past the old end again.
   */
  private void realignLeaderEpochStart(long logEndOffset) {
    Option<Object> start = partition.leaderEpochStartOffsetOpt();
    if (start.isDefined() && (Long) start.get() > logEndOffset) {
      partition.leaderEpochStartOffsetOpt_$eq(Option.apply((Object) logEndOffset));
    }
  }
}
