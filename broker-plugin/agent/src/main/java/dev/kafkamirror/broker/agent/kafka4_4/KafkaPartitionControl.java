package dev.kafkamirror.broker.agent.kafka4_4;

import dev.kafkamirror.broker.agent.BarrierLedger;
import dev.kafkamirror.broker.agent.control.PartitionControl;
import dev.kafkamirror.broker.agent.control.PartitionOperationException;
import dev.kafkamirror.broker.agent.control.PartitionRef;
import dev.kafkamirror.broker.agent.control.StepOutcome;
import dev.kafkamirror.broker.agent.kafka4_4.mirror.ClusterMembership;
import dev.kafkamirror.broker.agent.kafka4_4.mirror.MirrorEntry;
import dev.kafkamirror.broker.agent.kafka4_4.mirror.MirrorMBeans;
import dev.kafkamirror.broker.agent.kafka4_4.mirror.MirrorRegistry;
import dev.kafkamirror.broker.agent.kafka4_4.mirror.MirrorState;
import dev.kafkamirror.broker.core.record.BarrierBatch;
import dev.kafkamirror.broker.core.record.MirrorPidResetRecord;
import dev.kafkamirror.contract.ControlCall;
import dev.kafkamirror.contract.ControlRequest;
import dev.kafkamirror.contract.Fields;
import dev.kafkamirror.contract.PartitionError.Code;
import dev.kafkamirror.contract.Role;
import java.util.ArrayList;
import java.util.ConcurrentModificationException;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import kafka.cluster.Partition;
import kafka.server.ReplicaManager;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.NotEnoughReplicasException;
import org.apache.kafka.common.errors.NotLeaderOrFollowerException;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.RecordBatch;
import org.apache.kafka.server.common.RequestLocal;
import org.apache.kafka.server.storage.log.FetchIsolation;
import org.apache.kafka.storage.internals.log.AppendOrigin;
import org.apache.kafka.storage.internals.log.LogAppendInfo;
import org.apache.kafka.storage.internals.log.UnifiedLog;
import org.apache.kafka.storage.internals.log.VerificationGuard;
import scala.Option;

/** {@link PartitionControl} on a Kafka 4.4 broker. Thread-safe. */
public final class KafkaPartitionControl implements PartitionControl {

  private static final long POLL_MS = 5L;

  private final KafkaStopSequence stopSequence;

  /**
   * @param stopSequence the stop steps, wired by the composition root
   */
  public KafkaPartitionControl(KafkaStopSequence stopSequence) {
    this.stopSequence = stopSequence;
  }

  @Override
  public List<StepOutcome> stopStep(StopCall step, List<PartitionRef> partitions, long timeoutMs) {
    return switch (step) {
      case REMOVE_FETCHERS -> stopSequence.removeFetchers(partitions, timeoutMs);
      case TRUNCATE -> stopSequence.truncate(partitions, timeoutMs);
      case PERSIST_OFFSETS -> stopSequence.persistOffsets(partitions, timeoutMs);
      case BARRIER -> stopSequence.barrier(partitions, timeoutMs, this);
      case MAKE_WRITABLE -> stopSequence.makeWritable(partitions, timeoutMs);
    };
  }

  @Override
  public Map<String, Object> describe(PartitionRef ref) throws PartitionOperationException {
    TopicPartition tp = new TopicPartition(ref.topic(), ref.partition());
    Partition partition = localPartition(tp);
    Option<UnifiedLog> maybeLog = partition.log();
    if (maybeLog.isEmpty()) {
      throw new PartitionOperationException(
          Code.UNKNOWN_PARTITION, tp + " has no local log on this broker");
    }
    UnifiedLog log = maybeLog.get();
    Map<String, Object> out = new LinkedHashMap<>();
    out.put(Fields.Describe.ROLE, partition.isLeader() ? Role.LEADER.name() : Role.FOLLOWER.name());
    out.put(
        Fields.Describe.LEADER_ID,
        partition.leaderReplicaIdOpt().isDefined() ? partition.leaderReplicaIdOpt().get() : -1);
    out.put(Fields.Describe.LEADER_EPOCH, partition.getLeaderEpoch());
    out.put(Fields.Describe.REPLICAS, List.copyOf(partition.assignmentState().replicas()));
    out.put(Fields.Describe.ISR, new java.util.TreeSet<>(partition.partitionState().isr()));
    out.put(Fields.Describe.LOG_START_OFFSET, log.logStartOffset());
    out.put(Fields.Describe.LOG_END_OFFSET, log.logEndOffset());
    out.put(Fields.Describe.HIGH_WATERMARK, log.highWatermark());
    out.put(Fields.Describe.LAST_STABLE_OFFSET, log.lastStableOffset());
    int[] counts = producerCounts(log);
    out.put(Fields.Describe.PRODUCER_ENTRIES, counts[0]);
    out.put(Fields.Describe.OPEN_TRANSACTIONS, counts[1]);
    List<Map<String, Object>> resets = new ArrayList<>();
    for (BarrierLedger.Reset reset : BarrierLedger.instance().resetsOf(tp.toString())) {
      Map<String, Object> r = new LinkedHashMap<>();
      r.put(Fields.BarrierReset.PATH, reset.path().name());
      r.put(Fields.BarrierReset.BARRIER_OFFSET, reset.barrierOffset());
      r.put(Fields.BarrierReset.PRODUCERS_REMOVED, reset.producersRemoved());
      r.put(Fields.BarrierReset.FORCED_ABORTS, reset.forcedAborts());
      r.put(Fields.BarrierReset.RESET_MICROS, reset.resetMicros());
      reset.sourceClusterId().ifPresent(s -> r.put(Fields.BarrierReset.SOURCE_CLUSTER_ID, s));
      reset.malformedValue().ifPresent(m -> r.put(Fields.BarrierReset.MALFORMED_VALUE, m));
      resets.add(r);
    }
    out.put(Fields.Describe.BARRIER_RESETS, resets);
    out.put(Fields.Describe.BARRIER_RULE_ENABLED, BarrierHooks.ruleEnabled());
    out.put(Fields.Describe.WRITE_GUARDS, WriteGuardCounters.describe());
    Map<String, Object> membership = ClusterMembership.describe(tp, log.topicId());
    if (!membership.isEmpty()) {
      out.put(Fields.Describe.CLUSTER_MEMBERSHIP, membership);
    }
    Map<String, Object> mirror =
        MirrorRegistry.instance().describe(tp, log.logEndOffset(), partition.isLeader());
    if (!mirror.isEmpty()) {
      out.put(Fields.Describe.MIRROR, mirror);
      Map<String, Object> stop = KafkaStopSequence.describeStop(tp, log);
      if (!stop.isEmpty()) {
        out.put(Fields.Describe.STOP, stop);
      }
    }
    return out;
  }

  @Override
  public <T> T startsOfOneCall(java.util.function.Supplier<T> work) {
    return MirrorRegistry.instance().writingOnceAfter(work);
  }

  @Override
  public Map<String, Object> startMirroring(
      PartitionRef ref, String mirrorName, ControlRequest.MirrorSource source)
      throws PartitionOperationException {
    TopicPartition tp = new TopicPartition(ref.topic(), ref.partition());
    Partition partition = localPartition(tp);
    // A registration left from a destination topic deleted since (the stop-state reader removes
    // it too, after its next round) must not stand for the topic now under the name.
    dev.kafkamirror.broker.agent.kafka4_4.mirror.DeletedDestinationTopics.removeIfObsolete(tp);
    refuseLocalRecordsBeforeMirror(tp, partition, mirrorName);
    Properties props = new Properties();
    props.putAll(source.properties());
    props.put("bootstrap.servers", source.bootstrapServers());
    props.put("client.id", "cluster-mirror-" + mirrorName);
    try {
      MirrorEntry entry =
          MirrorRegistry.instance().startMirroring(tp, mirrorName, source.clusterId(), props);
      // Every replica reads the cluster's mirror membership and records that it holds this one.
      ClusterMembership.startStore();
      return Map.of(Fields.StepResult.STATE, entry.state().name());
    } catch (IllegalStateException e) {
      throw new PartitionOperationException(Code.INVALID_STATE, e.getMessage(), e);
    }
  }

  /**
   * Refuses a plain start of a partition that is no mirror yet (no registration on this broker,
   * none in the cluster's membership) while its log already used offsets: those records were
   * written while it was an ordinary partition, and mirroring from the log end would keep them
   * where the source holds others. While the membership is not read yet the start goes on: the
   * fetcher checks again before the first append ({@link ClusterMembership}) and halts the
   * partition then.
   */
  private static void refuseLocalRecordsBeforeMirror(
      TopicPartition tp, Partition partition, String mirrorName)
      throws PartitionOperationException {
    if (MirrorRegistry.instance().entry(tp).isPresent()) {
      return; // a restart or a repeated start: the registry's own rules apply
    }
    Option<UnifiedLog> log = partition.log();
    if (log.isEmpty()) {
      return;
    }
    String why =
        dev.kafkamirror.broker.core.mirror.SourceAlignment.localRecordsBeforeMirror(
            tp.toString(), mirrorName, log.get().logStartOffset(), log.get().logEndOffset());
    if (why == null) {
      return; // the log never held a record
    }
    try {
      // Read the membership up to date: a partition mirrored before (by another leader, or on a
      // replica whose registration was lost) is a member and its log is the source's.
      dev.kafkamirror.broker.agent.kafka4_4.stop.StopStateStore.get().sync(5_000L);
    } catch (dev.kafkamirror.broker.agent.kafka4_4.stop.StopStateUnavailableException e) {
      LOG.warn(
          "{}: cannot read the mirror membership now ({}); the fetcher checks again before the"
              + " first append",
          tp,
          e.getMessage());
      return;
    }
    if (ClusterMembership.memberRecorded(tp, log.get().topicId()).orElse(true)) {
      return;
    }
    LOG.warn("refused a plain start: {}", why);
    throw new PartitionOperationException(Code.INVALID_STATE, why);
  }

  private static final org.slf4j.Logger LOG =
      org.slf4j.LoggerFactory.getLogger(KafkaPartitionControl.class);

  @Override
  public Map<String, Object> startMirroring(
      PartitionRef ref,
      String mirrorName,
      ControlRequest.MirrorSource source,
      dev.kafkamirror.contract.InitialSync initialSync,
      boolean dryRun)
      throws PartitionOperationException {
    if (initialSync == null) {
      return startMirroring(ref, mirrorName, source);
    }
    Properties props = new Properties();
    props.putAll(source.properties());
    props.put("bootstrap.servers", source.bootstrapServers());
    props.put("client.id", "cluster-mirror-" + mirrorName);
    return FailbackStart.run(
        ref,
        mirrorName,
        source,
        props,
        dryRun,
        dev.kafkamirror.contract.ControlLimits.DEFAULT_TIMEOUT_MS);
  }

  @Override
  public Map<String, Object> transition(PartitionRef ref, ControlCall action)
      throws PartitionOperationException {
    TopicPartition tp = new TopicPartition(ref.topic(), ref.partition());
    Partition partition = localPartition(tp);
    MirrorRegistry registry = MirrorRegistry.instance();
    MirrorEntry entry =
        registry
            .entry(tp)
            .orElseThrow(
                () ->
                    new PartitionOperationException(
                        Code.INVALID_STATE,
                        tp
                            + " is not a mirror on this broker; "
                            + action.path()
                            + " does not apply"));
    try {
      switch (action) {
        case PAUSE -> registry.transition(tp, MirrorState.MIRRORING, MirrorState.PAUSED);
        case RESUME -> registry.transition(tp, MirrorState.PAUSED, MirrorState.MIRRORING);
        default ->
            throw new PartitionOperationException(
                Code.INTERNAL, action.path() + " is not a mirror transition");
      }
    } catch (IllegalStateException e) {
      throw new PartitionOperationException(Code.INVALID_STATE, e.getMessage(), e);
    }
    Map<String, Object> out = new LinkedHashMap<>();
    out.put(Fields.StepResult.STATE, entry.state().name());
    out.put(Fields.StepResult.LAST_MIRRORED_OFFSET, entry.lastMirroredOffset());
    return out;
  }

  @Override
  public Map<String, Object> appendBarrier(PartitionRef ref, long timeoutMs)
      throws PartitionOperationException {
    TopicPartition tp = new TopicPartition(ref.topic(), ref.partition());
    Partition partition = localPartition(tp);
    if (!partition.isLeader()) {
      throw new PartitionOperationException(
          Code.NOT_LEADER,
          "this broker is not the leader of " + tp + "; write the barrier on the leader");
    }
    UnifiedLog log = partition.localLogOrException();
    MirrorEntry mirror = MirrorRegistry.instance().entry(tp).orElse(null);
    if (mirror != null) {
      if (mirror.state() == MirrorState.MIRRORING || mirror.state() == MirrorState.PAUSED) {
        throw new PartitionOperationException(
            Code.INVALID_STATE,
            tp
                + " is "
                + mirror.state()
                + " (mirror "
                + mirror.mirrorName()
                + "); remove the fetchers first");
      }
      if (mirror.sourceClusterId() != null
          && !mirror.sourceClusterId().equals(ref.sourceClusterId())) {
        throw new PartitionOperationException(
            Code.INVALID_STATE,
            tp
                + " mirrored data of source cluster "
                + mirror.sourceClusterId()
                + ", not "
                + ref.sourceClusterId()
                + "; the barrier must name the real source");
      }
    }
    long deadline = System.nanoTime() + timeoutMs * 1_000_000L;
    long barrierOffset;
    boolean appended;
    int abortedTransactions = 0;
    try {
      long existing = lastBatchBarrierOffset(log, ref.sourceClusterId());
      if (existing >= 0) {
        barrierOffset = existing;
        appended = false;
      } else {
        // With the rule switched off the plugin shows stock behaviour: no markers either.
        abortedTransactions =
            BarrierHooks.ruleEnabled() ? abortOpenTransactions(partition, log) : 0;
        MemoryRecords barrier =
            MemoryRecords.readableRecords(
                BarrierBatch.build(
                    MirrorPidResetRecord.of(ref.sourceClusterId()), System.currentTimeMillis()));
        LogAppendInfo info =
            partition.appendRecordsToLeader(
                barrier,
                AppendOrigin.COORDINATOR,
                -1,
                RequestLocal.noCaching(),
                VerificationGuard.SENTINEL,
                (short) 0);
        barrierOffset = info.lastOffset();
        appended = true;
        MirrorMBeans.barrierWritten(mirror == null ? null : mirror.mirrorName());
        BrokerHandles.completeDelayedFetches(tp);
      }
    } catch (NotLeaderOrFollowerException e) {
      throw new PartitionOperationException(Code.NOT_LEADER, tp + ": " + e.getMessage(), e);
    } catch (NotEnoughReplicasException e) {
      throw new PartitionOperationException(
          Code.NOT_ENOUGH_REPLICAS, tp + ": " + e.getMessage(), e);
    } catch (java.io.IOException e) {
      throw new PartitionOperationException(Code.INTERNAL, tp + ": cannot read the log: " + e, e);
    }
    while (log.highWatermark() <= barrierOffset) {
      if (System.nanoTime() > deadline) {
        throw new PartitionOperationException(
            Code.TIMEOUT,
            tp
                + ": the barrier at offset "
                + barrierOffset
                + " is written but not yet below the high watermark "
                + log.highWatermark()
                + " after "
                + timeoutMs
                + " ms; repeat the call to wait again");
      }
      sleep();
    }
    Map<String, Object> out = new LinkedHashMap<>();
    out.put(Fields.StepResult.BARRIER_OFFSET, barrierOffset);
    out.put(Fields.StepResult.APPENDED, appended);
    out.put(Fields.StepResult.ABORTED_TRANSACTIONS, abortedTransactions);
    out.put(Fields.StepResult.HIGH_WATERMARK, log.highWatermark());
    return out;
  }

  /**
   * Appends an ABORT marker, as the transaction coordinator would, for every transaction still open
   * in the partition's producer state, so that the barrier that follows never meets one: the
   * markers end those transactions for every reader (consumers forget an aborted producer id at its
   * ABORT marker), and replicas and mirrors of this log replicate them. A transaction that was
   * mirrored without its end can never be completed any more; aborting it is the only outcome that
   * exposes no uncommitted record.
   *
   * @return how many markers were written
   */
  static int abortOpenTransactions(Partition partition, UnifiedLog log) {
    KafkaProducerStateTarget state = new KafkaProducerStateTarget(log.producerStateManager(), null);
    int written = 0;
    for (var open : state.openTransactions()) {
      var entry = log.producerStateManager().lastEntry(open.producerId());
      if (entry.isEmpty()) {
        continue;
      }
      MemoryRecords abort =
          MemoryRecords.withEndTransactionMarker(
              open.producerId(),
              entry.get().producerEpoch(),
              new org.apache.kafka.common.record.internal.EndTransactionMarker(
                  org.apache.kafka.common.record.internal.ControlRecordType.ABORT,
                  Math.max(0, entry.get().coordinatorEpoch())));
      // The plugin's own marker: MarkerGuard refuses markers into a mirror partition from anyone
      // else.
      PluginAppends.run(
          () ->
              partition.appendRecordsToLeader(
                  abort,
                  AppendOrigin.COORDINATOR,
                  -1,
                  RequestLocal.noCaching(),
                  VerificationGuard.SENTINEL,
                  (short) 0));
      written++;
    }
    return written;
  }

  /** The log's last batch, or null for an empty log. */
  static RecordBatch lastBatch(UnifiedLog log) throws java.io.IOException {
    long leo = log.logEndOffset();
    if (leo <= log.logStartOffset()) {
      return null;
    }
    RecordBatch last = null;
    for (RecordBatch batch :
        log.read(leo - 1, 64 * 1024, FetchIsolation.LOG_END, true).records.batches()) {
      last = batch;
    }
    return last;
  }

  /**
   * The offset of the log's last batch when it is a barrier of {@code sourceClusterId}, else -1.
   */
  static long lastBatchBarrierOffset(UnifiedLog log, String sourceClusterId)
      throws java.io.IOException {
    long leo = log.logEndOffset();
    if (leo <= log.logStartOffset()) {
      return -1L;
    }
    RecordBatch last = null;
    for (RecordBatch batch :
        log.read(leo - 1, 64 * 1024, FetchIsolation.LOG_END, true).records.batches()) {
      last = batch;
    }
    if (last == null || last.lastOffset() != leo - 1 || !KafkaBatches.isBarrier(last)) {
      return -1L;
    }
    KafkaBatches.Decoded decoded = KafkaBatches.decode(last, log.topicPartition());
    if (decoded.value() == null
        || (sourceClusterId != null
            && !decoded.value().sourceClusterId().equals(sourceClusterId))) {
      return -1L;
    }
    return last.baseOffset();
  }

  static int[] producerCounts(UnifiedLog log) {
    for (int attempt = 0; ; attempt++) {
      try {
        KafkaProducerStateTarget target =
            new KafkaProducerStateTarget(log.producerStateManager(), null);
        return new int[] {target.producerCount(), target.openTransactions().size()};
      } catch (ConcurrentModificationException e) {
        if (attempt > 10) {
          return new int[] {-1, -1};
        }
      }
    }
  }

  static Partition localPartition(TopicPartition tp) throws PartitionOperationException {
    ReplicaManager rm =
        BrokerHandles.replicaManager()
            .orElseThrow(
                () ->
                    new PartitionOperationException(
                        Code.BROKER_NOT_READY, "the broker's ReplicaManager does not exist yet"));
    Option<Partition> partition = rm.onlinePartition(tp);
    if (partition.isEmpty()) {
      throw new PartitionOperationException(
          Code.UNKNOWN_PARTITION,
          "broker " + rm.localBrokerId() + " hosts no online replica of " + tp);
    }
    return partition.get();
  }

  private static void sleep() throws PartitionOperationException {
    try {
      Thread.sleep(POLL_MS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new PartitionOperationException(Code.INTERNAL, "interrupted", e);
    }
  }
}
