package dev.kafkamirror.broker.agent.kafka4_4;

import java.util.HashMap;
import java.util.Map;
import kafka.server.KafkaConfig;
import org.apache.kafka.common.config.types.Password;

/**
 * The broker's settings as the plugin reads them: the originals of the broker's {@link
 * KafkaConfig}, that is what server.properties and {@code --override} gave, with every config
 * provider reference ({@code ${file:path:key}}, {@code ${env:NAME}}, ...) already replaced by Kafka
 * with its value. Keys Kafka does not know ({@code cluster.mirror.*}) are kept and resolved too.
 * Stateless.
 */
final class BrokerSettings {

  private BrokerSettings() {}

  /** The resolved settings of {@code config}, every value as a string. */
  static Map<String, String> of(KafkaConfig config) {
    return asStrings(config.originals());
  }

  /**
   * {@code originals} with every value as a string: a {@link Password} gives its value (not Kafka's
   * "[hidden]"), a null value is left out.
   */
  static Map<String, String> asStrings(Map<String, ?> originals) {
    Map<String, String> out = new HashMap<>();
    originals.forEach(
        (key, value) -> {
          if (value instanceof Password password) {
            out.put(key, password.value());
          } else if (value != null) {
            out.put(key, String.valueOf(value));
          }
        });
    return out;
  }
}
