package dev.kafkamirror.broker.agent.kafka4_4;

import static org.assertj.core.api.Assertions.assertThat;

import dev.kafkamirror.broker.agent.KafkaBinding.BrokerConfigListener;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The ReplicaManager advice suppresses whatever escapes it, so every failure on the way to the
 * plugin's settings must reach the start-up guard ({@code brokerConfigUnreadable}) instead.
 */
class BrokerHandlesTest {

  /** Records what it is told; optionally fails when told the settings. */
  private static final class Recording implements BrokerConfigListener {
    final List<String> calls = new ArrayList<>();
    final Throwable onConfigured;

    Recording(Throwable onConfigured) {
      this.onConfigured = onConfigured;
    }

    @Override
    public void brokerConfigured(Map<String, String> settings) {
      calls.add("configured " + settings);
      if (onConfigured instanceof Error e) {
        throw e;
      }
      if (onConfigured instanceof RuntimeException e) {
        throw e;
      }
    }

    @Override
    public void brokerConfigUnreadable(String reason) {
      calls.add("unreadable " + reason);
    }
  }

  @Test
  void readableSettingsAreToldOnce() {
    Recording listener = new Recording(null);
    BrokerHandles.tell(listener, () -> Map.of("node.id", "1"));
    assertThat(listener.calls).containsExactly("configured {node.id=1}");
  }

  @Test
  void anErrorWhileReadingTheConfigurationReachesTheGuard() {
    // Given reading the KafkaConfig fails with an Error, not only an exception
    Recording listener = new Recording(null);
    BrokerHandles.tell(
        listener,
        () -> {
          throw new StackOverflowError("deep");
        });
    // Then the listener hears that the configuration cannot be read, naming the failure
    assertThat(listener.calls).hasSize(1);
    assertThat(listener.calls.get(0))
        .startsWith("unreadable ")
        .contains("cannot be read")
        .contains("StackOverflowError");
  }

  @Test
  void aListenerThatFailsWhileApplyingTheSettingsIsToldTheyAreUnusable() {
    // Given a listener that throws an Error while it applies the settings
    Recording listener = new Recording(new OutOfMemoryError("applying"));
    BrokerHandles.tell(listener, () -> Map.of("node.id", "1"));
    // Then it is told the settings are unusable, so its guard runs, and nothing escapes
    assertThat(listener.calls).hasSize(2);
    assertThat(listener.calls.get(1))
        .startsWith("unreadable ")
        .contains("applying the plugin's settings failed")
        .contains("OutOfMemoryError");
  }
}
