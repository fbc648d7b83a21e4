package dev.kafkamirror.broker.agent;

import static dev.kafkamirror.broker.agent.ProducerWrites.newProducerWrites;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import dev.kafkamirror.testing.kafka.KafkaCluster;
import dev.kafkamirror.testing.kafka.TestClients;
import dev.kafkamirror.testing.plugin.PluginControlClient;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Producer state rebuilt from disk after kill -9: from a snapshot older than the barrier, and from
 * segments.
 */
class RecoveryAndRebuildIT {

  private static KafkaCluster cluster;

  @BeforeAll
  static void start() {
    cluster =
        AgentClusters.withAgent("recovery")
            .singleNode()
            // Checkpoint recovery points every second, so that a flushed log needs no segment
            // recovery.
            .brokerProperty("log.flush.offset.checkpoint.interval.ms", "1000")
            .start();
  }

  @AfterAll
  static void stop() {
    if (cluster != null) {
      cluster.close();
    }
  }

  private static PluginControlClient control() {
    return new PluginControlClient(
        cluster.listenerOf(1, PluginControlClient.LISTENER_PROPERTY),
        PluginControlClient.TEST_SECRET);
  }

  @Test
  void aSnapshotTakenBeforeTheBarrierDoesNotBringItsProducersBack() throws Exception {
    // Given two producers write enough to roll a 1 MiB segment (a producer snapshot is taken at the
    // roll)
    String topic = "snapshot-before-barrier";
    cluster.createTopic(topic, 1, 1, Map.of("segment.bytes", Integer.toString(1024 * 1024)));
    newProducerWrites(cluster.bootstrapServers(), topic, 700, 1000);
    newProducerWrites(cluster.bootstrapServers(), topic, 700, 1000);
    Path dir = cluster.partitionDir(1, new TopicPartition(topic, 0));
    assertThat(snapshots(dir)).isNotEmpty();
    long snapshotBeforeBarrier = latestSnapshotOffset(dir);

    // And a barrier, then a third producer
    JsonNode written = control().barrier(topic, "cluster-A", 0).result(topic, 0);
    long barrierOffset = written.get("barrierOffset").asLong();
    assertThat(snapshotBeforeBarrier).isLessThan(barrierOffset);
    newProducerWrites(cluster.bootstrapServers(), topic, 3, 10);

    // When the broker is killed and restarted
    cluster.killBroker(1);
    cluster.restartBroker(1);

    // Then only the producer written after the barrier is in producer state
    JsonNode recovered = control().describe(topic, 0).result(topic, 0);
    assertThat(recovered.get("producerEntries").asInt()).as(recovered.toString()).isEqualTo(1);
    assertThat(recovered.get("barrierResets"))
        .anySatisfy(r -> assertThat(r.get("barrierOffset").asLong()).isEqualTo(barrierOffset));
  }

  @Test
  void producerStateRebuiltFromSegmentsReplaysTheBarrierInLogOrder() throws Exception {
    // Given two producers, a barrier and a third producer, flushed, in a segment that is no longer
    // active
    // (Kafka recovers the segment holding the recovery point after a kill; the older one is rebuilt
    // instead)
    String topic = "rebuild-from-segments";
    cluster.createTopic(topic, 1, 1, Map.of("flush.messages", "1", "segment.ms", "2000"));
    newProducerWrites(cluster.bootstrapServers(), topic, 5, 10);
    newProducerWrites(cluster.bootstrapServers(), topic, 5, 10);
    long barrierOffset =
        control().barrier(topic, "cluster-A", 0).result(topic, 0).get("barrierOffset").asLong();
    try (KafkaProducer<String, String> third =
        TestClients.idempotentProducer(cluster.bootstrapServers())) {
      third.send(new ProducerRecord<>(topic, "k", "third-0")).get(30, TimeUnit.SECONDS);
      Thread.sleep(2_500); // older than segment.ms: the next append rolls a new segment
      third.send(new ProducerRecord<>(topic, "k", "third-1")).get(30, TimeUnit.SECONDS);
    }
    Path dir = cluster.partitionDir(1, new TopicPartition(topic, 0));
    assertThat(segments(dir)).hasSizeGreaterThanOrEqualTo(2);
    long logEnd = control().describe(topic, 0).result(topic, 0).get("logEndOffset").asLong();
    Path checkpoint = cluster.logDir(1).resolve("recovery-point-offset-checkpoint");
    await()
        .atMost(Duration.ofSeconds(30))
        .until(() -> Files.readAllLines(checkpoint).contains(topic + " 0 " + logEnd));

    // When the broker is killed and every producer snapshot of the partition is deleted before the
    // restart
    cluster.killBroker(1);
    for (Path snapshot : snapshots(dir)) {
      Files.delete(snapshot);
    }
    cluster.restartBroker(1);

    // Then producer state was rebuilt from the segments, in log order: only the third producer is
    // there
    JsonNode rebuilt = control().describe(topic, 0).result(topic, 0);
    assertThat(rebuilt.get("producerEntries").asInt()).as(rebuilt.toString()).isEqualTo(1);
    assertThat(rebuilt.get("barrierResets"))
        .anySatisfy(
            r -> {
              assertThat(r.get("path").asText()).isEqualTo("REBUILD");
              assertThat(r.get("barrierOffset").asLong()).isEqualTo(barrierOffset);
              assertThat(r.get("producersRemoved").asInt()).isEqualTo(2);
            });
  }

  private static List<Path> snapshots(Path dir) throws Exception {
    try (Stream<Path> files = Files.list(dir)) {
      return files.filter(f -> f.getFileName().toString().endsWith(".snapshot")).toList();
    }
  }

  private static List<Path> segments(Path dir) throws Exception {
    try (Stream<Path> files = Files.list(dir)) {
      return files.filter(f -> f.getFileName().toString().endsWith(".log")).toList();
    }
  }

  private static long latestSnapshotOffset(Path dir) throws Exception {
    return snapshots(dir).stream()
        .map(f -> f.getFileName().toString().replace(".snapshot", ""))
        .mapToLong(Long::parseLong)
        .max()
        .orElseThrow();
  }
}
