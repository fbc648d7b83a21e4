package dev.kafkamirror.broker.agent.kafka4_4;

import dev.kafkamirror.broker.agent.control.PartitionOperationException;
import dev.kafkamirror.broker.agent.control.PartitionRef;
import dev.kafkamirror.broker.agent.kafka4_4.mirror.MirrorEntry;
import dev.kafkamirror.broker.agent.kafka4_4.mirror.MirrorRegistry;
import dev.kafkamirror.broker.agent.kafka4_4.mirror.MirrorState;
import dev.kafkamirror.broker.agent.stop.StopPartitions;
import dev.kafkamirror.broker.agent.stop.StopTarget;
import dev.kafkamirror.broker.core.stop.StopStateKey;
import dev.kafkamirror.broker.core.stop.rules.LeadershipInFlight;
import dev.kafkamirror.broker.core.stop.rules.LocalState;
import dev.kafkamirror.contract.PartitionError.Code;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.locks.ReentrantReadWriteLock;
import kafka.cluster.Partition;
import kafka.server.ReplicaManager;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.storage.internals.log.UnifiedLog;

/** {@link StopPartitions} over this Kafka 4.4 broker's partitions and its mirror registry. */
final class KafkaStopPartitions implements StopPartitions {

  private static final org.slf4j.Logger LOG =
      org.slf4j.LoggerFactory.getLogger("dev.kafkamirror.broker.agent.StopExecutor");

  /** Kafka's {@code Partition.leaderIsrUpdateLock()} (private), or null when not found. */
  private static final java.lang.reflect.Method LEADER_ISR_UPDATE_LOCK = leaderIsrUpdateLock();

  private static java.lang.reflect.Method leaderIsrUpdateLock() {
    try {
      java.lang.reflect.Method m = Partition.class.getDeclaredMethod("leaderIsrUpdateLock");
      m.setAccessible(true);
      return m;
    } catch (ReflectiveOperationException | RuntimeException e) {
      LOG.warn(
          "Partition.leaderIsrUpdateLock not found: the stop's truncations run one partition at a"
              + " time ({})",
          e.toString());
      return null;
    }
  }

  private static final long LEADERSHIP_POLL_MS = 10L;

  private final MirrorRegistry registry;

  KafkaStopPartitions(MirrorRegistry registry) {
    this.registry = registry;
  }

  @Override
  public StopTarget resolve(PartitionRef ref, boolean requireLeader)
      throws PartitionOperationException {
    TopicPartition tp = new TopicPartition(ref.topic(), ref.partition());
    Partition partition = KafkaPartitionControl.localPartition(tp);
    if (partition.log().isEmpty()) {
      throw new PartitionOperationException(
          Code.UNKNOWN_PARTITION, tp + " has no local log on this broker");
    }
    UnifiedLog log = partition.log().get();
    MirrorEntry entry =
        registry
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
    return new KafkaStopTarget(
        ref,
        tp,
        partition,
        log,
        entry,
        new StopStateKey(entry.mirrorName(), topicId.toString(), tp.partition()));
  }

  /**
   * Polls every {@value #LEADERSHIP_POLL_MS} ms, until {@code timeoutMs} passed, the partitions of
   * {@code refs} whose leadership this broker's metadata cache gives it and its replica manager has
   * not applied ({@link LeadershipInFlight}). Reads only: the metadata cache and the online
   * partitions; called on the control worker thread.
   */
  @Override
  public void awaitLeadership(List<PartitionRef> refs, long timeoutMs) {
    ReplicaManager rm = BrokerHandles.replicaManager().orElse(null);
    if (rm == null || timeoutMs <= 0) {
      return;
    }
    List<TopicPartition> pending = new ArrayList<>();
    for (PartitionRef ref : refs) {
      TopicPartition tp = new TopicPartition(ref.topic(), ref.partition());
      if (awaitingLeadership(rm, tp)) {
        pending.add(tp);
      }
    }
    if (pending.isEmpty()) {
      return;
    }
    long start = System.nanoTime();
    long deadline = start + java.util.concurrent.TimeUnit.MILLISECONDS.toNanos(timeoutMs);
    int awaited = pending.size();
    while (!pending.isEmpty() && System.nanoTime() < deadline) {
      try {
        Thread.sleep(LEADERSHIP_POLL_MS);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return;
      }
      pending.removeIf(tp -> !awaitingLeadership(rm, tp));
    }
    LOG.debug(
        "awaited the leadership of {} partitions this broker's metadata gives it: {} ms, {} still"
            + " not applied",
        awaited,
        (System.nanoTime() - start) / 1_000_000L,
        pending.size());
  }

  private static boolean awaitingLeadership(ReplicaManager rm, TopicPartition tp) {
    try {
      java.util.Optional<org.apache.kafka.metadata.LeaderAndIsr> image =
          rm.metadataCache().getLeaderAndIsr(tp.topic(), tp.partition());
      if (image.isEmpty()) {
        return false;
      }
      scala.Option<Partition> local = rm.onlinePartition(tp);
      boolean hosted = local.isDefined();
      return LeadershipInFlight.awaiting(
          rm.localBrokerId(),
          image.get().leader(),
          image.get().leaderEpoch(),
          hosted,
          hosted && local.get().isLeader(),
          hosted ? local.get().getLeaderEpoch() : -1);
    } catch (RuntimeException e) {
      return false; // nothing to wait for that can be known; resolve answers as before
    }
  }

  @Override
  public boolean isMirror(PartitionRef ref) {
    return registry.entry(new TopicPartition(ref.topic(), ref.partition())).isPresent();
  }

  @Override
  public void advanceAll(List<StopTarget> targets, LocalState state) {
    registry.advanceAll(
        targets.stream().map(t -> ((KafkaStopTarget) t).tp()).toList(),
        MirrorState.valueOf(state.name()));
  }

  /**
   * One {@code LogManager.truncateTo} request for every partition, under each partition's {@code
   * leaderIsrUpdateLock} read lock (as Kafka's own {@code Partition.truncateTo} holds it for one):
   * Kafka then writes the recovery-point checkpoint of the log directory once, instead of once per
   * partition, and the producer-state snapshot each truncation writes is synced with the others at
   * the end ({@link TruncationBatches}; one partition at a time is a batch too). Without access to
   * the lock or the log manager, one partition at a time as before. If the request fails, every
   * partition of it fails (some may be truncated: a repeat finds them truncated and goes on).
   */
  @Override
  public Map<StopTarget, Exception> truncateAll(Map<StopTarget, Long> offsets) {
    // The producer-state snapshots of the truncations are synced together when the batch ends,
    // before this call returns (TruncationBatches).
    boolean batch = TruncationBatches.beginLeaderTruncations();
    try {
      return truncateAllInBatch(offsets);
    } finally {
      TruncationBatches.end(batch);
    }
  }

  private Map<StopTarget, Exception> truncateAllInBatch(Map<StopTarget, Long> offsets) {
    ReplicaManager rm = BrokerHandles.replicaManager().orElse(null);
    if (rm == null || LEADER_ISR_UPDATE_LOCK == null || offsets.size() == 1) {
      return StopPartitions.truncateEach(offsets);
    }
    Map<StopTarget, Exception> failed = new LinkedHashMap<>();
    long start = System.nanoTime();
    Map<TopicPartition, Long> byPartition = new HashMap<>();
    List<ReentrantReadWriteLock> locks = new ArrayList<>();
    try {
      for (Map.Entry<StopTarget, Long> e : offsets.entrySet()) {
        KafkaStopTarget t = (KafkaStopTarget) e.getKey();
        byPartition.put(t.tp(), e.getValue());
        locks.add((ReentrantReadWriteLock) LEADER_ISR_UPDATE_LOCK.invoke(t.partition()));
      }
    } catch (ReflectiveOperationException | RuntimeException e) {
      offsets.keySet().forEach(t -> failed.put(t, new IllegalStateException(e)));
      return failed;
    }
    List<ReentrantReadWriteLock> held = new ArrayList<>();
    try {
      for (ReentrantReadWriteLock lock : locks) {
        lock.readLock().lock();
        held.add(lock);
      }
      rm.logManager().truncateTo(byPartition, false);
    } catch (RuntimeException e) {
      offsets.keySet().forEach(t -> failed.put(t, e));
      return failed;
    } finally {
      for (ReentrantReadWriteLock lock : held) {
        lock.readLock().unlock();
      }
    }
    offsets.keySet().forEach(t -> ((KafkaStopTarget) t).afterTruncation());
    LOG.debug(
        "stop truncations: {} partitions in one request, {} ms",
        offsets.size(),
        (System.nanoTime() - start) / 1_000_000L);
    return failed;
  }
}
