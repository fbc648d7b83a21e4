package dev.kafkamirror.broker.agent.kafka4_4.stop;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Properties;
import org.junit.jupiter.api.Test;

/**
 * The stop-state reader and the admin client that creates the topic give up on a silent broker well
 * within a stop step's budget, whatever the user sets (the behaviour on real brokers is in {@link
 * StopStateReaderHungBrokerIT}).
 */
class StopStateReaderSettingsTest {

  /**
   * The budget in which a fence, a failback start and a fetcher's first append read the stop state
   * (ms); a describe reads in 2 s and repeats later.
   */
  private static final long STEP_SYNC_BUDGET_MS = 5_000L;

  @Test
  void theReaderGivesUpOnAnUnansweredRequestWellWithinAStepBudgetWhateverTheUserSet() {
    // Given client settings of the destination cluster with Kafka's long default timeout, a long
    // fetch wait and Kafka's default fetch size
    Properties client = userSettings();
    // When the reader's and the admin's settings are derived
    Properties reader = StateTopicClients.readerProperties(client, 7);
    Properties admin = StateTopicClients.adminProperties(client, 7);
    // Then each waits for one answer at most the local request timeout, which leaves a stop step
    // time to ask another broker, and a fetch returns well before that timeout
    long readerTimeout = Long.parseLong(reader.getProperty("request.timeout.ms"));
    assertThat(readerTimeout).isLessThanOrEqualTo(STEP_SYNC_BUDGET_MS * 3 / 5);
    assertThat(Long.parseLong(reader.getProperty("fetch.max.wait.ms")))
        .isLessThanOrEqualTo(readerTimeout / 4);
    assertThat(Long.parseLong(reader.getProperty("fetch.max.bytes")))
        .isLessThanOrEqualTo(8L * 1024 * 1024);
    assertThat(admin.getProperty("request.timeout.ms")).isEqualTo(String.valueOf(readerTimeout));
    assertThat(Long.parseLong(admin.getProperty("default.api.timeout.ms")))
        .isGreaterThanOrEqualTo(2 * readerTimeout);
    // And the cluster's connection settings are kept, under the plugin's own client ids
    assertThat(reader.getProperty("security.protocol")).isEqualTo("SASL_SSL");
    assertThat(admin.getProperty("security.protocol")).isEqualTo("SASL_SSL");
    assertThat(reader.getProperty("enable.auto.commit")).isEqualTo("false");
    assertThat(reader.getProperty("client.id")).isEqualTo("cluster-mirror-stop-state-reader-7");
    assertThat(admin.getProperty("client.id")).isEqualTo("cluster-mirror-stop-state-admin-7");
  }

  private static Properties userSettings() {
    Properties client = new Properties();
    client.put("bootstrap.servers", "127.0.0.1:9092");
    client.put("security.protocol", "SASL_SSL");
    client.put("request.timeout.ms", "30000");
    client.put("default.api.timeout.ms", "1000");
    client.put("fetch.max.wait.ms", "20000");
    client.put("fetch.max.bytes", "52428800");
    client.put("enable.auto.commit", "true");
    return client;
  }
}
