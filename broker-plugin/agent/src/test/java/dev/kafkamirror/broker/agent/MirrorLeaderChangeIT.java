package dev.kafkamirror.broker.agent;

import static dev.kafkamirror.broker.agent.ProducerWrites.newProducerWrites;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import dev.kafkamirror.testing.kafka.KafkaCluster;
import dev.kafkamirror.testing.kafka.TestClients;
import java.time.Duration;
import java.util.Map;
import org.apache.kafka.common.IsolationLevel;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.Test;

/**
 * Mirroring follows a leader change on the source and on the destination, at RF=3 on both sides.
 */
class MirrorLeaderChangeIT {

  @Test
  void mirroringContinuesAcrossSourceAndDestinationLeaderChanges() throws Exception {
    String topic = "leader-moves";
    TopicPartition tp = new TopicPartition(topic, 0);
    try (KafkaCluster a = AgentClusters.withAgent("moves-a").controllerPlusBrokers(3).start();
        KafkaCluster b = AgentClusters.withAgent("moves-b").controllerPlusBrokers(3).start()) {
      // Given a topic at RF=3 on both, mirrored A -> B with the mirror registered on every B
      // replica
      a.createTopic(topic, 1, 3, Map.of("min.insync.replicas", "2"));
      b.createTopic(topic, 1, 3, Map.of("min.insync.replicas", "2"));
      for (int broker : b.brokerIds()) {
        JsonNode started =
            MirrorOps.control(b, broker)
                .startMirroring("a-to-b", a.bootstrapServers(), a.clusterId(), topic, 0)
                .result(topic, 0);
        assertThat(started.has("error")).as(started.toString()).isFalse();
      }
      newProducerWrites(a.bootstrapServers(), topic, 100, 50);
      awaitMirrored(a, b, tp);

      // When A's leader dies, and more is written to A
      int sourceLeader = a.leaderOf(tp);
      a.killBroker(sourceLeader);
      await()
          .atMost(Duration.ofSeconds(60))
          .ignoreExceptions()
          .until(() -> a.leaderOf(tp) != sourceLeader);
      newProducerWrites(a.bootstrapServers(), topic, 100, 50);

      // Then B follows A's new leader
      awaitMirrored(a, b, tp);

      // When B's leader dies, and more is written to A
      int destinationLeader = b.leaderOf(tp);
      b.killBroker(destinationLeader);
      await()
          .atMost(Duration.ofSeconds(60))
          .ignoreExceptions()
          .until(() -> b.leaderOf(tp) != destinationLeader);
      newProducerWrites(a.bootstrapServers(), topic, 100, 50);

      // Then B's new leader mirrors on, with its followers in sync, and every record is there once,
      // in order
      awaitMirrored(a, b, tp);
      int newLeader = b.leaderOf(tp);
      JsonNode mirror =
          MirrorOps.control(b, newLeader).describe(topic, 0).result(topic, 0).get("mirror");
      assertThat(mirror.get("state").asText()).isEqualTo("MIRRORING");
      assertThat(
              TestClients.values(
                  TestClients.readAll(
                      b.bootstrapServers(),
                      topic,
                      IsolationLevel.READ_COMMITTED,
                      Duration.ofSeconds(60))))
          .isEqualTo(
              TestClients.values(
                  TestClients.readAll(
                      a.bootstrapServers(),
                      topic,
                      IsolationLevel.READ_COMMITTED,
                      Duration.ofSeconds(60))))
          .hasSize(300);
      await().atMost(Duration.ofSeconds(60)).until(() -> b.isrOf(tp).size() == 2);
    }
  }

  private static void awaitMirrored(KafkaCluster a, KafkaCluster b, TopicPartition tp)
      throws Exception {
    long end = MirrorOps.logEnd(a, tp.topic());
    await()
        .atMost(Duration.ofSeconds(90))
        .ignoreExceptions()
        .untilAsserted(
            () -> {
              int leader = b.leaderOf(tp);
              JsonNode d =
                  MirrorOps.control(b, leader).describe(tp.topic(), 0).result(tp.topic(), 0);
              assertThat(d.get("highWatermark").asLong()).as(d.toString()).isEqualTo(end);
            });
  }
}
