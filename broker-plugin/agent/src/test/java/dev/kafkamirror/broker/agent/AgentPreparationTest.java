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
      public AgentBuilder instrument(AgentBuilder builder, BrokerConfigListener listener) {
        throw new AssertionError("instrument must not be called when a check fails");
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

    // When the preparation runs
    DeferredHooks.Outcome outcome =
        ClusterMirrorAgent.prepareTransformations(null, loadedClasses(), binding, "4.4.9", cost);

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
}
