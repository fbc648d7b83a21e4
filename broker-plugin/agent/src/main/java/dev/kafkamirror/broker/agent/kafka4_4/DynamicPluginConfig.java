package dev.kafkamirror.broker.agent.kafka4_4;

import dev.kafkamirror.broker.agent.KafkaBinding.BrokerConfigListener;
import java.util.Map;
import java.util.Set;
import org.apache.kafka.common.Reconfigurable;
import org.apache.kafka.common.config.ConfigException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The plugin's part in Kafka's dynamic broker configs: registered with the broker's {@code
 * DynamicBrokerConfig} when the plugin reads its settings (the ReplicaManager's constructor), which
 * in Kafka 4.4 is before the broker installs the publisher that applies the dynamic configs of the
 * metadata log. So Kafka asks it about every change of one of its {@link #reconfigurableConfigs()}
 * keys:
 *
 * <ul>
 *   <li>when a client alters a BROKER resource through a broker, in {@code
 *       ConfigAdminManager.preprocess} on the request thread ({@link #validateReconfiguration}
 *       only): a refusal fails the alter with its message and Kafka stores nothing of it;
 *   <li>when the broker applies the dynamic configs of the metadata log, at start-up and at every
 *       change, on the metadata publisher's thread ({@link #validateReconfiguration}, then {@link
 *       #reconfigure} if it passed). An alter sent to the controller directly reaches only this
 *       step; a refusal here makes Kafka keep the broker's previous configuration (it logs "could
 *       not be applied" and applies none of that update), and the plugin never uses the value.
 * </ul>
 *
 * <p>The decisions are the version-neutral {@link BrokerConfigListener}'s. Never lets anything but
 * a {@link ConfigException} reach Kafka, and from {@link #reconfigure} nothing. Thread-safe
 * (immutable; the listener is thread-safe).
 */
final class DynamicPluginConfig implements Reconfigurable {

  private static final Logger LOG = LoggerFactory.getLogger("dev.kafkamirror.broker.agent");

  private final BrokerConfigListener listener;
  private final Set<String> keys;

  DynamicPluginConfig(BrokerConfigListener listener, Set<String> keys) {
    this.listener = listener;
    this.keys = Set.copyOf(keys);
  }

  @Override
  public void configure(Map<String, ?> configs) {
    // Configured by the broker's start-up configuration already.
  }

  @Override
  public Set<String> reconfigurableConfigs() {
    return keys;
  }

  @Override
  public void validateReconfiguration(Map<String, ?> configs) throws ConfigException {
    String refusal;
    try {
      refusal = listener.dynamicRefusal(BrokerSettings.asStrings(configs)).orElse(null);
    } catch (Throwable t) {
      // Fail closed: a change the plugin cannot judge is not applied.
      refusal =
          "the cluster mirror plugin could not check the dynamic broker config ("
              + t.getClass().getName()
              + "); the change is refused, see the broker's log";
      LOG.error("cluster mirror agent: checking a dynamic broker config failed", t);
    }
    if (refusal != null) {
      throw new ConfigException(refusal);
    }
  }

  @Override
  public void reconfigure(Map<String, ?> configs) {
    try {
      listener.dynamicConfigApplied(BrokerSettings.asStrings(configs));
    } catch (Throwable t) {
      LOG.error("cluster mirror agent: applying a dynamic broker config failed", t);
    }
  }

  @Override
  public String toString() {
    return "cluster mirror plugin settings";
  }
}
