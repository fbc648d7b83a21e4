package dev.kafkamirror.broker.agent;

import dev.kafkamirror.broker.agent.control.PartitionControl;
import java.util.List;
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
 * <p>{@link ClusterMirrorAgent#install} calls the methods once each, in the order declared here, on
 * the thread that runs {@code premain}; none of them may load a Kafka class before {@link
 * #instrument} has installed the transformations.
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
   * Applies the settings that need no Kafka class (the stop-state record key), before the hooked
   * methods are checked.
   */
  void configure(PluginConfig config);

  /**
   * Every method and field the advice relies on that {@code pool} lacks or has with another
   * signature; empty when all are there. Loads no Kafka class.
   */
  List<String> missingTargets(TypePool pool);

  /** Adds this version's transformations to {@code builder} (which the caller then installs). */
  AgentBuilder instrument(AgentBuilder builder, PluginConfig config);

  /**
   * After the transformations are installed: configures the durable stop state and the cluster
   * membership, and reloads this broker's mirror registrations.
   */
  void start(PluginConfig config);

  /** The per-partition operations behind the control endpoint. */
  PartitionControl partitionControl();
}
