package dev.kafkamirror.broker.agent.kafka4_4;

import dev.kafkamirror.broker.agent.BarrierLedger;
import dev.kafkamirror.broker.agent.TestFaults;
import dev.kafkamirror.broker.core.producerstate.BarrierSplit;
import dev.kafkamirror.broker.core.producerstate.BatchSummary;
import dev.kafkamirror.broker.core.producerstate.InOrderReplay;
import dev.kafkamirror.broker.core.producerstate.ProducerStateReset;
import dev.kafkamirror.broker.core.producerstate.ReplaySink;
import dev.kafkamirror.broker.core.producerstate.ResetOutcome;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.RecordBatch;
import org.apache.kafka.common.record.internal.Records;
import org.apache.kafka.storage.internals.log.AppendOrigin;
import org.apache.kafka.storage.internals.log.CompletedTxn;
import org.apache.kafka.storage.internals.log.LogSegment;
import org.apache.kafka.storage.internals.log.ProducerAppendInfo;
import org.apache.kafka.storage.internals.log.ProducerStateManager;
import org.apache.kafka.storage.internals.log.UnifiedLog;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The entry points the advice calls on every path that feeds producer state. Each delegates to
 * {@code cmo-broker-core} and never lets its own failure reach the broker: a failure is logged with
 * the partition and the broker goes on as stock Kafka would.
 *
 * <p>Paths:
 *
 * <ul>
 *   <li><b>append</b> (leader write, follower replication, mirror append; all go through the
 *       private {@code UnifiedLog.append}): on entry, a replicated append is cut right after its
 *       first barrier; if the last batch is a barrier, a thread-local marks it. Kafka writes the
 *       segment, applies the producer updates of the batches before the barrier, and calls {@code
 *       ProducerStateManager.updateMapEndOffset}, still under the log's lock; the exit of that call
 *       resets producer state. So the reset happens only after the barrier is in the log, in log
 *       order, and under the same lock as the append.
 *   <li><b>recovery</b> ({@code LogSegment.recover} feeds batches one by one to its private {@code
 *       updateProducerState}): after a barrier batch, the recovering state is reset and forced
 *       aborts are written to the recovering segment's transaction index.
 *   <li><b>rebuild</b> (the private static {@code UnifiedLog.loadProducersFromRecords}, used on
 *       load and truncation, which applies a whole segment at once): when the records hold a
 *       barrier, an in-order replay replaces it.
 * </ul>
 *
 * <p>The KRaft metadata log and RAFT origins are never touched.
 *
 * <p>Threading: appends of one partition are serialised by Kafka's log lock; the thread-local
 * carries the mark from the append's entry to the {@code updateMapEndOffset} call on the same
 * thread.
 */
public final class BarrierHooks {

  private static final Logger LOG =
      LoggerFactory.getLogger("dev.kafkamirror.broker.agent.BarrierRule");
  private static final String METADATA_TOPIC = "__cluster_metadata";
  private static final ThreadLocal<PendingBarrier> PENDING = new ThreadLocal<>();
  private static volatile boolean ruleEnabled = true;

  private BarrierHooks() {}

  /** A barrier that is the last batch of an append in progress. */
  private record PendingBarrier(UnifiedLog log, KafkaBatches.Decoded value) {}

  /** Switches the rule; off shows stock Kafka's behaviour. */
  public static void setRuleEnabled(boolean enabled) {
    ruleEnabled = enabled;
  }

  public static boolean ruleEnabled() {
    return ruleEnabled;
  }

  /**
   * Entry of {@code UnifiedLog.append}: returns the records to append (cut after a barrier when
   * replicated).
   */
  public static MemoryRecords beforeAppend(
      UnifiedLog log, MemoryRecords records, AppendOrigin origin) {
    PENDING.remove();
    if (!ruleEnabled || isRaft(origin)) {
      return records;
    }
    try {
      TopicPartition tp = log.topicPartition();
      if (METADATA_TOPIC.equals(tp.topic())) {
        return records;
      }
      // Hot path: every produce and replication append passes here. Data batches are rejected by
      // one header
      // flag, with no allocation; only an append holding a control batch is looked at closely.
      if (!KafkaBatches.containsControlBatch(records)) {
        return records;
      }
      List<BatchSummary> batches = KafkaBatches.summarize(records);
      if (batches.stream().noneMatch(BatchSummary::isBarrier)) {
        return records;
      }
      BarrierSplit split = BarrierSplit.of(batches);
      MemoryRecords kept = records;
      if (split.cut()) {
        if (origin != AppendOrigin.REPLICATION) {
          LOG.error(
              "a {} append to {} carries a MIRROR_PID_RESET barrier before other batches; only replicated"
                  + " appends are split, so this append goes on unchanged and the barrier is not applied",
              origin,
              tp);
          return records;
        }
        ByteBuffer buffer = records.buffer().duplicate();
        buffer.limit(buffer.position() + split.bytesToKeep());
        kept = MemoryRecords.readableRecords(buffer.slice());
        LOG.info(
            "{}: replicated append cut after the barrier at its batch {} of {}; the fetcher fetches the rest",
            tp,
            split.batchesToKeep(),
            batches.size());
      }
      RecordBatch last = null;
      for (RecordBatch batch : kept.batches()) {
        last = batch;
      }
      PENDING.set(new PendingBarrier(log, KafkaBatches.decode(last, tp)));
      return kept;
    } catch (Throwable t) {
      PENDING.remove();
      LOG.error("barrier rule failed before an append; the append goes on as stock Kafka's", t);
      return records;
    }
  }

  /** Exit of {@code UnifiedLog.append}, normal or not. */
  public static void afterAppend() {
    PENDING.remove();
  }

  /**
   * Exit of {@code ProducerStateManager.updateMapEndOffset}: resets when an append just wrote a
   * barrier.
   */
  public static void afterMapEndOffsetUpdated(ProducerStateManager state, long mapEndOffset) {
    PendingBarrier pending = PENDING.get();
    if (pending == null || pending.log().producerStateManager() != state) {
      return;
    }
    PENDING.remove();
    TopicPartition tp = pending.log().topicPartition();
    try {
      TestFaults.beforeAppendReset(
          tp.toString(),
          mapEndOffset - 1,
          BrokerHandles.replicaManager().map(rm -> rm.localBrokerId()).orElse(-1));
      reset(
          tp,
          new KafkaProducerStateTarget(state, pending.log().activeSegment()),
          mapEndOffset - 1,
          BarrierLedger.Path.APPEND,
          pending.value());
    } catch (Throwable t) {
      LOG.error(
          "{}: could not reset producer state at the barrier ending at offset {}; the partition"
              + " will not turn writable on this replica (the stop verifies the reset first)",
          tp,
          mapEndOffset - 1,
          t);
    }
  }

  /** Exit of {@code LogSegment.updateProducerState} during recovery. */
  public static void afterRecoveredBatch(
      LogSegment segment, ProducerStateManager state, RecordBatch batch) {
    if (!ruleEnabled) {
      return;
    }
    try {
      if (!KafkaBatches.isBarrier(batch)) {
        return;
      }
      TopicPartition tp = KafkaProducerStateTarget.topicPartitionOf(state);
      if (METADATA_TOPIC.equals(tp.topic())) {
        return;
      }
      reset(
          tp,
          new KafkaProducerStateTarget(state, segment),
          batch.baseOffset(),
          BarrierLedger.Path.RECOVERY,
          KafkaBatches.decode(batch, tp));
    } catch (Throwable t) {
      LOG.error(
          "could not apply a barrier met during segment recovery at offset {}",
          batch.baseOffset(),
          t);
    }
  }

  /**
   * Entry of {@code UnifiedLog.loadProducersFromRecords}: when the records hold a barrier, replays
   * them in log order and returns true (Kafka's own method is then skipped); otherwise returns
   * false.
   *
   * <p>Detection failures fall back to Kafka's method. Once the replay has begun, an exception
   * thrown by Kafka's own producer-state calls propagates exactly as it would from Kafka's method.
   */
  public static boolean replayInOrderIfBarrier(ProducerStateManager state, Records records) {
    if (!ruleEnabled) {
      return false;
    }
    TopicPartition tp;
    try {
      tp = KafkaProducerStateTarget.topicPartitionOf(state);
      if (METADATA_TOPIC.equals(tp.topic()) || !KafkaBatches.containsBarrier(records)) {
        return false;
      }
    } catch (Throwable t) {
      LOG.error(
          "barrier detection failed while rebuilding producer state; Kafka's rebuild runs", t);
      return false;
    }
    Map<Long, ProducerAppendInfo> collected = new HashMap<>();
    List<CompletedTxn> completed = new ArrayList<>();
    List<RecordBatch> batches = new ArrayList<>();
    records.batches().forEach(batches::add);
    InOrderReplay.replay(
        batches,
        KafkaBatches::summarize,
        new ReplaySink<RecordBatch>() {
          @Override
          public void collect(RecordBatch batch) {
            UnifiedLog.updateProducers(
                    state, batch, collected, Optional.empty(), AppendOrigin.REPLICATION, (short) 0)
                .ifPresent(completed::add);
          }

          @Override
          public void flushCollected() {
            collected.values().forEach(state::update);
            completed.forEach(state::completeTxn);
            collected.clear();
            completed.clear();
          }

          @Override
          public void resetAtBarrier(long barrierOffset) {
            RecordBatch barrier = findBatch(records, barrierOffset);
            reset(
                tp,
                new KafkaProducerStateTarget(state, null),
                barrierOffset,
                BarrierLedger.Path.REBUILD,
                barrier == null
                    ? new KafkaBatches.Decoded(null, null)
                    : KafkaBatches.decode(barrier, tp));
          }
        });
    return true;
  }

  private static RecordBatch findBatch(Records records, long baseOffset) {
    for (RecordBatch batch : records.batches()) {
      if (batch.baseOffset() == baseOffset) {
        return batch;
      }
    }
    return null;
  }

  private static void reset(
      TopicPartition tp,
      KafkaProducerStateTarget target,
      long barrierOffset,
      BarrierLedger.Path path,
      KafkaBatches.Decoded value) {
    long started = System.nanoTime();
    ResetOutcome outcome = ProducerStateReset.apply(target, barrierOffset);
    long resetMicros = (System.nanoTime() - started) / 1_000L;
    Optional<String> source = Optional.ofNullable(value.value()).map(v -> v.sourceClusterId());
    Optional<String> malformed = Optional.ofNullable(value.malformed());
    BarrierLedger.instance().record(tp.toString(), path, outcome, source, malformed, resetMicros);
    malformed.ifPresent(
        m ->
            LOG.error(
                "{}: MIRROR_PID_RESET at offset {} has a malformed value ({}); producer state was reset anyway",
                tp,
                barrierOffset,
                m));
    if (!outcome.forcedAborts().isEmpty()) {
      LOG.warn(
          "{}: MIRROR_PID_RESET at offset {} met open transactions {}; they are recorded as aborted",
          tp,
          barrierOffset,
          outcome.forcedAborts());
    }
    LOG.info(
        "{}: MIRROR_PID_RESET at offset {} ({}) sourceClusterId={} removed {} producer entries",
        tp,
        barrierOffset,
        path,
        source.orElse("?"),
        outcome.producersRemoved());
  }

  private static boolean isRaft(AppendOrigin origin) {
    return origin.name().startsWith("RAFT");
  }
}
