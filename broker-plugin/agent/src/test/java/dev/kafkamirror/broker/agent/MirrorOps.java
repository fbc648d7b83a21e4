package dev.kafkamirror.broker.agent;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import dev.kafkamirror.testing.kafka.KafkaCluster;
import dev.kafkamirror.testing.plugin.PluginControlClient;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.admin.ProducerState;
import org.apache.kafka.common.TopicPartition;

/**
 * Mirror steps used by several ITs: start and catch up, a plain failover, producer state through
 * Admin.
 */
final class MirrorOps {

  private MirrorOps() {}

  /** The control endpoint of the cluster's first broker. */
  static PluginControlClient control(KafkaCluster cluster) {
    return control(cluster, cluster.brokerIds().get(0));
  }

  /** The control endpoint of one broker. */
  static PluginControlClient control(KafkaCluster cluster, int brokerId) {
    return new PluginControlClient(
        cluster.listenerOf(brokerId, PluginControlClient.LISTENER_PROPERTY),
        PluginControlClient.TEST_SECRET);
  }

  static long logEnd(KafkaCluster cluster, String topic) throws Exception {
    TopicPartition tp = new TopicPartition(topic, 0);
    try (Admin admin = cluster.admin()) {
      return admin
          .listOffsets(Map.of(tp, OffsetSpec.latest()))
          .all()
          .get(30, TimeUnit.SECONDS)
          .get(tp)
          .offset();
    }
  }

  /**
   * Creates the topic on {@code destination}, mirrors it from {@code source} and waits until caught
   * up.
   */
  static void mirrorAndCatchUp(
      KafkaCluster source, KafkaCluster destination, String mirrorName, String topic)
      throws Exception {
    destination.createTopic(topic, 1, 1, Map.of());
    JsonNode started =
        control(destination)
            .startMirroring(mirrorName, source.bootstrapServers(), source.clusterId(), topic, 0)
            .result(topic, 0);
    assertThat(started.has("error")).as(started.toString()).isFalse();
    long end = logEnd(source, topic);
    await()
        .atMost(Duration.ofSeconds(60))
        .untilAsserted(
            () -> {
              JsonNode d = control(destination).describe(topic, 0).result(topic, 0);
              assertThat(d.get("highWatermark").asLong()).as(d.toString()).isEqualTo(end);
            });
  }

  /**
   * The whole stop sequence of one partition-0 topic through the first broker's endpoint (a
   * single-broker destination): remove fetchers, truncate, persist offsets, barrier naming the
   * source, make writable. Returns the barrier offset.
   */
  static long failOver(KafkaCluster destination, String topic, String sourceClusterId) {
    PluginControlClient control = control(destination);
    for (String step :
        java.util.List.of(
            "remove-fetchers", "truncate", "persist-offsets", "barrier", "make-writable")) {
      JsonNode result =
          control
              .stopStep(
                  step,
                  topic,
                  step.equals("persist-offsets") || step.equals("barrier") ? sourceClusterId : null,
                  0)
              .result(topic, 0);
      assertThat(result.has("error")).as(step + ": " + result).isFalse();
    }
    JsonNode stop = control.describe(topic, 0).result(topic, 0).get("stop");
    assertThat(stop.get("step").asText()).as(stop.toString()).isEqualTo("STOPPED");
    return stop.get("barrierOffset").asLong();
  }

  /** The producers Kafka reports for the partition (Admin describeProducers). */
  static java.util.List<ProducerState> producers(KafkaCluster cluster, String topic)
      throws Exception {
    TopicPartition tp = new TopicPartition(topic, 0);
    try (Admin admin = cluster.admin()) {
      return admin
          .describeProducers(java.util.List.of(tp))
          .all()
          .get(30, TimeUnit.SECONDS)
          .get(tp)
          .activeProducers();
    }
  }
}
