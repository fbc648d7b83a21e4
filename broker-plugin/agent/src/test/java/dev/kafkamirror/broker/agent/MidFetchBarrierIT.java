package dev.kafkamirror.broker.agent;

import static dev.kafkamirror.broker.agent.ProducerWrites.newProducerWrites;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import dev.kafkamirror.testing.kafka.KafkaCluster;
import java.time.Duration;
import java.util.Map;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * A follower that was down while a barrier was written catches up in one fetch that holds batches
 * before the barrier, the barrier, and batches after it: producers before must go, the producer
 * after must stay.
 */
class MidFetchBarrierIT {

  private static KafkaCluster cluster;

  @BeforeAll
  static void start() {
    cluster = AgentClusters.withAgent("mid-fetch").controllerPlusBrokers(3).start();
  }

  @AfterAll
  static void stop() {
    if (cluster != null) {
      cluster.close();
    }
  }

  @Test
  void aBarrierInTheMiddleOfOneFetchIsAppliedInLogOrder() throws Exception {
    // Given a partition at RF=3 whose follower is stopped
    String topic = "mid-fetch";
    TopicPartition tp = new TopicPartition(topic, 0);
    cluster.createTopic(topic, 1, 3, Map.of("min.insync.replicas", "1"));
    await().atMost(Duration.ofSeconds(60)).until(() -> cluster.isrOf(tp).size() == 3);
    int leader = cluster.leaderOf(tp);
    int follower = cluster.brokerIds().stream().filter(b -> b != leader).findFirst().orElseThrow();
    cluster.stopBroker(follower);
    await().atMost(Duration.ofSeconds(60)).until(() -> !cluster.isrOf(tp).contains(follower));

    // And, while it is away: two producers, a barrier, then a third producer
    newProducerWrites(cluster.bootstrapServers(), topic, 5, 10);
    newProducerWrites(cluster.bootstrapServers(), topic, 5, 10);
    JsonNode written =
        MirrorOps.control(cluster, leader).barrier(topic, "cluster-A", 0).result(topic, 0);
    assertThat(written.has("error")).as(written.toString()).isFalse();
    long barrierOffset = written.get("barrierOffset").asLong();
    newProducerWrites(cluster.bootstrapServers(), topic, 5, 10);
    assertThat(
            MirrorOps.control(cluster, leader)
                .describe(topic, 0)
                .result(topic, 0)
                .get("producerEntries")
                .asInt())
        .isEqualTo(1);

    // When the follower comes back and catches up
    cluster.restartBroker(follower);
    await().atMost(Duration.ofSeconds(60)).until(() -> cluster.isrOf(tp).contains(follower));

    // Then it cut its first fetch after the barrier, reset there, and kept the later producer
    assertThat(cluster.node(follower).outputSinceStart())
        .contains("replicated append cut after the barrier");
    JsonNode caughtUp = MirrorOps.control(cluster, follower).describe(topic, 0).result(topic, 0);
    assertThat(caughtUp.get("logEndOffset").asLong())
        .isEqualTo(
            MirrorOps.control(cluster, leader)
                .describe(topic, 0)
                .result(topic, 0)
                .get("logEndOffset")
                .asLong());
    assertThat(caughtUp.get("producerEntries").asInt()).as(caughtUp.toString()).isEqualTo(1);
    assertThat(caughtUp.get("barrierResets"))
        .anySatisfy(
            r -> {
              assertThat(r.get("path").asText()).isEqualTo("APPEND");
              assertThat(r.get("barrierOffset").asLong()).isEqualTo(barrierOffset);
              assertThat(r.get("producersRemoved").asInt()).isEqualTo(2);
            });
  }
}
