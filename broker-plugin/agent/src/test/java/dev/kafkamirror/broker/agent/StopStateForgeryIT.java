package dev.kafkamirror.broker.agent;

import static dev.kafkamirror.broker.agent.MirrorOps.control;
import static dev.kafkamirror.broker.agent.MirrorOps.logEnd;
import static dev.kafkamirror.broker.agent.MirrorOps.mirrorAndCatchUp;
import static dev.kafkamirror.broker.agent.ProducerWrites.newProducerWrites;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import dev.kafkamirror.broker.agent.kafka4_4.stop.ForgedStopStates;
import dev.kafkamirror.broker.agent.kafka4_4.stop.StateRecordAuth;
import dev.kafkamirror.testing.kafka.KafkaCluster;
import dev.kafkamirror.testing.kafka.KafkaClusterConfig;
import java.time.Duration;
import java.util.List;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.InvalidRecordException;
import org.apache.kafka.common.header.internals.RecordHeader;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.junit.jupiter.api.Test;

/**
 * The stop state cannot be forged (issue 9 item 3): a plain client of the destination writes a
 * well-formed {@code STOPPED} record at leader epoch 2^31-1 for a MIRRORING partition, without and
 * with a made-up MAC header. The broker refuses it, the partition stays MIRRORING and read-only,
 * describe shows the attempt, and a broker restarted afterwards does not adopt anything either.
 */
class StopStateForgeryIT {

  private static final String STATE_TOPIC = "__cluster_mirror_state";

  @Test
  void aForgedStoppedRecordIsRefusedAndTheMirrorStaysReadOnlyAcrossARestart() throws Exception {
    String topic = "forge";
    try (KafkaCluster a = KafkaCluster.start(KafkaClusterConfig.builder("forge-a").build());
        KafkaCluster b = AgentClusters.withAgent("forge-b").singleNode().start()) {
      // Given B mirrors A, and the plugin has created its state topic
      a.createTopic(topic, 1, 1, java.util.Map.of());
      newProducerWrites(a.bootstrapServers(), topic, 10, 10);
      mirrorAndCatchUp(a, b, "a-to-b", topic);
      long mirrored = logEnd(b, topic);
      String topicId;
      int statePartitions;
      try (Admin admin = b.admin()) {
        topicId =
            admin
                .describeTopics(List.of(topic))
                .allTopicNames()
                .get(30, TimeUnit.SECONDS)
                .get(topic)
                .topicId()
                .toString();
        statePartitions =
            admin
                .describeTopics(List.of(STATE_TOPIC))
                .allTopicNames()
                .get(30, TimeUnit.SECONDS)
                .get(STATE_TOPIC)
                .partitions()
                .size();
      }
      ForgedStopStates.Forged forged =
          ForgedStopStates.stopped(
              "a-to-b",
              topicId,
              topic,
              0,
              Integer.MAX_VALUE,
              mirrored,
              a.clusterId(),
              statePartitions);

      // When a plain client writes the forged STOPPED record, and again with a made-up MAC
      try (KafkaProducer<byte[], byte[]> forger = plainProducer(b)) {
        assertThatThrownBy(
                () ->
                    forger
                        .send(
                            new ProducerRecord<>(
                                STATE_TOPIC, forged.statePartition(), forged.key(), forged.value()))
                        .get(30, TimeUnit.SECONDS))
            .hasRootCauseInstanceOf(InvalidRecordException.class)
            .rootCause()
            .hasMessageContaining("only the cluster mirror plugin writes the stop-state topic");
        assertThatThrownBy(
                () ->
                    forger
                        .send(
                            new ProducerRecord<>(
                                STATE_TOPIC,
                                forged.statePartition(),
                                forged.key(),
                                forged.value(),
                                List.of(new RecordHeader(StateRecordAuth.HEADER, new byte[32]))))
                        .get(30, TimeUnit.SECONDS))
            .hasRootCauseInstanceOf(InvalidRecordException.class)
            .rootCause()
            .hasMessageContaining("does not match");
      }
      // And a transaction cannot take a state partition either (its markers would land there)
      RawTransactionClient raw = new RawTransactionClient(b.bootstrapServers(), "forger-tx");
      raw.initProducerId(Duration.ofSeconds(60));
      assertThat(
              raw.addPartitions(
                  List.of(
                      new org.apache.kafka.common.TopicPartition(
                          STATE_TOPIC, forged.statePartition()))))
          .isEqualTo(java.util.Map.of(org.apache.kafka.common.protocol.Errors.INVALID_RECORD, 1));
      // (the plugin reports a forgery within a second; give it three)
      Thread.sleep(3_000);

      // Then the partition is still MIRRORING and read-only, and describe shows the attempts
      assertStillAMirror(b, topic);
      JsonNode guards = control(b).describe(topic, 0).result(topic, 0).get("writeGuards");
      assertThat(guards.get("refusedStateTopicWrites").asLong()).isEqualTo(2);
      assertThat(guards.get("lastRefusedStateTopicWrite").asText())
          .contains(STATE_TOPIC + "-" + forged.statePartition());
      assertThat(guards.get("unverifiedStateRecords").asLong()).isZero();
      assertThat(b.node(1).outputSinceStart())
          .contains("refusing a client write to " + STATE_TOPIC);

      // When B restarts after the attempt
      b.stopBroker(1);
      b.restartBroker(1);

      // Then it adopts nothing: still MIRRORING, read-only, and following A
      newProducerWrites(a.bootstrapServers(), topic, 5, 10);
      long end = logEnd(a, topic);
      await()
          .atMost(Duration.ofSeconds(60))
          .ignoreExceptions()
          .untilAsserted(
              () -> {
                JsonNode d = control(b).describe(topic, 0).result(topic, 0);
                assertThat(d.get("highWatermark").asLong()).as(d.toString()).isEqualTo(end);
              });
      assertStillAMirror(b, topic);
    }
  }

  private static void assertStillAMirror(KafkaCluster b, String topic) {
    JsonNode d = control(b).describe(topic, 0).result(topic, 0);
    assertThat(d.get("mirror").get("state").asText()).as(d.toString()).isEqualTo("MIRRORING");
    assertThat(d.has("stop")).as(d.toString()).isFalse();
    assertThatThrownBy(() -> newProducerWrites(b.bootstrapServers(), topic, 1, 10))
        .hasRootCauseInstanceOf(InvalidRecordException.class)
        .rootCause()
        .hasMessageContaining("read-only mirror of a-to-b");
  }

  private static KafkaProducer<byte[], byte[]> plainProducer(KafkaCluster cluster) {
    Properties props = new Properties();
    props.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, cluster.bootstrapServers());
    props.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
    props.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
    props.put(ProducerConfig.ACKS_CONFIG, "all");
    props.put(ProducerConfig.RETRIES_CONFIG, "0");
    props.put(ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG, "30000");
    props.put(ProducerConfig.REQUEST_TIMEOUT_MS_CONFIG, "15000");
    return new KafkaProducer<>(props);
  }
}
