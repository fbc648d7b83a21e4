package dev.kafkamirror.broker.agent;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import dev.kafkamirror.testing.kafka.KafkaCluster;
import dev.kafkamirror.testing.kafka.TestClients;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.common.IsolationLevel;
import org.apache.kafka.common.Uuid;
import org.junit.jupiter.api.Test;

/**
 * A destination topic that was mirrored, then deleted and created again as a plain topic (in no
 * mirror), is an ordinary topic: the broker removes the registration made for the deleted topic
 * (memory, registry file, fetcher), so the new topic takes client writes and nothing of the source
 * is copied into it. Both for a partition whose mirror was stopped and for one still MIRRORING.
 */
class DeletedDestinationTopicIT {

  private static final String MIRROR = "a-to-b";
  private static final String REGISTRY_FILE = "cluster-mirror-registry.json";

  @Test
  void aPlainTopicCreatedUnderTheNameOfADeletedMirroredTopicIsWritableAndNotMirrored()
      throws Exception {
    String stopped = "stopped-then-deleted";
    String mirroring = "mirroring-then-deleted";
    try (KafkaCluster source = AgentClusters.withAgent("dd-a").singleNode().start();
        KafkaCluster destination = AgentClusters.withAgent("dd-b").singleNode().start()) {
      // Given two topics mirrored from A to B and caught up; the mirror of one is stopped
      for (String topic : List.of(stopped, mirroring)) {
        source.createTopic(topic, 1, 1, Map.of());
        ProducerWrites.idempotent(source, topic, "source", 20);
        MirrorOps.mirrorAndCatchUp(source, destination, MIRROR, topic);
      }
      MirrorOps.failOver(destination, stopped, source.clusterId());
      Path registry = destination.logDir(destination.brokerIds().get(0)).resolve(REGISTRY_FILE);
      assertThat(Files.readString(registry)).contains(stopped, mirroring);
      Map<String, Uuid> oldIds = topicIds(destination, List.of(stopped, mirroring));

      // When both destination topics are deleted and created again as plain topics
      try (Admin admin = destination.admin()) {
        admin.deleteTopics(List.of(stopped, mirroring)).all().get(30, TimeUnit.SECONDS);
      }
      for (String topic : List.of(stopped, mirroring)) {
        createAgainWhenDeleted(destination, topic);
      }
      Map<String, Uuid> newIds = topicIds(destination, List.of(stopped, mirroring));
      assertThat(newIds.get(stopped)).isNotEqualTo(oldIds.get(stopped));
      assertThat(newIds.get(mirroring)).isNotEqualTo(oldIds.get(mirroring));
      // And the source goes on taking records for the topic still mirrored before the deletion
      ProducerWrites.idempotent(source, mirroring, "after-delete", 20);

      // Then describe shows no registration for either partition any more
      await()
          .atMost(Duration.ofSeconds(30))
          .untilAsserted(
              () -> {
                for (String topic : List.of(stopped, mirroring)) {
                  JsonNode d = MirrorOps.control(destination).describe(topic, 0).result(topic, 0);
                  assertThat(d.has("mirror")).as(topic + ": " + d).isFalse();
                }
              });
      // And the registry file no longer lists them
      await()
          .atMost(Duration.ofSeconds(10))
          .ignoreExceptions()
          .untilAsserted(
              () ->
                  assertThat(Files.readString(registry))
                      .doesNotContain(stopped)
                      .doesNotContain(mirroring));
      // And an idempotent producer's writes to each new topic are accepted
      List<String> plainStopped = ProducerWrites.idempotent(destination, stopped, "plain", 5);
      List<String> plainMirroring = ProducerWrites.idempotent(destination, mirroring, "plain", 5);
      // And no fetcher copies the source's records into them: after more source records and a
      // few fetcher rounds, each holds exactly the plain producer's records
      ProducerWrites.idempotent(source, mirroring, "later", 20);
      ProducerWrites.idempotent(source, stopped, "later", 20);
      Thread.sleep(3_000);
      assertThat(readValues(destination, stopped)).containsExactlyElementsOf(plainStopped);
      assertThat(readValues(destination, mirroring)).containsExactlyElementsOf(plainMirroring);
      for (String topic : List.of(stopped, mirroring)) {
        JsonNode d = MirrorOps.control(destination).describe(topic, 0).result(topic, 0);
        assertThat(d.has("mirror")).as(topic + ": " + d).isFalse();
        assertThat(d.get("logEndOffset").asLong()).as(d.toString()).isEqualTo(5);
      }
    }
  }

  private static Map<String, Uuid> topicIds(KafkaCluster cluster, List<String> topics)
      throws Exception {
    try (Admin admin = cluster.admin()) {
      Map<String, Uuid> ids = new java.util.HashMap<>();
      admin
          .describeTopics(topics)
          .allTopicNames()
          .get(30, TimeUnit.SECONDS)
          .forEach((name, d) -> ids.put(name, d.topicId()));
      return ids;
    }
  }

  /** Creates {@code topic} again (1 partition) as soon as its deletion has completed. */
  private static void createAgainWhenDeleted(KafkaCluster cluster, String topic) {
    cluster.createTopicAgainWhenDeleted(topic);
  }

  private static List<String> readValues(KafkaCluster cluster, String topic) {
    return TestClients.values(
        TestClients.readAll(
            cluster.bootstrapServers(),
            topic,
            IsolationLevel.READ_COMMITTED,
            Duration.ofSeconds(60)));
  }
}
