package dev.kafkamirror.operator.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.kafkamirror.operator.api.v1alpha1.ClusterMirrorStatus;
import dev.kafkamirror.operator.api.v1alpha1.Condition;
import dev.kafkamirror.operator.api.v1alpha1.Conditions;
import dev.kafkamirror.operator.api.v1alpha1.MirrorState;
import dev.kafkamirror.operator.core.Reasons;
import dev.kafkamirror.testing.kafka.KafkaCluster;
import dev.kafkamirror.testing.kafka.TestClients;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * A source that stops answering is reported, not hidden behind {@code Mirroring=True} (in-process
 * operator, a real kube-apiserver, a real single-node source and a real plugin destination): after
 * the plugin's silence bound (30 s) and the operator's (2 minutes) the mirror is {@code
 * Degraded=True} with reason {@code SourceNotAnswering}, not Stalled, and it recovers by itself
 * once the source answers again.
 */
class SourceSilenceIT {

  private static final String NS = "silence";
  private static final String NAME = "orders-mirror";
  private static final String TOPIC = "orders";

  private static OperatorTestEnvironment env;
  private static KubernetesClient client;
  private static KafkaCluster source;
  private static KafkaCluster destination;

  @BeforeAll
  static void start() throws Exception {
    env = OperatorTestEnvironment.start();
    client = env.client();
    env.installCrdAndNamespaces(NS);
    source = env.startSource("silence-a");
    destination = env.startDestination("silence-b");
    env.startOperator(Map.of("CMO_REQUEUE_MS", "300", "CMO_RESYNC_MS", "1000"));
  }

  @AfterAll
  static void stop() {
    if (env != null) {
      env.close();
    }
  }

  @Test
  void aSourceSilentForTwoMinutesDegradesTheMirrorWithoutStallingItAndItRecovers()
      throws Exception {
    // Given orders mirrored from a source at lag 0
    source.createTopic(TOPIC, 1, 1, Map.of());
    try (KafkaProducer<String, String> p =
        TestClients.idempotentProducer(source.bootstrapServers())) {
      p.send(new ProducerRecord<>(TOPIC, 0, "k", "v")).get();
    }
    client
        .resource(
            MirrorFixtures.clusterMirror(
                NS,
                NAME,
                source,
                source.clusterId(),
                destination,
                MirrorState.Mirroring,
                List.of(TOPIC)))
        .create();
    await()
        .atMost(Duration.ofSeconds(90))
        .pollInterval(Duration.ofMillis(500))
        .untilAsserted(
            () -> {
              ClusterMirrorStatus s = status();
              assertThat(s).isNotNull();
              assertThat(condition(s, Conditions.MIRRORING).getStatus()).isEqualTo(Conditions.TRUE);
              assertThat(s.getMaxLagRecords()).isZero();
            });
    assertThat(condition(status(), Conditions.DEGRADED).getStatus()).isEqualTo(Conditions.FALSE);

    // When the source's only broker stops
    int broker = source.brokerIds().get(0);
    source.stopBroker(broker);

    // Then, after the plugin's 30 s and the operator's 2 minutes, the mirror is Degraded for it,
    // naming the partition and since when; not Stalled: nothing for the operator to retry
    await()
        .atMost(Duration.ofMinutes(4))
        .pollInterval(Duration.ofSeconds(2))
        .untilAsserted(
            () -> {
              Condition degraded = condition(status(), Conditions.DEGRADED);
              assertThat(degraded.getStatus())
                  .as("Degraded: %s", degraded.getMessage())
                  .isEqualTo(Conditions.TRUE);
              assertThat(degraded.getReason()).isEqualTo(Reasons.SOURCE_NOT_ANSWERING);
            });
    ClusterMirrorStatus silent = status();
    assertThat(condition(silent, Conditions.DEGRADED).getMessage())
        .contains("1 of 1 mirroring partitions", "orders-0", "silent since");
    assertThat(condition(silent, Conditions.STALLED).getStatus()).isEqualTo(Conditions.FALSE);
    assertThat(silent.getMaxLagRecords()).isNull();

    // When the source broker is back
    source.restartBroker(broker);

    // Then the mirror recovers by itself: not Degraded, lag 0 again
    await()
        .atMost(Duration.ofMinutes(2))
        .pollInterval(Duration.ofSeconds(1))
        .untilAsserted(
            () -> {
              ClusterMirrorStatus s = status();
              assertThat(condition(s, Conditions.DEGRADED).getStatus())
                  .as("Degraded: %s", condition(s, Conditions.DEGRADED).getMessage())
                  .isEqualTo(Conditions.FALSE);
              assertThat(s.getMaxLagRecords()).isZero();
            });
  }

  private static ClusterMirrorStatus status() {
    return MirrorFixtures.status(client, NS, NAME);
  }

  private static Condition condition(ClusterMirrorStatus s, String type) {
    return Conditions.find(s, type)
        .orElseThrow(() -> new AssertionError("no condition " + type + " in " + s));
  }
}
