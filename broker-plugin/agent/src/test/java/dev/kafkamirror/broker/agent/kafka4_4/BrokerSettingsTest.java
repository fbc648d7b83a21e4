package dev.kafkamirror.broker.agent.kafka4_4;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.HashMap;
import java.util.Map;
import org.apache.kafka.common.config.types.Password;
import org.junit.jupiter.api.Test;

class BrokerSettingsTest {

  @Test
  void everySettingBecomesItsStringValueAndAPasswordItsSecretNotKafkasHiddenMarker() {
    // Given originals as a KafkaConfig may hold them: strings, a number, a Password, a null
    Map<String, Object> originals = new HashMap<>();
    originals.put("cluster.mirror.control.listener", "127.0.0.1:9095");
    originals.put("node.id", 3);
    originals.put("cluster.mirror.control.ssl.keystore.password", new Password("s3cret-store"));
    originals.put("cluster.mirror.state.secret", null);

    // When the plugin reads them
    Map<String, String> settings = BrokerSettings.asStrings(originals);

    // Then each is the string the plugin parses, the password its value, the null left out
    assertThat(settings)
        .containsEntry("cluster.mirror.control.listener", "127.0.0.1:9095")
        .containsEntry("node.id", "3")
        .containsEntry("cluster.mirror.control.ssl.keystore.password", "s3cret-store")
        .doesNotContainKey("cluster.mirror.state.secret");
  }
}
