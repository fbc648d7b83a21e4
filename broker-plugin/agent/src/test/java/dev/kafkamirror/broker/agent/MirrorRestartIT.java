package dev.kafkamirror.broker.agent;

import static dev.kafkamirror.broker.agent.MirrorOps.control;
import static dev.kafkamirror.broker.agent.MirrorOps.logEnd;
import static dev.kafkamirror.broker.agent.MirrorOps.mirrorAndCatchUp;
import static dev.kafkamirror.broker.agent.ProducerWrites.newProducerWrites;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import dev.kafkamirror.testing.kafka.KafkaCluster;
import java.nio.file.Files;
import java.time.Duration;
import java.util.Map;
import org.apache.kafka.common.InvalidRecordException;
import org.junit.jupiter.api.Test;

/**
 * A destination broker killed while mirroring comes back read-only and mirroring, before anyone
 * re-registers it.
 */
class MirrorRestartIT {

  @Test
  void aRestartedDestinationStaysReadOnlyAndResumesMirroring() throws Exception {
    String topic = "survives-restart";
    try (KafkaCluster a = AgentClusters.withAgent("restart-a").singleNode().start();
        KafkaCluster b = AgentClusters.withAgent("restart-b").singleNode().start()) {
      // Given B mirrors A
      a.createTopic(topic, 1, 1, Map.of());
      newProducerWrites(a.bootstrapServers(), topic, 10, 10);
      mirrorAndCatchUp(a, b, "a-to-b", topic);
      assertThat(b.logDir(1).resolve("cluster-mirror-registry.json")).exists();
      assertThat(Files.readString(b.logDir(1).resolve("cluster-mirror-registry.json")))
          .contains("\"mirrorName\" : \"a-to-b\"")
          .contains("\"state\" : \"MIRRORING\"");

      // When B is killed and restarted, with nobody registering the mirror again
      b.killBroker(1);
      b.restartBroker(1);

      // Then clients still cannot write to the mirror
      assertThatThrownBy(() -> newProducerWrites(b.bootstrapServers(), topic, 1, 10))
          .hasRootCauseInstanceOf(InvalidRecordException.class)
          .rootCause()
          .hasMessageContaining("read-only mirror of a-to-b");
      // And it keeps mirroring what A gets next
      newProducerWrites(a.bootstrapServers(), topic, 10, 10);
      long end = logEnd(a, topic);
      await()
          .atMost(Duration.ofSeconds(60))
          .untilAsserted(
              () -> {
                JsonNode d = control(b).describe(topic, 0).result(topic, 0);
                assertThat(d.get("highWatermark").asLong()).as(d.toString()).isEqualTo(end);
                assertThat(d.get("mirror").get("state").asText()).isEqualTo("MIRRORING");
              });
    }
  }
}
