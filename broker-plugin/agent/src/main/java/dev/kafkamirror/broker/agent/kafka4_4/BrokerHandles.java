package dev.kafkamirror.broker.agent.kafka4_4;

import dev.kafkamirror.broker.agent.KafkaBinding.BrokerConfigListener;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Supplier;
import kafka.server.KafkaConfig;
import kafka.server.ReplicaManager;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.server.purgatory.TopicPartitionOperationKey;

/**
 * The broker objects the control plane works through, captured when the broker creates them: the
 * {@link ReplicaManager}, and the broker's live {@link KafkaConfig} it is built with.
 *
 * <p>The ReplicaManager is created on the broker's start-up thread after the broker's configuration
 * is final (config providers resolved) and before the log manager loads any partition or the broker
 * serves a request, which makes its constructor the point where the plugin reads its settings
 * ({@link BrokerConfigListener}, told once). Thread-safe.
 */
public final class BrokerHandles {

  private static final AtomicReference<ReplicaManager> REPLICA_MANAGER = new AtomicReference<>();
  private static final AtomicReference<KafkaConfig> CONFIG = new AtomicReference<>();
  private static final AtomicReference<BrokerConfigListener> LISTENER = new AtomicReference<>();
  private static final AtomicBoolean TOLD = new AtomicBoolean();

  private BrokerHandles() {}

  /** Who to tell about the broker's configuration once it exists. */
  static void whenConfigured(BrokerConfigListener listener) {
    LISTENER.set(listener);
  }

  /**
   * Called by the advice on the ReplicaManager constructor; tells the listener the broker's
   * settings the first time. Never throws.
   */
  public static void replicaManagerCreated(Object replicaManager, Object config) {
    REPLICA_MANAGER.set((ReplicaManager) replicaManager);
    BrokerConfigListener listener = LISTENER.get();
    if (listener == null || !TOLD.compareAndSet(false, true)) {
      return;
    }
    boolean configured =
        tell(
            listener,
            () -> {
              KafkaConfig kafkaConfig = (KafkaConfig) config;
              CONFIG.set(kafkaConfig);
              return BrokerSettings.of(kafkaConfig);
            });
    if (configured) {
      watchDynamicConfig(listener, (KafkaConfig) config);
    }
  }

  /**
   * Registers the plugin with the broker's dynamic configuration ({@link DynamicPluginConfig}),
   * before Kafka 4.4's BrokerServer installs the publisher that applies the dynamic configs of the
   * metadata log, so that values set before this start are applied (or refused) now and later
   * changes live. Without it (logged) a dynamic {@code cluster.mirror.*} value is stored by Kafka
   * and never read by the plugin. Never throws.
   */
  static void watchDynamicConfig(BrokerConfigListener listener, KafkaConfig config) {
    try {
      config
          .dynamicConfig()
          .addReconfigurable(new DynamicPluginConfig(listener, listener.dynamicKeys()));
    } catch (Throwable t) {
      org.slf4j.LoggerFactory.getLogger("dev.kafkamirror.broker.agent")
          .error(
              "cluster mirror agent: cannot watch the broker's dynamic configs; a dynamic"
                  + " cluster.mirror.* value (kafka-configs --alter --entity-type brokers) is stored"
                  + " by Kafka and NOT read by the plugin: set the plugin's settings in"
                  + " server.properties",
              t);
    }
  }

  /**
   * Tells {@code listener} the settings {@code read} gives, or that they cannot be read. Whatever
   * fails on the way, an {@link Error} included, and also a {@link
   * BrokerConfigListener#brokerConfigured} that throws, ends in {@link
   * BrokerConfigListener#brokerConfigUnreadable}, whose start-up guard decides whether the broker
   * may go on. Otherwise the advice around this call would swallow the failure and the broker would
   * start with the transformations installed but the plugin neither configured nor guarded.
   *
   * @return whether the listener was told the settings (and took them without throwing)
   */
  static boolean tell(BrokerConfigListener listener, Supplier<Map<String, String>> read) {
    Map<String, String> settings;
    try {
      settings = read.get();
    } catch (Throwable e) {
      listener.brokerConfigUnreadable(
          "the broker's configuration (kafka.server.KafkaConfig) cannot be read: " + e);
      return false;
    }
    try {
      listener.brokerConfigured(settings);
      return true;
    } catch (Throwable e) {
      listener.brokerConfigUnreadable("applying the plugin's settings failed: " + e);
      return false;
    }
  }

  /**
   * Lets fetch requests parked on {@code tp} (followers waiting for data) answer now, as Kafka does
   * after its own appends; without it a follower sees an append the plugin made only when its fetch
   * wait ({@code replica.fetch.wait.max.ms}) runs out.
   */
  public static void completeDelayedFetches(TopicPartition tp) {
    ReplicaManager rm = REPLICA_MANAGER.get();
    if (rm != null) {
      rm.delayedFetchPurgatory().checkAndComplete(new TopicPartitionOperationKey(tp));
    }
  }

  /** The broker's ReplicaManager, once it exists. */
  public static Optional<ReplicaManager> replicaManager() {
    return Optional.ofNullable(REPLICA_MANAGER.get());
  }

  /**
   * The broker's live configuration, once it exists: its current values include dynamic broker
   * configs applied since start-up ({@code kafka-configs --alter}).
   */
  public static Optional<KafkaConfig> kafkaConfig() {
    return Optional.ofNullable(CONFIG.get());
  }
}
