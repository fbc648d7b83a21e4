package dev.kafkamirror.broker.agent;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.kafkamirror.testing.kafka.KafkaCluster;
import dev.kafkamirror.testing.kafka.KafkaTools;
import dev.kafkamirror.testing.kafka.TestClients;
import dev.kafkamirror.testing.plugin.PluginControlClient;
import dev.kafkamirror.testing.process.Commands;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.IsolationLevel;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The log cleaner keeps barriers on compacted topics, the plugin's log dump decodes them, and
 * Apache Kafka's own DumpLogSegments reads the same segments without failing.
 */
class CompactionAndLogDumpIT {

  private static KafkaCluster cluster;

  @BeforeAll
  static void start() {
    cluster =
        AgentClusters.withAgent("compaction")
            .singleNode()
            .brokerProperty("log.cleaner.backoff.ms", "500")
            .start();
  }

  @AfterAll
  static void stop() {
    if (cluster != null) {
      cluster.close();
    }
  }

  @Test
  void theCleanerKeepsTheBarrierAndBothDumpsReadIt() throws Exception {
    // Given a compacted topic where every key is overwritten, with a barrier in the middle
    String topic = "compacted";
    cluster.createTopic(
        topic,
        1,
        1,
        Map.of(
            "cleanup.policy", "compact",
            "segment.ms", "1000",
            "min.cleanable.dirty.ratio", "0.01",
            "min.compaction.lag.ms", "0",
            "delete.retention.ms", "0"));
    writeKeys(topic, "first");
    PluginControlClient control =
        new PluginControlClient(
            cluster.listenerOf(1, PluginControlClient.LISTENER_PROPERTY),
            PluginControlClient.TEST_SECRET);
    long barrierOffset =
        control.barrier(topic, "cluster-A", 0).result(topic, 0).get("barrierOffset").asLong();
    writeKeys(topic, "second");
    Thread.sleep(
        1_500); // older than segment.ms: the next write rolls, so the earlier segments become
    // cleanable
    writeKeys(topic, "third");
    Path dir = cluster.partitionDir(1, new TopicPartition(topic, 0));

    // When the cleaner has compacted the closed segments (the overwritten values are gone)
    await()
        .atMost(Duration.ofSeconds(90))
        .until(
            () ->
                TestClients.values(
                        TestClients.readAll(
                            cluster.bootstrapServers(),
                            topic,
                            IsolationLevel.READ_UNCOMMITTED,
                            Duration.ofSeconds(30)))
                    .stream()
                    .noneMatch(v -> v.startsWith("first")));

    // Then the plugin's dump still finds the barrier at its offset, decoded
    List<Path> segments = segmentFiles(dir);
    String[] dumpArgs =
        Stream.concat(Stream.of("--print-data-log"), segments.stream().map(Path::toString))
            .toArray(String[]::new);
    Commands.Result ours =
        KafkaTools.run(
                Duration.ofSeconds(60),
                List.of(AgentClusters.agentJar()),
                "dev.kafkamirror.broker.agent.tools.DumpMirrorLog",
                dumpArgs)
            .requireSuccess();
    assertThat(ours.stdout())
        .contains(
            "| offset: " + barrierOffset + " MIRROR_PID_RESET version=0 sourceClusterId=cluster-A");
    long dataRecords = ours.stdout().lines().filter(l -> l.contains("keySize:")).count();
    assertThat(dataRecords).as("records left after compaction of 60 written").isLessThan(60);

    // And Apache Kafka's own DumpLogSegments reads the same files, showing an unknown control type
    Commands.Result kafkas =
        KafkaTools.run(
                Duration.ofSeconds(60),
                List.of(),
                "org.apache.kafka.tools.DumpLogSegments",
                Stream.concat(
                        Stream.of("--deep-iteration", "--files"),
                        Stream.of(String.join(",", segments.stream().map(Path::toString).toList())))
                    .toArray(String[]::new))
            .requireSuccess();
    assertThat(kafkas.stdout()).contains("offset: " + barrierOffset).contains("isControl: true");
    assertThat(kafkas.stderr()).doesNotContain("Exception");
  }

  private static void writeKeys(String topic, String prefix) throws Exception {
    try (KafkaProducer<String, String> producer =
        TestClients.idempotentProducer(cluster.bootstrapServers())) {
      for (int i = 0; i < 20; i++) {
        producer
            .send(new ProducerRecord<>(topic, "key-" + i, prefix + "-" + i))
            .get(30, TimeUnit.SECONDS);
      }
    }
  }

  private static List<Path> segmentFiles(Path dir) throws Exception {
    try (Stream<Path> files = Files.list(dir)) {
      return files.filter(f -> f.getFileName().toString().endsWith(".log")).sorted().toList();
    }
  }
}
