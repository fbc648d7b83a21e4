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
}
