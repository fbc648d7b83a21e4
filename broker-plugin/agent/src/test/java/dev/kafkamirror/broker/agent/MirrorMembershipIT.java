package dev.kafkamirror.broker.agent;

import static dev.kafkamirror.broker.agent.ProducerWrites.newProducerWrites;
import static dev.kafkamirror.broker.agent.StopFixtures.awaitReplicasConverged;
import static dev.kafkamirror.broker.agent.StopFixtures.barrierOffsets;
import static dev.kafkamirror.broker.agent.StopFixtures.replicaBytes;
import static dev.kafkamirror.broker.agent.StopFixtures.writeWithOpenTransaction;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import dev.kafkamirror.testing.kafka.KafkaCluster;
import dev.kafkamirror.testing.kafka.KafkaClusterConfig;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewPartitionReassignment;
import org.apache.kafka.common.ElectionType;
import org.apache.kafka.common.InvalidRecordException;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.record.internal.FileLogInputStream;
import org.apache.kafka.common.record.internal.FileRecords;
import org.junit.jupiter.api.Test;

/**
 * Mirror membership is cluster-wide and durable: a replica that was down when the mirror was
 * started (so never registered) learns from the cluster's membership record that its partition is a
 * mirror, refuses client writes when it leads, resumes mirroring, and can be the fence's target in
 * a stop.
 */
class MirrorMembershipIT {

  private static final String MIRROR = "a-to-b";

  @Test
  void aReplicaDownDuringStartRefusesClientWritesWhenItBecomesLeader() throws Exception {
    String topic = "joined-late";
    TopicPartition tp = new TopicPartition(topic, 0);
    try (KafkaCluster source = KafkaCluster.start(KafkaClusterConfig.builder("mm1-src").build());
        KafkaCluster destination =
            KafkaCluster.start(
                AgentClusters.withAgent("mm1-dst").controllerPlusBrokers(3).build())) {
      // Given broker 3 of B is down while A's topic is mirrored to B (RF 3, min ISR 2)
      StopFixtures.SourceData data = startWithBroker3Down(source, destination, topic);
      try {
        // And broker 3 comes back with no registration of its own
        destination.restartBroker(3);
        awaitInSync(destination, tp, 3);

        // When broker 3 becomes the leader (replicas reordered, preferred election)
        moveLeadershipTo(destination, tp, List.of(3, 1, 2));

        // Then a client write to it is refused as a write into a mirror
        assertThatThrownBy(() -> newProducerWrites(destination.bootstrapServers(), topic, 1, 10))
            .hasRootCauseInstanceOf(InvalidRecordException.class)
            .rootCause()
            .hasMessageContaining("read-only mirror of " + MIRROR);
        // And broker 3 knows the partition from the cluster's record, and mirrors as its leader
        JsonNode onThree = MirrorOps.control(destination, 3).describe(topic, 0).result(topic, 0);
        assertThat(onThree.get("mirror").get("knownFrom").asText())
            .as(onThree.toString())
            .isEqualTo("cluster-record");
        assertThat(onThree.get("mirror").get("state").asText()).isEqualTo("MIRRORING");
        // And has persisted it in its own registry file (written just after it adopted it)
        Path registry = destination.logDir(3).resolve("cluster-mirror-registry.json");
        await()
            .atMost(Duration.ofSeconds(30))
            .ignoreExceptions()
            .untilAsserted(
                () ->
                    assertThat(Files.readString(registry))
                        .contains("\"mirrorName\" : \"" + MIRROR + "\"")
                        .contains("\"knownFrom\" : \"cluster-record\""));
        newProducerWrites(source.bootstrapServers(), topic, 5, 10);
        long sourceEnd = MirrorOps.logEnd(source, topic);
        awaitLeaderCaughtUp(destination, tp, 3, sourceEnd);

        // When the mirror is stopped
        StopDriver driver = new StopDriver(destination, source.clusterId());
        driver.stop(List.of(tp));

        // Then it ends STOPPED with one barrier on every replica, replicas byte-identical, and no
        // destination batch below the barrier differs from the source's
        assertStoppedWithOneBarrierEverywhere(source, destination, driver, tp);
        // And then the partition is writable
        newProducerWrites(destination.bootstrapServers(), topic, 1, 10);
      } finally {
        data.openTransaction().close(Duration.ZERO);
      }
    }
  }

  @Test
  void theFenceMovesLeadershipToAReplicaThatAdoptedTheMembership() throws Exception {
    String topic = "fenced-to-three";
    TopicPartition tp = new TopicPartition(topic, 0);
    try (KafkaCluster source = KafkaCluster.start(KafkaClusterConfig.builder("mm2-src").build());
        KafkaCluster destination =
            KafkaCluster.start(
                AgentClusters.withAgent("mm2-dst").controllerPlusBrokers(3).build())) {
      // Given broker 3 of B was down while the mirror started, and is back and in sync
      StopFixtures.SourceData data = startWithBroker3Down(source, destination, topic);
      try {
        destination.restartBroker(3);
        awaitInSync(destination, tp, 3);
        int leader = destination.leaderOf(tp);
        int other = leader == 1 ? 2 : 1;
        // And has adopted the partition from the cluster's membership, which records it as holder
        await()
            .atMost(Duration.ofSeconds(60))
            .ignoreExceptions()
            .untilAsserted(
                () -> {
                  JsonNode onThree =
                      MirrorOps.control(destination, 3).describe(topic, 0).result(topic, 0);
                  assertThat(onThree.get("mirror").get("knownFrom").asText())
                      .isEqualTo("cluster-record");
                  JsonNode onLeader =
                      MirrorOps.control(destination, leader).describe(topic, 0).result(topic, 0);
                  assertThat(onLeader.get("clusterMembership").get("holders").toString())
                      .contains("3");
                });
        // And broker 3 is the next preferred replica after the leader, so the fence picks it
        moveLeadershipTo(destination, tp, List.of(leader, 3, other));

        // When the stop truncates (the source's open transaction makes it fence first)
        StopDriver driver = new StopDriver(destination, source.clusterId());
        driver.step("remove-fetchers", List.of(tp));
        driver.step("truncate", List.of(tp));

        // Then leadership moved to broker 3, which refuses client writes during the stop
        assertThat(driver.leaderMoves()).isEqualTo(1);
        assertThat(destination.leaderOf(tp)).isEqualTo(3);
        assertThatThrownBy(() -> newProducerWrites(destination.bootstrapServers(), topic, 1, 10))
            .hasRootCauseInstanceOf(InvalidRecordException.class)
            .rootCause()
            .hasMessageContaining("read-only mirror of " + MIRROR);

        // And the stop completes on it: STOPPED, one barrier on every replica
        driver.step("persist-offsets", List.of(tp));
        driver.step("barrier", List.of(tp));
        driver.step("make-writable", List.of(tp));
        assertStoppedWithOneBarrierEverywhere(source, destination, driver, tp);
      } finally {
        data.openTransaction().close(Duration.ZERO);
      }
    }
  }

  /**
   * Writes to A (with a transaction left open), creates B's topic (RF 3, min ISR 2), stops broker 3
   * and starts the mirror on brokers 1 and 2 only; waits until B's leader caught up.
   */
  private static StopFixtures.SourceData startWithBroker3Down(
      KafkaCluster source, KafkaCluster destination, String topic) throws Exception {
    TopicPartition tp = new TopicPartition(topic, 0);
    source.createTopic(topic, 1, 1, Map.of());
    destination.createTopic(topic, 1, 3, Map.of("min.insync.replicas", "2"));
    StopFixtures.SourceData data = writeWithOpenTransaction(source, topic, "a");
    destination.stopBroker(3);
    for (int broker : List.of(1, 2)) {
      JsonNode started =
          MirrorOps.control(destination, broker)
              .startMirroring(MIRROR, source.bootstrapServers(), source.clusterId(), topic, 0)
              .result(topic, 0);
      assertThat(started.has("error")).as(started.toString()).isFalse();
    }
    await()
        .atMost(Duration.ofSeconds(90))
        .ignoreExceptions()
        .untilAsserted(
            () -> {
              int leader = destination.leaderOf(tp);
              JsonNode d =
                  MirrorOps.control(destination, leader).describe(topic, 0).result(topic, 0);
              assertThat(d.get("highWatermark").asLong())
                  .as(d.toString())
                  .isEqualTo(data.logEndOffset());
            });
    assertThat(destination.logDir(3).resolve("cluster-mirror-registry.json")).doesNotExist();
    return data;
  }

  private static void awaitInSync(KafkaCluster cluster, TopicPartition tp, int broker) {
    await()
        .atMost(Duration.ofSeconds(90))
        .ignoreExceptions()
        .until(() -> cluster.isrOf(tp).contains(broker));
  }

  private static void awaitLeaderCaughtUp(
      KafkaCluster destination, TopicPartition tp, int leader, long sourceEnd) {
    await()
        .atMost(Duration.ofSeconds(90))
        .untilAsserted(
            () -> {
              JsonNode d =
                  MirrorOps.control(destination, leader)
                      .describe(tp.topic(), 0)
                      .result(tp.topic(), 0);
              assertThat(d.get("role").asText()).isEqualTo("LEADER");
              assertThat(d.get("highWatermark").asLong()).as(d.toString()).isEqualTo(sourceEnd);
            });
  }

  /** Reorders the replicas so that {@code order.get(0)} is preferred, and elects it. */
  static void moveLeadershipTo(KafkaCluster cluster, TopicPartition tp, List<Integer> order)
      throws Exception {
    try (Admin admin = cluster.admin()) {
      admin
          .alterPartitionReassignments(Map.of(tp, Optional.of(new NewPartitionReassignment(order))))
          .all()
          .get(30, TimeUnit.SECONDS);
      await()
          .atMost(Duration.ofSeconds(30))
          .ignoreExceptions()
          .until(
              () ->
                  admin
                          .describeTopics(List.of(tp.topic()))
                          .allTopicNames()
                          .get(10, TimeUnit.SECONDS)
                          .get(tp.topic())
                          .partitions()
                          .get(tp.partition())
                          .replicas()
                          .get(0)
                          .id()
                      == order.get(0));
      try {
        admin.electLeaders(ElectionType.PREFERRED, Set.of(tp)).all().get(30, TimeUnit.SECONDS);
      } catch (java.util.concurrent.ExecutionException e) {
        if (!(e.getCause() instanceof org.apache.kafka.common.errors.ElectionNotNeededException)) {
          throw e;
        }
      }
    }
    await()
        .atMost(Duration.ofSeconds(30))
        .ignoreExceptions()
        .until(() -> cluster.leaderOf(tp) == order.get(0));
  }

  private static void assertStoppedWithOneBarrierEverywhere(
      KafkaCluster source, KafkaCluster destination, StopDriver driver, TopicPartition tp)
      throws Exception {
    JsonNode onLeader = driver.describeOnLeaders(List.of(tp)).get(tp);
    JsonNode stop = onLeader.get("stop");
    assertThat(stop.get("step").asText()).as(onLeader.toString()).isEqualTo("STOPPED");
    long barrier = stop.get("barrierOffset").asLong();
    awaitReplicasConverged(destination, tp);
    byte[] reference = replicaBytes(destination, destination.leaderOf(tp), tp);
    List<String> sourceBelow = signaturesBelow(source, source.brokerIds().get(0), tp, barrier);
    assertThat(sourceBelow).isNotEmpty();
    for (int broker : destination.brokerIds()) {
      assertThat(barrierOffsets(destination, broker, tp))
          .as("barriers on broker " + broker)
          .containsExactly(barrier);
      assertThat(replicaBytes(destination, broker, tp))
          .as("replica on broker " + broker)
          .isEqualTo(reference);
      assertThat(signaturesBelow(destination, broker, tp, barrier))
          .as("batches below the barrier on broker " + broker)
          .containsExactlyElementsOf(sourceBelow);
    }
  }

  /**
   * Offsets, producer id, epoch, sequence, control flag and CRC of the batches below {@code end}.
   */
  private static List<String> signaturesBelow(
      KafkaCluster cluster, int broker, TopicPartition tp, long end) throws Exception {
    List<String> out = new ArrayList<>();
    List<Path> segments;
    try (Stream<Path> files = Files.list(cluster.partitionDir(broker, tp))) {
      segments = files.filter(f -> f.getFileName().toString().endsWith(".log")).sorted().toList();
    }
    for (Path segment : segments) {
      try (FileRecords records = FileRecords.open(segment.toFile(), false)) {
        for (FileLogInputStream.FileChannelRecordBatch b : records.batches()) {
          if (b.lastOffset() >= end) {
            continue;
          }
          out.add(
              b.baseOffset()
                  + ".."
                  + b.lastOffset()
                  + " pid="
                  + b.producerId()
                  + " epoch="
                  + b.producerEpoch()
                  + " seq="
                  + b.baseSequence()
                  + " control="
                  + b.isControlBatch()
                  + " crc="
                  + b.checksum());
        }
      }
    }
    return out;
  }
}
