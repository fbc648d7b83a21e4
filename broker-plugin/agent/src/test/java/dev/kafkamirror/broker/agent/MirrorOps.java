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
   * The plain failover of this issue: remove fetchers, barrier naming the source, make writable.
   */
  static long failOver(KafkaCluster destination, String topic, String sourceClusterId) {
    PluginControlClient control = control(destination);
    JsonNode removed = control.mirrorTransition("remove-fetchers", topic, 0).result(topic, 0);
    assertThat(removed.has("error")).as(removed.toString()).isFalse();
    JsonNode barrier = control.barrier(topic, sourceClusterId, 0).result(topic, 0);
    assertThat(barrier.has("error")).as(barrier.toString()).isFalse();
    JsonNode writable = control.mirrorTransition("make-writable", topic, 0).result(topic, 0);
    assertThat(writable.get("state").asText()).as(writable.toString()).isEqualTo("STOPPED");
    return barrier.get("barrierOffset").asLong();
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
