package dev.kafkamirror.broker.agent;

import static org.assertj.core.api.Assertions.assertThat;

import dev.kafkamirror.broker.agent.control.PartitionControl;
import java.lang.instrument.Instrumentation;
import java.lang.reflect.Proxy;
import java.util.List;
import java.util.Set;
import net.bytebuddy.agent.builder.AgentBuilder;
import net.bytebuddy.pool.TypePool;
import org.junit.jupiter.api.Test;

/**
 * The background preparation's checks ({@link ClusterMirrorAgent#prepareTransformations}): each
 * failure is a {@link DeferredHooks.NotInstalled} that names the cause, so that the hook leaves
 * every hooked class stock and the start-up guard decides, as when the agent cannot install.
 */
class AgentPreparationTest {

  /** A binding whose hook check reports {@code missing}; it must never be asked to instrument. */
  private static KafkaBinding binding(Set<String> hooked, List<String> missing) {
    return new KafkaBinding() {
      @Override
      public void configure(PluginConfig config) {}

      @Override
      public List<String> missingTargets(TypePool pool) {
        return missing;
      }

      @Override
      public Set<String> hookedTypes() {
        return hooked;
      }

      @Override
      public AgentBuilder instrument(AgentBuilder builder) {
        throw new AssertionError("instrument must not be called when a check fails");
      }

      @Override
      public void whenConfigured(BrokerConfigListener listener) {
        throw new AssertionError("whenConfigured must not be called when a check fails");
      }

      @Override
      public void start(PluginConfig config) {}

      @Override
      public PartitionControl partitionControl() {
        return null;
      }
    };
  }

  /** An Instrumentation that reports {@code loaded} as the JVM's loaded classes. */
  private static Instrumentation loadedClasses(Class<?>... loaded) {
    return (Instrumentation)
        Proxy.newProxyInstance(
            AgentPreparationTest.class.getClassLoader(),
            new Class<?>[] {Instrumentation.class},
            (proxy, method, args) -> {
              if (method.getName().equals("getAllLoadedClasses")) {
                return loaded;
              }
              throw new AssertionError("unexpected call " + method.getName());
            });
  }

  private final StartupCost cost = new StartupCost(Set.of("a/B"));

  /** An agent jar without prebuilt classes. */
  private static final PrebuiltClasses NO_PREBUILT_CLASSES = new PrebuiltClasses(path -> null);

  /** An Instrumentation that records the transformers taken out. */
  private static Instrumentation recordingRemovals(List<Object> removed) {
    return (Instrumentation)
        Proxy.newProxyInstance(
            AgentPreparationTest.class.getClassLoader(),
            new Class<?>[] {Instrumentation.class},
            (proxy, method, args) -> {
              if (method.getName().equals("removeTransformer")) {
                removed.add(args[0]);
                return true;
              }
              throw new AssertionError("unexpected call " + method.getName());
            });
  }

  @Test
  void whenTheAgentDoesNotInstallTheHookStaysUntilTheGuardHasDecided() {
    // Given the hook's outcomes on a JVM, with a guard that notes whether the hook is still there
    List<Object> removed = new java.util.ArrayList<>();
    List<Boolean> hookInPlaceDuringGuard = new java.util.ArrayList<>();
    DeferredHooks.Outcomes outcomes =
        ClusterMirrorAgent.outcomes(
            recordingRemovals(removed), reason -> hookInPlaceDuringGuard.add(removed.isEmpty()));
    DeferredHooks hooks =
        new DeferredHooks(Set.of("a.B"), java.time.Duration.ofMinutes(2), outcomes, cost);

    // When the preparation fails
    hooks.settle(new DeferredHooks.NotInstalled("Kafka 4.4.9 lacks methods the plugin hooks"));

    // Then the guard ran while the hook still held back the hooked classes, and the hook was taken
    // out only after the guard let the broker start stock
    assertThat(hookInPlaceDuringGuard).containsExactly(true);
    assertThat(removed).containsExactly(hooks);
  }

  @Test
  void aHookTargetMissingFromTheBrokersClassesIsNotInstalledNamingTheTarget() {
    // Given Kafka classes that lack a hooked method
    KafkaBinding binding =
        binding(
            Set.of("org.apache.kafka.storage.internals.log.UnifiedLog"),
            List.of("org.apache.kafka.storage.internals.log.UnifiedLog.append(...) (0 matches)"));

    // When the preparation runs, with no prebuilt classes for them
    DeferredHooks.Outcome outcome =
        ClusterMirrorAgent.prepareTransformations(
            null, loadedClasses(), binding, "4.4.9", cost, NO_PREBUILT_CLASSES);

    // Then the agent does not install, saying which Kafka lacks what
    assertThat(outcome)
        .isEqualTo(
            new DeferredHooks.NotInstalled(
                "Kafka 4.4.9 lacks methods the plugin hooks: "
                    + "[org.apache.kafka.storage.internals.log.UnifiedLog.append(...) (0 matches)]"));
  }

  @Test
  void aHookedClassLoadedBeforeTheAgentStartedIsNotInstalledRatherThanLeftStock() {
    // Given a hooked class that another agent loaded before this one's premain
    KafkaBinding binding = binding(Set.of(String.class.getName()), List.of());

    // When the preparation runs
    DeferredHooks.Outcome outcome =
        ClusterMirrorAgent.prepareTransformations(
            null, loadedClasses(Object.class, String.class), binding, "4.4.0", cost);

    // Then the agent does not install, naming the class and the fix
    assertThat(outcome).isInstanceOf(DeferredHooks.NotInstalled.class);
    assertThat(((DeferredHooks.NotInstalled) outcome).reason())
        .contains("[java.lang.String] loaded before the agent started")
        .contains("list this agent's -javaagent first");
  }

  /** A hooked class whose class file the system class loader holds (a test-source fixture). */
  private static final String FIXTURE =
      dev.kafkamirror.broker.agent.layeringfixture.MainClassThatUsesTheHarness.class.getName();

  private static final String FIXTURE_INTERNAL = FIXTURE.replace('.', '/');

  private static byte[] fixtureClassFile() throws java.io.IOException {
    try (java.io.InputStream in =
        ClassLoader.getSystemClassLoader().getResourceAsStream(FIXTURE_INTERNAL + ".class")) {
      return in.readAllBytes();
    }
  }

  /** An agent jar holding {@code transformed} as the prebuilt class for {@code original}. */
  private static PrebuiltClasses prebuilt(String internal, byte[] original, byte[] transformed) {
    String hash = PrebuiltClasses.sha256(original);
    java.util.Map<String, byte[]> resources =
        java.util.Map.of(
            PrebuiltClasses.INDEX,
            (hash + "=" + internal + "\n").getBytes(java.nio.charset.StandardCharsets.UTF_8),
            PrebuiltClasses.DIRECTORY + hash + ".bin",
            transformed);
    return new PrebuiltClasses(resources::get);
  }

  /**
   * A binding that records which of its preparation methods are called; its hook check reports
   * {@code missing}, and it must never be asked to instrument.
   */
  private static KafkaBinding recording(List<String> missing, List<String> calls) {
    KafkaBinding checks = binding(Set.of(FIXTURE), missing);
    return new KafkaBinding() {
      @Override
      public void configure(PluginConfig config) {}

      @Override
      public List<String> missingTargets(TypePool pool) {
        calls.add("missingTargets");
        return checks.missingTargets(pool);
      }

      @Override
      public Set<String> hookedTypes() {
        return checks.hookedTypes();
      }

      @Override
      public AgentBuilder instrument(AgentBuilder builder) {
        calls.add("instrument");
        throw new AssertionError("instrument must not be called on the prebuilt path");
      }

      @Override
      public void whenConfigured(BrokerConfigListener listener) {
        calls.add("whenConfigured");
      }

      @Override
      public void start(PluginConfig config) {}

      @Override
      public PartitionControl partitionControl() {
        return null;
      }
    };
  }

  @Test
  void classFilesTheAgentJarHoldsPrebuiltInstallWithThoseBytesWithoutTheHookCheck()
      throws Exception {
    // Given an agent jar holding the prebuilt class for exactly the broker's class file, and a hook
    // check that would fail if it ran
    byte[] original = fixtureClassFile();
    byte[] transformed = {42, 43};
    List<String> calls = new java.util.ArrayList<>();
    KafkaBinding binding = recording(List.of("a target (0 matches)"), calls);
    StartupCost pathCost = new StartupCost(Set.of(FIXTURE_INTERNAL));

    // When the preparation runs
    DeferredHooks.Outcome outcome =
        ClusterMirrorAgent.prepareTransformations(
            null,
            loadedClasses(),
            binding,
            "4.4.0",
            pathCost,
            prebuilt(FIXTURE_INTERNAL, original, transformed));

    // Then the agent installs with the prebuilt bytes for those class-file bytes, from the system
    // class loader, only telling the binding where to report the broker's configuration: no hook
    // check, no ByteBuddy (the same bytes passed both when the jar was built)
    assertThat(outcome).isInstanceOf(DeferredHooks.Installed.class);
    DeferredHooks.Installed installed = (DeferredHooks.Installed) outcome;
    assertThat(installed.loader()).isSameAs(ClassLoader.getSystemClassLoader());
    assertThat(installed.prebuilt()).containsOnlyKeys(FIXTURE_INTERNAL);
    assertThat(installed.prebuilt().get(FIXTURE_INTERNAL).original()).isEqualTo(original);
    assertThat(installed.prebuilt().get(FIXTURE_INTERNAL).transformed()).isEqualTo(transformed);
    assertThat(calls).containsExactly("whenConfigured");
    assertThat(installed.byteBuddy()).isInstanceOf(ByteBuddyTransformations.OnDemand.class);
    assertThat(((ByteBuddyTransformations.OnDemand) installed.byteBuddy()).used()).isFalse();
    assertThat(pathCost.path()).isEqualTo(StartupCost.PREBUILT_PATH);
  }

  @Test
  void aClassFileOtherThanThePrebuiltOneTakesTheByteBuddyPathWithItsHookCheck() throws Exception {
    // Given an agent jar whose prebuilt class is for other bytes (a patched Kafka build), and a
    // hook check that fails
    byte[] other = {1, 2, 3};
    List<String> calls = new java.util.ArrayList<>();
    KafkaBinding binding = recording(List.of(FIXTURE + ".append(...) (0 matches)"), calls);
    StartupCost pathCost = new StartupCost(Set.of(FIXTURE_INTERNAL));

    // When the preparation runs
    DeferredHooks.Outcome outcome =
        ClusterMirrorAgent.prepareTransformations(
            null,
            loadedClasses(),
            binding,
            "4.4.0",
            pathCost,
            prebuilt(FIXTURE_INTERNAL, other, new byte[] {42}));

    // Then it falls back to the ByteBuddy path, whose hook check decides: not installed, naming
    // the missing target; the prebuilt bytes are not used
    assertThat(calls).containsExactly("missingTargets");
    assertThat(outcome)
        .isEqualTo(
            new DeferredHooks.NotInstalled(
                "Kafka 4.4.0 lacks methods the plugin hooks: ["
                    + FIXTURE
                    + ".append(...) (0 matches)]"));
    assertThat(pathCost.path()).isEqualTo(StartupCost.BYTE_BUDDY_PATH);
  }

  @Test
  void aHookedClassLoadedBeforeTheAgentIsNotInstalledEvenWhenItsBytesArePrebuilt()
      throws Exception {
    // Given prebuilt bytes for the broker's class file, but the class loaded before the agent
    List<String> calls = new java.util.ArrayList<>();
    KafkaBinding binding = recording(List.of(), calls);

    // When the preparation runs
    DeferredHooks.Outcome outcome =
        ClusterMirrorAgent.prepareTransformations(
            null,
            loadedClasses(
                dev.kafkamirror.broker.agent.layeringfixture.MainClassThatUsesTheHarness.class),
            binding,
            "4.4.0",
            cost,
            prebuilt(FIXTURE_INTERNAL, fixtureClassFile(), new byte[] {42}));

    // Then the agent does not install, naming the class, before anything else
    assertThat(outcome).isInstanceOf(DeferredHooks.NotInstalled.class);
    assertThat(((DeferredHooks.NotInstalled) outcome).reason())
        .contains("[" + FIXTURE + "] loaded before the agent started");
    assertThat(calls).isEmpty();
  }
}
