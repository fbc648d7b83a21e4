package dev.kafkamirror.broker.agent.kafka4_4.stop;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Properties;
import org.junit.jupiter.api.Test;

/** The stop-state writer keeps each state partition in write order, whatever the user sets. */
class StopStateWriterSettingsTest {

  @Test
  void stateWritesCannotOvertakeEachOtherEvenWhenTheClientSettingsAllowIt() {
    // Given client settings of the destination cluster that a user set for speed
    Properties client = new Properties();
    client.put("bootstrap.servers", "127.0.0.1:9092");
    client.put("security.protocol", "SASL_SSL");
    client.put("max.in.flight.requests.per.connection", "5");
    client.put("acks", "1");
    client.put("retries", "0");
    // When the writer's settings are derived
    Properties writer = StopStateStore.writerProperties(client, 7);
    // Then one request is in flight per connection (a retried record cannot land after a later
    // one: compaction would keep the overtaken record as the state), every write waits for all
    // in-sync replicas and is retried, and the cluster's connection settings are kept
    assertThat(writer.getProperty("max.in.flight.requests.per.connection")).isEqualTo("1");
    assertThat(writer.getProperty("acks")).isEqualTo("all");
    assertThat(writer.getProperty("retries")).isEqualTo(String.valueOf(Integer.MAX_VALUE));
    assertThat(writer.getProperty("security.protocol")).isEqualTo("SASL_SSL");
    assertThat(writer.getProperty("client.id")).isEqualTo("cluster-mirror-stop-state-writer-7");
  }

  @Test
  void aStepsRecordsForThousandsOfPartitionsGoInOneRequestPerBroker() {
    // Given the writer's settings
    Properties writer = StopStateStore.writerProperties(new Properties(), 7);
    int batch = Integer.parseInt(writer.getProperty("batch.size"));
    int request = Integer.parseInt(writer.getProperty("max.request.size"));

    // Then one batch per state partition holds a step's records of some 3,300 partitions (about
    // 300 bytes each, spread over the state partitions a broker leads), instead of the producer's
    // 16 KiB, each of which cost one acks=all round trip in turn (one request in flight): 28 s at
    // 10,000 partitions under load
    assertThat(batch).isGreaterThanOrEqualTo(512 * 1024);
    // And a batch stays within the broker's default message.max.bytes (1 MiB), and a request
    // carries a full batch of every state partition of the default 10 that one broker may lead
    assertThat(batch).isLessThanOrEqualTo(1024 * 1024 - 1024);
    assertThat(request).isGreaterThanOrEqualTo(4 * batch);
  }
}
