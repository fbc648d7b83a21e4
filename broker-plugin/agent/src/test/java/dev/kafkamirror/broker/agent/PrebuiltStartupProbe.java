package dev.kafkamirror.broker.agent;

import java.lang.instrument.Instrumentation;
import java.lang.reflect.Proxy;
import java.util.Set;
import java.util.stream.Collectors;

/**
 * Runs the agent's background preparation in a JVM of its own, for {@code PrebuiltStartupTest}:
 * with the agent jar's prebuilt classes (no argument) or without any ({@code bytebuddy}), then
 * prints {@code OUTCOME <type> <path>}. The JVM logs each class it loads.
 */
public final class PrebuiltStartupProbe {

  private PrebuiltStartupProbe() {}

  public static void main(String[] args) {
    KafkaBinding binding = KafkaBinding.load().orElseThrow();
    Instrumentation nothingLoaded =
        (Instrumentation)
            Proxy.newProxyInstance(
                PrebuiltStartupProbe.class.getClassLoader(),
                new Class<?>[] {Instrumentation.class},
                (proxy, method, arguments) -> {
                  if (method.getName().equals("getAllLoadedClasses")) {
                    return new Class<?>[0];
                  }
                  throw new AssertionError("unexpected call " + method.getName());
                });
    Set<String> hooked =
        binding.hookedTypes().stream()
            .map(name -> name.replace('.', '/'))
            .collect(Collectors.toUnmodifiableSet());
    StartupCost cost = new StartupCost(hooked);
    PrebuiltClasses prebuilt =
        args.length > 0 && args[0].equals("bytebuddy")
            ? new PrebuiltClasses(path -> null)
            : PrebuiltClasses.inAgentJar();
    DeferredHooks.Outcome outcome =
        ClusterMirrorAgent.prepareTransformations(
            null, nothingLoaded, binding, "4.4.0", cost, prebuilt);
    System.out.println(
        "OUTCOME " + outcome.getClass().getSimpleName() + " " + cost.path().replace(' ', '_'));
  }
}
