package dev.kafkamirror.broker.agent;

import static dev.kafkamirror.broker.agent.ProducerWrites.newProducerWrites;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import dev.kafkamirror.testing.kafka.KafkaCluster;
import dev.kafkamirror.testing.kafka.TestClients;
import dev.kafkamirror.testing.plugin.PluginControlClient;
import java.time.Duration;
import java.util.Map;
import org.apache.kafka.common.IsolationLevel;
import org.junit.jupiter.api.Test;

/** What the agent does where it must not act: an unsupported Kafka, and the rule switched off. */
class AgentGuardIT {

  @Test
  void refusesToInstrumentAnUnsupportedKafkaAndLeavesTheBrokerRunning() throws Exception {
    // Given a stock Kafka 4.3.1 broker started with the agent attached
    try (KafkaCluster cluster =
        AgentClusters.withAgent("kafka-4-3").kafkaVersion("4.3.1").singleNode().start()) {
      // Then the agent says why it does nothing, and transforms no class
      String log = cluster.node(1).outputSinceStart();
      assertThat(log)
          .contains(
              "cluster mirror agent: Kafka 4.3.1 is not a supported version (supported: [4.4.*])")
          .contains("not instrumenting, the broker runs unmodified");
      assertThat(log).doesNotContain("cluster mirror agent: instrumented");
      // And no control endpoint answers
      PluginControlClient control =
          new PluginControlClient(
              cluster.listenerOf(1, PluginControlClient.LISTENER_PROPERTY),
              PluginControlClient.TEST_SECRET);
      assertThatThrownBy(() -> control.describe("anything", 0)).hasMessageContaining("failed");
      // And the broker serves producers and consumers as usual
      cluster.createTopic("plain", 1, 1, Map.of());
      newProducerWrites(cluster.bootstrapServers(), "plain", 10, 10);
      assertThat(
              TestClients.readAll(
                  cluster.bootstrapServers(),
                  "plain",
                  IsolationLevel.READ_COMMITTED,
                  Duration.ofSeconds(60)))
          .hasSize(10);
    }
  }

  @Test
  void withTheRuleSwitchedOffProducerStateSurvivesTheBarrierAsInStockKafka() throws Exception {
    // Given a broker with the agent but cluster.mirror.barrier.rule.enable=false
    try (KafkaCluster cluster =
        AgentClusters.withAgent("rule-off")
            .singleNode()
            .brokerProperty(PluginConfig.BARRIER_RULE_ENABLE, "false")
            .start()) {
      assertThat(cluster.node(1).outputSinceStart()).contains("MIRROR_PID_RESET rule DISABLED");
      String topic = "rule-off";
      cluster.createTopic(topic, 1, 1, Map.of());
      newProducerWrites(cluster.bootstrapServers(), topic, 3, 10);
      newProducerWrites(cluster.bootstrapServers(), topic, 3, 10);
      PluginControlClient control =
          new PluginControlClient(
              cluster.listenerOf(1, PluginControlClient.LISTENER_PROPERTY),
              PluginControlClient.TEST_SECRET);

      // When a barrier is written
      JsonNode written = control.barrier(topic, "cluster-A", 0).result(topic, 0);
      assertThat(written.get("appended").asBoolean()).isTrue();

      // Then, as stock Kafka would, both producers are still in producer state
      JsonNode after = control.describe(topic, 0).result(topic, 0);
      assertThat(after.get("producerEntries").asInt()).isEqualTo(2);
      assertThat(after.get("barrierResets")).isEmpty();
      assertThat(after.get("barrierRuleEnabled").asBoolean()).isFalse();
    }
  }
}
