package dev.kafkamirror.broker.agent;

import dev.kafkamirror.testing.kafka.KafkaCluster;
import dev.kafkamirror.testing.kafka.TestClients;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;

/** Writes by distinct idempotent producers: each call is a new producer, so a new producer id. */
final class ProducerWrites {

  private ProducerWrites() {}

  /**
   * One new idempotent producer writes {@code records} values of {@code valueBytes} bytes, each
   * acknowledged.
   */
  /**
   * One new idempotent producer writes {@code prefix-0} to {@code prefix-(count-1)} to {@code
   * topic} on {@code cluster}, each acknowledged; the values written, in order.
   *
   * @throws IllegalStateException naming the cluster when a write fails (its cause is Kafka's)
   */
  static List<String> idempotent(KafkaCluster cluster, String topic, String prefix, int count)
      throws Exception {
    List<String> values = new ArrayList<>();
    try (KafkaProducer<String, String> producer =
        TestClients.idempotentProducer(cluster.bootstrapServers())) {
      for (int i = 0; i < count; i++) {
        try {
          producer
              .send(new ProducerRecord<>(topic, "k", prefix + "-" + i))
              .get(30, TimeUnit.SECONDS);
        } catch (ExecutionException e) {
          throw new IllegalStateException("write to " + cluster.name() + " failed", e.getCause());
        }
        values.add(prefix + "-" + i);
      }
    }
    return values;
  }

  static void newProducerWrites(String bootstrap, String topic, int records, int valueBytes)
      throws Exception {
    String padding = "x".repeat(Math.max(0, valueBytes));
    try (KafkaProducer<String, String> producer = TestClients.idempotentProducer(bootstrap)) {
      for (int i = 0; i < records; i++) {
        producer.send(new ProducerRecord<>(topic, "k" + i, padding + i)).get(30, TimeUnit.SECONDS);
      }
    }
  }
}
