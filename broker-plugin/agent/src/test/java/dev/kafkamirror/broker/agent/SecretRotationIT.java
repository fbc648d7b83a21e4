package dev.kafkamirror.broker.agent;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.kafkamirror.contract.ControlCall;
import dev.kafkamirror.testing.kafka.KafkaCluster;
import dev.kafkamirror.testing.plugin.PluginControlClient;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The control secret rotated on a running broker, during mirroring: the broker re-reads
 * cluster.mirror.control.secret.file, accepts the old and the new secret during the grace, and the
 * stop that follows goes through with the new one.
 */
class SecretRotationIT {

  private static final String TOPIC = "rotation-orders";
  private static final String NEW_SECRET = "rotated-secret-0123456789abcdef";

  private static Path secretFile;
  private static KafkaCluster source;
  private static KafkaCluster destination;

  @BeforeAll
  static void start() throws Exception {
    Path dir = Files.createTempDirectory(Path.of("target"), "rotation");
    secretFile = dir.resolve("control-secret");
    Files.writeString(secretFile, PluginControlClient.TEST_SECRET + "\n");
    source = AgentClusters.withAgent("rotation-a").singleNode().start();
    destination =
        AgentClusters.withAgent("rotation-b")
            .brokerProperty("cluster.mirror.control.secret.file", secretFile.toString())
            .brokerProperty("cluster.mirror.control.secret.rotation.grace.ms", "60000")
            .singleNode()
            .start();
    source.createTopic(TOPIC, 1, 1, Map.of());
    ProducerWrites.newProducerWrites(source.bootstrapServers(), TOPIC, 30, 10);
    MirrorOps.mirrorAndCatchUp(source, destination, "rotation", TOPIC);
  }

  @AfterAll
  static void stop() {
    if (destination != null) {
      destination.close();
    }
    if (source != null) {
      source.close();
    }
  }

  @Test
  void rotatingTheSecretDuringMirroringThenStoppingFailsNothing() throws Exception {
    String hostPort = destination.listenerOf(1, PluginControlClient.LISTENER_PROPERTY);
    PluginControlClient old = new PluginControlClient(hostPort, PluginControlClient.TEST_SECRET);
    PluginControlClient rotated = new PluginControlClient(hostPort, NEW_SECRET);
    assertThat(rotated.describe(TOPIC, 0).status()).isEqualTo(401);
    // When the secret file is rotated while the partition mirrors
    Files.writeString(secretFile, NEW_SECRET + "\n");
    Thread.sleep(1_500L);
    // Then the new secret is accepted, the old one still during the grace, a wrong one never
    assertThat(rotated.describe(TOPIC, 0).status()).isEqualTo(200);
    assertThat(old.describe(TOPIC, 0).status()).isEqualTo(200);
    assertThat(
            new PluginControlClient(hostPort, "wrong-secret-0123456789abcdef")
                .describe(TOPIC, 0)
                .status())
        .isEqualTo(401);
    assertThat(rotated.describe(TOPIC, 0).result(TOPIC, 0).get("mirror").get("state").asText())
        .isEqualTo("MIRRORING");
    // And the whole stop goes through with the new secret
    for (ControlCall step :
        List.of(
            ControlCall.REMOVE_FETCHERS,
            ControlCall.TRUNCATE,
            ControlCall.PERSIST_OFFSETS,
            ControlCall.BARRIER,
            ControlCall.MAKE_WRITABLE)) {
      PluginControlClient.Response response =
          rotated.call(step, TOPIC, step.sourceClusterIdRequired() ? source.clusterId() : null, 0);
      assertThat(response.status()).as(step.name()).isEqualTo(200);
      JsonNode result = response.result(TOPIC, 0);
      assertThat(result.has("error")).as(step + ": " + result).isFalse();
    }
    JsonNode stop = rotated.describe(TOPIC, 0).result(TOPIC, 0).get("stop");
    assertThat(stop.get("step").asText()).isEqualTo("STOPPED");
  }
}
