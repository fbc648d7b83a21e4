package dev.kafkamirror.operator.kafka;

import static org.assertj.core.api.Assertions.assertThatCode;

import java.util.Properties;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.junit.jupiter.api.Test;

class KafkaDiscardKeeperTest {

  @Test
  void theSideTopicWriterCanBeMadeWithAnyCallTimeoutIncludingThirtySeconds() {
    // Given call timeouts around Kafka's 30 s request bound (CMO_ADMIN_TIMEOUT_MS=30000 is a round
    // number a user sets), and a bootstrap nothing listens on (making a producer connects nowhere)
    Properties common = new Properties();
    common.put("bootstrap.servers", "127.0.0.1:1");
    for (long timeoutMs : new long[] {1_000, 10_000, 29_996, 30_000, 30_004, 120_000}) {
      // When the side topic writer is made with it
      // Then Kafka accepts its settings (delivery.timeout.ms >= linger.ms + request.timeout.ms)
      assertThatCode(
              () -> {
                try (KafkaProducer<byte[], byte[]> producer =
                    new KafkaProducer<>(KafkaDiscardKeeper.producerProperties(common, timeoutMs))) {
                  producer.metrics();
                }
              })
          .as("timeout %d ms", timeoutMs)
          .doesNotThrowAnyException();
    }
  }
}
