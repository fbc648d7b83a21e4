package dev.kafkamirror.operator.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.kafkamirror.operator.api.v1alpha1.ClusterMirror;
import dev.kafkamirror.operator.api.v1alpha1.Condition;
import dev.kafkamirror.operator.api.v1alpha1.Conditions;
import dev.kafkamirror.operator.api.v1alpha1.MirrorState;
import dev.kafkamirror.testing.kafka.KafkaCluster;
import dev.kafkamirror.testing.plugin.PluginControlClient;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The control secret rotated during mirroring, on the broker (its secret file, re-read without a
 * restart, the old secret accepted only during a short grace) and in the Kubernetes Secret the
 * ClusterMirror names; the operator process follows the change and the stop that comes after
 * completes with the new secret only.
 */
class ControlSecretRotationIT {

  private static final Duration WAIT = Duration.ofSeconds(120);
  private static final String NS = "rotate";
  private static final String NEW_SECRET = "rotated-control-secret-0123456789";

  private static OperatorTestEnvironment env;
  private static KubernetesClient client;
  private static KafkaCluster source;
  private static KafkaCluster destination;
  private static Path secretFile;

  @BeforeAll
  static void start() throws Exception {
    env = OperatorTestEnvironment.start();
    client = env.client();
    env.installCrdAndNamespaces(NS);
    source = env.startSource("rotate-a");
    secretFile = Files.createTempFile("cmo-control-secret", ".txt");
    Files.writeString(secretFile, PluginControlClient.TEST_SECRET);
    destination =
        env.startCluster(
            MirrorFixtures.destination("rotate-b")
                .brokerProperty("cluster.mirror.control.secret.file", secretFile.toString())
                .brokerProperty("cluster.mirror.control.secret.rotation.grace.ms", "2000")
                .singleNode());
    env.startOperator(Map.of("CMO_REQUEUE_MS", "300", "CMO_RESYNC_MS", "1000"));
  }

  @AfterAll
  static void stop() throws Exception {
    if (env != null) {
      env.close();
    }
    if (secretFile != null) {
      Files.deleteIfExists(secretFile);
    }
  }

  @Test
  void theOperatorFollowsARotatedControlSecretThroughMirroringAndTheStop() throws Exception {
    // Given a mirror that is Mirroring with the first secret
    String topic = "rotated";
    source.createTopic(topic, 1, 1, Map.of());
    List<String> committed = SourceData.write(source, topic, 1, 10, 0, "a");
    client
        .resource(
            MirrorFixtures.clusterMirror(
                NS,
                "rot",
                source,
                source.clusterId(),
                destination,
                MirrorState.Mirroring,
                List.of(topic)))
        .create();
    awaitCondition(Conditions.MIRRORING, Conditions.TRUE);

    // When the secret is rotated on the broker and in the Secret, and the grace has passed
    Files.writeString(secretFile, NEW_SECRET);
    client
        .secrets()
        .inNamespace(NS)
        .withName(MirrorFixtures.SECRET_NAME)
        .edit(
            s -> {
              s.setData(null);
              s.setStringData(Map.of(MirrorFixtures.SECRET_KEY, NEW_SECRET));
              return s;
            });
    String endpoint =
        destination.listenerOf(
            destination.brokerIds().get(0), PluginControlClient.LISTENER_PROPERTY);
    PluginControlClient oldSecret =
        new PluginControlClient(endpoint, PluginControlClient.TEST_SECRET);
    PluginControlClient newSecret = new PluginControlClient(endpoint, NEW_SECRET);
    await()
        .atMost(WAIT)
        .untilAsserted(() -> assertThat(oldSecret.describe(topic, 0).status()).isEqualTo(401));
    assertThat(newSecret.describe(topic, 0).status()).isEqualTo(200);

    // Then the operator keeps reaching the broker: still Mirroring, not Degraded, several rounds on
    Thread.sleep(3_000);
    awaitCondition(Conditions.MIRRORING, Conditions.TRUE);
    awaitCondition(Conditions.DEGRADED, Conditions.FALSE);

    // And a stop completes with the new secret only, behind the barrier, every record present
    client
        .resources(ClusterMirror.class)
        .inNamespace(NS)
        .withName("rot")
        .edit(
            cr -> {
              cr.getSpec().setState(MirrorState.Stopped);
              return cr;
            });
    awaitCondition(Conditions.STOPPED, Conditions.TRUE);
    assertThat(newSecret.describe(topic, 0).result(topic, 0).path("mirror").path("state").asText())
        .isEqualTo("STOPPED");
    assertThat(
            dev.kafkamirror.testing.kafka.TestClients.values(
                dev.kafkamirror.testing.kafka.TestClients.readAll(
                    destination.bootstrapServers(),
                    topic,
                    org.apache.kafka.common.IsolationLevel.READ_COMMITTED,
                    Duration.ofSeconds(30))))
        .containsExactlyElementsOf(committed);
  }

  private static void awaitCondition(String type, String value) {
    await()
        .atMost(WAIT)
        .pollInterval(Duration.ofMillis(200))
        .untilAsserted(
            () -> {
              ClusterMirror cr =
                  client.resources(ClusterMirror.class).inNamespace(NS).withName("rot").get();
              assertThat(cr.getStatus()).isNotNull();
              Optional<Condition> c = Conditions.find(cr.getStatus(), type);
              assertThat(c).as("%s in %s", type, cr.getStatus().getConditions()).isPresent();
              assertThat(c.get().getStatus())
                  .as("%s: %s %s", type, c.get().getReason(), c.get().getMessage())
                  .isEqualTo(value);
              assertThat(c.get().getObservedGeneration())
                  .isEqualTo(cr.getMetadata().getGeneration());
            });
  }
}
