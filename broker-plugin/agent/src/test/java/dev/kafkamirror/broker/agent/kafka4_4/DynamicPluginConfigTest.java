package dev.kafkamirror.broker.agent.kafka4_4;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.kafkamirror.broker.agent.KafkaBinding.BrokerConfigListener;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.Function;
import org.apache.kafka.common.config.ConfigException;
import org.apache.kafka.common.config.types.Password;
import org.junit.jupiter.api.Test;

/**
 * What Kafka sees of the plugin's decisions on a dynamic broker config: only a {@link
 * ConfigException} from validation (a failure to judge is a refusal: fail closed), and nothing from
 * {@code reconfigure}.
 */
class DynamicPluginConfigTest {

  /** Judges with {@code judge}; records what is applied; optionally fails when applying. */
  private static final class Judging implements BrokerConfigListener {
    final Function<Map<String, String>, Optional<String>> judge;
    final RuntimeException onApply;
    final List<Map<String, String>> applied = new ArrayList<>();

    Judging(Function<Map<String, String>, Optional<String>> judge, RuntimeException onApply) {
      this.judge = judge;
      this.onApply = onApply;
    }

    @Override
    public void brokerConfigured(Map<String, String> settings) {}

    @Override
    public void brokerConfigUnreadable(String reason) {}

    @Override
    public Optional<String> dynamicRefusal(Map<String, String> proposed) {
      return judge.apply(proposed);
    }

    @Override
    public void dynamicConfigApplied(Map<String, String> proposed) {
      applied.add(proposed);
      if (onApply != null) {
        throw onApply;
      }
    }
  }

  private static DynamicPluginConfig with(Judging listener) {
    return new DynamicPluginConfig(listener, Set.of("cluster.mirror.state.topic"));
  }

  @Test
  void aRefusalReachesKafkaAsAConfigExceptionWithThePluginsMessage() {
    DynamicPluginConfig config =
        with(new Judging(p -> Optional.of("broker 1 refuses cluster.mirror.state.topic"), null));
    assertThatThrownBy(() -> config.validateReconfiguration(Map.of("cluster.mirror.x", "y")))
        .isInstanceOf(ConfigException.class)
        .hasMessage("broker 1 refuses cluster.mirror.state.topic");
  }

  @Test
  void aChangeThePluginCannotJudgeIsRefused() {
    // Given a judge that fails with an exception, or with an Error
    DynamicPluginConfig failing =
        with(
            new Judging(
                p -> {
                  throw new IllegalStateException("boom");
                },
                null));
    // Then Kafka is told the change is refused
    assertThatThrownBy(() -> failing.validateReconfiguration(Map.of()))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("could not check");
    DynamicPluginConfig erring =
        with(
            new Judging(
                p -> {
                  throw new StackOverflowError("deep");
                },
                null));
    assertThatThrownBy(() -> erring.validateReconfiguration(Map.of()))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("StackOverflowError");
  }

  @Test
  void anAcceptedChangeIsAppliedWithEveryValueAsAStringAndAFailureStaysInThePlugin() {
    // Given a judge that accepts, and an apply step that fails
    Judging listener = new Judging(p -> Optional.empty(), new IllegalStateException("boom"));
    DynamicPluginConfig config = with(listener);
    Map<String, Object> proposed =
        Map.of(
            "cluster.mirror.source.allowed.login.modules",
            "a.B",
            "ssl.key.password",
            new Password("pw"),
            "num.io.threads",
            8);
    // Then validation passes, and reconfigure throws nothing into Kafka
    assertThatCode(() -> config.validateReconfiguration(proposed)).doesNotThrowAnyException();
    assertThatCode(() -> config.reconfigure(proposed)).doesNotThrowAnyException();
    // And the plugin saw the values as strings, a Password as its value
    assertThat(listener.applied)
        .containsExactly(
            Map.of(
                "cluster.mirror.source.allowed.login.modules",
                "a.B",
                "ssl.key.password",
                "pw",
                "num.io.threads",
                "8"));
    assertThat(config.reconfigurableConfigs()).containsExactly("cluster.mirror.state.topic");
  }
}
