package dev.kafkamirror.broker.agent.kafka4_4;

import static net.bytebuddy.matcher.ElementMatchers.isConstructor;
import static net.bytebuddy.matcher.ElementMatchers.isStatic;
import static net.bytebuddy.matcher.ElementMatchers.named;
import static net.bytebuddy.matcher.ElementMatchers.not;
import static net.bytebuddy.matcher.ElementMatchers.takesArgument;
import static net.bytebuddy.matcher.ElementMatchers.takesArguments;

import java.util.ArrayList;
import java.util.List;
import net.bytebuddy.agent.builder.AgentBuilder;
import net.bytebuddy.description.method.MethodDescription;
import net.bytebuddy.description.type.TypeDescription;
import net.bytebuddy.matcher.ElementMatcher;
import net.bytebuddy.pool.TypePool;

/**
 * Where the agent hooks Kafka 4.4, as data: one entry per method, with the exact signature the
 * advice relies on. {@link #missingTargets} checks every entry against the broker's classes before
 * anything is transformed, without loading them; if one does not match, nothing is transformed at
 * all.
 */
public final class Kafka44Instrumentation {

  static final String UNIFIED_LOG = "org.apache.kafka.storage.internals.log.UnifiedLog";
  static final String PRODUCER_STATE_MANAGER =
      "org.apache.kafka.storage.internals.log.ProducerStateManager";
  static final String LOG_SEGMENT = "org.apache.kafka.storage.internals.log.LogSegment";
  static final String REPLICA_MANAGER = "kafka.server.ReplicaManager";
  static final String MEMORY_RECORDS = "org.apache.kafka.common.record.internal.MemoryRecords";
  static final String RECORDS = "org.apache.kafka.common.record.internal.Records";
  static final String RECORD_BATCH = "org.apache.kafka.common.record.internal.RecordBatch";
  static final String APPEND_ORIGIN = "org.apache.kafka.storage.internals.log.AppendOrigin";
  static final String FETCH_ISOLATION = "org.apache.kafka.server.storage.log.FetchIsolation";
  static final String TRANSACTION_COORDINATOR =
      "kafka.coordinator.transaction.TransactionCoordinator";
  static final String ABSTRACT_FETCHER_THREAD = "kafka.server.AbstractFetcherThread";
  static final String LOG_MANAGER = "org.apache.kafka.storage.internals.log.LogManager";

  /** One hooked method. */
  record Target(
      String typeName,
      String description,
      ElementMatcher.Junction<MethodDescription> method,
      Class<?> advice,
      boolean exactlyOne) {}

  private Kafka44Instrumentation() {}

  static List<Target> targets() {
    List<Target> targets = new ArrayList<>();
    targets.add(
        new Target(
            UNIFIED_LOG,
            "private LogAppendInfo append(MemoryRecords, AppendOrigin, boolean, int, Optional, VerificationGuard,"
                + " boolean, byte, short)",
            named("append")
                .and(not(isStatic()))
                .and(takesArguments(9))
                .and(takesArgument(0, named(MEMORY_RECORDS)))
                .and(takesArgument(1, named(APPEND_ORIGIN))),
            Advices.UnifiedLogAppend.class,
            true));
    targets.add(
        new Target(
            PRODUCER_STATE_MANAGER,
            "public void updateMapEndOffset(long)",
            named("updateMapEndOffset").and(takesArguments(long.class)),
            Advices.UpdateMapEndOffset.class,
            true));
    targets.add(
        new Target(
            LOG_SEGMENT,
            "private void updateProducerState(ProducerStateManager, RecordBatch)",
            named("updateProducerState")
                .and(takesArguments(2))
                .and(takesArgument(0, named(PRODUCER_STATE_MANAGER)))
                .and(takesArgument(1, named(RECORD_BATCH))),
            Advices.RecoverBatch.class,
            true));
    targets.add(
        new Target(
            UNIFIED_LOG,
            "private static void loadProducersFromRecords(ProducerStateManager, Records)",
            named("loadProducersFromRecords")
                .and(isStatic())
                .and(takesArguments(2))
                .and(takesArgument(0, named(PRODUCER_STATE_MANAGER)))
                .and(takesArgument(1, named(RECORDS))),
            Advices.LoadProducersFromRecords.class,
            true));
    targets.add(
        new Target(
            UNIFIED_LOG,
            "public LogAppendInfo appendAsLeader(MemoryRecords, int, AppendOrigin, RequestLocal,"
                + " VerificationGuard, short)",
            named("appendAsLeader")
                .and(takesArguments(6))
                .and(takesArgument(0, named(MEMORY_RECORDS)))
                .and(takesArgument(2, named(APPEND_ORIGIN))),
            Advices.AppendAsLeaderGuard.class,
            true));
    targets.add(
        new Target(
            UNIFIED_LOG,
            "public LogAppendInfo appendAsLeader(MemoryRecords, int, AppendOrigin, RequestLocal,"
                + " VerificationGuard, short) (records guard)",
            named("appendAsLeader")
                .and(takesArguments(6))
                .and(takesArgument(0, named(MEMORY_RECORDS)))
                .and(takesArgument(2, named(APPEND_ORIGIN))),
            Advices.AppendAsLeaderRecordsGuard.class,
            true));
    targets.add(
        new Target(
            UNIFIED_LOG,
            "public FetchDataInfo read(long, int, FetchIsolation, boolean)",
            named("read")
                .and(not(isStatic()))
                .and(takesArguments(4))
                .and(takesArgument(0, long.class))
                .and(takesArgument(2, named(FETCH_ISOLATION))),
            Advices.ReadCap.class,
            true));
    targets.add(
        new Target(
            TRANSACTION_COORDINATOR,
            "public void handleAddPartitionsToTransaction(String, long, short, java.util.Set,"
                + " scala.Function1, TransactionVersion, RequestLocal)",
            named("handleAddPartitionsToTransaction")
                .and(takesArguments(7))
                .and(takesArgument(0, String.class))
                .and(takesArgument(1, long.class))
                .and(takesArgument(2, short.class))
                .and(takesArgument(3, named("java.util.Set")))
                .and(takesArgument(4, named("scala.Function1"))),
            Advices.AddPartitionsToTransactionGuard.class,
            true));
    targets.add(
        new Target(
            ABSTRACT_FETCHER_THREAD,
            "private ResultWithPartitions maybeTruncateToEpochEndOffsets(scala.collection.Map,"
                + " scala.collection.Map)",
            named("maybeTruncateToEpochEndOffsets")
                .and(not(isStatic()))
                .and(takesArguments(2))
                .and(takesArgument(0, named("scala.collection.Map")))
                .and(takesArgument(1, named("scala.collection.Map"))),
            Advices.FollowerTruncationBatch.class,
            true));
    targets.add(
        new Target(
            LOG_MANAGER,
            "public void checkpointRecoveryOffsetsInDir(java.io.File)",
            named("checkpointRecoveryOffsetsInDir")
                .and(not(isStatic()))
                .and(takesArguments(1))
                .and(takesArgument(0, java.io.File.class)),
            Advices.RecoveryCheckpointDeferral.class,
            true));
    targets.add(
        new Target(
            PRODUCER_STATE_MANAGER,
            "public void takeSnapshot()",
            named("takeSnapshot").and(not(isStatic())).and(takesArguments(0)),
            Advices.SnapshotSyncDeferral.class,
            true));
    targets.add(
        new Target(
            REPLICA_MANAGER,
            "ReplicaManager(KafkaConfig, ...) constructors",
            isConstructor().and(takesArgument(0, named("kafka.server.KafkaConfig"))),
            Advices.ReplicaManagerCreated.class,
            false));
    return targets;
  }

  /**
   * The targets whose type or method the broker's classes lack, described for the log; empty when
   * every advice has its exact target.
   */
  public static List<String> missingTargets(TypePool pool) {
    List<String> missing = new ArrayList<>();
    for (Target target : targets()) {
      TypePool.Resolution resolution = pool.describe(target.typeName());
      if (!resolution.isResolved()) {
        missing.add(target.typeName() + " (class not found)");
        continue;
      }
      TypeDescription type = resolution.resolve();
      long matches =
          type.getDeclaredMethods().stream().filter(m -> target.method().matches(m)).count();
      if (target.exactlyOne() ? matches != 1 : matches < 1) {
        missing.add(target.typeName() + "." + target.description() + " (" + matches + " matches)");
      }
    }
    for (String helper : List.of("clearProducerIds", "updateOldestTxnTimestamp")) {
      TypePool.Resolution psm = pool.describe(PRODUCER_STATE_MANAGER);
      if (psm.isResolved()
          && psm.resolve().getDeclaredMethods().filter(named(helper).and(takesArguments(0))).size()
              != 1) {
        missing.add(PRODUCER_STATE_MANAGER + "." + helper + "()");
      }
    }
    for (String field : List.of("ongoingTxns", "verificationStates", "topicPartition")) {
      TypePool.Resolution psm = pool.describe(PRODUCER_STATE_MANAGER);
      if (psm.isResolved() && psm.resolve().getDeclaredFields().filter(named(field)).size() != 1) {
        missing.add(PRODUCER_STATE_MANAGER + "." + field + " (field)");
      }
    }
    return missing;
  }

  /**
   * The binary names of the classes {@link #apply} transforms ({@code Kafka44InstrumentationTest}
   * checks that they are exactly the targets' types). A constant rather than derived from {@link
   * #targets}: {@code premain} asks for it, and building the targets loads ByteBuddy's matchers,
   * which the agent leaves to its background preparation.
   */
  public static java.util.Set<String> hookedTypes() {
    return java.util.Set.of(
        UNIFIED_LOG,
        PRODUCER_STATE_MANAGER,
        LOG_SEGMENT,
        REPLICA_MANAGER,
        TRANSACTION_COORDINATOR,
        ABSTRACT_FETCHER_THREAD,
        LOG_MANAGER);
  }

  /** Adds every transformation to {@code builder}. */
  public static AgentBuilder apply(AgentBuilder builder) {
    AgentBuilder result = builder;
    for (Target target : targets()) {
      result =
          result
              .type(named(target.typeName()))
              .transform(
                  new AgentBuilder.Transformer.ForAdvice()
                      .include(Kafka44Instrumentation.class.getClassLoader())
                      .advice(target.method(), target.advice().getName()));
    }
    return result;
  }
}
