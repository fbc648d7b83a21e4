package dev.kafkamirror.broker.agent;

import static net.bytebuddy.matcher.ElementMatchers.namedOneOf;
import static net.bytebuddy.matcher.ElementMatchers.not;

import dev.kafkamirror.broker.agent.control.ControlEndpoint;
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
 *   <li>read the agent arguments ({@code -javaagent:agent.jar=key=value,...});
 *   <li>check that every method and field the advice relies on exists with the exact expected
 *       signature, without loading any Kafka class;
 *   <li>install every transformation.
 * </ol>
 *
 * <p>Then, when the broker has built its configuration ({@link KafkaBinding.BrokerConfigListener},
 * before any partition's log is loaded or any request served): read the plugin's settings from it
 * (config providers resolved by Kafka, agent arguments winning), configure the binding, reload the
 * mirror registrations and start the control endpoint. A bad or unreadable setting there means no
 * control endpoint and no mirror operation on this broker; a broker that holds mirror partitions
 * then refuses to start, as when the agent cannot install ({@link StartupGuard}).
 *
 * <p>Everything written against one Kafka version's internals is reached through {@link
 * KafkaBinding}; this class and the other version-neutral packages import nothing from it.
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
    long started = System.nanoTime();
    String notInstalled;
    try {
      notInstalled = install(agentArgs, instrumentation, started);
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
   * Installs the agent.
   *
   * @return null when installed, else why not (the broker then starts unmodified, unless {@link
   *     StartupGuard} refuses)
   */
  static String install(String agentArgs, Instrumentation instrumentation, long started) {
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
    Optional<KafkaBinding> found = KafkaBinding.load();
    if (found.isEmpty()) {
      LOG.error(
          "cluster mirror agent: the agent jar has no {} for Kafka {}; not instrumenting",
          KafkaBinding.class.getName(),
          version.get());
      return "the agent jar has no " + KafkaBinding.class.getName() + " for Kafka " + version.get();
    }
    KafkaBinding binding = found.get();
    java.util.Map<String, String> agentSettings = PluginConfig.parseAgentArgs(agentArgs);
    List<String> missing = binding.missingTargets(TypePool.Default.of(app));
    if (!missing.isEmpty()) {
      LOG.error(
          "cluster mirror agent: Kafka {} lacks methods the plugin hooks: {}; not instrumenting",
          version.get(),
          missing);
      return "Kafka " + version.get() + " lacks methods the plugin hooks: " + missing;
    }
    java.util.Set<String> hooked = binding.hookedTypes();
    StartupCost cost =
        new StartupCost(
            hooked.stream()
                .map(n -> n.replace('.', '/'))
                .collect(java.util.stream.Collectors.toUnmodifiableSet()));
    AgentBuilder builder =
        new AgentBuilder.Default()
            .disableClassFormatChanges()
            // Only the hooked classes by name, which needs no parsing of the class file (the
            // default
            // also asks whether a class is synthetic); with HookedTypesOnly below, ByteBuddy never
            // sees another class loaded after premain, and this matcher keeps it from describing
            // more than the names of the classes already loaded when it installs.
            .ignore(not(namedOneOf(hooked.toArray(String[]::new))))
            .with(
                (AgentBuilder.TransformerDecorator)
                    transformer -> new HookedTypesOnly(transformer, hooked, cost))
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
    binding
        .instrument(builder, new LiveConfiguration(binding, version.get(), agentSettings, cost))
        .installOn(instrumentation);
    long premainNanos = System.nanoTime() - started;
    LOG.info(
        "cluster mirror agent: installed on Kafka {} in {} ms; the plugin's settings are read from"
            + " the broker's configuration when the broker has built it",
        version.get(),
        premainNanos / 1_000_000);
    cost.premainDone(premainNanos);
    return null;
  }

  /**
   * Reads the plugin's settings from the broker's live configuration, once, on the broker's
   * start-up thread, and starts what depends on them; then judges and applies dynamic broker config
   * changes ({@link DynamicSettings}) on Kafka's request and metadata threads. Never throws into
   * the broker. Thread-safety: {@link #brokerConfigured} runs once before Kafka can ask about a
   * dynamic change; the start-up settings and the live ones are held in volatile fields of
   * immutable maps.
   */
  private static final class LiveConfiguration implements KafkaBinding.BrokerConfigListener {

    private final KafkaBinding binding;
    private final String kafkaVersion;
    private final java.util.Map<String, String> agentSettings;
    private final StartupCost cost;

    LiveConfiguration(
        KafkaBinding binding,
        String kafkaVersion,
        java.util.Map<String, String> agentSettings,
        StartupCost cost) {
      this.binding = binding;
      this.kafkaVersion = kafkaVersion;
      this.agentSettings = agentSettings;
      this.cost = cost;
    }

    /**
     * The broker's settings at start-up, as read from its KafkaConfig (without the agent
     * arguments); what a dynamic change is judged against. Set once, before Kafka can ask about a
     * dynamic change.
     */
    private volatile java.util.Map<String, String> startup;

    /** The live settings in force ({@link DynamicSettings#LIVE}), for the log of a change. */
    private volatile java.util.Map<String, String> live = java.util.Map.of();

    @Override
    public void brokerConfigured(java.util.Map<String, String> brokerSettings) {
      long started = System.nanoTime();
      startup = java.util.Map.copyOf(brokerSettings);
      live = liveOf(DynamicSettings.applied(brokerSettings, brokerSettings, agentSettings));
      apply(brokerSettings);
      cost.settingsApplied(System.nanoTime() - started);
    }

    @Override
    public Optional<String> dynamicRefusal(java.util.Map<String, String> proposed) {
      java.util.Map<String, String> atStart = startup;
      Optional<String> refusal =
          atStart == null
              ? Optional.of(
                  "the cluster mirror plugin has not read this broker's settings yet; retry the"
                      + " dynamic broker config change when the broker has started")
              : DynamicSettings.refusal(
                  proposed, atStart, agentSettings.keySet(), brokerId(atStart));
      refusal.ifPresent(why -> LOG.error("cluster mirror agent: {}", why));
      return refusal;
    }

    @Override
    public void dynamicConfigApplied(java.util.Map<String, String> proposed) {
      java.util.Map<String, String> atStart = startup;
      if (atStart == null) {
        return;
      }
      java.util.Map<String, String> settings =
          DynamicSettings.applied(proposed, atStart, agentSettings);
      java.util.Map<String, String> now = liveOf(settings);
      if (now.equals(live)) {
        return;
      }
      ControlEndpoint current = endpoint;
      if (current != null) {
        current.sourceSettingsPolicy(
            dev.kafkamirror.broker.agent.control.SourceSettingsPolicy.from(settings));
      }
      live = now;
      LOG.info(
          "cluster mirror agent: dynamic broker config applied, live settings now {}{}",
          new java.util.TreeMap<>(now),
          current == null ? " (no control endpoint on this broker)" : "");
    }

    /**
     * The {@link DynamicSettings#LIVE} settings of {@code settings}; their values hold no secret.
     */
    private static java.util.Map<String, String> liveOf(java.util.Map<String, String> settings) {
      java.util.Map<String, String> out = new java.util.HashMap<>();
      for (String key : DynamicSettings.LIVE) {
        out.put(key, settings.getOrDefault(key, ""));
      }
      return java.util.Map.copyOf(out);
    }

    private static int brokerId(java.util.Map<String, String> settings) {
      return new PluginConfig(true, Optional.empty(), Optional.empty(), settings).brokerId();
    }

    private void apply(java.util.Map<String, String> brokerSettings) {
      java.util.Map<String, String> settings = new java.util.HashMap<>(brokerSettings);
      settings.putAll(agentSettings);
      PluginConfig config;
      try {
        config = PluginConfig.from(settings);
      } catch (RuntimeException e) {
        refuse("a bad plugin setting: " + e.getMessage(), settings);
        return;
      }
      try {
        binding.configure(config);
        binding.start(config);
        LOG.info(
            "cluster mirror agent: settings read from the broker's configuration on Kafka {};"
                + " MIRROR_PID_RESET rule {}",
            kafkaVersion,
            config.barrierRuleEnabled()
                ? "ENABLED"
                : "DISABLED (stock behaviour, " + PluginConfig.BARRIER_RULE_ENABLE + "=false)");
        startEndpoint(config);
      } catch (RuntimeException | LinkageError e) {
        LOG.error("cluster mirror agent: cannot apply the plugin's settings", e);
        refuse("an error while applying the plugin's settings: " + e, settings);
      }
    }

    @Override
    public void brokerConfigUnreadable(String reason) {
      java.util.Map<String, String> settings = new java.util.HashMap<>();
      try {
        settings.putAll(PluginConfig.brokerSettings(System.getProperty("sun.java.command")));
      } catch (RuntimeException e) {
        LOG.error("cluster mirror agent: cannot read the broker's settings: {}", e.toString());
      }
      settings.putAll(agentSettings);
      refuse(reason, settings);
    }

    /**
     * Fail closed: no control endpoint, so no mirror operation on this broker; a broker that holds
     * mirror partitions does not start.
     */
    private static void refuse(String reason, java.util.Map<String, String> settings) {
      LOG.error(
          "cluster mirror agent: {}; this broker serves NO mirror operation (no control endpoint)"
              + " until the setting is fixed and the broker restarted",
          reason);
      try {
        StartupGuard.refuseOrContinue(reason, settings, true);
      } catch (Throwable t) {
        // The guard could not tell whether this broker holds mirror partitions: refuse, unless
        // the documented override is set.
        if ("true"
            .equalsIgnoreCase(
                settings.getOrDefault(PluginConfig.ALLOW_UNPROTECTED_START, "").trim())) {
          LOG.error(
              "cluster mirror agent: the start-up guard failed ({}); starting UNPROTECTED because"
                  + " {}=true",
              t.toString(),
              PluginConfig.ALLOW_UNPROTECTED_START);
          return;
        }
        String refusal =
            "cluster mirror agent: REFUSING TO START this broker: "
                + reason
                + ", and the start-up guard failed ("
                + t
                + ") so it cannot tell whether this broker holds mirror partitions; fix the"
                + " cause, or set "
                + PluginConfig.ALLOW_UNPROTECTED_START
                + "=true to start unprotected";
        LOG.error(refusal);
        System.err.println(refusal);
        System.err.flush();
        System.out.flush();
        Runtime.getRuntime().halt(StartupGuard.EXIT_STATUS);
      }
    }

    private void startEndpoint(PluginConfig config) {
      config
          .controlListener()
          .ifPresent(
              listener -> {
                try {
                  endpoint = ControlEndpoint.start(config, binding.partitionControl());
                } catch (Exception e) {
                  LOG.error(
                      "cluster mirror agent: control endpoint {} could not start; the barrier rule"
                          + " stays installed",
                      listener,
                      e);
                }
              });
    }
  }
}
