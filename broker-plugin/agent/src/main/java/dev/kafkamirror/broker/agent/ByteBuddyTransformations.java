package dev.kafkamirror.broker.agent;

import static net.bytebuddy.matcher.ElementMatchers.namedOneOf;
import static net.bytebuddy.matcher.ElementMatchers.not;

import java.lang.instrument.ClassFileTransformer;
import java.lang.instrument.IllegalClassFormatException;
import java.util.List;
import java.util.Set;
import java.util.function.BiConsumer;
import net.bytebuddy.agent.builder.AgentBuilder;
import net.bytebuddy.pool.TypePool;

/**
 * Everything of the agent that needs ByteBuddy: the hook check and the transformations. Used at
 * build time, to make the prebuilt classes the agent jar carries ({@link PrebuiltClassesBuilder}),
 * and at run time only when the broker's hooked classes are not those ({@link
 * ClusterMirrorAgent#prepareTransformations}), or when a hooked class loads with other bytes than
 * the ones read ahead ({@link OnDemand}). Both use the same code here, so the prebuilt bytes are
 * what the run-time path would make of the same class files ({@code PrebuiltClassesTest} checks
 * it).
 *
 * <p>Nothing outside this class and the build-time builder names a ByteBuddy type on the prebuilt
 * path, so that the JVM never loads ByteBuddy there ({@code PrebuiltStartupTest} checks it).
 */
final class ByteBuddyTransformations {

  private ByteBuddyTransformations() {}

  /** The binding's hook check against the classes {@code loader} holds; loads none of them. */
  static List<String> missingTargets(KafkaBinding binding, ClassLoader loader) {
    return binding.missingTargets(TypePool.Default.of(loader));
  }

  /**
   * The binding's transformations as a class-file transformer that the JVM never sees itself (the
   * caller hands it the hooked classes). {@code onError} receives a hooked class's name and why
   * ByteBuddy could not transform it (the transformer then returns null for it).
   */
  static ClassFileTransformer transformer(
      KafkaBinding binding, BiConsumer<String, Throwable> onError) {
    Set<String> hooked = binding.hookedTypes();
    AgentBuilder builder =
        new AgentBuilder.Default()
            .disableClassFormatChanges()
            // Only the hooked classes by name, which needs no parsing of the class file (the
            // default also asks whether a class is synthetic); DeferredHooks hands ByteBuddy no
            // other class anyway.
            .ignore(not(namedOneOf(hooked.toArray(String[]::new))))
            // Nothing is loaded yet that needs retransforming (checked by the caller), and the
            // transformer is never registered with the JVM itself (DeferredHooks calls it).
            .with(AgentBuilder.RedefinitionStrategy.DISABLED)
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
                    onError.accept(typeName, throwable);
                  }
                });
    return binding.instrument(builder).makeRaw();
  }

  /**
   * What {@code transformer} makes of {@code original}, the class file of {@code internalName} as
   * {@code loader} holds it, before the class is loaded; null when it does not transform it.
   */
  static byte[] transformAhead(
      ClassFileTransformer transformer, ClassLoader loader, String internalName, byte[] original) {
    try {
      return transformer.transform(
          loader.getUnnamedModule(), loader, internalName, null, null, original);
    } catch (IllegalClassFormatException e) {
      return null;
    }
  }

  /**
   * ByteBuddy's transformer, built at the first class that needs it: on the prebuilt path, a hooked
   * class that loads with bytes (or through a class loader) other than the ones the agent read
   * ahead and found prebuilt. That is what the ByteBuddy path does with such a class too, so both
   * paths treat it alike; it costs that class's load the building of the transformations (about a
   * second), once. Thread-safe: built once, under this object's lock.
   */
  static final class OnDemand implements ClassFileTransformer {

    /** The logger, created at first use: the agent must not initialize logging early. */
    private static final class Log {
      static final org.slf4j.Logger LOG =
          org.slf4j.LoggerFactory.getLogger("dev.kafkamirror.broker.agent");
    }

    private final java.util.function.Supplier<ClassFileTransformer> build;
    private ClassFileTransformer built;
    private boolean failed;

    /** ByteBuddy's transformations of {@code binding}, built at first use. */
    static OnDemand of(KafkaBinding binding) {
      return new OnDemand(
          () ->
              ByteBuddyTransformations.transformer(
                  binding,
                  (typeName, error) ->
                      Log.LOG.error(
                          "cluster mirror agent: could not instrument {}", typeName, error)));
    }

    /** {@code build} makes the transformer; called at most once. */
    OnDemand(java.util.function.Supplier<ClassFileTransformer> build) {
      this.build = build;
    }

    /** The transformer, built now if not yet; null when it cannot be built. */
    private synchronized ClassFileTransformer byteBuddy(String className) {
      if (built == null && !failed) {
        Log.LOG.warn(
            "cluster mirror agent: {} loads with class-file bytes or a class loader other than the"
                + " prebuilt ones; building the transformations with ByteBuddy for it now",
            className.replace('/', '.'));
        try {
          built = build.get();
        } catch (RuntimeException | LinkageError e) {
          failed = true;
          Log.LOG.error(
              "cluster mirror agent: cannot build the transformations with ByteBuddy; {} and any"
                  + " other hooked class with bytes other than the prebuilt ones load"
                  + " untransformed: report this with the Kafka version",
              className.replace('/', '.'),
              e);
        }
      }
      return built;
    }

    /** Whether the transformer was built (or tried). */
    synchronized boolean used() {
      return built != null || failed;
    }

    @Override
    public byte[] transform(
        Module module,
        ClassLoader loader,
        String className,
        Class<?> classBeingRedefined,
        java.security.ProtectionDomain protectionDomain,
        byte[] classfileBuffer)
        throws IllegalClassFormatException {
      ClassFileTransformer transformer = byteBuddy(className);
      return transformer == null
          ? null
          : transformer.transform(
              module, loader, className, classBeingRedefined, protectionDomain, classfileBuffer);
    }

    @Override
    public byte[] transform(
        ClassLoader loader,
        String className,
        Class<?> classBeingRedefined,
        java.security.ProtectionDomain protectionDomain,
        byte[] classfileBuffer)
        throws IllegalClassFormatException {
      ClassFileTransformer transformer = byteBuddy(className);
      return transformer == null
          ? null
          : transformer.transform(
              loader, className, classBeingRedefined, protectionDomain, classfileBuffer);
    }
  }
}
