package dev.kafkamirror.broker.agent;

import static dev.kafkamirror.broker.agent.MirrorMembershipIT.moveLeadershipTo;
import static dev.kafkamirror.broker.agent.ProducerWrites.newProducerWrites;
import static dev.kafkamirror.broker.agent.StopFixtures.writeWithOpenTransaction;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import dev.kafkamirror.testing.kafka.KafkaCluster;
import dev.kafkamirror.testing.kafka.KafkaClusterConfig;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.Test;

/**
 * Every leader of a mirrored partition reports the id of the source topic it mirrors ({@code
 * mirror.sourceTopicId}), whichever broker leads and whatever the mirror's state: a failback names
 * that id so that A's leader refuses a topic deleted and created again there, and the operator
 * reads it from whichever broker of B leads after the stop's fence moved leadership.
 *
 * <p>Multi-broker destination (a controller and brokers 1-3, RF 3, min ISR 2), started as the
 * operator starts it: on the leader and on the followers online then. One broker (3) is down during
 * the start, so it knows the partition only from the cluster's membership record.
 */
class SourceTopicIdOnEveryLeaderIT {

  private static final String MIRROR = "a-to-b";

  @Test
  void theLeaderAfterALeaderChangeAndAfterTheStopsFenceReportsTheSourceTopicIdItMirrors()
      throws Exception {
    String topic = "pinned-everywhere";
    TopicPartition tp = new TopicPartition(topic, 0);
    try (KafkaCluster source = KafkaCluster.start(KafkaClusterConfig.builder("stid-src").build());
        KafkaCluster destination =
            KafkaCluster.start(
                AgentClusters.withAgent("stid-dst").controllerPlusBrokers(3).build())) {
      // Given A's topic with records, and its id
      source.createTopic(topic, 1, 1, Map.of());
      destination.createTopic(topic, 1, 3, Map.of("min.insync.replicas", "2"));
      newProducerWrites(source.bootstrapServers(), topic, 10, 10);
      String sourceTopicId = topicId(source, topic);
      // And B's broker 3 down while the mirror starts on the leader, then on the other broker
      destination.stopBroker(3);
      int first =
          await()
              .atMost(Duration.ofSeconds(30))
              .ignoreExceptions()
              .until(() -> destination.leaderOf(tp), l -> l == 1 || l == 2);
      int second = first == 1 ? 2 : 1;
      for (int broker : List.of(first, second)) {
        JsonNode started =
            MirrorOps.control(destination, broker)
                .startMirroring(MIRROR, source.bootstrapServers(), source.clusterId(), topic, 0)
                .result(topic, 0);
        assertThat(started.has("error")).as(started.toString()).isFalse();
      }
      awaitLeaderAt(destination, tp, first, MirrorOps.logEnd(source, topic));
      // And the leader that fetched reports the id of A's topic
      assertThat(mirrorOf(destination, first, tp).path("sourceTopicId").asText())
          .as(mirrorOf(destination, first, tp).toString())
          .isEqualTo(sourceTopicId);
      // And broker 3 is back, in sync, and adopted the partition from the cluster's record; the
      // cluster records the second broker and broker 3 as holders
      destination.restartBroker(3);
      await()
          .atMost(Duration.ofSeconds(90))
          .ignoreExceptions()
          .untilAsserted(
              () -> {
                assertThat(destination.isrOf(tp)).contains(3);
                assertThat(mirrorOf(destination, 3, tp).get("knownFrom").asText())
                    .isEqualTo("cluster-record");
                JsonNode onFirst =
                    MirrorOps.control(destination, first).describe(topic, 0).result(topic, 0);
                assertThat(onFirst.get("clusterMembership").get("holders").toString())
                    .contains(String.valueOf(second))
                    .contains("3");
              });

      // When leadership moves, while the partition mirrors, to broker 3 (it adopted it)
      moveLeadershipTo(destination, tp, List.of(3, second, first));

      // Then broker 3 leads and reports the same source topic id
      JsonNode onThree = mirrorOf(destination, 3, tp);
      assertThat(onThree.get("state").asText()).as(onThree.toString()).isEqualTo("MIRRORING");
      assertThat(onThree.path("sourceTopicId").asText())
          .as(onThree.toString())
          .isEqualTo(sourceTopicId);
      // And mirrors in its own leader epoch: A's next records, a transaction left open among them
      // (so that the stop truncates, and fences first), written only now since the transaction
      // times out after 60 s
      StopFixtures.SourceData data = writeWithOpenTransaction(source, topic, "a");
      try {
        awaitLeaderAt(destination, tp, 3, data.logEndOffset());

        // When the stop truncates: the fence moves leadership to the second broker, which had a
        // registration from the start call but never led the partition
        StopDriver driver = new StopDriver(destination, source.clusterId());
        driver.step("remove-fetchers", List.of(tp));
        driver.step("truncate", List.of(tp));
        assertThat(driver.leaderMoves()).isEqualTo(1);
        assertThat(destination.leaderOf(tp)).isEqualTo(second);

        // Then the new leader, stopping, reports the source topic id the partition mirrored
        JsonNode stopping = mirrorOf(destination, second, tp);
        assertThat(stopping.get("state").asText()).as(stopping.toString()).isEqualTo("STOPPING");
        assertThat(stopping.path("sourceTopicId").asText())
            .as("mirror of the leader after the fence: " + stopping)
            .isEqualTo(sourceTopicId);

        // When the stop completes on it
        driver.step("persist-offsets", List.of(tp));
        driver.step("barrier", List.of(tp));
        driver.step("make-writable", List.of(tp));

        // Then the STOPPED partition still reports it, on its leader and on every other replica
        JsonNode onLeader = driver.describeOnLeaders(List.of(tp)).get(tp);
        assertThat(onLeader.get("stop").get("step").asText())
            .as(onLeader.toString())
            .isEqualTo("STOPPED");
        assertThat(onLeader.get("mirror").path("sourceTopicId").asText())
            .as(onLeader.toString())
            .isEqualTo(sourceTopicId);
        for (int broker : destination.brokerIds()) {
          await()
              .atMost(Duration.ofSeconds(30))
              .ignoreExceptions()
              .untilAsserted(
                  () -> {
                    JsonNode mirror = mirrorOf(destination, broker, tp);
                    assertThat(mirror.get("state").asText())
                        .as("broker " + broker + ": " + mirror)
                        .isEqualTo("STOPPED");
                    assertThat(mirror.path("sourceTopicId").asText())
                        .as("broker " + broker + ": " + mirror)
                        .isEqualTo(sourceTopicId);
                  });
        }
      } finally {
        data.openTransaction().close(Duration.ZERO);
      }
    }
  }

  private static JsonNode mirrorOf(KafkaCluster cluster, int broker, TopicPartition tp) {
    JsonNode d =
        MirrorOps.control(cluster, broker)
            .describe(tp.topic(), tp.partition())
            .result(tp.topic(), tp.partition());
    JsonNode mirror = d.get("mirror");
    assertThat(mirror).as("broker " + broker + " describes no mirror: " + d).isNotNull();
    return mirror;
  }

  private static void awaitLeaderAt(
      KafkaCluster destination, TopicPartition tp, int leader, long sourceEnd) {
    await()
        .atMost(Duration.ofSeconds(90))
        .ignoreExceptions()
        .untilAsserted(
            () -> {
              JsonNode d =
                  MirrorOps.control(destination, leader)
                      .describe(tp.topic(), tp.partition())
                      .result(tp.topic(), tp.partition());
              assertThat(d.get("role").asText()).as(d.toString()).isEqualTo("LEADER");
              assertThat(d.get("highWatermark").asLong()).as(d.toString()).isEqualTo(sourceEnd);
            });
  }

  private static String topicId(KafkaCluster cluster, String topic) throws Exception {
    try (Admin admin = cluster.admin()) {
      return admin
          .describeTopics(List.of(topic))
          .allTopicNames()
          .get(30, TimeUnit.SECONDS)
          .get(topic)
          .topicId()
          .toString();
    }
  }
}
