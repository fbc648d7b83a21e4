package dev.kafkamirror.broker.agent;

import dev.kafkamirror.broker.agent.control.ControlEndpoint;
import dev.kafkamirror.broker.agent.kafka4_4.BarrierHooks;
import dev.kafkamirror.broker.agent.kafka4_4.Kafka44Instrumentation;
import dev.kafkamirror.broker.agent.kafka4_4.KafkaPartitionControl;
import java.lang.instrument.Instrumentation;
import java.util.List;
import java.util.Optional;
import net.bytebuddy.agent.builder.AgentBuilder;
import net.bytebuddy.pool.TypePool;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The {@code -javaagent} entry point.
 *
 * <p>Order, each step a reason to stop and leave the broker exactly as stock Kafka:
 *
 * <ol>
 *   <li>find the Kafka version on the broker's classpath and check it against the declared
 *       supported versions;
 *   <li>read the plugin's settings from the broker's configuration;
 *   <li>check that every method and field the advice relies on exists with the exact expected
 *       signature, without loading any Kafka class;
 *   <li>install every transformation, then start the control endpoint.
 * </ol>
 *
 * <p>Nothing here throws into the JVM: a failure is logged and the broker starts unmodified, unless
 * it holds mirror partitions: then it refuses to start ({@link StartupGuard}). A control endpoint
 * that cannot start (its port taken, say) is an error in the log, and the barrier rule stays
 * installed.
 */
public final class ClusterMirrorAgent {

  private static final Logger LOG = LoggerFactory.getLogger("dev.kafkamirror.broker.agent");
  private static volatile ControlEndpoint endpoint;

  private ClusterMirrorAgent() {}

  public static void premain(String agentArgs, Instrumentation instrumentation) {
    String notInstalled;
    try {
      notInstalled = install(agentArgs, instrumentation);
    } catch (Throwable t) {
      LOG.error("cluster mirror agent: not instrumenting this broker because of an error", t);
      notInstalled = "an error while installing: " + t;
    }
    if (notInstalled != null) {
      // Fail closed: a broker that holds mirror partitions does not start unprotected.
      StartupGuard.refuseOrContinue(notInstalled, settingsForGuard(agentArgs));
    }
  }

  /** The broker's settings and the agent arguments, as far as they can be read. */
  private static java.util.Map<String, String> settingsForGuard(String agentArgs) {
    java.util.Map<String, String> settings = new java.util.HashMap<>();
    try {
      settings.putAll(PluginConfig.brokerSettings(System.getProperty("sun.java.command")));
    } catch (RuntimeException e) {
      LOG.error("cluster mirror agent: cannot read the broker's settings: {}", e.toString());
    }
    try {
      settings.putAll(PluginConfig.parseAgentArgs(agentArgs));
    } catch (RuntimeException e) {
      LOG.error("cluster mirror agent: cannot read the agent arguments: {}", e.toString());
    }
    return settings;
  }

  /**
   * Reloads this broker's mirror registrations (after the transformations are installed, so that no
   * Kafka class loads untransformed), so that its mirror partitions stay read-only across a
   * restart.
   */
  private static void restoreMirrorRegistry(PluginConfig config) {
    String dirs = config.raw().getOrDefault("log.dirs", config.raw().get("log.dir"));
    if (dirs == null || dirs.isBlank()) {
      LOG.warn(
          "cluster mirror agent: no log.dirs in the broker config; mirror registrations are not persisted");
      return;
    }
    java.nio.file.Path first = java.nio.file.Path.of(dirs.split(",")[0].trim());
    try {
      int restored =
          dev.kafkamirror.broker.agent.kafka4_4.mirror.MirrorRegistry.instance().restoreFrom(first);
      if (restored < 0) {
        LOG.error(
            "cluster mirror agent: {}; refusing client writes to every partition until the"
                + " cluster's mirror membership is read, then serving from it",
            dev.kafkamirror.broker.agent.kafka4_4.mirror.ClusterMembership.registryUnreadable()
                .orElse("the mirror registry is unreadable"));
      } else {
        LOG.info(
            "cluster mirror agent: restored {} mirror partition registrations from {}",
            restored,
            first);
      }
      if (restored != 0) {
        // Follow the durable stop state from the start, so that a stop that went on while this
        // broker was down is adopted here even if this broker only follows.
        dev.kafkamirror.broker.agent.kafka4_4.stop.StopStateStore.get();
      }
    } catch (RuntimeException
        | dev.kafkamirror.broker.agent.kafka4_4.stop.StopStateUnavailableException e) {
      LOG.error("cluster mirror agent: cannot restore mirror registrations from {}", first, e);
    }
  }

  /**
   * Sets the key that authenticates stop-state records. Without a usable key the state topic is
   * still guarded: no client write to it verifies and the reader trusts no record (fail closed).
   */
  private static void configureStateRecordAuth(PluginConfig config) {
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
      LOG.error(
          "cluster mirror agent: {}; this broker writes no stop state and trusts none of {}",
          reason,
          config.stateTopic());
    } else if (key.isEmpty()) {
      // A controller-only node hosts no partitions: it neither writes nor reads the stop state.
      LOG.info("cluster mirror agent: no stop-state secret on this controller-only node");
    }
    dev.kafkamirror.broker.agent.kafka4_4.stop.StateRecordAuth.configure(
        config.stateTopic(),
        key.map(dev.kafkamirror.broker.agent.kafka4_4.stop.StateRecordAuth::withKey),
        reason);
  }

  /**
   * Installs the agent.
   *
   * @return null when installed, else why not (the broker then starts unmodified, unless {@link
   *     StartupGuard} refuses)
   */
  static String install(String agentArgs, Instrumentation instrumentation) {
    ClassLoader app = ClassLoader.getSystemClassLoader();
    SupportedKafkaVersions supported = SupportedKafkaVersions.declared();
    Optional<String> version = SupportedKafkaVersions.kafkaVersionOn(app);
    if (version.isEmpty()) {
      LOG.error(
          "cluster mirror agent: no Kafka version found on the classpath ({} missing); not instrumenting",
          SupportedKafkaVersions.KAFKA_VERSION_RESOURCE);
      return "no Kafka version found on the classpath";
    }
    if (!supported.supports(version.get())) {
      LOG.error(
          "cluster mirror agent: Kafka {} is not a supported version (supported: {}); not instrumenting, the"
              + " broker runs unmodified and MIRROR_PID_RESET barriers are NOT applied",
          version.get(),
          supported.patterns());
      return "Kafka "
          + version.get()
          + " is not a supported version (supported: "
          + supported.patterns()
          + ")";
    }
    PluginConfig config =
        PluginConfig.fromBrokerCommandLine(System.getProperty("sun.java.command"), agentArgs);
    configureStateRecordAuth(config);
    List<String> missing = Kafka44Instrumentation.missingTargets(TypePool.Default.of(app));
    if (!missing.isEmpty()) {
      LOG.error(
          "cluster mirror agent: Kafka {} lacks methods the plugin hooks: {}; not instrumenting",
          version.get(),
          missing);
      return "Kafka " + version.get() + " lacks methods the plugin hooks: " + missing;
    }
    BarrierHooks.setRuleEnabled(config.barrierRuleEnabled());
    AgentBuilder builder =
        new AgentBuilder.Default()
            .disableClassFormatChanges()
            .with(AgentBuilder.RedefinitionStrategy.RETRANSFORMATION)
            .with(AgentBuilder.TypeStrategy.Default.REDEFINE)
            .with(
                new AgentBuilder.Listener.Adapter() {
                  @Override
                  public void onError(
                      String typeName,
                      ClassLoader classLoader,
                      net.bytebuddy.utility.JavaModule module,
                      boolean loaded,
                      Throwable throwable) {
                    LOG.error("cluster mirror agent: could not instrument {}", typeName, throwable);
                  }

                  @Override
                  public void onTransformation(
                      net.bytebuddy.description.type.TypeDescription typeDescription,
                      ClassLoader classLoader,
                      net.bytebuddy.utility.JavaModule module,
                      boolean loaded,
                      net.bytebuddy.dynamic.DynamicType dynamicType) {
                    LOG.info("cluster mirror agent: instrumented {}", typeDescription.getName());
                  }
                });
    Kafka44Instrumentation.apply(builder).installOn(instrumentation);
    LOG.info(
        "cluster mirror agent: installed on Kafka {}; MIRROR_PID_RESET rule {}",
        version.get(),
        config.barrierRuleEnabled()
            ? "ENABLED"
            : "DISABLED (stock behaviour, " + PluginConfig.BARRIER_RULE_ENABLE + "=false)");
    dev.kafkamirror.broker.agent.kafka4_4.stop.StopStateStore.configure(
        config, dev.kafkamirror.broker.agent.kafka4_4.StopStateAdoption::adoptAll);
    dev.kafkamirror.broker.agent.kafka4_4.mirror.ClusterMembership.stateTopic(config.stateTopic());
    restoreMirrorRegistry(config);
    dev.kafkamirror.broker.agent.kafka4_4.mirror.ClusterMembership.watchForStateTopic();
    config
        .controlListener()
        .ifPresent(
            listener -> {
              try {
                endpoint = ControlEndpoint.start(config, new KafkaPartitionControl());
              } catch (Exception e) {
                LOG.error(
                    "cluster mirror agent: control endpoint {} could not start; the barrier rule stays installed",
                    listener,
                    e);
              }
            });
    return null;
  }
}
