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
  void theCommandLineFallbackReadsThePropertiesFileAndOverridesAndAgentArgumentsWin(
      @TempDir Path dir) throws Exception {
    // Given a broker command line with a properties file and an --override
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

    // When the start-up guard's fallback reads it (the live configuration is not built yet)
    Map<String, String> settings = PluginConfig.brokerSettings(command);
    PluginConfig config = PluginConfig.from(settings);

    // Then the override wins over the file, and the secret file is read
    assertThat(config.barrierRuleEnabled()).isFalse();
    assertThat(config.controlListener()).hasValue("127.0.0.1:9095");
    assertThat(config.controlSecret()).hasValue("0123456789abcdef-from-file");

    // And agent arguments are key=value pairs, or refused naming the shape
    assertThat(PluginConfig.parseAgentArgs(PluginConfig.BARRIER_RULE_ENABLE + "=true"))
        .containsEntry(PluginConfig.BARRIER_RULE_ENABLE, "true");
    assertThatThrownBy(() -> PluginConfig.parseAgentArgs("novalue"))
        .hasMessageContaining("key=value");
  }

  @Test
  void itsStringFormNamesTheSettingsButShowsNoSecret() {
    // Given settings holding a resolved control secret and a keystore password
    PluginConfig config =
        PluginConfig.from(
            Map.of(
                PluginConfig.CONTROL_LISTENER,
                "127.0.0.1:9095",
                PluginConfig.CONTROL_SECRET,
                "0123456789abcdef-secret",
                "cluster.mirror.control.ssl.keystore.password",
                "store-password-1"));

    // When it is printed
    String printed = config.toString();

    // Then the keys are named and no value of a secret appears
    assertThat(printed).contains(PluginConfig.CONTROL_SECRET).contains("127.0.0.1:9095");
    assertThat(printed)
        .doesNotContain("0123456789abcdef-secret")
        .doesNotContain("store-password-1");
  }

  @Test
  void thePluginsOwnClientsReachTheClusterThroughTheInterBrokerListenerUnlessTold() {
    PluginConfig plain =
        PluginConfig.from(
            Map.of(
                "advertised.listeners", "PLAINTEXT://10.0.0.5:9092,INTERNAL://10.0.0.5:9094",
                "inter.broker.listener.name", "INTERNAL",
                "listener.security.protocol.map", "PLAINTEXT:PLAINTEXT,INTERNAL:PLAINTEXT",
                "node.id", "4"));
    assertThat(plain.localClientProperties().getProperty("bootstrap.servers"))
        .isEqualTo("10.0.0.5:9094");
    assertThat(plain.brokerId()).isEqualTo(4);
    assertThat(plain.stateTopic()).isEqualTo("__cluster_mirror_state");

    PluginConfig secured =
        PluginConfig.from(
            Map.of(
                "advertised.listeners", "SECURE://10.0.0.5:9093",
                "inter.broker.listener.name", "SECURE",
                "listener.security.protocol.map", "SECURE:SASL_SSL"));
    assertThatThrownBy(secured::localClientProperties)
        .hasMessageContaining("SASL_SSL")
        .hasMessageContaining("cluster.mirror.local.client.");

    PluginConfig told =
        PluginConfig.from(
            Map.of(
                "cluster.mirror.local.bootstrap.servers", "kafka:9093",
                "cluster.mirror.local.client.security.protocol", "SASL_SSL",
                "cluster.mirror.state.topic.partitions", "0"));
    assertThat(told.localClientProperties())
        .containsEntry("bootstrap.servers", "kafka:9093")
        .containsEntry("security.protocol", "SASL_SSL");
    assertThatThrownBy(told::stateTopicPartitions)
        .hasMessageContaining("cluster.mirror.state.topic.partitions");
  }

  @Test
  void theStateRecordKeyComesFromTheStateSecretOrElseTheControlSecret(@TempDir Path dir)
      throws Exception {
    // Given only a control secret: a key derived from it
    PluginConfig control =
        PluginConfig.from(Map.of(PluginConfig.CONTROL_SECRET, "0123456789abcdef-control"));
    assertThat(control.stateRecordKey()).isPresent();
    // And a state secret (file) wins over it, and differs
    Path file = dir.resolve("state-secret");
    Files.writeString(file, "0123456789abcdef-state\n");
    PluginConfig state =
        PluginConfig.from(
            Map.of(
                PluginConfig.CONTROL_SECRET,
                "0123456789abcdef-control",
                PluginConfig.STATE_SECRET_FILE,
                file.toString()));
    assertThat(state.stateRecordKey().orElseThrow())
        .isNotEqualTo(control.stateRecordKey().orElseThrow())
        .isEqualTo(
            PluginConfig.from(Map.of(PluginConfig.STATE_SECRET, "0123456789abcdef-state"))
                .stateRecordKey()
                .orElseThrow());
    // And without either there is no key, and a short state secret is refused
    assertThat(PluginConfig.from(Map.of()).stateRecordKey()).isEmpty();
    assertThatThrownBy(
            () -> PluginConfig.from(Map.of(PluginConfig.STATE_SECRET, "short")).stateRecordKey())
        .hasMessageContaining("at least 16 characters");
  }
}
