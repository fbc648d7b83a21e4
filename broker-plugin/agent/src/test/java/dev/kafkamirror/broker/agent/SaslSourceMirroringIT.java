package dev.kafkamirror.broker.agent;

import static dev.kafkamirror.broker.agent.MirrorOps.control;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import dev.kafkamirror.testing.kafka.KafkaCluster;
import dev.kafkamirror.testing.kafka.KafkaClusterConfig;
import dev.kafkamirror.testing.kafka.TestClients;
import java.time.Duration;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.Test;

/**
 * The mirror fetcher passes the source's SASL settings through: right credentials mirror, wrong
 * ones report.
 */
class SaslSourceMirroringIT {

  private static final String JAAS =
      "org.apache.kafka.common.security.plain.PlainLoginModule required username=\"%s\" password=\"%s\"%s;";

  private static String jaas(String user, String password) {
    return String.format(JAAS, user, password, "");
  }

  @Test
  void mirrorsFromASaslSourceWithTheGivenCredentialsAndReportsWrongOnes() throws Exception {
    String topic = "sasl-orders";
    KafkaClusterConfig.Builder saslSource =
        AgentClusters.withAgent("sasl-a")
            .singleNode()
            // The harness's PLAINTEXT listener name, mapped to SASL_PLAINTEXT with PLAIN users.
            .brokerProperty(
                "listener.security.protocol.map", "PLAINTEXT:SASL_PLAINTEXT,CONTROLLER:PLAINTEXT")
            .brokerProperty("sasl.enabled.mechanisms", "PLAIN")
            .brokerProperty("sasl.mechanism.inter.broker.protocol", "PLAIN")
            .brokerProperty(
                "listener.name.plaintext.plain.sasl.jaas.config",
                String.format(
                    JAAS,
                    "admin",
                    "admin-secret",
                    " user_admin=\"admin-secret\" user_mirror=\"mirror-secret\""))
            .clientProperty("security.protocol", "SASL_PLAINTEXT")
            .clientProperty("sasl.mechanism", "PLAIN")
            .clientProperty("sasl.jaas.config", jaas("admin", "admin-secret"));
    try (KafkaCluster a = saslSource.start();
        KafkaCluster b = AgentClusters.withAgent("sasl-b").singleNode().start()) {
      // Given records on the SASL source
      a.createTopic(topic, 1, 1, Map.of());
      Properties producerProps = a.clientProperties();
      producerProps.put(
          ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
      producerProps.put(
          ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
      producerProps.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, "true");
      producerProps.put(ProducerConfig.ACKS_CONFIG, "all");
      try (KafkaProducer<String, String> producer = new KafkaProducer<>(producerProps)) {
        for (int i = 0; i < 10; i++) {
          producer.send(new ProducerRecord<>(topic, "k", "v" + i)).get(30, TimeUnit.SECONDS);
        }
      }
      b.createTopic(topic, 1, 1, Map.of());
      b.createTopic("sasl-wrong", 1, 1, Map.of());

      // When B mirrors it with the mirror user's credentials, and another topic with a wrong
      // password
      Map<String, String> good =
          Map.of(
              "security.protocol", "SASL_PLAINTEXT",
              "sasl.mechanism", "PLAIN",
              "sasl.jaas.config", jaas("mirror", "mirror-secret"));
      Map<String, String> wrong =
          Map.of(
              "security.protocol", "SASL_PLAINTEXT",
              "sasl.mechanism", "PLAIN",
              "sasl.jaas.config", jaas("mirror", "not-the-password"));
      JsonNode started =
          control(b)
              .startMirroring("sasl-a-to-b", a.bootstrapServers(), a.clusterId(), good, topic, 0)
              .result(topic, 0);
      assertThat(started.has("error")).as(started.toString()).isFalse();
      control(b)
          .startMirroring(
              "sasl-wrong", a.bootstrapServers(), a.clusterId(), wrong, "sasl-wrong", 0);

      // Then the first mirror copies every record
      await()
          .atMost(Duration.ofSeconds(60))
          .untilAsserted(
              () ->
                  assertThat(
                          control(b)
                              .describe(topic, 0)
                              .result(topic, 0)
                              .get("highWatermark")
                              .asLong())
                      .isEqualTo(10));
      assertThat(
              TestClients.values(
                  TestClients.readAll(
                      b.bootstrapServers(),
                      topic,
                      org.apache.kafka.common.IsolationLevel.READ_COMMITTED,
                      Duration.ofSeconds(60))))
          .hasSize(10);
      // And the second copies nothing, and describe says why
      await()
          .atMost(Duration.ofSeconds(60))
          .untilAsserted(
              () ->
                  assertThat(
                          control(b)
                              .describe("sasl-wrong", 0)
                              .result("sasl-wrong", 0)
                              .get("mirror")
                              .get("lastError")
                              .asText())
                      .contains("Authentication failed"));
      assertThat(
              control(b)
                  .describe("sasl-wrong", 0)
                  .result("sasl-wrong", 0)
                  .get("logEndOffset")
                  .asLong())
          .isZero();
    }
  }
}
