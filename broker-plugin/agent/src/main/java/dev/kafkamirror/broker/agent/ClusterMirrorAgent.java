package dev.kafkamirror.broker.agent;

import dev.kafkamirror.broker.agent.control.ControlEndpoint;
import java.io.IOException;
import java.io.InputStream;
import java.lang.instrument.Instrumentation;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The {@code -javaagent} entry point.
 *
 * <p>{@code premain} does only what the broker's main thread must wait for, each step a reason to
 * stop and leave the broker exactly as stock Kafka: it finds the Kafka version on the broker's
 * classpath and checks it against the declared supported versions (two small resources, no class
 * loaded), finds the Kafka binding, installs the class-file hook ({@link DeferredHooks}) that holds
 * back the hooked classes, and starts the preparation on a daemon thread, in parallel with Kafka's
 * start. The preparation, each step again a reason to stop:
 *
 * <ol>
 *   <li>read the agent arguments ({@code -javaagent:agent.jar=key=value,...});
 *   <li>check that no hooked class was loaded before the agent started;
 *   <li>read the hooked classes' class files from the broker's classpath and look their SHA-256 up
 *       in the agent jar's {@link PrebuiltClasses}: when every one is there, take those transformed
 *       bytes, and that is all (ByteBuddy is not loaded: the same class files passed the hook check
 *       below when the jar was built);
 *   <li>otherwise (a Kafka build the jar holds no prebuilt classes for), check that every method
 *       and field the advice relies on exists with the exact expected signature, without loading
 *       any Kafka class, then build every transformation with ByteBuddy and apply it ahead of time
 *       to those class files.
 * </ol>
 *
 * <p>A hooked class that loads with exactly the bytes read ahead takes the result as it is; one
 * that loads with other bytes (another agent changed them, another class loader) goes through
 * ByteBuddy there and then, on the prebuilt path built at that first need ({@link
 * ByteBuddyTransformations.OnDemand}).
 *
 * <p>A hooked class that the broker loads before the preparation is done waits for it (at most
 * {@link #PREPARATION_BOUND}); a preparation that fails or does not finish in time leaves every
 * hooked class untransformed, exactly as when the agent cannot install.
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

  /**
   * How long a hooked class's load waits for the background preparation before the agent gives up
   * installing (then {@link StartupGuard} decides). Generous: the preparation takes about a second
   * on an idle machine, and waiting costs nothing while it progresses; the bound only keeps a
   * preparation that hangs from holding the broker's start forever.
   */
  static final Duration PREPARATION_BOUND = Duration.ofMinutes(2);

  /** The logger, created at first use: {@code premain} must not initialize the broker's logging. */
  private static final class Log {
    static final Logger LOG = LoggerFactory.getLogger("dev.kafkamirror.broker.agent");
  }

  private static volatile ControlEndpoint endpoint;

  private ClusterMirrorAgent() {}

  public static void premain(String agentArgs, Instrumentation instrumentation) {
    long started = System.nanoTime();
    String notInstalled;
    try {
      notInstalled = startPreparation(agentArgs, instrumentation, started);
    } catch (Throwable t) {
      Log.LOG.error("cluster mirror agent: not instrumenting this broker because of an error", t);
      notInstalled = "an error while installing: " + t;
    }
    if (notInstalled != null) {
      // Fail closed: a broker that holds mirror partitions does not start unprotected.
      StartupGuard.refuseOrContinue(notInstalled, settingsForGuard(agentArgs));
    }
  }

  /**
   * Installs {@link DeferredHooks} and starts the preparation on a daemon thread.
   *
   * @return null when started, else why the agent does not install (the broker then starts
   *     unmodified, unless {@link StartupGuard} refuses)
   */
  private static String startPreparation(
      String agentArgs, Instrumentation instrumentation, long started) {
    ClassLoader app = ClassLoader.getSystemClassLoader();
    SupportedKafkaVersions supported = SupportedKafkaVersions.declared();
    Optional<String> version = SupportedKafkaVersions.kafkaVersionOn(app);
    if (version.isEmpty()) {
      Log.LOG.error(
          "cluster mirror agent: no Kafka version found on the classpath ({} missing); not instrumenting",
          SupportedKafkaVersions.KAFKA_VERSION_RESOURCE);
      return "no Kafka version found on the classpath";
    }
    if (!supported.supports(version.get())) {
      Log.LOG.error(
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
      Log.LOG.error(
          "cluster mirror agent: the agent jar has no {} for Kafka {}; not instrumenting",
          KafkaBinding.class.getName(),
          version.get());
      return "the agent jar has no " + KafkaBinding.class.getName() + " for Kafka " + version.get();
    }
    KafkaBinding binding = found.get();
    java.util.Set<String> hooked = binding.hookedTypes();
    StartupCost cost =
        new StartupCost(
            hooked.stream()
                .map(n -> n.replace('.', '/'))
                .collect(java.util.stream.Collectors.toUnmodifiableSet()));
    DeferredHooks hooks =
        new DeferredHooks(
            hooked,
            PREPARATION_BOUND,
            outcomes(instrumentation, reason -> guardOrHalt(reason, settingsForGuard(agentArgs))),
            cost);
    instrumentation.addTransformer(hooks, false);
    Thread preparation =
        new Thread(
            () -> prepare(agentArgs, instrumentation, binding, version.get(), hooks, cost),
            "cluster-mirror-agent-preparation");
    preparation.setDaemon(true);
    hooks.preparedBy(preparation);
    try {
      preparation.start();
    } catch (Throwable t) {
      hooks.settle(
          new DeferredHooks.NotInstalled("the agent's preparation thread cannot start: " + t));
      return null;
    }
    cost.premainDone(System.nanoTime() - started);
    return null;
  }

  /**
   * What the hook does at its outcome: when the agent does not install, {@code guard} (the start-up
   * guard, which may end the JVM) and then, if the broker may start stock, the hook taken out; when
   * every hooked class is transformed, the hook taken out.
   */
  static DeferredHooks.Outcomes outcomes(
      Instrumentation instrumentation, java.util.function.Consumer<String> guard) {
    return new DeferredHooks.Outcomes() {
      @Override
      public void notInstalled(DeferredHooks self, String reason) {
        guard.accept(reason);
        // The guard let the broker start stock: take the hook out, so that it runs with no
        // class-file hook at all. Only now: until the guard has decided, the hook holds back
        // every hooked class.
        instrumentation.removeTransformer(self);
      }

      @Override
      public void allTransformed(DeferredHooks self) {
        // Nothing left to transform: spare the broker the JVM's call into the hook for every
        // class it loads from now on.
        instrumentation.removeTransformer(self);
      }
    };
  }

  /** The background preparation: settles {@code hooks} with its result. Never throws. */
  private static void prepare(
      String agentArgs,
      Instrumentation instrumentation,
      KafkaBinding binding,
      String kafkaVersion,
      DeferredHooks hooks,
      StartupCost cost) {
    long started = System.nanoTime();
    DeferredHooks.Outcome result;
    try {
      result = prepareTransformations(agentArgs, instrumentation, binding, kafkaVersion, cost);
    } catch (Throwable t) {
      Log.LOG.error("cluster mirror agent: not instrumenting this broker because of an error", t);
      result = new DeferredHooks.NotInstalled("an error while installing: " + t);
    }
    long nanos = System.nanoTime() - started;
    cost.preparedInBackground(nanos);
    DeferredHooks.Outcome settled = hooks.settle(result);
    if (settled != result) {
      Log.LOG.error(
          "cluster mirror agent: the preparation finished after {} ms, too late: {}; not"
              + " instrumenting",
          nanos / 1_000_000,
          ((DeferredHooks.NotInstalled) settled).reason());
    } else if (settled instanceof DeferredHooks.Installed) {
      Log.LOG.info(
          "cluster mirror agent: prepared the transformations in {} ms {}, in parallel with the"
              + " broker's start; the plugin's settings are read from the broker's configuration"
              + " when the broker has built it",
          nanos / 1_000_000,
          cost.path());
    }
  }

  /** The broker's settings and the agent arguments, as far as they can be read. */
  private static java.util.Map<String, String> settingsForGuard(String agentArgs) {
    java.util.Map<String, String> settings = new java.util.HashMap<>();
    try {
      settings.putAll(PluginConfig.brokerSettings(System.getProperty("sun.java.command")));
    } catch (RuntimeException e) {
      Log.LOG.error("cluster mirror agent: cannot read the broker's settings: {}", e.toString());
    }
    try {
      settings.putAll(PluginConfig.parseAgentArgs(agentArgs));
    } catch (RuntimeException e) {
      Log.LOG.error("cluster mirror agent: cannot read the agent arguments: {}", e.toString());
    }
    return settings;
  }

  /**
   * {@link StartupGuard#refuseOrContinue} from inside the broker's start (halting, not exiting); if
   * the guard itself fails it cannot tell whether the broker holds mirror partitions, so the JVM
   * halts unless the documented override is set.
   */
  private static void guardOrHalt(String reason, java.util.Map<String, String> settings) {
    try {
      StartupGuard.refuseOrContinue(reason, settings, true);
    } catch (Throwable t) {
      if ("true"
          .equalsIgnoreCase(
              settings.getOrDefault(PluginConfig.ALLOW_UNPROTECTED_START, "").trim())) {
        Log.LOG.error(
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
      Log.LOG.error(refusal);
      System.err.println(refusal);
      System.err.flush();
      System.out.flush();
      Runtime.getRuntime().halt(StartupGuard.EXIT_STATUS);
    }
  }

  /**
   * Prepares the agent: the checks, then the hooked classes' transformed bytes, taken from the
   * agent jar when it holds them prebuilt for exactly the broker's class files ({@link
   * PrebuiltClasses}, no ByteBuddy loaded), else built with ByteBuddy and applied ahead of time.
   *
   * @return {@link DeferredHooks.Installed} when installable, else {@link
   *     DeferredHooks.NotInstalled} with why not (the broker then starts unmodified, unless {@link
   *     StartupGuard} refuses)
   */
  static DeferredHooks.Outcome prepareTransformations(
      String agentArgs,
      Instrumentation instrumentation,
      KafkaBinding binding,
      String kafkaVersion,
      StartupCost cost) {
    return prepareTransformations(
        agentArgs, instrumentation, binding, kafkaVersion, cost, PrebuiltClasses.inAgentJar());
  }

  /** {@link #prepareTransformations}, with the prebuilt classes of {@code prebuiltClasses}. */
  static DeferredHooks.Outcome prepareTransformations(
      String agentArgs,
      Instrumentation instrumentation,
      KafkaBinding binding,
      String kafkaVersion,
      StartupCost cost,
      PrebuiltClasses prebuiltClasses) {
    ClassLoader app = ClassLoader.getSystemClassLoader();
    java.util.Map<String, String> agentSettings = PluginConfig.parseAgentArgs(agentArgs);
    java.util.Set<String> hooked = binding.hookedTypes();
    List<String> loadedEarly =
        java.util.Arrays.stream(instrumentation.getAllLoadedClasses())
            .map(Class::getName)
            .filter(hooked::contains)
            .sorted()
            .toList();
    if (!loadedEarly.isEmpty()) {
      Log.LOG.error(
          "cluster mirror agent: {} loaded before the agent started (another -javaagent before"
              + " this one?); not instrumenting: list this agent's -javaagent first",
          loadedEarly);
      return new DeferredHooks.NotInstalled(
          loadedEarly + " loaded before the agent started; list this agent's -javaagent first");
    }
    java.util.Map<String, byte[]> originals = new java.util.TreeMap<>();
    boolean everyClassFile = true;
    for (String name : hooked) {
      String internal = name.replace('.', '/');
      byte[] original = classBytes(app, internal);
      everyClassFile &= original != null;
      originals.put(internal, original);
    }
    LiveConfiguration listener = new LiveConfiguration(binding, kafkaVersion, agentSettings, cost);
    String notPrebuilt;
    if (everyClassFile) {
      PrebuiltClasses.Lookup lookup = prebuiltClasses.lookup(originals);
      if (lookup.complete()) {
        // The same class files passed the hook check and were transformed when the agent jar was
        // built: no ByteBuddy here. A hooked class that loads with other bytes gets ByteBuddy
        // then, as on the ByteBuddy path.
        java.util.Map<String, DeferredHooks.Prebuilt> prebuilt = new java.util.HashMap<>();
        originals.forEach(
            (internal, original) ->
                prebuilt.put(
                    internal,
                    new DeferredHooks.Prebuilt(original, lookup.transformed().get(internal))));
        binding.whenConfigured(listener);
        cost.preparedOn(StartupCost.PREBUILT_PATH);
        return new DeferredHooks.Installed(
            ByteBuddyTransformations.OnDemand.of(binding), app, java.util.Map.copyOf(prebuilt));
      }
      notPrebuilt = lookup.why();
    } else {
      notPrebuilt = "a hooked class has no class file on the broker's classpath";
    }
    Log.LOG.info(
        "cluster mirror agent: {}; preparing the transformations with ByteBuddy", notPrebuilt);
    cost.preparedOn(StartupCost.BYTE_BUDDY_PATH);
    return prepareWithByteBuddy(app, binding, kafkaVersion, originals, listener);
  }

  /**
   * The ByteBuddy path: the hook check on the broker's classpath, then the transformations, built
   * and applied ahead of time to {@code originals} (the hooked classes' class files, a null one
   * when there is none).
   */
  private static DeferredHooks.Outcome prepareWithByteBuddy(
      ClassLoader app,
      KafkaBinding binding,
      String kafkaVersion,
      java.util.Map<String, byte[]> originals,
      KafkaBinding.BrokerConfigListener listener) {
    List<String> missing = ByteBuddyTransformations.missingTargets(binding, app);
    if (!missing.isEmpty()) {
      Log.LOG.error(
          "cluster mirror agent: Kafka {} lacks methods the plugin hooks: {}; not instrumenting",
          kafkaVersion,
          missing);
      return new DeferredHooks.NotInstalled(
          "Kafka " + kafkaVersion + " lacks methods the plugin hooks: " + missing);
    }
    java.lang.instrument.ClassFileTransformer byteBuddy =
        ByteBuddyTransformations.transformer(
            binding,
            (typeName, error) ->
                Log.LOG.error("cluster mirror agent: could not instrument {}", typeName, error));
    java.util.Map<String, DeferredHooks.Prebuilt> prebuilt = new java.util.HashMap<>();
    for (java.util.Map.Entry<String, byte[]> entry : originals.entrySet()) {
      String name = entry.getKey().replace('/', '.');
      byte[] original = entry.getValue();
      if (original == null) {
        return new DeferredHooks.NotInstalled(
            name + " has no class file on the broker's classpath");
      }
      byte[] transformed =
          ByteBuddyTransformations.transformAhead(byteBuddy, app, entry.getKey(), original);
      if (transformed == null) {
        Log.LOG.error(
            "cluster mirror agent: ByteBuddy did not transform {} (see the error above); not"
                + " instrumenting",
            name);
        return new DeferredHooks.NotInstalled(
            "ByteBuddy could not transform "
                + name
                + " (its error is logged before this line; report it with the Kafka version)");
      }
      prebuilt.put(entry.getKey(), new DeferredHooks.Prebuilt(original, transformed));
    }
    binding.whenConfigured(listener);
    return new DeferredHooks.Installed(byteBuddy, app, java.util.Map.copyOf(prebuilt));
  }

  /** The class file {@code loader} holds for {@code internalName}, or null. */
  private static byte[] classBytes(ClassLoader loader, String internalName) {
    try (InputStream in = loader.getResourceAsStream(internalName + ".class")) {
      return in == null ? null : in.readAllBytes();
    } catch (IOException e) {
      Log.LOG.error(
          "cluster mirror agent: cannot read the class file of {}: {}",
          internalName.replace('/', '.'),
          e.toString());
      return null;
    }
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
      refusal.ifPresent(why -> Log.LOG.error("cluster mirror agent: {}", why));
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
      Log.LOG.info(
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
        Log.LOG.info(
            "cluster mirror agent: settings read from the broker's configuration on Kafka {};"
                + " MIRROR_PID_RESET rule {}",
            kafkaVersion,
            config.barrierRuleEnabled()
                ? "ENABLED"
                : "DISABLED (stock behaviour, " + PluginConfig.BARRIER_RULE_ENABLE + "=false)");
        startEndpoint(config);
      } catch (RuntimeException | LinkageError e) {
        Log.LOG.error("cluster mirror agent: cannot apply the plugin's settings", e);
        refuse("an error while applying the plugin's settings: " + e, settings);
      }
    }

    @Override
    public void brokerConfigUnreadable(String reason) {
      java.util.Map<String, String> settings = new java.util.HashMap<>();
      try {
        settings.putAll(PluginConfig.brokerSettings(System.getProperty("sun.java.command")));
      } catch (RuntimeException e) {
        Log.LOG.error("cluster mirror agent: cannot read the broker's settings: {}", e.toString());
      }
      settings.putAll(agentSettings);
      refuse(reason, settings);
    }

    /**
     * Fail closed: no control endpoint, so no mirror operation on this broker; a broker that holds
     * mirror partitions does not start.
     */
    private static void refuse(String reason, java.util.Map<String, String> settings) {
      Log.LOG.error(
          "cluster mirror agent: {}; this broker serves NO mirror operation (no control endpoint)"
              + " until the setting is fixed and the broker restarted",
          reason);
      guardOrHalt(reason, settings);
    }

    private void startEndpoint(PluginConfig config) {
      config
          .controlListener()
          .ifPresent(
              listener -> {
                try {
                  endpoint = ControlEndpoint.start(config, binding.partitionControl());
                } catch (Exception e) {
                  Log.LOG.error(
                      "cluster mirror agent: control endpoint {} could not start; the barrier rule"
                          + " stays installed",
                      listener,
                      e);
                }
              });
    }
  }
}
