package dev.kafkamirror.broker.agent;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import dev.kafkamirror.contract.ControlCall;
import dev.kafkamirror.testing.kafka.KafkaCluster;
import dev.kafkamirror.testing.kafka.TestClients;
import dev.kafkamirror.testing.plugin.PluginControlClient;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The barrier replicated to followers at RF=3, and the control endpoint's refusals, on real
 * brokers.
 */
class BarrierReplicationIT {

  private static KafkaCluster cluster;

  @BeforeAll
  static void start() {
    cluster = AgentClusters.withAgent("barrier-rf3").controllerPlusBrokers(3).start();
  }

  @AfterAll
  static void stop() {
    if (cluster != null) {
      cluster.close();
    }
  }

  @Test
  void everyFollowerResetsItsProducerStateWhenItReplicatesTheBarrier() throws Exception {
    // Given three idempotent producers have written to a partition at RF=3, in sync everywhere
    String topic = "replicated-barrier";
    TopicPartition tp = new TopicPartition(topic, 0);
    cluster.createTopic(topic, 1, 3, Map.of("min.insync.replicas", "2"));
    await().atMost(Duration.ofSeconds(60)).until(() -> cluster.isrOf(tp).size() == 3);
    for (int p = 0; p < 3; p++) {
      try (KafkaProducer<String, String> producer =
          TestClients.idempotentProducer(cluster.bootstrapServers())) {
        producer.send(new ProducerRecord<>(topic, "k", "v" + p)).get(30, TimeUnit.SECONDS);
      }
    }
    int leader = cluster.leaderOf(tp);
    for (int broker : cluster.brokerIds()) {
      await()
          .atMost(Duration.ofSeconds(30))
          .untilAsserted(
              () ->
                  assertThat(
                          MirrorOps.control(cluster, broker)
                              .describe(topic, 0)
                              .result(topic, 0)
                              .get("producerEntries")
                              .asInt())
                      .isEqualTo(3));
    }

    // When the leader writes a barrier with acks=all
    JsonNode written =
        MirrorOps.control(cluster, leader).barrier(topic, "cluster-A", 0).result(topic, 0);
    assertThat(written.has("error")).as(written.toString()).isFalse();
    long barrierOffset = written.get("barrierOffset").asLong();

    // Then every replica, leader and followers, has reset through its own append path
    for (int broker : cluster.brokerIds()) {
      await()
          .atMost(Duration.ofSeconds(30))
          .untilAsserted(
              () -> {
                JsonNode d = MirrorOps.control(cluster, broker).describe(topic, 0).result(topic, 0);
                assertThat(d.get("producerEntries").asInt())
                    .as("broker " + broker + ": " + d)
                    .isZero();
                assertThat(d.get("barrierResets"))
                    .anySatisfy(
                        r -> {
                          assertThat(r.get("path").asText()).isEqualTo("APPEND");
                          assertThat(r.get("barrierOffset").asLong()).isEqualTo(barrierOffset);
                          assertThat(r.get("producersRemoved").asInt()).isEqualTo(3);
                        });
              });
    }
  }

  @Test
  void theControlEndpointRefusesAnonymousMalformedAndMisdirectedCalls() {
    String topic = "refusals";
    TopicPartition tp = new TopicPartition(topic, 0);
    cluster.createTopic(topic, 1, 3, Map.of());
    int leader = cluster.leaderOf(tp);
    int follower = cluster.brokerIds().stream().filter(b -> b != leader).findFirst().orElseThrow();
    String body =
        "{\"partitions\":[{\"topic\":\"refusals\",\"partition\":0,\"sourceClusterId\":\"A\"}]}";

    // No secret, a wrong secret: 401 and nothing written
    assertThat(
            MirrorOps.control(cluster, leader)
                .postRaw(ControlCall.BARRIER.path(), body, null)
                .status())
        .isEqualTo(401);
    assertThat(
            MirrorOps.control(cluster, leader)
                .postRaw(ControlCall.BARRIER.path(), body, "wrong-secret-0123456789")
                .status())
        .isEqualTo(401);
    // A malformed body: 400 naming the field
    PluginControlClient.Response malformed =
        MirrorOps.control(cluster, leader)
            .postRaw(
                ControlCall.BARRIER.path(),
                "{\"partitions\":[{\"topic\":\"refusals\"}]}",
                PluginControlClient.TEST_SECRET);
    assertThat(malformed.status()).isEqualTo(400);
    assertThat(malformed.body().get("error").get("message").asText())
        .contains("partitions[0].partition");
    // A barrier without source: 400
    assertThat(
            MirrorOps.control(cluster, leader)
                .postRaw(
                    ControlCall.BARRIER.path(),
                    "{\"partitions\":[{\"topic\":\"refusals\",\"partition\":0}]}",
                    PluginControlClient.TEST_SECRET)
                .status())
        .isEqualTo(400);
    // The log is untouched by all of the above
    assertThat(
            MirrorOps.control(cluster, leader)
                .describe(topic, 0)
                .result(topic, 0)
                .get("logEndOffset")
                .asLong())
        .isZero();
    // A barrier sent to a follower: a per-partition NOT_LEADER error
    JsonNode onFollower =
        MirrorOps.control(cluster, follower).barrier(topic, "A", 0).result(topic, 0);
    assertThat(onFollower.get("error").get("code").asText()).isEqualTo("NOT_LEADER");
    // An unknown partition: UNKNOWN_PARTITION, next to a valid one in the same call
    PluginControlClient.Response mixed = MirrorOps.control(cluster, leader).describe(topic, 0, 7);
    assertThat(mixed.result(topic, 7).get("error").get("code").asText())
        .isEqualTo("UNKNOWN_PARTITION");
    assertThat(mixed.result(topic, 0).get("role").asText()).isEqualTo("LEADER");
  }
}
