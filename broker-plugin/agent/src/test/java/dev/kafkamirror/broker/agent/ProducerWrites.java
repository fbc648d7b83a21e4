package dev.kafkamirror.broker.agent;

import dev.kafkamirror.testing.kafka.TestClients;
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
