package dev.kafkamirror.testing.smoke;

import static org.assertj.core.api.Assertions.assertThat;

import dev.kafkamirror.testing.kafka.KafkaCluster;
import dev.kafkamirror.testing.kafka.KafkaClusterConfig;
import dev.kafkamirror.testing.kafka.TestClients;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.IsolationLevel;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Smoke test (a): a real single-node KRaft broker serves idempotent and transactional producers.
 */
class SingleNodeTransactionsIT {

  private static final Duration READ_TIMEOUT = Duration.ofSeconds(60);
  private static KafkaCluster cluster;

  @BeforeAll
  static void startCluster() {
    cluster = KafkaClusterConfig.builder("smoke-a").singleNode().start();
  }

  @AfterAll
  static void stopCluster() {
    if (cluster != null) {
      cluster.close();
    }
  }

  @Test
  void readCommittedConsumerSeesExactlyTheCommittedRecords() throws Exception {
    // Given a topic on a real broker JVM
    String topic = "smoke-transactions";
    cluster.createTopic(topic, 1, 1, Map.of());
    assertThat(ProcessHandle.of(cluster.node(1).pid()).flatMap(p -> p.info().commandLine()))
        .hasValueSatisfying(cmd -> assertThat(cmd).contains("kafka.Kafka"));

    // When an idempotent producer writes, and a transactional producer commits, aborts, then
    // commits again
    List<String> expectedCommitted = new ArrayList<>();
    List<String> aborted = new ArrayList<>();
    try (KafkaProducer<String, String> idempotent =
        TestClients.idempotentProducer(cluster.bootstrapServers())) {
      for (int i = 0; i < 100; i++) {
        String value = "idempotent-" + i;
        idempotent.send(new ProducerRecord<>(topic, "k" + i, value)).get(30, TimeUnit.SECONDS);
        expectedCommitted.add(value);
      }
    }
    try (KafkaProducer<String, String> transactional =
        TestClients.transactionalProducer(cluster.bootstrapServers(), "smoke-tx")) {
      transactional.initTransactions();
      transactional.beginTransaction();
      for (int i = 0; i < 50; i++) {
        transactional.send(new ProducerRecord<>(topic, "t" + i, "committed-1-" + i));
        expectedCommitted.add("committed-1-" + i);
      }
      transactional.commitTransaction();
      transactional.beginTransaction();
      for (int i = 0; i < 30; i++) {
        transactional.send(new ProducerRecord<>(topic, "a" + i, "aborted-" + i));
        aborted.add("aborted-" + i);
      }
      transactional.flush();
      transactional.abortTransaction();
      transactional.beginTransaction();
      for (int i = 0; i < 20; i++) {
        transactional.send(new ProducerRecord<>(topic, "u" + i, "committed-2-" + i));
        expectedCommitted.add("committed-2-" + i);
      }
      transactional.commitTransaction();
    }

    // Then read_committed sees every committed record once, in order, and no aborted one
    List<String> readCommitted =
        TestClients.values(
            TestClients.readAll(
                cluster.bootstrapServers(), topic, IsolationLevel.READ_COMMITTED, READ_TIMEOUT));
    assertThat(readCommitted).containsExactlyElementsOf(expectedCommitted);
    // And read_uncommitted, on the same log, does see the aborted records: the filter is the
    // broker's
    List<String> readUncommitted =
        TestClients.values(
            TestClients.readAll(
                cluster.bootstrapServers(), topic, IsolationLevel.READ_UNCOMMITTED, READ_TIMEOUT));
    assertThat(readUncommitted).containsAll(aborted).containsAll(expectedCommitted);
    assertThat(readUncommitted).hasSize(expectedCommitted.size() + aborted.size());
  }
}
