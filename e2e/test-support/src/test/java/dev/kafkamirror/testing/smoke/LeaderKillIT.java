package dev.kafkamirror.testing.smoke;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.kafkamirror.testing.kafka.KafkaCluster;
import dev.kafkamirror.testing.kafka.KafkaClusterConfig;
import dev.kafkamirror.testing.kafka.TestClients;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.IsolationLevel;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Smoke test (b): a controller plus three broker JVMs; kill -9 of the leader loses no acks=all
 * record.
 */
class LeaderKillIT {

  private static KafkaCluster cluster;

  @BeforeAll
  static void startCluster() {
    cluster = KafkaClusterConfig.builder("smoke-b").controllerPlusBrokers(3).start();
  }

  @AfterAll
  static void stopCluster() {
    if (cluster != null) {
      cluster.close();
    }
  }

  @Test
  void everyAcknowledgedRecordSurvivesSigkillOfTheLeader() throws Exception {
    // Given a topic at RF=3 and min.insync.replicas=2 with 1,000 acknowledged records
    String topic = "smoke-durable";
    TopicPartition partition = new TopicPartition(topic, 0);
    cluster.createTopic(topic, 1, 3, Map.of("min.insync.replicas", "2"));
    assertThat(cluster.brokerIds()).containsExactly(1, 2, 3);
    await().atMost(Duration.ofSeconds(60)).until(() -> cluster.isrOf(partition).size() == 3);
    List<String> acknowledged = new ArrayList<>();
    try (KafkaProducer<String, String> producer =
        TestClients.idempotentProducer(cluster.bootstrapServers())) {
      List<Future<RecordMetadata>> sends = new ArrayList<>();
      for (int i = 0; i < 1000; i++) {
        sends.add(producer.send(new ProducerRecord<>(topic, "k" + i, "v" + i)));
      }
      for (int i = 0; i < sends.size(); i++) {
        sends.get(i).get(60, TimeUnit.SECONDS);
        acknowledged.add("v" + i);
      }
    }
    int oldLeader = cluster.leaderOf(partition);

    // When the leader's JVM is killed with SIGKILL
    long oldLeaderPid = cluster.node(oldLeader).pid();
    cluster.killBroker(oldLeader);
    assertThat(ProcessHandle.of(oldLeaderPid).map(ProcessHandle::isAlive))
        .isNotEqualTo(java.util.Optional.of(true));

    // Then another broker takes over and every acknowledged record is there, once
    await()
        .atMost(Duration.ofSeconds(60))
        .ignoreExceptions()
        .until(() -> cluster.leaderOf(partition) != oldLeader);
    List<String> read =
        TestClients.values(
            TestClients.readAll(
                cluster.bootstrapServers(),
                topic,
                IsolationLevel.READ_COMMITTED,
                Duration.ofSeconds(60)));
    assertThat(read).containsExactlyElementsOf(acknowledged);

    // And the killed broker recovers from its own data and rejoins the ISR
    cluster.restartBroker(oldLeader);
    await()
        .atMost(Duration.ofSeconds(90))
        .until(() -> cluster.isrOf(partition).contains(oldLeader));
  }
}
