package dev.kafkamirror.broker.agent;

import static org.assertj.core.api.Assertions.assertThat;

import dev.kafkamirror.broker.agent.control.SourceSettingsPolicy;
import java.util.HashMap;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

class DynamicSettingsTest {

  private static final String LIVE_KEY = SourceSettingsPolicy.ALLOWED_CLASS_SETTINGS;
  private static final Map<String, String> STARTUP =
      Map.of(
          "node.id",
          "3",
          PluginConfig.CONTROL_SECRET,
          "start-up-secret-0123456789",
          PluginConfig.STATE_TOPIC_PARTITIONS,
          "10",
          "log.retention.ms",
          "1000");

  private static Map<String, String> with(String key, String value) {
    Map<String, String> proposed = new HashMap<>(STARTUP);
    proposed.put(key, value);
    return proposed;
  }

  @Test
  void eachKeyIsLiveStartOnlyOrSecret() {
    // Then the allowed lists of the source settings policy are the live keys
    assertThat(DynamicSettings.kind(SourceSettingsPolicy.ALLOWED_CLASS_SETTINGS))
        .isEqualTo(DynamicSettings.Kind.LIVE);
    assertThat(DynamicSettings.kind(SourceSettingsPolicy.ALLOWED_LOGIN_MODULES))
        .isEqualTo(DynamicSettings.Kind.LIVE);
    // And the secrets, inline or under the client and TLS prefixes, are secrets
    for (String secret :
        new String[] {
          PluginConfig.CONTROL_SECRET,
          PluginConfig.STATE_SECRET,
          PluginConfig.LOCAL_CLIENT_PREFIX + "sasl.jaas.config",
          PluginConfig.LOCAL_CLIENT_PREFIX + "ssl.key.password",
          PluginConfig.LOCAL_CLIENT_PREFIX + "sasl.oauthbearer.client.credentials.client.secret",
          "cluster.mirror.control.ssl.keystore.password",
          "cluster.mirror.control.ssl.keystore.key",
          "cluster.mirror.control.ssl.truststore.password"
        }) {
      assertThat(DynamicSettings.kind(secret)).as(secret).isEqualTo(DynamicSettings.Kind.SECRET);
    }
    // And what the plugin builds once at start is start-only, the secret files and typos too
    for (String startOnly :
        new String[] {
          PluginConfig.CONTROL_LISTENER,
          PluginConfig.STATE_TOPIC,
          PluginConfig.STATE_TOPIC_PARTITIONS,
          PluginConfig.BARRIER_RULE_ENABLE,
          PluginConfig.CONTROL_SECRET_FILE,
          PluginConfig.STATE_SECRET_FILE,
          PluginConfig.LOCAL_BOOTSTRAP,
          PluginConfig.LOCAL_CLIENT_PREFIX + "security.protocol",
          "cluster.mirror.control.ssl.keystore.location",
          "cluster.mirror.control.threads",
          "cluster.mirror.statetopic"
        }) {
      assertThat(DynamicSettings.kind(startOnly))
          .as(startOnly)
          .isEqualTo(DynamicSettings.Kind.START_ONLY);
    }
  }

  @Test
  void kafkaIsAskedAboutEveryNamedSettingAndEveryClientAndTlsSettingUnderThePrefixes() {
    Set<String> watched = DynamicSettings.watchedKeys();
    assertThat(watched)
        .containsAll(DynamicSettings.KEYS)
        .contains(
            PluginConfig.LOCAL_CLIENT_PREFIX + "sasl.jaas.config",
            PluginConfig.LOCAL_CLIENT_PREFIX + "ssl.truststore.password",
            PluginConfig.LOCAL_CLIENT_PREFIX + "bootstrap.servers",
            "cluster.mirror.control.ssl.keystore.password",
            "cluster.mirror.control.ssl.client.auth");
    assertThat(watched).allMatch(k -> k.startsWith(DynamicSettings.PLUGIN_PREFIX));
  }

  @Test
  void aChangeOfALiveSettingOrOfAKafkaSettingIsAccepted() {
    assertThat(DynamicSettings.refusal(with(LIVE_KEY, "sasl.login.class"), STARTUP, Set.of(), 3))
        .isEmpty();
    assertThat(DynamicSettings.refusal(with("log.retention.ms", "5"), STARTUP, Set.of(), 3))
        .isEmpty();
    // And the start-up values themselves, which Kafka always passes along, are no change
    assertThat(DynamicSettings.refusal(STARTUP, STARTUP, Set.of(), 3)).isEmpty();
  }

  @Test
  void aStartOnlySettingIsRefusedNamingTheKeyTheBrokerAndTheFix() {
    // When the partition count of the state topic changes dynamically
    String why =
        DynamicSettings.refusal(
                with(PluginConfig.STATE_TOPIC_PARTITIONS, "3"), STARTUP, Set.of(), 3)
            .orElseThrow();
    // Then the refusal names the key, the broker and the fix, and not the value
    assertThat(why)
        .contains(PluginConfig.STATE_TOPIC_PARTITIONS)
        .contains("broker 3")
        .contains("set them in server.properties and roll the brokers")
        .contains("--delete-config");
    // And a start-only key that appears (not set at start) is refused too
    assertThat(DynamicSettings.refusal(with(PluginConfig.STATE_TOPIC, "t"), STARTUP, Set.of(), 3))
        .isPresent();
  }

  @Test
  void aSecretIsRefusedPointingToTheSecretFilesAndConfigProvidersWithoutItsValue() {
    String value = "dynamic-secret-0123456789";
    String key = PluginConfig.LOCAL_CLIENT_PREFIX + "sasl.jaas.config";
    String why = DynamicSettings.refusal(with(key, value), STARTUP, Set.of(), 3).orElseThrow();
    assertThat(why)
        .contains(key)
        .contains("config provider")
        .contains(PluginConfig.CONTROL_SECRET_FILE)
        .contains("rotate")
        .doesNotContain(value);
    // And so is a changed or removed control secret
    Map<String, String> removed = new HashMap<>(STARTUP);
    removed.remove(PluginConfig.CONTROL_SECRET);
    assertThat(DynamicSettings.refusal(removed, STARTUP, Set.of(), 3).orElseThrow())
        .contains(PluginConfig.CONTROL_SECRET)
        .doesNotContain("start-up-secret-0123456789");
  }

  @Test
  void aLiveSettingTheAgentArgumentsSetIsRefusedBecauseTheyWin() {
    assertThat(
            DynamicSettings.refusal(
                    with(LIVE_KEY, "sasl.login.class"), STARTUP, Set.of(LIVE_KEY), 3)
                .orElseThrow())
        .contains(LIVE_KEY)
        .contains("agent arguments");
  }

  @Test
  void theAppliedSettingsTakeOnlyLiveKeysFromTheChangeAndTheAgentArgumentsWin() {
    Map<String, String> proposed = with(LIVE_KEY, "sasl.login.class");
    proposed.put(PluginConfig.STATE_TOPIC_PARTITIONS, "3");
    Map<String, String> applied = DynamicSettings.applied(proposed, STARTUP, Map.of());
    assertThat(applied)
        .containsEntry(LIVE_KEY, "sasl.login.class")
        .containsEntry(PluginConfig.STATE_TOPIC_PARTITIONS, "10");
    // And a live key deleted dynamically falls back to its start-up value (here: none)
    assertThat(DynamicSettings.applied(STARTUP, STARTUP, Map.of())).doesNotContainKey(LIVE_KEY);
    // And the agent arguments win
    assertThat(DynamicSettings.applied(proposed, STARTUP, Map.of(LIVE_KEY, "x")))
        .containsEntry(LIVE_KEY, "x");
  }
}
