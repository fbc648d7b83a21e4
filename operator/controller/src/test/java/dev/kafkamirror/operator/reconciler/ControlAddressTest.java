package dev.kafkamirror.operator.reconciler;

import static org.assertj.core.api.Assertions.assertThat;

import dev.kafkamirror.operator.core.TopicSelector;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import org.junit.jupiter.api.Test;

class ControlAddressTest {

  private static ResolvedMirror mirror(Map<Integer, String> overrides) {
    return new ResolvedMirror(
        "m",
        "a:9092",
        null,
        TopicSelector.of(List.of("orders"), List.of(), List.of()),
        "secret-0123456789abcdef",
        null,
        9095,
        overrides,
        new Properties(),
        new Properties(),
        Map.of());
  }

  @Test
  void anOverrideIsUsedOnlyOnTheHostTheMetadataGivesForThatBroker() {
    Map<Integer, String> hosts = Map.of(1, "10.0.0.1", 2, "kafka-b-2.kafka", 3, "fd00::3");
    ResolvedMirror m =
        mirror(Map.of(1, "10.0.0.1:19095", 2, "attacker.example.com:9095", 3, "[fd00::3]:9096"));
    assertThat(m.controlAddress(1, hosts)).isEqualTo("10.0.0.1:19095");
    assertThat(m.controlAddress(2, hosts)).isNull();
    assertThat(m.controlAddress(3, hosts)).isEqualTo("[fd00::3]:9096");
  }

  @Test
  void aBrokerTheMetadataDoesNotReportIsNeverCalledEvenWithAnOverride() {
    ResolvedMirror m = mirror(Map.of(7, "10.0.0.7:9095"));
    assertThat(m.controlAddress(7, Map.of(1, "10.0.0.1"))).isNull();
    assertThat(m.controlAddress(1, Map.of(1, "10.0.0.1"))).isEqualTo("10.0.0.1:9095");
  }
}
