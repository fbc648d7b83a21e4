package dev.kafkamirror.broker.agent;

import static dev.kafkamirror.broker.agent.StopFixtures.awaitReplicasConverged;
import static dev.kafkamirror.broker.agent.StopFixtures.barrierOffsets;
import static dev.kafkamirror.broker.agent.StopFixtures.mirrorOnEveryBroker;
import static dev.kafkamirror.broker.agent.StopFixtures.replicaBytes;
import static dev.kafkamirror.broker.agent.StopFixtures.writeWithOpenTransaction;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
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
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.Test;

/**
 * The safe stop sequence on a 3-broker destination: a follower down during the truncation, the
 * source cluster gone, an open transaction at the start of the stop, a repeated sequence.
 */
class StopSequenceIT {

  @Test
  void aStopWithAFollowerDownAndTheSourceGoneConvergesEveryReplicaByteForByte() throws Exception {
    String topic = "orders";
    TopicPartition tp = new TopicPartition(topic, 0);
    try (KafkaCluster destination =
        KafkaCluster.start(AgentClusters.withAgent("stop-dest").controllerPlusBrokers(3).build())) {
      StopFixtures.SourceData data;
      String sourceClusterId;
      // Given A mirrored to B (RF=3), with a transaction still open on A when the stop starts
      try (KafkaCluster source =
          KafkaCluster.start(KafkaClusterConfig.builder("stop-src").build())) {
        sourceClusterId = source.clusterId();
        source.createTopic(topic, 1, 1, Map.of());
        destination.createTopic(topic, 1, 3, Map.of("min.insync.replicas", "2"));
        data = writeWithOpenTransaction(source, topic, "a");
        mirrorOnEveryBroker(source, destination, "a-to-b", topic, data.logEndOffset());
        data.openTransaction().close(Duration.ZERO);
      }
      // And A is gone (the data centre is lost)
      StopDriver driver = new StopDriver(destination, sourceClusterId);
      driver.step("remove-fetchers", List.of(tp));
      // And one follower of B is down while the leader truncates
      int leader = destination.leaderOf(tp);
      int downFollower =
          destination.brokerIds().stream().filter(b -> b != leader).findFirst().orElseThrow();
      destination.stopBroker(downFollower);

      // When the stop sequence runs to the end
      driver.step("truncate", List.of(tp));
      driver.step("persist-offsets", List.of(tp));
      driver.step("barrier", List.of(tp));
      driver.step("make-writable", List.of(tp));

      // Then the truncation fenced the replicas with a new leader (the log held the leader's epoch)
      assertThat(driver.leaderMoves()).isEqualTo(1);
      JsonNode onLeader = driver.describeOnLeaders(List.of(tp)).get(tp);
      JsonNode stop = onLeader.get("stop");
      assertThat(stop.get("step").asText()).isEqualTo("STOPPED");
      assertThat(stop.get("truncateTargetOffset").asLong()).isEqualTo(data.lastStableOffset());
      assertThat(stop.get("truncatedToOffset").asLong()).isEqualTo(data.lastStableOffset());
      assertThat(stop.get("lastMirroredOffset").asLong()).isEqualTo(data.lastStableOffset());
      assertThat(stop.get("lastMirroredEpoch").asInt()).isGreaterThanOrEqualTo(0);
      assertThat(stop.get("barrierOffset").asLong()).isEqualTo(data.lastStableOffset());
      assertThat(stop.get("sourceClusterId").asText()).isEqualTo(sourceClusterId);
      assertThat(onLeader.get("mirror").get("state").asText()).isEqualTo("STOPPED");
      assertThat(onLeader.get("openTransactions").asInt()).isZero();
      assertThat(onLeader.get("leaderEpoch").asInt())
          .isGreaterThan(stop.get("lastMirroredEpoch").asInt());

      // And the sequence again is harmless: same barrier, nothing appended
      long endBefore = onLeader.get("logEndOffset").asLong();
      driver.stop(List.of(tp));
      JsonNode again =
          MirrorOps.control(destination, destination.leaderOf(tp))
              .stopStep("barrier", topic, sourceClusterId, 0)
              .result(topic, 0);
      assertThat(again.get("appended").asBoolean()).isFalse();
      assertThat(again.get("barrierOffset").asLong()).isEqualTo(data.lastStableOffset());
      assertThat(driver.describeOnLeaders(List.of(tp)).get(tp).get("logEndOffset").asLong())
          .isEqualTo(endBefore);

      // When new local producers write to B, and the follower comes back
      List<String> local = new ArrayList<>();
      try (KafkaProducer<String, String> p =
          TestClients.idempotentProducer(destination.bootstrapServers())) {
        for (int i = 0; i < 5; i++) {
          p.send(new ProducerRecord<>(topic, 0, "k", "b-idem-" + i)).get(30, TimeUnit.SECONDS);
          local.add("b-idem-" + i);
        }
      }
      try (KafkaProducer<String, String> tx =
          TestClients.transactionalProducer(destination.bootstrapServers(), "b-tx")) {
        tx.initTransactions();
        tx.beginTransaction();
        for (int i = 0; i < 3; i++) {
          tx.send(new ProducerRecord<>(topic, 0, "k", "b-tx-" + i));
          local.add("b-tx-" + i);
        }
        TestClients.commitAndAwaitMarkers(tx, destination.bootstrapServers(), "b-tx");
      }
      destination.restartBroker(downFollower);
      awaitReplicasConverged(destination, tp);

      // Then every replica holds the same bytes, with exactly one barrier, at the LSO
      byte[] reference = replicaBytes(destination, destination.leaderOf(tp), tp);
      for (int broker : destination.brokerIds()) {
        assertThat(replicaBytes(destination, broker, tp))
            .as("replica on broker " + broker)
            .isEqualTo(reference);
        assertThat(barrierOffsets(destination, broker, tp))
            .as("barriers on broker " + broker)
            .containsExactly(data.lastStableOffset());
      }
      // And read_committed consumers see exactly what A committed below its LSO, then B's records
      List<String> expected = new ArrayList<>(data.committedBelowLso());
      expected.addAll(local);
      assertThat(
              TestClients.values(
                  TestClients.readAll(
                      destination.bootstrapServers(),
                      topic,
                      IsolationLevel.READ_COMMITTED,
                      Duration.ofSeconds(60))))
          .containsExactlyElementsOf(expected);
      // And so do read_uncommitted ones: nothing of the open transaction or above the LSO survived
      assertThat(
              TestClients.values(
                  TestClients.readAll(
                      destination.bootstrapServers(),
                      topic,
                      IsolationLevel.READ_UNCOMMITTED,
                      Duration.ofSeconds(60))))
          .containsExactlyElementsOf(expected);
      // And the follower that was down reads the durable stop state back and adopts it
      org.awaitility.Awaitility.await()
          .atMost(Duration.ofSeconds(30))
          .untilAsserted(
              () -> {
                JsonNode onReturned =
                    MirrorOps.control(destination, downFollower)
                        .describe(topic, 0)
                        .result(topic, 0);
                assertThat(onReturned.has("stop")).as(onReturned.toString()).isTrue();
                assertThat(onReturned.get("stop").get("step").asText()).isEqualTo("STOPPED");
                assertThat(onReturned.get("mirror").get("state").asText()).isEqualTo("STOPPED");
              });
    }
  }
}
