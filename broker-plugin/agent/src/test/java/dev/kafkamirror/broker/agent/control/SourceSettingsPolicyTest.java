package dev.kafkamirror.broker.agent.control;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.kafkamirror.contract.ControlCall;
import dev.kafkamirror.contract.RequestError;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** Least power for the control secret: a start may not make the broker load code. */
class SourceSettingsPolicyTest {

  private static final String SCRAM =
      "org.apache.kafka.common.security.scram.ScramLoginModule required username=\"u\""
          + " password=\"p;a\\\"ss\";";

  private static String start(String propertiesJson) {
    return "{\"partitions\":[{\"topic\":\"t\",\"partition\":0}],\"mirrorName\":\"m\","
        + "\"source\":{\"bootstrapServers\":\"a:9092\",\"properties\":"
        + propertiesJson
        + "}}";
  }

  /** {@code text} as the inside of a JSON string. */
  private static String json(String text) {
    return text.replace("\\", "\\\\").replace("\"", "\\\"");
  }

  private static ControlRequests.Parsed parse(ControlRequests requests, String body)
      throws ControlRequestException {
    return requests.parse(body.getBytes(StandardCharsets.UTF_8), ControlCall.START_MIRRORING);
  }

  @Test
  void settingsThatNameClassesAreRefusedNamingTheKey() {
    ControlRequests strict = new ControlRequests();
    for (String key :
        new String[] {
          "sasl.login.callback.handler.class",
          "sasl.client.callback.handler.class",
          "sasl.login.class",
          "ssl.engine.factory.class",
          "sasl.kerberos.kinit.cmd"
        }) {
      // When a start passes the setting
      // Then it is a 403 FORBIDDEN_SETTING naming the key and the broker setting that allows it
      assertThatThrownBy(() -> parse(strict, start("{\"" + key + "\":\"com.evil.Thing\"}")))
          .isInstanceOfSatisfying(
              ControlRequestException.class,
              e -> {
                assertThat(e.code()).isEqualTo(RequestError.Code.FORBIDDEN_SETTING);
                assertThat(e.status()).isEqualTo(403);
              })
          .hasMessageContaining("source.properties." + key)
          .hasMessageContaining(SourceSettingsPolicy.ALLOWED_CLASS_SETTINGS)
          .hasMessageNotContaining("com.evil.Thing");
    }
  }

  @Test
  void aNonStandardLoginModuleIsRefusedAndTheStandardOnesPass() throws Exception {
    ControlRequests strict = new ControlRequests();
    String evil = "{\"sasl.jaas.config\":\"" + json(SCRAM) + " com.evil.Module required;\"}";
    assertThatThrownBy(() -> parse(strict, start(evil)))
        .isInstanceOfSatisfying(
            ControlRequestException.class,
            e -> assertThat(e.code()).isEqualTo(RequestError.Code.FORBIDDEN_SETTING))
        .hasMessageContaining("source.properties.sasl.jaas.config")
        .hasMessageContaining("com.evil.Module")
        .hasMessageNotContaining("p;a");
    // A standard module with a password containing ';' and quotes passes
    ControlRequests.Parsed ok =
        parse(strict, start("{\"sasl.jaas.config\":\"" + json(SCRAM) + "\"}"));
    assertThat(ok.source().properties()).containsEntry("sasl.jaas.config", SCRAM);
    // Something that is no JAAS configuration at all is a 400
    assertThatThrownBy(() -> parse(strict, start("{\"sasl.jaas.config\":\"just some text\"}")))
        .isInstanceOfSatisfying(
            ControlRequestException.class,
            e -> assertThat(e.code()).isEqualTo(RequestError.Code.INVALID_REQUEST));
  }

  @Test
  void theBrokersConfigurationCanAllowASettingAndAModuleByName() throws Exception {
    SourceSettingsPolicy policy =
        SourceSettingsPolicy.from(
            Map.of(
                SourceSettingsPolicy.ALLOWED_CLASS_SETTINGS,
                "sasl.login.callback.handler.class",
                SourceSettingsPolicy.ALLOWED_LOGIN_MODULES,
                "com.corp.sso.LoginModule"));
    ControlRequests allowing = new ControlRequests(policy);
    ControlRequests.Parsed parsed =
        parse(
            allowing,
            start(
                "{\"sasl.login.callback.handler.class\":\"com.corp.Handler\","
                    + "\"sasl.jaas.config\":\"com.corp.sso.LoginModule required;\"}"));
    assertThat(parsed.source().properties())
        .containsKeys("sasl.login.callback.handler.class", "sasl.jaas.config");
    // Other class settings stay refused
    assertThatThrownBy(
            () -> parse(allowing, start("{\"ssl.engine.factory.class\":\"com.corp.Engine\"}")))
        .hasMessageContaining("ssl.engine.factory.class");
    assertThat(SourceSettingsPolicy.STRICT).isNotNull();
    assertThat(new SourceSettingsPolicy(Set.of(), Set.of())).isNotNull();
  }
}
