package dev.kafkamirror.broker.agent;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import dev.kafkamirror.testing.kafka.KafkaCluster;
import dev.kafkamirror.testing.kafka.KafkaClusterConfig;
import dev.kafkamirror.testing.kafka.TestClients;
import dev.kafkamirror.testing.plugin.PluginControlClient;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.Test;

/**
 * One source broker that stops answering (its link black-holed: connections stay open, nothing
 * comes back) holds up only the partitions it leads: the mirror fetcher has a fetch in flight to
 * every source broker at once and reads the source's metadata in the background, so the partitions
 * led by the other source brokers go on being mirrored, with the lag of a healthy link, and the
 * held-up one catches up once the link heals.
 *
 * <p>Clusters: A, the source, a controller and three brokers, each behind a fault proxy that the
 * mirror reaches it through; B, the destination with the agent, single node.
 */
class SourceBrokerStallIT {

  private static final String TOPIC = "stall-one-broker";
  private static final String MIRROR = "stall";

  @Test
  void aSourceBrokerThatStopsAnsweringHoldsUpOnlyThePartitionsItLeads() throws Exception {
    try (KafkaCluster source =
            KafkaClusterConfig.builder("stall-a")
                .controllerPlusBrokers(3)
                .proxiedClientListener()
                .start();
        KafkaCluster destination = AgentClusters.withAgent("stall-b").singleNode().start()) {
      // Given a topic whose partition i is led by source broker i, mirrored and caught up at 5
      List<Integer> brokers = source.brokerIds();
      createOnePartitionPerBroker(source, brokers);
      destination.createTopic(TOPIC, 3, 1, Map.of());
      for (int p = 0; p < 3; p++) {
        write(source, p, "before", 5);
      }
      PluginControlClient control = MirrorOps.control(destination);
      JsonNode started =
          control
              .startMirroring(
                  MIRROR, source.proxiedBootstrapServers(), source.clusterId(), TOPIC, 0, 1, 2)
              .result(TOPIC, 0);
      assertThat(started.has("error")).as(started.toString()).isFalse();
      awaitHighWatermarks(control, Duration.ofSeconds(60), 5, 5, 5);

      // When the link to the leader of partition 0 goes silent (no FIN, no RST), the fetcher's
      // fetch to it is held, and afterwards every partition takes five more records
      source.proxy(brokers.get(0)).blackHole();
      Thread.sleep(2_000);
      for (int p = 0; p < 3; p++) {
        write(source, p, "during", 5);
      }

      // Then partitions 1 and 2 are mirrored well within the 30 s request timeout that the held
      // fetch waits out, while partition 0 stays where it was, MIRRORING (read-only)
      await()
          .atMost(Duration.ofSeconds(10))
          .untilAsserted(
              () -> {
                assertThat(highWatermark(control, 1)).isEqualTo(10);
                assertThat(highWatermark(control, 2)).isEqualTo(10);
              });
      JsonNode held = control.describe(TOPIC, 0).result(TOPIC, 0);
      assertThat(held.get("logEndOffset").asLong()).as(held.toString()).isEqualTo(5);
      assertThat(held.path("mirror").path("state").asText()).isEqualTo("MIRRORING");

      // And when the link heals, partition 0 catches up too, batch for batch
      source.proxy(brokers.get(0)).heal();
      awaitHighWatermarks(control, Duration.ofSeconds(120), 10, 10, 10);
      for (int p = 0; p < 3; p++) {
        TopicPartition tp = new TopicPartition(TOPIC, p);
        assertThat(LogBatches.signatures(destination, destination.brokerIds().get(0), tp))
            .as("batches of " + tp)
            .isEqualTo(LogBatches.signatures(source, brokers.get(p), tp));
      }
    }
  }

  /** Partition i on source broker i alone (RF 1), each with its leader before this returns. */
  private static void createOnePartitionPerBroker(KafkaCluster source, List<Integer> brokers)
      throws Exception {
    try (Admin admin = source.admin()) {
      admin
          .createTopics(
              List.of(
                  new NewTopic(
                      TOPIC,
                      Map.of(
                          0, List.of(brokers.get(0)),
                          1, List.of(brokers.get(1)),
                          2, List.of(brokers.get(2))))))
          .all()
          .get(30, TimeUnit.SECONDS);
    }
    await()
        .atMost(Duration.ofSeconds(30))
        .ignoreExceptions()
        .untilAsserted(
            () -> {
              for (int p = 0; p < 3; p++) {
                assertThat(source.leaderOf(new TopicPartition(TOPIC, p))).isEqualTo(brokers.get(p));
              }
            });
  }

  /** Writes {@code count} records to one partition through the source's direct listener. */
  private static void write(KafkaCluster source, int partition, String prefix, int count)
      throws Exception {
    try (KafkaProducer<String, String> producer =
        TestClients.idempotentProducer(source.bootstrapServers())) {
      for (int i = 0; i < count; i++) {
        producer
            .send(new ProducerRecord<>(TOPIC, partition, "k", prefix + "-" + partition + "-" + i))
            .get(30, TimeUnit.SECONDS);
      }
    }
  }

  private static void awaitHighWatermarks(
      PluginControlClient control, Duration atMost, long... expected) {
    await()
        .atMost(atMost)
        .untilAsserted(
            () -> {
              for (int p = 0; p < expected.length; p++) {
                assertThat(highWatermark(control, p)).as("partition " + p).isEqualTo(expected[p]);
              }
            });
  }

  private static long highWatermark(PluginControlClient control, int partition) {
    JsonNode d = control.describe(TOPIC, partition).result(TOPIC, partition);
    return d.get("highWatermark").asLong();
  }
}
