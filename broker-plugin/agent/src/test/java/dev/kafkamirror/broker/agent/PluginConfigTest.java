package dev.kafkamirror.broker.agent;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class PluginConfigTest {

  @Test
  void ruleIsOnByDefaultAndNoEndpointWithoutListener() {
    PluginConfig config = PluginConfig.from(Map.of());
    assertThat(config.barrierRuleEnabled()).isTrue();
    assertThat(config.controlListener()).isEmpty();
  }

  @Test
  void rejectsAnEndpointWithoutASecretAndAnUnreadableRuleValue() {
    assertThatThrownBy(
            () -> PluginConfig.from(Map.of(PluginConfig.CONTROL_LISTENER, "127.0.0.1:9095")))
        .hasMessageContaining("never accepts anonymous calls");
    assertThatThrownBy(
            () ->
                PluginConfig.from(
                    Map.of(
                        PluginConfig.CONTROL_LISTENER,
                        "127.0.0.1:9095",
                        PluginConfig.CONTROL_SECRET,
                        "short")))
        .hasMessageContaining("at least 16 characters");
    assertThatThrownBy(() -> PluginConfig.from(Map.of(PluginConfig.BARRIER_RULE_ENABLE, "yes")))
        .hasMessageContaining(PluginConfig.BARRIER_RULE_ENABLE)
        .hasMessageContaining("'yes'");
  }

  @Test
  void readsTheBrokersPropertiesFileOverridesAndAgentArguments(@TempDir Path dir) throws Exception {
    Path secret = dir.resolve("secret");
    Files.writeString(secret, "0123456789abcdef-from-file\n");
    Path props = dir.resolve("server.properties");
    Files.writeString(
        props,
        String.join(
            "\n",
            "node.id=1",
            PluginConfig.CONTROL_LISTENER + "=127.0.0.1:9095",
            PluginConfig.CONTROL_SECRET_FILE + "=" + secret,
            PluginConfig.BARRIER_RULE_ENABLE + "=true"));
    String command =
        "kafka.Kafka " + props + " --override " + PluginConfig.BARRIER_RULE_ENABLE + "=false";

    PluginConfig config = PluginConfig.fromBrokerCommandLine(command, null);
    assertThat(config.barrierRuleEnabled()).isFalse();
    assertThat(config.controlListener()).hasValue("127.0.0.1:9095");
    assertThat(config.controlSecret()).hasValue("0123456789abcdef-from-file");

    PluginConfig withArgs =
        PluginConfig.fromBrokerCommandLine(command, PluginConfig.BARRIER_RULE_ENABLE + "=true");
    assertThat(withArgs.barrierRuleEnabled()).isTrue();
    assertThatThrownBy(() -> PluginConfig.fromBrokerCommandLine(command, "novalue"))
        .hasMessageContaining("key=value");
  }
}
