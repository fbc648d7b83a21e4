package dev.kafkamirror.broker.agent.kafka4_4;

import dev.kafkamirror.broker.agent.KafkaBinding;
import dev.kafkamirror.broker.agent.PluginConfig;
import dev.kafkamirror.broker.agent.control.PartitionControl;
import dev.kafkamirror.broker.agent.kafka4_4.mirror.ClusterMembership;
import dev.kafkamirror.broker.agent.kafka4_4.mirror.MirrorMBeans;
import dev.kafkamirror.broker.agent.kafka4_4.mirror.MirrorRegistry;
import dev.kafkamirror.broker.agent.kafka4_4.stop.StateRecordAuth;
import dev.kafkamirror.broker.agent.kafka4_4.stop.StopStateStore;
import dev.kafkamirror.broker.agent.kafka4_4.stop.StopStateUnavailableException;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import net.bytebuddy.agent.builder.AgentBuilder;
import net.bytebuddy.pool.TypePool;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The Kafka 4.4 side of {@link KafkaBinding}: the composition root of everything written against
 * Kafka 4.4's internals. Found by {@link java.util.ServiceLoader} in {@code premain}, which asks
 * only {@link #hookedTypes}; the agent's background preparation then calls {@link #whenConfigured},
 * and {@link #missingTargets} and {@link #instrument} when the agent jar holds no prebuilt classes
 * for the broker's (and at build time, to make them).
 */
public final class Kafka44Binding implements KafkaBinding {

  /**
   * The logger, created at first use: {@code premain} instantiates this binding and must not
   * initialize the broker's logging on the broker's main thread.
   */
  private static final class Log {
    static final Logger LOG = LoggerFactory.getLogger("dev.kafkamirror.broker.agent");
  }

  /** For {@link java.util.ServiceLoader}. */
  public Kafka44Binding() {}

  /**
   * Sets the key that authenticates stop-state records. Without a usable key the state topic is
   * still guarded: no client write to it verifies and the reader trusts no record (fail closed).
   */
  @Override
  public void configure(PluginConfig config) {
    BarrierHooks.setRuleEnabled(config.barrierRuleEnabled());
    Optional<byte[]> key;
    String reason;
    try {
      key = config.stateRecordKey();
      reason =
          "no stop-state secret is configured: set "
              + PluginConfig.STATE_SECRET_FILE
              + " or "
              + PluginConfig.CONTROL_SECRET_FILE;
    } catch (IllegalArgumentException e) {
      key = Optional.empty();
      reason = e.getMessage();
    }
    boolean broker = config.raw().getOrDefault("process.roles", "broker").contains("broker");
    if (key.isEmpty() && broker) {
      Log.LOG.error(
          "cluster mirror agent: {}; this broker writes no stop state and trusts none of {}",
          reason,
          config.stateTopic());
    } else if (key.isEmpty()) {
      // A controller-only node hosts no partitions: it neither writes nor reads the stop state.
      Log.LOG.info("cluster mirror agent: no stop-state secret on this controller-only node");
    }
    StateRecordAuth.configure(config.stateTopic(), key.map(StateRecordAuth::withKey), reason);
  }

  @Override
  public List<String> missingTargets(TypePool pool) {
    return Kafka44Instrumentation.missingTargets(pool);
  }

  /**
   * {@link Kafka44Instrumentation#hookedTypes}, from its compile-time constants (inlined here), so
   * that asking does not load Kafka44Instrumentation: verifying that class loads ByteBuddy's
   * matcher and builder types, which neither {@code premain} nor the prebuilt path may load ({@code
   * Kafka44InstrumentationTest} checks the two sets are equal, {@code PrebuiltStartupTest} that no
   * ByteBuddy class loads).
   */
  @Override
  public java.util.Set<String> hookedTypes() {
    return java.util.Set.of(
        Kafka44Instrumentation.UNIFIED_LOG,
        Kafka44Instrumentation.PRODUCER_STATE_MANAGER,
        Kafka44Instrumentation.LOG_SEGMENT,
        Kafka44Instrumentation.REPLICA_MANAGER,
        Kafka44Instrumentation.TRANSACTION_COORDINATOR,
        Kafka44Instrumentation.ABSTRACT_FETCHER_THREAD,
        Kafka44Instrumentation.LOG_MANAGER);
  }

  @Override
  public AgentBuilder instrument(AgentBuilder builder) {
    return Kafka44Instrumentation.apply(builder);
  }

  @Override
  public void whenConfigured(BrokerConfigListener listener) {
    BrokerHandles.whenConfigured(listener);
  }

  @Override
  public void start(PluginConfig config) {
    StopStateStore.configure(config, StopStateAdoption::adoptAll);
    ClusterMembership.stateTopic(config.stateTopic());
    restoreMirrorRegistry(config);
    ClusterMembership.watchForStateTopic();
    MirrorMBeans.start();
  }

  @Override
  public PartitionControl partitionControl() {
    return new KafkaPartitionControl(KafkaStopSequence.onThisBroker(java.time.Clock.systemUTC()));
  }

  /**
   * Reloads this broker's mirror registrations (after the transformations are installed, so that no
   * Kafka class loads untransformed), so that its mirror partitions stay read-only across a
   * restart.
   */
  private static void restoreMirrorRegistry(PluginConfig config) {
    String dirs = config.raw().getOrDefault("log.dirs", config.raw().get("log.dir"));
    if (dirs == null || dirs.isBlank()) {
      Log.LOG.warn(
          "cluster mirror agent: no log.dirs in the broker config; mirror registrations are not persisted");
      return;
    }
    Path first = Path.of(dirs.split(",")[0].trim());
    try {
      int restored = MirrorRegistry.instance().restoreFrom(first);
      if (restored < 0) {
        Log.LOG.error(
            "cluster mirror agent: {}; refusing client writes to every partition until the"
                + " cluster's mirror membership is read, then serving from it",
            ClusterMembership.registryUnreadable().orElse("the mirror registry is unreadable"));
      } else {
        Log.LOG.info(
            "cluster mirror agent: restored {} mirror partition registrations from {}",
            restored,
            first);
      }
      if (restored != 0) {
        // Follow the durable stop state from the start, so that a stop that went on while this
        // broker was down is adopted here even if this broker only follows.
        StopStateStore.get();
      }
    } catch (RuntimeException | StopStateUnavailableException e) {
      Log.LOG.error("cluster mirror agent: cannot restore mirror registrations from {}", first, e);
    }
  }
}
