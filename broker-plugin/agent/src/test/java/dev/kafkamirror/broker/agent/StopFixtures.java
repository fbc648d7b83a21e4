package dev.kafkamirror.broker.agent;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import dev.kafkamirror.testing.kafka.KafkaCluster;
import dev.kafkamirror.testing.kafka.TestClients;
import java.io.ByteArrayOutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.ListOffsetsOptions;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.IsolationLevel;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.record.internal.ControlRecordType;
import org.apache.kafka.common.record.internal.FileLogInputStream;
import org.apache.kafka.common.record.internal.FileRecords;
import org.apache.kafka.common.record.internal.Record;

/** Source data with an open transaction, and checks on replica logs, for the stop-sequence ITs. */
final class StopFixtures {

  private StopFixtures() {}

  /**
   * What a stop must keep: the values a read_committed consumer of the source sees (everything
   * committed below the last stable offset), and that offset.
   *
   * @param openTransaction a producer whose transaction stays open; close it at the end
   */
  record SourceData(
      List<String> committedBelowLso,
      long lastStableOffset,
      long logEndOffset,
      KafkaProducer<String, String> openTransaction) {}

  /**
   * Writes to partition 0 of {@code topic} on the source: 10 idempotent records, a committed
   * transaction of 5, a transaction of 3 left open, then 5 idempotent records above it.
   */
  static SourceData writeWithOpenTransaction(KafkaCluster source, String topic, String prefix)
      throws Exception {
    List<String> committed = new ArrayList<>();
    try (KafkaProducer<String, String> p =
        TestClients.idempotentProducer(source.bootstrapServers())) {
      for (int i = 0; i < 10; i++) {
        p.send(new ProducerRecord<>(topic, 0, "k", prefix + "-idem-" + i))
            .get(30, TimeUnit.SECONDS);
        committed.add(prefix + "-idem-" + i);
      }
    }
    try (KafkaProducer<String, String> tx =
        TestClients.transactionalProducer(source.bootstrapServers(), prefix + "-committed-tx")) {
      tx.initTransactions();
      tx.beginTransaction();
      for (int i = 0; i < 5; i++) {
        tx.send(new ProducerRecord<>(topic, 0, "k", prefix + "-tx-" + i));
        committed.add(prefix + "-tx-" + i);
      }
      TestClients.commitAndAwaitMarkers(tx, source.bootstrapServers(), prefix + "-committed-tx");
    }
    KafkaProducer<String, String> open =
        TestClients.openTransactionProducer(source.bootstrapServers(), prefix + "-open-tx");
    open.initTransactions();
    open.beginTransaction();
    for (int i = 0; i < 3; i++) {
      open.send(new ProducerRecord<>(topic, 0, "k", prefix + "-never-committed-" + i));
    }
    open.flush();
    try (KafkaProducer<String, String> p =
        TestClients.idempotentProducer(source.bootstrapServers())) {
      for (int i = 0; i < 5; i++) {
        p.send(new ProducerRecord<>(topic, 0, "k", prefix + "-above-lso-" + i))
            .get(30, TimeUnit.SECONDS);
      }
    }
    TopicPartition tp = new TopicPartition(topic, 0);
    try (Admin admin = source.admin()) {
      long lso =
          admin
              .listOffsets(
                  Map.of(tp, OffsetSpec.latest()),
                  new ListOffsetsOptions(IsolationLevel.READ_COMMITTED))
              .all()
              .get(30, TimeUnit.SECONDS)
              .get(tp)
              .offset();
      long leo =
          admin
              .listOffsets(Map.of(tp, OffsetSpec.latest()))
              .all()
              .get(30, TimeUnit.SECONDS)
              .get(tp)
              .offset();
      assertThat(lso).as("the open transaction pins the source's LSO").isLessThan(leo);
      return new SourceData(committed, lso, leo, open);
    }
  }

  /**
   * Creates {@code topic} with one partition on the source and on the destination (replication
   * factor 3, min.insync.replicas 2), writes {@link #writeWithOpenTransaction} to it, mirrors it on
   * every destination broker (mirror {@code m-<topic>}) until caught up, and closes the producer
   * whose transaction stays open on the source.
   */
  static SourceData mirroredWithOpenTransaction(
      KafkaCluster source, KafkaCluster destination, String topic) throws Exception {
    source.createTopic(topic, 1, 1, Map.of());
    destination.createTopic(topic, 1, 3, Map.of("min.insync.replicas", "2"));
    SourceData data = writeWithOpenTransaction(source, topic, topic);
    try {
      mirrorOnEveryBroker(source, destination, "m-" + topic, topic, data.logEndOffset());
    } finally {
      data.openTransaction().close(Duration.ZERO);
    }
    return data;
  }

  /**
   * Starts mirroring partition 0 of {@code topic} on every destination broker and waits until
   * caught up.
   */
  static void mirrorOnEveryBroker(
      KafkaCluster source,
      KafkaCluster destination,
      String mirrorName,
      String topic,
      long sourceEnd) {
    for (int broker : destination.brokerIds()) {
      JsonNode started =
          MirrorOps.control(destination, broker)
              .startMirroring(mirrorName, source.bootstrapServers(), source.clusterId(), topic, 0)
              .result(topic, 0);
      assertThat(started.has("error")).as(started.toString()).isFalse();
    }
    TopicPartition tp = new TopicPartition(topic, 0);
    await()
        .atMost(Duration.ofSeconds(90))
        .untilAsserted(
            () -> {
              int leader = destination.leaderOf(tp);
              JsonNode d =
                  MirrorOps.control(destination, leader).describe(topic, 0).result(topic, 0);
              assertThat(d.get("highWatermark").asLong()).as(d.toString()).isEqualTo(sourceEnd);
            });
  }

  /** Waits until every replica is in the ISR with the same log end offset. */
  static void awaitReplicasConverged(KafkaCluster cluster, TopicPartition tp) {
    await()
        .atMost(Duration.ofSeconds(120))
        .pollInterval(Duration.ofMillis(500))
        .ignoreExceptions()
        .untilAsserted(
            () -> {
              assertThat(cluster.isrOf(tp))
                  .containsExactlyInAnyOrderElementsOf(cluster.brokerIds());
              Set<Long> ends = new HashSet<>();
              for (int broker : cluster.brokerIds()) {
                ends.add(
                    MirrorOps.control(cluster, broker)
                        .describe(tp.topic(), tp.partition())
                        .result(tp.topic(), tp.partition())
                        .get("logEndOffset")
                        .asLong());
              }
              assertThat(ends).hasSize(1);
            });
  }

  /** The bytes of every segment of the replica on {@code broker}, concatenated in offset order. */
  static byte[] replicaBytes(KafkaCluster cluster, int broker, TopicPartition tp) throws Exception {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    for (Path segment : segments(cluster.partitionDir(broker, tp))) {
      out.write(Files.readAllBytes(segment));
    }
    return out.toByteArray();
  }

  /** The base offsets of the MIRROR_PID_RESET barriers in the replica on {@code broker}. */
  static List<Long> barrierOffsets(KafkaCluster cluster, int broker, TopicPartition tp)
      throws Exception {
    List<Long> offsets = new ArrayList<>();
    for (Path segment : segments(cluster.partitionDir(broker, tp))) {
      try (FileRecords records = FileRecords.open(segment.toFile(), false)) {
        for (FileLogInputStream.FileChannelRecordBatch batch : records.batches()) {
          if (!batch.isControlBatch()) {
            continue;
          }
          for (Record r : batch) {
            if (ControlRecordType.parseTypeId(r.key()) == 7) {
              offsets.add(batch.baseOffset());
            }
            break;
          }
        }
      }
    }
    return offsets;
  }

  private static List<Path> segments(Path dir) throws Exception {
    try (Stream<Path> files = Files.list(dir)) {
      return files.filter(f -> f.getFileName().toString().endsWith(".log")).sorted().toList();
    }
  }

  /** Moves the leadership of {@code tp} to another in-sync replica (a new leader epoch). */
  static int moveLeadership(KafkaCluster cluster, TopicPartition tp) throws Exception {
    int leader = cluster.leaderOf(tp);
    int target = cluster.isrOf(tp).stream().filter(b -> b != leader).findFirst().orElseThrow();
    try (Admin admin = cluster.admin()) {
      List<Integer> replicas = new ArrayList<>();
      replicas.add(target);
      cluster.brokerIds().stream().filter(b -> b != target).forEach(replicas::add);
      admin
          .alterPartitionReassignments(
              Map.of(
                  tp,
                  java.util.Optional.of(
                      new org.apache.kafka.clients.admin.NewPartitionReassignment(replicas))))
          .all()
          .get(30, TimeUnit.SECONDS);
      admin
          .electLeaders(org.apache.kafka.common.ElectionType.PREFERRED, Set.of(tp))
          .all()
          .get(30, TimeUnit.SECONDS);
    }
    await()
        .atMost(Duration.ofSeconds(30))
        .ignoreExceptions()
        .until(() -> cluster.leaderOf(tp) == target);
    return target;
  }
}
