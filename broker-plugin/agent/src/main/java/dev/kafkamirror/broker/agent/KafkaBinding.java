package dev.kafkamirror.broker.agent;

import dev.kafkamirror.broker.agent.control.PartitionControl;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import net.bytebuddy.agent.builder.AgentBuilder;
import net.bytebuddy.pool.TypePool;

/**
 * The seam between the version-neutral agent ({@link ClusterMirrorAgent}, the control endpoint, the
 * settings) and the code written against one Kafka version's internals (today {@code
 * dev.kafkamirror.broker.agent.kafka4_4}). The neutral packages import nothing from a version
 * package (a build rule, {@code LayeringTest}); they reach it only through this interface, whose
 * implementation the agent finds with {@link java.util.ServiceLoader} ({@code
 * META-INF/services/dev.kafkamirror.broker.agent.KafkaBinding}).
 *
 * <p>{@code premain} asks only {@link #hookedTypes}, which must load neither ByteBuddy nor the
 * broker's logging (the binding's class and constructor run on the broker's main thread); {@link
 * ClusterMirrorAgent#prepareTransformations} then calls {@link #whenConfigured} on the agent's
 * background thread, and {@link #missingTargets} and {@link #instrument} only when the broker's
 * hooked classes are not those the agent jar carries prebuilt; neither loads a Kafka class. The
 * binding then tells its {@link BrokerConfigListener} once, when the broker has built its live
 * configuration, and the agent calls {@link #configure}, {@link #start} and {@link
 * #partitionControl} from there, in that order.
 */
public interface KafkaBinding {

  /**
   * The binding the agent jar ships, or empty when it ships none (a broken jar: the agent then does
   * not instrument, and {@link StartupGuard} decides whether the broker may start).
   */
  static Optional<KafkaBinding> load() {
    return java.util.ServiceLoader.load(KafkaBinding.class, KafkaBinding.class.getClassLoader())
        .findFirst();
  }

  /**
   * Told once, on the broker's start-up thread, what the broker's own configuration is: the {@code
   * KafkaConfig} the broker runs with, after Kafka resolved its config providers ({@code
   * ${file:path:key}} and the like), read before any partition's log is loaded and before the
   * broker serves any request. Implementations must not throw: the call runs inside the broker.
   */
  interface BrokerConfigListener {

    /** The broker's resolved settings, every value as a string. */
    void brokerConfigured(Map<String, String> settings);

    /** The broker's configuration exists but could not be read; {@code reason} says why. */
    void brokerConfigUnreadable(String reason);

    /**
     * Why the plugin refuses a dynamic broker config change ({@code kafka-configs --alter
     * --entity-type brokers}), or empty when it accepts it. {@code proposed} is the whole
     * configuration Kafka is about to validate or apply (start-up values and dynamic ones), every
     * value as a string. The reason names the keys and what to do, never a value. Called on Kafka's
     * request and metadata threads, after {@link #brokerConfigured}; must be thread-safe.
     */
    default Optional<String> dynamicRefusal(Map<String, String> proposed) {
      return Optional.empty();
    }

    /**
     * Kafka applies {@code proposed}, which {@link #dynamicRefusal} accepted: take the live
     * settings from it. Called on Kafka's metadata thread; must not throw.
     */
    default void dynamicConfigApplied(Map<String, String> proposed) {}

    /** The keys whose dynamic changes Kafka must show {@link #dynamicRefusal}. */
    default java.util.Set<String> dynamicKeys() {
      return DynamicSettings.watchedKeys();
    }
  }

  /**
   * Applies the settings read from the broker's live configuration (the barrier rule switch, the
   * stop-state record key), before {@link #start}.
   */
  void configure(PluginConfig config);

  /**
   * Every method and field the advice relies on that {@code pool} lacks or has with another
   * signature; empty when all are there. Loads no Kafka class.
   */
  List<String> missingTargets(TypePool pool);

  /**
   * The binary names of every class {@link #instrument} transforms. The agent hands the JVM's
   * class-file hook only these and skips every other class the broker loads without describing it
   * (see {@code DeferredHooks}). A class missing here would never be transformed, so {@code
   * Kafka44InstrumentationTest} checks that this set covers every target. Called in {@code
   * premain}: must not build ByteBuddy matchers.
   */
  java.util.Set<String> hookedTypes();

  /**
   * Adds this version's transformations to {@code builder} (which the caller then installs). What
   * they do depends on nothing known only at run time (no agent argument, no setting, no class
   * loader): the agent jar carries their result for the supported Kafka builds ({@code
   * PrebuiltClasses}), made by the same call at build time.
   */
  AgentBuilder instrument(AgentBuilder builder);

  /**
   * Has the transformed classes hand the broker's configuration to {@code listener} once it exists.
   * Called once, when the agent installs, whichever way the hooked classes are transformed; loads
   * neither ByteBuddy nor a Kafka class.
   */
  void whenConfigured(BrokerConfigListener listener);

  /**
   * After the transformations are installed: configures the durable stop state and the cluster
   * membership, and reloads this broker's mirror registrations.
   */
  void start(PluginConfig config);

  /** The per-partition operations behind the control endpoint. */
  PartitionControl partitionControl();
}
