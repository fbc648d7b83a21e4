package dev.kafkamirror.broker.agent.kafka4_4;

import net.bytebuddy.asm.Advice;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.RecordBatch;
import org.apache.kafka.common.record.internal.Records;
import org.apache.kafka.storage.internals.log.AppendOrigin;
import org.apache.kafka.storage.internals.log.LogSegment;
import org.apache.kafka.storage.internals.log.ProducerStateManager;
import org.apache.kafka.storage.internals.log.UnifiedLog;

/**
 * The advice inlined into Kafka 4.4 methods. Each body is one call into {@link BarrierHooks}; every
 * advice but the rebuild's suppresses any Throwable, so nothing of the plugin's reaches the broker.
 */
final class Advices {

  private Advices() {}

  /** Private {@code UnifiedLog.append(MemoryRecords, AppendOrigin, ...)}. */
  static final class UnifiedLogAppend {
    private UnifiedLogAppend() {}

    @Advice.OnMethodEnter(suppress = Throwable.class)
    static void enter(
        @Advice.This UnifiedLog log,
        @Advice.Argument(value = 0, readOnly = false) MemoryRecords records,
        @Advice.Argument(1) AppendOrigin origin) {
      records = BarrierHooks.beforeAppend(log, records, origin);
    }

    @Advice.OnMethodExit(onThrowable = Throwable.class, suppress = Throwable.class)
    static void exit() {
      BarrierHooks.afterAppend();
    }
  }

  /**
   * Public {@code UnifiedLog.read(long, int, FetchIsolation, boolean)}: a mirror partition's
   * readers end at its last stable offset ({@link MirrorReadCap}).
   */
  static final class ReadCap {
    private ReadCap() {}

    @Advice.OnMethodEnter(suppress = Throwable.class)
    static void enter(
        @Advice.This UnifiedLog log,
        @Advice.Argument(value = 2, readOnly = false)
            org.apache.kafka.server.storage.log.FetchIsolation isolation) {
      isolation = MirrorReadCap.isolationFor(log, isolation);
    }
  }

  /** {@code ProducerStateManager.updateMapEndOffset(long)}. */
  static final class UpdateMapEndOffset {
    private UpdateMapEndOffset() {}

    @Advice.OnMethodExit(suppress = Throwable.class)
    static void exit(
        @Advice.This ProducerStateManager state, @Advice.Argument(0) long mapEndOffset) {
      BarrierHooks.afterMapEndOffsetUpdated(state, mapEndOffset);
    }
  }

  /**
   * Private {@code LogSegment.updateProducerState(ProducerStateManager, RecordBatch)} (segment
   * recovery).
   */
  static final class RecoverBatch {
    private RecoverBatch() {}

    @Advice.OnMethodExit(suppress = Throwable.class)
    static void exit(
        @Advice.This LogSegment segment,
        @Advice.Argument(0) ProducerStateManager state,
        @Advice.Argument(1) RecordBatch batch) {
      BarrierHooks.afterRecoveredBatch(segment, state, batch);
    }
  }

  /** Private static {@code UnifiedLog.loadProducersFromRecords(ProducerStateManager, Records)}. */
  static final class LoadProducersFromRecords {
    private LoadProducersFromRecords() {}

    @Advice.OnMethodEnter(skipOn = Advice.OnNonDefaultValue.class)
    static boolean enter(
        @Advice.Argument(0) ProducerStateManager state, @Advice.Argument(1) Records records) {
      return BarrierHooks.replayInOrderIfBarrier(state, records);
    }
  }

  /**
   * {@code kafka.server.ReplicaManager(KafkaConfig, ...)} constructors: the control plane's handle
   * on local partitions, and the broker's live configuration.
   */
  static final class ReplicaManagerCreated {
    private ReplicaManagerCreated() {}

    @Advice.OnMethodExit(suppress = Throwable.class)
    static void exit(@Advice.This Object replicaManager, @Advice.Argument(0) Object config) {
      BrokerHandles.replicaManagerCreated(replicaManager, config);
    }
  }

  /**
   * Public {@code UnifiedLog.appendAsLeader(MemoryRecords, int, AppendOrigin, RequestLocal,
   * VerificationGuard, short)}.
   */
  static final class AppendAsLeaderGuard {
    private AppendAsLeaderGuard() {}

    // No suppress: the guard's refusal must reach the producer; MirrorGuard turns every other
    // failure into a refusal too (fail closed).
    @Advice.OnMethodEnter
    static void enter(@Advice.This UnifiedLog log, @Advice.Argument(2) AppendOrigin origin) {
      MirrorGuard.checkClientWrite(log, origin);
    }
  }

  /**
   * {@code UnifiedLog.appendAsLeader}, a second advice with the records: transaction markers into
   * mirror partitions, and client writes to the stop-state topic that the plugin did not sign.
   */
  static final class AppendAsLeaderRecordsGuard {
    private AppendAsLeaderRecordsGuard() {}

    // No suppress: the refusals must reach the writer; both guards catch their own failures.
    @Advice.OnMethodEnter
    static void enter(
        @Advice.This UnifiedLog log,
        @Advice.Argument(0) MemoryRecords records,
        @Advice.Argument(2) AppendOrigin origin) {
      MarkerGuard.checkCoordinatorAppend(log, records, origin);
      StateTopicGuard.checkStateTopicWrite(log, records, origin);
    }
  }

  /**
   * {@code TransactionCoordinator.handleAddPartitionsToTransaction(String, long, short, Set,
   * Function1, TransactionVersion, RequestLocal)}: skipped, with the callback answered, when a
   * partition is a mirror.
   */
  static final class AddPartitionsToTransactionGuard {
    private AddPartitionsToTransactionGuard() {}

    // No suppress: a suppressed failure would run the method and add the partition (fail open);
    // an exception reaches the request handler, which answers with an error.
    @Advice.OnMethodEnter(skipOn = Advice.OnNonDefaultValue.class)
    static boolean enter(
        @Advice.Argument(0) String transactionalId,
        @Advice.Argument(1) long producerId,
        @Advice.Argument(2) short producerEpoch,
        @Advice.Argument(3) java.util.Set<org.apache.kafka.common.TopicPartition> partitions,
        @Advice.Argument(4) Object responseCallback) {
      return TransactionGuard.refuseAdd(
          transactionalId, producerId, producerEpoch, partitions, responseCallback);
    }
  }

  /**
   * Private {@code AbstractFetcherThread.maybeTruncateToEpochEndOffsets(Map, Map)}: the follower
   * truncations of one fetch round form one batch ({@link TruncationBatches}).
   */
  static final class FollowerTruncationBatch {
    private FollowerTruncationBatch() {}

    @Advice.OnMethodEnter(suppress = Throwable.class)
    static boolean enter() {
      return TruncationBatches.begin();
    }

    @Advice.OnMethodExit(onThrowable = Throwable.class, suppress = Throwable.class)
    static void exit(@Advice.Enter boolean began) {
      TruncationBatches.end(began);
    }
  }

  /**
   * Public {@code ProducerStateManager.takeSnapshot()}: inside a batch of truncations the snapshot
   * is written by {@code takeSnapshot(false)} and synced with the others at the end of the batch
   * ({@link TruncationBatches}); run as in Kafka otherwise (also when the advice fails: suppressed,
   * it does not skip).
   */
  static final class SnapshotSyncDeferral {
    private SnapshotSyncDeferral() {}

    @Advice.OnMethodEnter(skipOn = Advice.OnNonDefaultValue.class, suppress = Throwable.class)
    static boolean enter(
        @Advice.This org.apache.kafka.storage.internals.log.ProducerStateManager producerState)
        throws java.io.IOException {
      return TruncationBatches.takeSnapshotUnsynced(producerState);
    }
  }

  /**
   * Public {@code LogManager.checkpointRecoveryOffsetsInDir(File)}: skipped inside a batch of
   * truncations, which writes it once at its end; run as in Kafka otherwise (also when the advice
   * fails: suppressed, it does not skip).
   */
  static final class RecoveryCheckpointDeferral {
    private RecoveryCheckpointDeferral() {}

    @Advice.OnMethodEnter(skipOn = Advice.OnNonDefaultValue.class, suppress = Throwable.class)
    static boolean enter(
        @Advice.This org.apache.kafka.storage.internals.log.LogManager logManager,
        @Advice.Argument(0) java.io.File directory) {
      return TruncationBatches.deferRecoveryCheckpoint(logManager, directory);
    }
  }
}
