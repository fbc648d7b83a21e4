package dev.kafkamirror.broker.agent.kafka4_4;

import dev.kafkamirror.broker.agent.control.PartitionOperationException;
import dev.kafkamirror.broker.agent.control.PartitionRef;
import dev.kafkamirror.broker.agent.kafka4_4.mirror.MirrorEntry;
import dev.kafkamirror.broker.agent.kafka4_4.mirror.MirrorRegistry;
import dev.kafkamirror.broker.agent.kafka4_4.mirror.MirrorState;
import dev.kafkamirror.broker.agent.kafka4_4.stop.LeaderFence;
import dev.kafkamirror.broker.agent.kafka4_4.stop.StopStateStore;
import dev.kafkamirror.broker.agent.kafka4_4.stop.StopStateUnavailableException;
import dev.kafkamirror.broker.core.mirror.FailbackAlignment;
import dev.kafkamirror.broker.core.stop.MirrorMembership;
import dev.kafkamirror.broker.core.stop.StopState;
import dev.kafkamirror.broker.core.stop.StopStateKey;
import dev.kafkamirror.contract.ControlRequest;
import dev.kafkamirror.contract.Fields;
import dev.kafkamirror.contract.PartitionError.Code;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import kafka.cluster.Partition;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.record.internal.RecordBatch;
import org.apache.kafka.server.storage.log.FetchIsolation;
import org.apache.kafka.storage.internals.log.EpochEntry;
import org.apache.kafka.storage.internals.log.UnifiedLog;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import scala.Option;

/**
 * A start with {@code initialSync: TRUNCATE_AND_RESTORE} (failback) on one partition of this
 * broker: the former source of a mirror becomes a mirror of its former destination.
 *
 * <p>Order, each step idempotent, so that the call can be repeated after any crash:
 *
 * <ol>
 *   <li>the decision ({@link FailbackAlignment}) on the log as it is, before anything changes: a
 *       refusal changes nothing and the partition stays as writable as it was;
 *   <li>the partition is registered ALIGNING (read-only, never fetched), persisted in the registry
 *       file, <em>before</em> anything is truncated; on a follower that is all (the leader aligns);
 *   <li>the decision again on the now read-only log, and what it discards (offsets, records, bytes)
 *       logged at WARN and answered, <em>before</em> it is discarded;
 *   <li>the replicas are fenced when the discarded range holds batches of the current leader epoch
 *       (leadership moves to another in-sync replica, which answers {@code LEADER_MOVED}: call the
 *       new leader, which decides again on the same log);
 *   <li>the leader truncates to the alignment offset, then the partition turns MIRRORING and the
 *       fetcher starts at the alignment offset.
 * </ol>
 *
 * <p>A repeated call on a partition that is MIRRORING under the same mirror answers its recorded
 * alignment and changes nothing: the log then holds mirrored records above the alignment offset,
 * which a new decision must not discard. Deciding again on a leader that crashed between the
 * truncation and MIRRORING is safe: a truncated log aligns where it ends.
 *
 * <p>Stateless; called on the control endpoint's worker threads.
 */
final class FailbackStart {

  private static final Logger LOG =
      LoggerFactory.getLogger("dev.kafkamirror.broker.agent.FailbackStart");
  private static final long STATE_SYNC_TIMEOUT_MS = 5_000L;

  private FailbackStart() {}

  static Map<String, Object> run(
      PartitionRef ref,
      String mirrorName,
      ControlRequest.MirrorSource source,
      Properties props,
      boolean dryRun,
      long timeoutMs)
      throws PartitionOperationException {
    TopicPartition tp = new TopicPartition(ref.topic(), ref.partition());
    String name = tp + " (mirror " + mirrorName + ")";
    Partition partition = KafkaPartitionControl.localPartition(tp);
    MirrorRegistry registry = MirrorRegistry.instance();
    ControlRequest.AlignTo alignTo = ref.alignTo();
    Optional<MirrorEntry> existing = registry.entry(tp);
    if (existing.isPresent()
        && existing.get().mirrorName().equals(mirrorName)
        && (existing.get().state() == MirrorState.MIRRORING
            || existing.get().state() == MirrorState.PAUSED)) {
      // Aligned before: mirrored records now follow the alignment offset; never decide again.
      Map<String, Object> out = new LinkedHashMap<>();
      out.put(Fields.StepResult.STATE, existing.get().state().name());
      if (existing.get().alignment() != null) {
        out.put(Fields.StepResult.ALIGNMENT, existing.get().alignment());
      }
      return out;
    }
    UnifiedLog log = partition.localLogOrException();
    Optional<Uuid> topicId = log.topicId();
    if (topicId.isEmpty()) {
      throw new PartitionOperationException(
          Code.BROKER_NOT_READY, name + ": the partition has no topic id yet; repeat the call");
    }
    // 0. The incarnation of the topic the former destination mirrored, before anything changes.
    if (alignTo != null) {
      FailbackAlignment.Refuse replaced =
          FailbackAlignment.checkTopicId(name, alignTo.expectedTopicId(), topicId.get().toString());
      if (replaced != null) {
        LOG.warn("{}", replaced.message());
        throw new PartitionOperationException(
            Code.INVALID_STATE, replaced.reason() + ": " + replaced.message());
      }
    }
    checkNoEarlierUse(tp, mirrorName, topicId.get().toString());
    if (!partition.isLeader()) {
      if (dryRun) {
        throw new PartitionOperationException(
            Code.NOT_LEADER, "this broker is not the leader of " + tp + "; plan on the leader");
      }
      // Read-only here too, so that no client writes reach this replica if it becomes leader; the
      // leader (or this broker once it leads and the call is repeated) aligns.
      MirrorEntry entry = register(registry, tp, mirrorName, source, props);
      return Map.of(Fields.StepResult.STATE, entry.state().name());
    }
    // 1. Decide on the log as it is: a refusal changes nothing.
    decide(name, alignTo, log);
    if (dryRun) {
      return answer(
          existing.map(e -> e.state().name()).orElse(null),
          account(name, decide(name, alignTo, log), log, true));
    }
    // 2. Read-only before anything is truncated.
    MirrorEntry entry = register(registry, tp, mirrorName, source, props);
    // 2b. The log end the caller's report covered, checked on the log that no client write can
    // reach any more: a refusal puts the registration back as it was and truncates nothing.
    checkReportedLogEnd(partition, log, tp, name, alignTo, registry, entry, existing.orElse(null));
    // 3. Decide again on the read-only log; account for what goes, before it goes.
    FailbackAlignment.Align align = decide(name, alignTo, log);
    Map<String, Object> alignment = account(name, align, log, false);
    entry.alignment(alignment);
    if (align.discards()) {
      LOG.warn("{}", alignment.get(Fields.Alignment.MESSAGE));
    } else {
      LOG.info("{}", alignment.get(Fields.Alignment.MESSAGE));
    }
    synchronized (entry) {
      if (align.offset() < log.logEndOffset()) {
        // 4. Fence: followers must see a newer leader epoch after the truncation.
        if (needsFence(partition, log, align.offset())) {
          moveLeadership(partition, tp, name, align, timeoutMs);
        }
        // 5. Truncate.
        partition.truncateTo(align.offset(), false);
        FollowerFetches.truncated(tp, partition.getLeaderEpoch());
        realignLeaderEpochStart(partition, log.logEndOffset());
        BrokerHandles.completeDelayedFetches(tp);
      }
    }
    Map<String, Object> done = new LinkedHashMap<>(alignment);
    done.put(Fields.Alignment.TRUNCATED, true);
    entry.alignment(done);
    try {
      registry.completeAlignment(tp, entry, props);
    } catch (IllegalStateException e) {
      throw new PartitionOperationException(Code.INVALID_STATE, e.getMessage(), e);
    }
    LOG.info("{}: aligned at offset {}; mirroring from there", name, align.offset());
    return answer(entry.state().name(), done);
  }

  /**
   * Refuses ({@code INVALID_STATE} / {@link FailbackAlignment#LOG_MOVED_AFTER_REPORT}) a start
   * whose {@code alignTo.expectedLogEndOffset} is not where this leader's log ends, and rolls
   * {@code entry} back to {@code previous} first (the partition writable again when it was before
   * the call), so that nothing is truncated that the caller's report did not account for.
   *
   * <p>Invariant: called after {@code entry} is registered (read-only). The produce guard runs
   * inside Kafka's {@code Partition.appendRecordsToLeader}, under the partition's leader-ISR read
   * lock; taking the write lock here waits for every client append that passed the guard before the
   * registration, and every later one sees the registration and is refused. The log end read under
   * that lock is therefore final until the truncation (no fetcher runs for an ALIGNING partition,
   * and the plugin's own markers are not written to it). Without an expected end the wait still
   * happens, so the decision and the accounting that follow see a settled log.
   */
  private static void checkReportedLogEnd(
      Partition partition,
      UnifiedLog log,
      TopicPartition tp,
      String name,
      ControlRequest.AlignTo alignTo,
      MirrorRegistry registry,
      MirrorEntry entry,
      MirrorEntry previous)
      throws PartitionOperationException {
    long logEnd;
    try {
      logEnd = settledLogEnd(partition, log);
    } catch (ReflectiveOperationException | RuntimeException e) {
      if (alignTo.expectedLogEndOffset() == null) {
        LOG.warn("{}: cannot wait for in-flight client appends ({}); going on as before", name, e);
        return;
      }
      boolean back = registry.rollBackAlignment(tp, entry, previous);
      throw new PartitionOperationException(
          Code.INTERNAL,
          name
              + ": cannot wait for in-flight client appends before comparing the log end with the"
              + " reported "
              + alignTo.expectedLogEndOffset()
              + " ("
              + e
              + "); nothing was truncated"
              + (back ? " and the registration was put back as it was" : "")
              + "; repeat the call",
          e);
    }
    FailbackAlignment.Refuse moved =
        FailbackAlignment.checkReportedLogEnd(name, alignTo.expectedLogEndOffset(), logEnd);
    if (moved == null) {
      return;
    }
    boolean back = registry.rollBackAlignment(tp, entry, previous);
    String message =
        back
            ? moved.message()
            : moved.message()
                + " (the registration had been changed by another call and was kept as it is: "
                + registry.entry(tp).map(e -> e.mirrorName() + " " + e.state()).orElse("none")
                + ")";
    LOG.warn("refused a failback start: {}: {}", moved.reason(), message);
    throw new PartitionOperationException(Code.INVALID_STATE, moved.reason() + ": " + message);
  }

  private static final java.lang.reflect.Method LEADER_ISR_UPDATE_LOCK = leaderIsrUpdateLock();

  private static java.lang.reflect.Method leaderIsrUpdateLock() {
    try {
      java.lang.reflect.Method m = Partition.class.getDeclaredMethod("leaderIsrUpdateLock");
      m.setAccessible(true);
      return m;
    } catch (ReflectiveOperationException | RuntimeException e) {
      LOG.error(
          "Partition.leaderIsrUpdateLock not found; failback starts cannot settle the log", e);
      return null;
    }
  }

  /** The log end once no client append that passed the write guard is still in flight. */
  private static long settledLogEnd(Partition partition, UnifiedLog log)
      throws ReflectiveOperationException {
    if (LEADER_ISR_UPDATE_LOCK == null) {
      throw new NoSuchMethodException("kafka.cluster.Partition.leaderIsrUpdateLock");
    }
    java.util.concurrent.locks.ReentrantReadWriteLock lock =
        (java.util.concurrent.locks.ReentrantReadWriteLock)
            LEADER_ISR_UPDATE_LOCK.invoke(partition);
    lock.writeLock().lock();
    try {
      return log.logEndOffset();
    } finally {
      lock.writeLock().unlock();
    }
  }

  private static Map<String, Object> answer(String state, Map<String, Object> alignment) {
    Map<String, Object> out = new LinkedHashMap<>();
    if (state != null) {
      out.put(Fields.StepResult.STATE, state);
    }
    out.put(Fields.StepResult.ALIGNMENT, alignment);
    return out;
  }

  private static MirrorEntry register(
      MirrorRegistry registry,
      TopicPartition tp,
      String mirrorName,
      ControlRequest.MirrorSource source,
      Properties props)
      throws PartitionOperationException {
    try {
      MirrorEntry entry = registry.registerForAlignment(tp, mirrorName, source.clusterId(), props);
      dev.kafkamirror.broker.agent.kafka4_4.mirror.ClusterMembership.startStore();
      return entry;
    } catch (IllegalStateException e) {
      throw new PartitionOperationException(Code.INVALID_STATE, e.getMessage(), e);
    }
  }

  /**
   * A stop recorded under this mirror name for this partition, or the partition already recorded as
   * a member of another mirror in this cluster, would be adopted by the fetcher and the readers:
   * refused before anything changes.
   */
  private static void checkNoEarlierUse(TopicPartition tp, String mirrorName, String topicId)
      throws PartitionOperationException {
    StopStateStore store;
    try {
      store = StopStateStore.get();
      store.sync(STATE_SYNC_TIMEOUT_MS);
    } catch (StopStateUnavailableException e) {
      throw new PartitionOperationException(
          Code.STATE_STORE_UNAVAILABLE,
          tp + ": cannot read the stop state before a failback: " + e.getMessage(),
          e);
    }
    Optional<StopState> stop = store.get(new StopStateKey(mirrorName, topicId, tp.partition()));
    if (stop.isPresent()) {
      throw new PartitionOperationException(
          Code.INVALID_STATE,
          tp
              + ": a stop of mirror "
              + mirrorName
              + " is recorded for this partition (step "
              + stop.get().step()
              + "); start the failback under a mirror name not used before for it");
    }
    Optional<MirrorMembership> member = store.membership().member(topicId, tp.partition());
    if (member.isPresent()
        && !member.get().mirrorName().equals(mirrorName)
        && store
            .get(member.get().stopStateKey())
            .map(st -> st.step() != dev.kafkamirror.broker.core.stop.StopStep.STOPPED)
            .orElse(true)) {
      throw new PartitionOperationException(
          Code.INVALID_STATE,
          tp
              + ": this cluster records the partition as a member of mirror "
              + member.get().mirrorName()
              + " (topic id "
              + topicId
              + "), whose stop is not recorded STOPPED; it cannot become a mirror of "
              + mirrorName
              + " before that mirror is stopped");
    }
  }

  private static FailbackAlignment.Align decide(
      String name, ControlRequest.AlignTo alignTo, UnifiedLog log)
      throws PartitionOperationException {
    List<FailbackAlignment.LocalEpoch> epochs = new ArrayList<>();
    for (EpochEntry e : log.leaderEpochCache().epochEntries()) {
      epochs.add(new FailbackAlignment.LocalEpoch(e.epoch(), e.startOffset()));
    }
    FailbackAlignment.Decision decision =
        FailbackAlignment.decide(
            name,
            alignTo.lastMirroredOffset(),
            alignTo.lastMirroredSourceEpoch(),
            log.logStartOffset(),
            log.logEndOffset(),
            epochs);
    if (decision instanceof FailbackAlignment.Refuse refuse) {
      throw new PartitionOperationException(
          Code.INVALID_STATE, refuse.reason() + ": " + refuse.message());
    }
    return (FailbackAlignment.Align) decision;
  }

  /** The alignment and what it discards, read from the log before anything is discarded. */
  private static Map<String, Object> account(
      String name, FailbackAlignment.Align align, UnifiedLog log, boolean dryRun)
      throws PartitionOperationException {
    long records = 0;
    long bytes = 0;
    long offset = align.discardFrom();
    try {
      while (offset < align.discardTo()) {
        long before = offset;
        for (RecordBatch batch :
            log.read(offset, 1024 * 1024, FetchIsolation.LOG_END, true).records.batches()) {
          if (batch.baseOffset() >= align.discardTo()) {
            break;
          }
          if (batch.lastOffset() < align.discardFrom()) {
            continue;
          }
          Integer count = batch.countOrNull();
          records += count != null ? count : batch.lastOffset() - batch.baseOffset() + 1;
          bytes += batch.sizeInBytes();
          offset = batch.lastOffset() + 1;
        }
        if (offset == before) {
          break;
        }
      }
    } catch (java.io.IOException e) {
      throw new PartitionOperationException(
          Code.INTERNAL, name + ": cannot read the records to discard: " + e, e);
    }
    Map<String, Object> out = new LinkedHashMap<>();
    out.put(Fields.Alignment.OFFSET, align.offset());
    out.put(Fields.Alignment.LOCAL_EPOCH_END, align.localEpochEnd());
    out.put(Fields.Alignment.DISCARDED_FROM, align.discardFrom());
    out.put(Fields.Alignment.DISCARDED_TO, align.discardTo());
    out.put(Fields.Alignment.DISCARDED_RECORDS, records);
    out.put(Fields.Alignment.DISCARDED_BYTES, bytes);
    out.put(Fields.Alignment.DRY_RUN, dryRun);
    out.put(Fields.Alignment.TRUNCATED, false);
    out.put(
        Fields.Alignment.MESSAGE,
        FailbackAlignment.discardedMessage(name, align, records, bytes, dryRun));
    return out;
  }

  /**
   * Whether truncating to {@code offset} needs a newer leader epoch first: another replica is in
   * the ISR and the log above {@code offset} holds batches of the current leader epoch (a follower
   * holding them would otherwise not see the truncation).
   */
  private static boolean needsFence(Partition partition, UnifiedLog log, long offset) {
    if (partition.assignmentState().replicas().size() <= 1 || offset >= log.logEndOffset()) {
      return false;
    }
    int epoch = partition.getLeaderEpoch();
    for (EpochEntry e : log.leaderEpochCache().epochEntries()) {
      if (e.epoch() >= epoch && e.startOffset() < log.logEndOffset()) {
        return true;
      }
    }
    return false;
  }

  private static void moveLeadership(
      Partition partition,
      TopicPartition tp,
      String name,
      FailbackAlignment.Align align,
      long timeoutMs)
      throws PartitionOperationException {
    int self = BrokerHandles.replicaManager().map(rm -> rm.localBrokerId()).orElse(-1);
    Integer target = null;
    for (Object id : partition.partitionState().isr()) {
      if ((Integer) id != self) {
        target = (Integer) id;
        break;
      }
    }
    if (target == null) {
      throw new PartitionOperationException(
          Code.NOT_ENOUGH_REPLICAS,
          name
              + ": the log above the alignment offset "
              + align.offset()
              + " holds batches of the current leader epoch and no other replica is in sync to"
              + " take the leadership (a follower holding them would not see the truncation);"
              + " nothing was truncated. Bring the replicas in sync and repeat");
    }
    Map<TopicPartition, LeaderFence.Moved> moved;
    try {
      moved =
          LeaderFence.moveLeadership(StopStateStore.get().admin(), Map.of(tp, target), timeoutMs);
    } catch (StopStateUnavailableException e) {
      throw new PartitionOperationException(Code.STATE_STORE_UNAVAILABLE, name + ": " + e, e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new PartitionOperationException(Code.INTERNAL, "interrupted", e);
    }
    LeaderFence.Moved m = moved.get(tp);
    if (m == null || m.error() != null) {
      throw new PartitionOperationException(
          Code.INTERNAL,
          name
              + ": cannot move the leadership to broker "
              + target
              + " before truncating (nothing was truncated): "
              + (m == null ? "no answer" : m.error())
              + "; repeat the call");
    }
    throw new PartitionOperationException(
        Code.LEADER_MOVED,
        name
            + ": leadership moved to broker "
            + m.newLeaderId()
            + " so that the truncation to "
            + align.offset()
            + " happens in a new leader epoch; nothing was truncated. Call the new leader");
  }

  private static void realignLeaderEpochStart(Partition partition, long logEndOffset) {
    Option<Object> start = partition.leaderEpochStartOffsetOpt();
    if (start.isDefined() && (Long) start.get() > logEndOffset) {
      partition.leaderEpochStartOffsetOpt_$eq(Option.apply((Object) logEndOffset));
    }
  }
}
