package dev.kafkamirror.broker.agent;

import java.lang.instrument.IllegalClassFormatException;
import java.security.ProtectionDomain;
import java.util.Set;
import java.util.stream.Collectors;
import net.bytebuddy.agent.builder.ResettableClassFileTransformer;

/**
 * The agent's class-file hook: hands ByteBuddy's transformer only the classes the binding hooks
 * ({@link KafkaBinding#hookedTypes}) and returns every other class untouched after one set lookup
 * on its name.
 *
 * <p>Why: ByteBuddy describes every class it is offered before its ignore matcher can reject it,
 * and its default ignore matcher asks whether the class is synthetic, which parses the class file.
 * A Kafka broker loads some 8,000 to 10,000 classes at start-up, mostly on its start-up thread;
 * each of them was handled so by the agent (docs/benchmarks.md, "Restart after kill -9", has the
 * figures).
 *
 * <p>Skipping a class here is exactly what ByteBuddy would do with it (none of its transformations
 * matches a class outside {@code hookedTypes}), so the set of transformed classes does not change.
 * Each hooked class passed on is timed into {@link StartupCost}.
 *
 * <p>Thread-safe: the JVM calls {@code transform} from every thread that loads a class, in
 * parallel; the state is an immutable set and {@link StartupCost}'s atomics.
 */
final class HookedTypesOnly extends ResettableClassFileTransformer.WithDelegation {

  /** Internal names ({@code a/b/C}), as the JVM passes them. */
  private final Set<String> internalNames;

  private final StartupCost cost;

  HookedTypesOnly(
      ResettableClassFileTransformer delegate, Set<String> binaryNames, StartupCost cost) {
    super(delegate);
    this.internalNames =
        binaryNames.stream().map(n -> n.replace('.', '/')).collect(Collectors.toUnmodifiableSet());
    this.cost = cost;
  }

  @Override
  public byte[] transform(
      ClassLoader loader,
      String className,
      Class<?> classBeingRedefined,
      ProtectionDomain protectionDomain,
      byte[] classfileBuffer)
      throws IllegalClassFormatException {
    if (className == null || !internalNames.contains(className)) {
      return null;
    }
    long started = System.nanoTime();
    byte[] result =
        classFileTransformer.transform(
            loader, className, classBeingRedefined, protectionDomain, classfileBuffer);
    cost.hookedTypeSeen(className, result != null, System.nanoTime() - started);
    return result;
  }

  @Override
  public byte[] transform(
      Module module,
      ClassLoader loader,
      String className,
      Class<?> classBeingRedefined,
      ProtectionDomain protectionDomain,
      byte[] classfileBuffer)
      throws IllegalClassFormatException {
    if (className == null || !internalNames.contains(className)) {
      return null;
    }
    long started = System.nanoTime();
    byte[] result =
        classFileTransformer.transform(
            module, loader, className, classBeingRedefined, protectionDomain, classfileBuffer);
    cost.hookedTypeSeen(className, result != null, System.nanoTime() - started);
    return result;
  }
}
