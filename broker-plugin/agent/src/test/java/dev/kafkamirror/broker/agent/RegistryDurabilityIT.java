package dev.kafkamirror.broker.agent;

import static dev.kafkamirror.broker.agent.MirrorOps.control;
import static dev.kafkamirror.broker.agent.MirrorOps.mirrorAndCatchUp;
import static dev.kafkamirror.broker.agent.ProducerWrites.newProducerWrites;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import dev.kafkamirror.testing.kafka.KafkaCluster;
import dev.kafkamirror.testing.kafka.KafkaClusterConfig;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.Map;
import org.apache.kafka.common.InvalidRecordException;
import org.junit.jupiter.api.Test;

/**
 * A registry file cut short by power loss (empty, or half written) never starts a broker with its
 * mirrors writable: it refuses client writes until it has read the cluster's mirror membership,
 * then serves from it.
 */
class RegistryDurabilityIT {

  @Test
  void anEmptyOrHalfRegistryFileStillRefusesClientWrites() throws Exception {
    String topic = "power-loss";
    try (KafkaCluster a = KafkaCluster.start(KafkaClusterConfig.builder("rd-src").build());
        KafkaCluster b = AgentClusters.withAgent("rd-dst").singleNode().start()) {
      // Given B mirrors A
      a.createTopic(topic, 1, 1, Map.of());
      newProducerWrites(a.bootstrapServers(), topic, 10, 10);
      mirrorAndCatchUp(a, b, "a-to-b", topic);
      Path registry = b.logDir(1).resolve("cluster-mirror-registry.json");

      for (String cut : new String[] {"empty", "half"}) {
        // When B loses power and its registry file comes back empty, or cut in half
        b.killBroker(1);
        long size = Files.size(registry);
        assertThat(size).as("registry before the cut").isGreaterThan(10);
        try (FileChannel ch = FileChannel.open(registry, StandardOpenOption.WRITE)) {
          ch.truncate(cut.equals("empty") ? 0 : size / 2);
        }
        b.restartBroker(1);

        // Then clients still cannot write to the mirror
        assertThatThrownBy(() -> newProducerWrites(b.bootstrapServers(), topic, 1, 10))
            .as("registry " + cut)
            .hasRootCauseInstanceOf(InvalidRecordException.class)
            .rootCause()
            .hasMessageContaining("read-only mirror of a-to-b");
        // And the broker says why, and knows the mirror again from the cluster's record
        assertThat(b.node(1).outputSinceStart()).contains("cluster-mirror-registry.json");
        await()
            .atMost(Duration.ofSeconds(60))
            .untilAsserted(
                () -> {
                  JsonNode d = control(b).describe(topic, 0).result(topic, 0);
                  assertThat(d.get("clusterMembership").get("registryUnreadable").asText())
                      .as(d.toString())
                      .contains("cluster-mirror-registry.json");
                  assertThat(d.get("mirror").get("knownFrom").asText()).isEqualTo("cluster-record");
                  assertThat(d.get("mirror").get("state").asText()).isEqualTo("MIRRORING");
                });
        // And the registry file is whole again, naming the mirror
        assertThat(Files.readString(registry)).contains("\"mirrorName\" : \"a-to-b\"");
      }
    }
  }
}
