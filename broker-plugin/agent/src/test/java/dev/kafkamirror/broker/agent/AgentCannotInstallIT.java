package dev.kafkamirror.broker.agent;

import static dev.kafkamirror.broker.agent.MirrorOps.mirrorAndCatchUp;
import static dev.kafkamirror.broker.agent.ProducerWrites.newProducerWrites;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.kafkamirror.testing.kafka.KafkaCluster;
import dev.kafkamirror.testing.kafka.KafkaClusterConfig;
import dev.kafkamirror.testing.plugin.PluginControlClient;
import java.nio.file.Files;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * An agent that cannot install (an unsupported Kafka, a bad setting) on a broker that holds mirror
 * partitions refuses to start the broker, saying what to fix, unless the documented override is
 * set; a broker without mirrors starts unmodified as before (see {@link AgentGuardIT}).
 */
class AgentCannotInstallIT {

  private static final String REGISTRY =
      "[ {\n"
          + "  \"topic\" : \"orders\",\n"
          + "  \"partition\" : 0,\n"
          + "  \"mirrorName\" : \"a-to-b\",\n"
          + "  \"state\" : \"MIRRORING\",\n"
          + "  \"expectedSourceClusterId\" : null,\n"
          + "  \"clientProperties\" : { }\n"
          + "} ]";

  @Test
  void anUnsupportedKafkaWithMirrorPartitionsDoesNotStartUnlessOverridden() throws Exception {
    // Given a Kafka 4.3.1 broker with the agent, whose log dir holds a mirror registration
    try (KafkaCluster cluster =
        AgentClusters.withAgent("k43-mirrors").kafkaVersion("4.3.1").singleNode().start()) {
      cluster.stopBroker(1);
      Files.writeString(cluster.logDir(1).resolve("cluster-mirror-registry.json"), REGISTRY);

      // When it starts again, Then it exits before serving, naming the partition and the fix
      assertThatThrownBy(() -> cluster.restartBroker(1))
          .hasMessageContaining("exited with code 78")
          .hasMessageContaining("REFUSING TO START")
          .hasMessageContaining("Kafka 4.3.1 is not a supported version")
          .hasMessageContaining("orders-0 (mirror a-to-b, MIRRORING")
          .hasMessageContaining("cluster.mirror.agent.allow.unprotected.start=true");

      // When the override is set, Then it starts unprotected and says so
      cluster.setBrokerProperty(1, "cluster.mirror.agent.allow.unprotected.start", "true");
      cluster.restartBroker(1);
      assertThat(cluster.node(1).outputSinceStart()).contains("starting UNPROTECTED");
    }
  }

  @Test
  void aTooShortControlSecretWithMirrorPartitionsDoesNotStartUnlessOverridden() throws Exception {
    String topic = "short-secret";
    try (KafkaCluster a = KafkaCluster.start(KafkaClusterConfig.builder("ss-src").build());
        KafkaCluster b = AgentClusters.withAgent("ss-dst").singleNode().start()) {
      // Given B (Kafka 4.4.0) mirrors A
      a.createTopic(topic, 1, 1, Map.of());
      newProducerWrites(a.bootstrapServers(), topic, 10, 10);
      mirrorAndCatchUp(a, b, "a-to-b", topic);

      // When B restarts with a control secret of 8 characters
      b.stopBroker(1);
      b.setBrokerProperty(1, PluginControlClient.SECRET_PROPERTY, "8-chars!");

      // Then it exits before serving, naming the setting and the mirror partition
      assertThatThrownBy(() -> b.restartBroker(1))
          .hasMessageContaining("exited with code 78")
          .hasMessageContaining("REFUSING TO START")
          .hasMessageContaining("no secret of at least 16 characters")
          .hasMessageContaining(topic + "-0 (mirror a-to-b, MIRRORING");

      // When the override is set, Then it starts unprotected and says so
      b.setBrokerProperty(1, "cluster.mirror.agent.allow.unprotected.start", "true");
      b.restartBroker(1);
      assertThat(b.node(1).outputSinceStart()).contains("starting UNPROTECTED");
    }
  }
}
