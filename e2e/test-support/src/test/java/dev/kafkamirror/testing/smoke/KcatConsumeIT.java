package dev.kafkamirror.testing.smoke;

import static org.assertj.core.api.Assertions.assertThat;

import dev.kafkamirror.testing.kafka.KafkaCluster;
import dev.kafkamirror.testing.kafka.KafkaClusterConfig;
import dev.kafkamirror.testing.kafka.TestClients;
import dev.kafkamirror.testing.process.Commands;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** Smoke test (d): kcat (librdkafka, a non-Java client) consumes from a harness cluster. */
class KcatConsumeIT {

  private static KafkaCluster cluster;

  @BeforeAll
  static void startCluster() {
    cluster = KafkaClusterConfig.builder("smoke-d").singleNode().start();
  }

  @AfterAll
  static void stopCluster() {
    if (cluster != null) {
      cluster.close();
    }
  }

  @Test
  void kcatReadsEveryRecordAtItsOffset() throws Exception {
    // Given 25 records written by a Java idempotent producer
    String topic = "smoke-kcat";
    cluster.createTopic(topic, 1, 1, Map.of());
    List<String> expected = new ArrayList<>();
    try (KafkaProducer<String, String> producer =
        TestClients.idempotentProducer(cluster.bootstrapServers())) {
      for (int i = 0; i < 25; i++) {
        long offset =
            producer
                .send(new ProducerRecord<>(topic, "k" + i, "value-" + i))
                .get(30, TimeUnit.SECONDS)
                .offset();
        expected.add(offset + " k" + i + " value-" + i);
      }
    }

    // When kcat consumes the topic from the beginning to its end
    Commands.Result kcat =
        Commands.run(
                Duration.ofSeconds(60),
                List.of(
                    "kcat",
                    "-C",
                    "-b",
                    cluster.bootstrapServers(),
                    "-t",
                    topic,
                    "-o",
                    "beginning",
                    "-e",
                    "-q",
                    "-f",
                    "%o %k %s\\n"))
            .requireSuccess();

    // Then it printed every record, with its offset and key, in order
    assertThat(kcat.stdout().lines().toList()).containsExactlyElementsOf(expected);
  }
}
