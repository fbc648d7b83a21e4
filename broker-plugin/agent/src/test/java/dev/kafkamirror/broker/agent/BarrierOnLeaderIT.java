package dev.kafkamirror.broker.agent;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.kafkamirror.testing.kafka.KafkaCluster;
import dev.kafkamirror.testing.kafka.TestClients;
import dev.kafkamirror.testing.plugin.PluginControlClient;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.IsolationLevel;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The barrier written on a leader through the control endpoint, on a real broker with the agent.
 */
class BarrierOnLeaderIT {

  private static KafkaCluster cluster;
  private static PluginControlClient control;

  @BeforeAll
  static void start() {
    cluster = AgentClusters.withAgent("barrier-leader").singleNode().start();
    control =
        new PluginControlClient(
            cluster.listenerOf(1, PluginControlClient.LISTENER_PROPERTY),
            PluginControlClient.TEST_SECRET);
  }

  @AfterAll
  static void stop() {
    if (cluster != null) {
      cluster.close();
    }
  }

  @Test
  void barrierRemovesEveryProducerBeforeItKeepsLaterOnesAndSurvivesKillNine() throws Exception {
    // Given idempotent and transactional producers have written to a partition
    String topic = "leader-barrier";
    cluster.createTopic(topic, 1, 1, Map.of());
    List<String> expected = new ArrayList<>();
    try (KafkaProducer<String, String> idempotent =
        TestClients.idempotentProducer(cluster.bootstrapServers())) {
      for (int i = 0; i < 10; i++) {
        idempotent.send(new ProducerRecord<>(topic, "k", "before-" + i)).get(30, TimeUnit.SECONDS);
        expected.add("before-" + i);
      }
    }
    try (KafkaProducer<String, String> tx =
        TestClients.transactionalProducer(cluster.bootstrapServers(), "leader-barrier-tx")) {
      tx.initTransactions();
      tx.beginTransaction();
      for (int i = 0; i < 5; i++) {
        tx.send(new ProducerRecord<>(topic, "t", "tx-" + i));
        expected.add("tx-" + i);
      }
      TestClients.commitAndAwaitMarkers(tx, cluster.bootstrapServers(), "leader-barrier-tx");
    }
    // And the leader's last stable offset has reached its log end (the markers are replicated).
    org.awaitility.Awaitility.await()
        .atMost(java.time.Duration.ofSeconds(30))
        .until(
            () -> {
              JsonNode d = control.describe(topic, 0).result(topic, 0);
              return d.get("openTransactions").asInt() == 0
                  && d.get("lastStableOffset").asLong() == d.get("logEndOffset").asLong();
            });
    JsonNode before = control.describe(topic, 0).result(topic, 0);
    assertThat(before.has("error")).as(before.toString()).isFalse();
    assertThat(before.get("producerEntries").asInt()).isEqualTo(2);
    long endBefore = before.get("logEndOffset").asLong();

    // When a barrier is written for source cluster "cluster-A"
    PluginControlClient.Response response = control.barrier(topic, "cluster-A", 0);

    // Then it sits at the old log end, durable, and the producer state is empty
    assertThat(response.status()).isEqualTo(200);
    JsonNode result = response.result(topic, 0);
    assertThat(result.has("error")).as(result.toString()).isFalse();
    assertThat(result.get("barrierOffset").asLong()).isEqualTo(endBefore);
    assertThat(result.get("appended").asBoolean()).isTrue();
    assertThat(result.get("highWatermark").asLong()).isEqualTo(endBefore + 1);
    JsonNode after = control.describe(topic, 0).result(topic, 0);
    assertThat(after.get("producerEntries").asInt()).isZero();
    assertThat(after.get("logEndOffset").asLong()).isEqualTo(endBefore + 1);
    assertThat(after.get("barrierResets"))
        .anySatisfy(
            r -> {
              assertThat(r.get("path").asText()).isEqualTo("APPEND");
              assertThat(r.get("barrierOffset").asLong()).isEqualTo(endBefore);
              assertThat(r.get("producersRemoved").asInt()).isEqualTo(2);
              assertThat(r.get("sourceClusterId").asText()).isEqualTo("cluster-A");
            });

    // And writing it again is idempotent: same offset, nothing appended
    JsonNode again = control.barrier(topic, "cluster-A", 0).result(topic, 0);
    assertThat(again.get("barrierOffset").asLong()).isEqualTo(endBefore);
    assertThat(again.get("appended").asBoolean()).isFalse();

    // And a producer after the barrier is kept
    try (KafkaProducer<String, String> fresh =
        TestClients.idempotentProducer(cluster.bootstrapServers())) {
      fresh.send(new ProducerRecord<>(topic, "k", "after-0")).get(30, TimeUnit.SECONDS);
      expected.add("after-0");
    }
    assertThat(control.describe(topic, 0).result(topic, 0).get("producerEntries").asInt())
        .isEqualTo(1);

    // And consumers never see the barrier: each committed record exactly once
    assertThat(readValues(topic, IsolationLevel.READ_COMMITTED))
        .containsExactlyElementsOf(expected);
    assertThat(readValues(topic, IsolationLevel.READ_UNCOMMITTED))
        .containsExactlyElementsOf(expected);

    // And after kill -9 and recovery, only the producer written after the barrier comes back
    cluster.killBroker(1);
    cluster.restartBroker(1);
    PluginControlClient restarted =
        new PluginControlClient(
            cluster.listenerOf(1, PluginControlClient.LISTENER_PROPERTY),
            PluginControlClient.TEST_SECRET);
    JsonNode recovered = restarted.describe(topic, 0).result(topic, 0);
    assertThat(recovered.get("producerEntries").asInt()).as(recovered.toString()).isEqualTo(1);
    assertThat(readValues(topic, IsolationLevel.READ_COMMITTED))
        .containsExactlyElementsOf(expected);
  }

  private static List<String> readValues(String topic, IsolationLevel isolation) {
    return TestClients.values(
        TestClients.readAll(cluster.bootstrapServers(), topic, isolation, Duration.ofSeconds(60)));
  }
}
