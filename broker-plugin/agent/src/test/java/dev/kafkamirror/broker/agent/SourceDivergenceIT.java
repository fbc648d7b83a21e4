package dev.kafkamirror.broker.agent;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import dev.kafkamirror.testing.kafka.KafkaCluster;
import dev.kafkamirror.testing.kafka.KafkaClusterConfig;
import dev.kafkamirror.testing.kafka.TestClients;
import dev.kafkamirror.testing.plugin.PluginControlClient;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.apache.kafka.common.IsolationLevel;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.record.internal.FileLogInputStream;
import org.apache.kafka.common.record.internal.FileRecords;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Epoch-aware mirroring against a source that changes its history underneath the mirror: an unclean
 * leader election on a two-broker source. Shares one source (two brokers, unclean election allowed
 * per topic) and one destination across its methods.
 */
class SourceDivergenceIT {

  private static KafkaCluster source;
  private static KafkaCluster destination;
  private static PluginControlClient control;

  @BeforeAll
  static void start() {
    source = KafkaClusterConfig.builder("diverge-src").controllerPlusBrokers(2).start();
    destination = AgentClusters.withAgent("diverge-dst").singleNode().start();
    control = MirrorOps.control(destination);
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
  void anUncleanElectionOnTheSourceFailsTheMirrorWithSourceDivergedAndAppendsNothing()
      throws Exception {
    // Given a source partition on two brokers that allows unclean elections, 100 records mirrored
    String topic = "diverged";
    TopicPartition tp = new TopicPartition(topic, 0);
    source.createTopic(
        topic, 1, 2, Map.of("min.insync.replicas", "1", "unclean.leader.election.enable", "true"));
    await().atMost(Duration.ofSeconds(60)).until(() -> source.isrOf(tp).size() == 2);
    int leader = source.leaderOf(tp);
    int staleFollower =
        source.brokerIds().stream().filter(b -> b != leader).findFirst().orElseThrow();
    List<String> kept = new ArrayList<>(ProducerWrites.idempotent(source, topic, "kept", 100));
    MirrorOps.mirrorAndCatchUp(source, destination, "diverge", topic);
    int firstSourceEpoch = lastBatchEpoch(source, leader, tp);

    // And the follower stopped while 50 more records are written and mirrored
    source.stopBroker(staleFollower);
    await().atMost(Duration.ofSeconds(60)).until(() -> !source.isrOf(tp).contains(staleFollower));
    ProducerWrites.idempotent(source, topic, "lost", 50);
    await()
        .atMost(Duration.ofSeconds(60))
        .untilAsserted(
            () ->
                assertThat(describe(topic).get("highWatermark").asLong())
                    .as(describe(topic).toString())
                    .isEqualTo(150L));
    List<String> keptBatches = batchesBelow(LogBatches.signatures(source, leader, tp), 100);

    // When the leader dies, the stale follower is elected uncleanly and 80 records are written
    source.stopBroker(leader);
    source.restartBroker(staleFollower);
    source.electUncleanly(tp, staleFollower, Duration.ofSeconds(90));
    ProducerWrites.idempotent(source, topic, "new", 80);
    int newSourceEpoch = lastBatchEpoch(source, staleFollower, tp);
    assertThat(newSourceEpoch).isGreaterThan(firstSourceEpoch);

    // Then the mirror halts: FAILED with SourceDiverged, offsets and epochs in the message
    await()
        .atMost(Duration.ofSeconds(90))
        .untilAsserted(
            () -> {
              JsonNode mirror = describe(topic).get("mirror");
              assertThat(mirror.get("state").asText()).as(mirror.toString()).isEqualTo("FAILED");
              assertThat(mirror.get("failedReason").asText()).isEqualTo("SourceDiverged");
            });
    JsonNode described = describe(topic);
    JsonNode mirror = described.get("mirror");
    assertThat(mirror.get("lastError").asText())
        .as(mirror.toString())
        .contains("source epoch " + firstSourceEpoch)
        .contains("offset 100")
        .contains("log end 150")
        .contains(topic + "-0");
    // And the lag is not 0 while the mirror is failed
    assertThat(mirror.get("lagRecords").asLong()).as(mirror.toString()).isNotZero();

    // And nothing of the new leader's tail was appended, even after a while
    Thread.sleep(2_000);
    assertThat(describe(topic).get("logEndOffset").asLong()).isEqualTo(150L);
    // And below the divergence point the destination holds exactly the source's batches
    List<String> mirrored = LogBatches.signatures(destination, topic);
    assertThat(batchesBelow(mirrored, 100)).isEqualTo(keptBatches);
    assertThat(batchesBelow(LogBatches.signatures(source, staleFollower, tp), 100))
        .isEqualTo(keptBatches);
    List<String> onDestination =
        TestClients.values(
            TestClients.readAll(
                destination.bootstrapServers(),
                topic,
                IsolationLevel.READ_UNCOMMITTED,
                Duration.ofSeconds(60)));
    assertThat(onDestination.subList(0, 100)).containsExactlyElementsOf(kept);
    assertThat(onDestination).hasSize(150).noneMatch(v -> v.startsWith("new"));

    // When the failed partition is failed over anyway (the destination keeps what it has)
    MirrorOps.failOver(destination, topic, source.clusterId());

    // Then the persisted last mirrored offset carries the source epoch of its batch
    JsonNode stop = describe(topic).get("stop");
    assertThat(stop.get("lastMirroredOffset").asLong()).as(stop.toString()).isEqualTo(150L);
    assertThat(stop.get("lastMirroredSourceEpoch").asInt())
        .as(stop.toString())
        .isEqualTo(firstSourceEpoch);
  }

  private static JsonNode describe(String topic) {
    return control.describe(topic, 0).result(topic, 0);
  }

  /** The batch signatures whose last offset is below {@code offset}. */
  private static List<String> batchesBelow(List<String> signatures, long offset) {
    return signatures.stream()
        .filter(s -> Long.parseLong(s.substring(s.indexOf("..") + 2, s.indexOf(' '))) < offset)
        .toList();
  }

  /** The partition leader epoch of the last batch of {@code tp} in {@code broker}'s log files. */
  private static int lastBatchEpoch(KafkaCluster cluster, int broker, TopicPartition tp)
      throws Exception {
    Path dir = cluster.partitionDir(broker, tp);
    List<Path> segments;
    try (Stream<Path> files = Files.list(dir)) {
      segments = files.filter(f -> f.getFileName().toString().endsWith(".log")).sorted().toList();
    }
    int epoch = -1;
    for (Path segment : segments) {
      try (FileRecords records = FileRecords.open(segment.toFile(), false)) {
        for (FileLogInputStream.FileChannelRecordBatch batch : records.batches()) {
          epoch = batch.partitionLeaderEpoch();
        }
      }
    }
    return epoch;
  }
}
