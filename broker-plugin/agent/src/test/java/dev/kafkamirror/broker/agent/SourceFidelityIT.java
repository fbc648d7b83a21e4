package dev.kafkamirror.broker.agent;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import dev.kafkamirror.contract.ControlCall;
import dev.kafkamirror.testing.kafka.KafkaCluster;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.RecordsToDelete;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.record.internal.FileLogInputStream;
import org.apache.kafka.common.record.internal.FileRecords;
import org.apache.kafka.common.record.internal.Record;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The mirror copies what the source holds, also when the source changes underneath it (issue 12
 * items 2 to 4): a source topic deleted and created again is never appended after the old one's
 * records; a source whose log starts above 0 is mirrored from there with identical offsets on every
 * destination replica; a destination that fell behind the source's retention says so and skips
 * nothing; a compacted source (offset gaps inside and between batches) is copied batch for batch.
 *
 * <p>One source (single node, a fast log cleaner) and one destination (two brokers, so that a
 * follower's own handling of the leader's log start is seen) for all scenarios; each scenario uses
 * its own topics.
 */
class SourceFidelityIT {

  private static final String MIRROR = "fidelity";

  private static KafkaCluster source;
  private static KafkaCluster destination;

  @BeforeAll
  static void start() {
    source =
        AgentClusters.withAgent("fidelity-a")
            .singleNode()
            .brokerProperty("log.cleaner.backoff.ms", "200")
            .brokerProperty("delete.topic.enable", "true")
            .start();
    destination = AgentClusters.withAgent("fidelity-b").controllerPlusBrokers(2).start();
  }

  @AfterAll
  static void stop() {
    if (destination != null) {
      destination.close();
    }
    if (source != null) {
      source.close();
    }
  }

  @Test
  void aSourceTopicDeletedAndCreatedAgainFailsThePartitionAndIsNeverAppended() throws Exception {
    // Given a topic mirrored from the source with offsets 0..49
    String topic = "recreated";
    source.createTopic(topic, 1, 1, Map.of());
    List<String> firstIncarnation = ProducerWrites.idempotent(source, topic, "old", 50);
    Uuid oldId = sourceTopicId(topic);
    startOnEveryDestinationBroker(topic);
    awaitDestinationHighWatermark(topic, 50);

    // When the source topic is deleted, created again under the same name, and 120 records are
    // written to the new one
    try (Admin admin = source.admin()) {
      admin.deleteTopics(List.of(topic)).all().get(30, TimeUnit.SECONDS);
    }
    createAgainWhenDeleted(topic);
    Uuid newId = sourceTopicId(topic);
    assertThat(newId).isNotEqualTo(oldId);
    ProducerWrites.idempotent(source, topic, "new", 120);

    // Then the partition is FAILED with SourceTopicRecreated naming both topic ids, and the
    // destination keeps exactly the first incarnation's 0..49
    JsonNode mirror = awaitFailedOrAppended(topic, 50);
    assertThat(leaderDescribe(topic).get("logEndOffset").asLong())
        .as("destination log end (a record of the new incarnation appended?) " + mirror)
        .isEqualTo(50);
    assertThat(mirror.get("state").asText()).as(mirror.toString()).isEqualTo("FAILED");
    assertThat(mirror.get("failedReason").asText()).isEqualTo("SourceTopicRecreated");
    assertThat(mirror.get("lastError").asText())
        .contains(oldId.toString(), newId.toString(), topic);
    assertThat(mirror.get("lagRecords").asLong()).isNotZero();
    Thread.sleep(1_000);
    assertThat(leaderDescribe(topic).get("logEndOffset").asLong()).isEqualTo(50);
    assertThat(readValues(destination, topic)).containsExactlyElementsOf(firstIncarnation);

    // When the other replica, which never fetched and so never saw the old topic, becomes leader
    TopicPartition tp = new TopicPartition(topic, 0);
    int oldLeader = destination.leaderOf(tp);
    int other = destination.brokerIds().stream().filter(b -> b != oldLeader).findFirst().get();
    moveLeadership(tp, other);

    // Then it halts too, from the source topic id in the cluster's membership record, and
    // appends nothing of the new topic
    JsonNode onOther = awaitFailedOrAppended(topic, 50);
    assertThat(destination.leaderOf(tp)).isEqualTo(other);
    assertThat(leaderDescribe(topic).get("logEndOffset").asLong()).isEqualTo(50);
    assertThat(onOther.get("state").asText()).as(onOther.toString()).isEqualTo("FAILED");
    assertThat(onOther.get("failedReason").asText()).isEqualTo("SourceTopicRecreated");
    assertThat(onOther.get("lastError").asText()).contains(oldId.toString(), newId.toString());
  }

  @Test
  void aSourceWhoseLogStartIsAboveZeroIsMirroredFromThereOnEveryReplica() throws Exception {
    // Given a source partition with 100 records, one batch each, whose log start was raised to 60
    String topic = "log-start";
    TopicPartition tp = new TopicPartition(topic, 0);
    source.createTopic(topic, 1, 1, Map.of());
    ProducerWrites.idempotent(source, topic, "r", 100);
    deleteRecordsBefore(tp, 60);

    // When a new, empty destination topic (RF 2) mirrors it
    startOnEveryDestinationBroker(topic);

    // Then every destination replica starts its log at 60 and holds the source's batches 60..99
    // exactly
    awaitDestinationHighWatermark(topic, 100);
    List<String> expected = batchesFrom(source, source.brokerIds().get(0), tp, 60);
    assertThat(expected).hasSize(40);
    for (int broker : destination.brokerIds()) {
      await()
          .atMost(Duration.ofSeconds(60))
          .untilAsserted(
              () -> {
                var d = MirrorOps.control(destination, broker).describe(topic, 0);
                JsonNode p = d.result(topic, 0);
                assertThat(p.get("logStartOffset").asLong()).as("broker " + broker).isEqualTo(60);
                assertThat(p.get("logEndOffset").asLong()).as("broker " + broker).isEqualTo(100);
              });
      assertThat(batchesFrom(destination, broker, tp, 0))
          .as("broker " + broker)
          .isEqualTo(expected);
    }
    JsonNode mirror = leaderDescribe(topic).get("mirror");
    assertThat(mirror.get("state").asText()).as(mirror.toString()).isEqualTo("MIRRORING");
    assertThat(mirror.get("lagRecords").asLong()).isZero();

    // And mirroring goes on from there
    ProducerWrites.idempotent(source, topic, "more", 10);
    awaitDestinationHighWatermark(topic, 110);
  }

  @Test
  void aSourceLogStartInsideABatchIsTheDestinationsLogStartOnEveryReplica() throws Exception {
    // Given a source partition of ten batches of ten records whose log start was raised to 65,
    // inside the batch 60..69
    String topic = "log-start-mid-batch";
    TopicPartition tp = new TopicPartition(topic, 0);
    source.createTopic(topic, 1, 1, Map.of());
    try (KafkaProducer<String, String> producer = plainProducer(source)) {
      for (int batch = 0; batch < 10; batch++) {
        for (int r = 0; r < 10; r++) {
          producer.send(new ProducerRecord<>(topic, "k" + r, "v-" + batch + "-" + r));
        }
        producer.flush();
      }
    }
    deleteRecordsBefore(tp, 65);
    List<String> expected = batchesFrom(source, source.brokerIds().get(0), tp, 65);
    assertThat(expected.get(0)).as("the source's batch around its log start").startsWith("60..69 ");

    // When a new, empty destination topic mirrors it
    startOnEveryDestinationBroker(topic);

    // Then every replica's log starts at 65, the source's log start, and holds the source's
    // batches from 60..69 on
    awaitDestinationHighWatermark(topic, 100);
    for (int broker : destination.brokerIds()) {
      await()
          .atMost(Duration.ofSeconds(60))
          .untilAsserted(
              () -> {
                var d = MirrorOps.control(destination, broker).describe(topic, 0);
                JsonNode p = d.result(topic, 0);
                assertThat(p.get("logStartOffset").asLong()).as("broker " + broker).isEqualTo(65);
                assertThat(p.get("logEndOffset").asLong()).as("broker " + broker).isEqualTo(100);
              });
      assertThat(batchesFrom(destination, broker, tp, 0))
          .as("broker " + broker)
          .isEqualTo(expected);
    }
    JsonNode mirror = leaderDescribe(topic).get("mirror");
    assertThat(mirror.get("state").asText()).as(mirror.toString()).isEqualTo("MIRRORING");
    assertThat(mirror.get("lagRecords").asLong()).isZero();
  }

  @Test
  void aDestinationBehindTheSourcesRetentionFailsWithSourceRetentionOverrun() throws Exception {
    // Given a mirror at 50 that is paused while the source goes on to 100 and drops all below 80
    String topic = "overrun";
    TopicPartition tp = new TopicPartition(topic, 0);
    source.createTopic(topic, 1, 1, Map.of());
    ProducerWrites.idempotent(source, topic, "r", 50);
    startOnEveryDestinationBroker(topic);
    awaitDestinationHighWatermark(topic, 50);
    int leader = destination.leaderOf(tp);
    MirrorOps.control(destination, leader).call(ControlCall.PAUSE, topic, null, 0);
    ProducerWrites.idempotent(source, topic, "later", 50);
    deleteRecordsBefore(tp, 80);

    // When it resumes
    MirrorOps.control(destination, leader).call(ControlCall.RESUME, topic, null, 0);

    // Then it is FAILED with SourceRetentionOverrun naming both offsets, and nothing is skipped
    JsonNode mirror = awaitFailedOrAppended(topic, 50);
    assertThat(leaderDescribe(topic).get("logEndOffset").asLong()).isEqualTo(50);
    assertThat(mirror.get("state").asText()).as(mirror.toString()).isEqualTo("FAILED");
    assertThat(mirror.get("failedReason").asText()).isEqualTo("SourceRetentionOverrun");
    assertThat(mirror.get("lastError").asText()).contains(topic, "50", "80");
    assertThat(mirror.get("lagRecords").asLong()).isEqualTo(50);
    Thread.sleep(1_000);
    assertThat(leaderDescribe(topic).get("logEndOffset").asLong()).isEqualTo(50);
  }

  @Test
  void aCompactedSourceIsMirroredBatchForBatch() throws Exception {
    // Given a compacted source topic whose cleaner removed whole batches and records inside
    // batches
    String topic = "compacted";
    TopicPartition tp = new TopicPartition(topic, 0);
    source.createTopic(
        topic,
        1,
        1,
        Map.of(
            "cleanup.policy", "compact",
            "segment.ms", "500",
            "min.cleanable.dirty.ratio", "0.01",
            "min.compaction.lag.ms", "0",
            "delete.retention.ms", "3600000"));
    try (KafkaProducer<String, String> producer = plainProducer(source)) {
      // ten batches of one record at the log's start, all overwritten: the cleaned log's first
      // batch starts above its log start 0
      for (int batch = 0; batch < 10; batch++) {
        producer
            .send(new ProducerRecord<>(topic, "hot", "first-" + batch))
            .get(30, TimeUnit.SECONDS);
      }
      for (int batch = 0; batch < 40; batch++) {
        // ten records per batch: five keys shared by every batch (only the newest survive) and
        // five keys of this batch alone
        for (int r = 0; r < 10; r++) {
          String key = r % 2 == 0 ? "shared-" + r : "own-" + batch + "-" + r;
          producer.send(new ProducerRecord<>(topic, key, "v-" + batch + "-" + r));
        }
        producer.flush();
        // and a batch of one record whose key is overwritten by every next one
        producer.send(new ProducerRecord<>(topic, "hot", "hot-" + batch)).get(30, TimeUnit.SECONDS);
        // so that segments roll (segment.ms) and the cleaner has several to clean
        Thread.sleep(100);
      }
    }
    awaitCleaned(tp);

    List<String> cleaned = batchesFrom(source, source.brokerIds().get(0), tp, 0);
    assertThat(cleaned.get(0)).as("the first batch after cleaning").doesNotStartWith("0..");

    // When an empty destination topic mirrors it
    long end = MirrorOps.logEnd(source, topic);
    startOnEveryDestinationBroker(topic);
    awaitDestinationHighWatermark(topic, end);

    // Then each destination replica holds the same batches: offsets, CRCs and records
    List<String> expected = batchesFrom(source, source.brokerIds().get(0), tp, 0);
    for (int broker : destination.brokerIds()) {
      await()
          .atMost(Duration.ofSeconds(60))
          .untilAsserted(
              () ->
                  assertThat(batchesFrom(destination, broker, tp, 0))
                      .as("broker " + broker)
                      .isEqualTo(expected));
    }
    JsonNode mirror = leaderDescribe(topic).get("mirror");
    assertThat(mirror.get("state").asText()).as(mirror.toString()).isEqualTo("MIRRORING");
  }

  @Test
  void aPlainStartOnADestinationThatHoldsLocalWritesIsRefusedAndAppendsNothing() throws Exception {
    // Given a source partition with records 0..9
    String topic = "local-writes";
    TopicPartition tp = new TopicPartition(topic, 0);
    source.createTopic(topic, 1, 1, Map.of());
    ProducerWrites.idempotent(source, topic, "src", 10);

    // And a destination topic created before it was registered as a mirror, to which an ordinary
    // idempotent producer wrote 0..2 in that window (records the source never had)
    destination.createTopic(topic, 1, 2, Map.of());
    List<String> local = ProducerWrites.idempotent(destination, topic, "local", 3);
    int leader = destination.leaderOf(tp);
    await()
        .atMost(Duration.ofSeconds(60))
        .ignoreExceptions()
        .untilAsserted(
            () -> {
              for (int broker : destination.brokerIds()) {
                JsonNode d =
                    MirrorOps.control(destination, broker).describe(topic, 0).result(topic, 0);
                assertThat(d.get("logEndOffset").asLong()).as("broker " + broker).isEqualTo(3);
              }
            });
    List<String> before = batchesFrom(destination, leader, tp, 0);
    assertThat(before).isNotEmpty();

    // When the mirror is started with a plain start (no initialSync), leader first
    List<JsonNode> answers = new ArrayList<>();
    List<Integer> order = new ArrayList<>(List.of(leader));
    destination.brokerIds().stream().filter(b -> b != leader).forEach(order::add);
    for (int broker : order) {
      answers.add(
          MirrorOps.control(destination, broker)
              .startMirroring(MIRROR, source.bootstrapServers(), source.clusterId(), topic, 0)
              .result(topic, 0));
    }

    // Then the start is refused on the leader (or the partition halts FAILED) with an error that
    // names the partition, the mirror, the local log end and that the records were not mirrored
    JsonNode onLeader = answers.get(0);
    String why;
    if (onLeader.has("error")) {
      assertThat(onLeader.get("error").get("code").asText())
          .as(onLeader.toString())
          .isEqualTo("INVALID_STATE");
      why = onLeader.get("error").get("message").asText();
    } else {
      JsonNode mirror = awaitFailedOrAppended(topic, 3);
      assertThat(mirror.get("state").asText())
          .as("a plain start on a destination holding 3 local records: " + leaderDescribe(topic))
          .isEqualTo("FAILED");
      why = mirror.get("lastError").asText();
    }
    assertThat(why).contains(tp.toString(), MIRROR, "log end 3", "not mirrored");

    // And nothing of the source is appended after the local records: the log is as it was
    Thread.sleep(3_000);
    for (int broker : destination.brokerIds()) {
      JsonNode d = MirrorOps.control(destination, broker).describe(topic, 0).result(topic, 0);
      assertThat(d.get("logEndOffset").asLong()).as("broker " + broker + ": " + d).isEqualTo(3);
    }
    assertThat(batchesFrom(destination, leader, tp, 0)).isEqualTo(before);
    assertThat(readValues(destination, topic)).containsExactlyElementsOf(local);
  }

  @Test
  void aReplicaRegisteredEmptyThatLeadsALogWithLocalWritesHaltsAndAppendsNothing()
      throws Exception {
    // Given a source partition with records 0..9
    String topic = "local-writes-follower";
    TopicPartition tp = new TopicPartition(topic, 0);
    source.createTopic(topic, 1, 1, Map.of());
    ProducerWrites.idempotent(source, topic, "src", 10);

    // And a destination topic whose follower alone was registered while its log was empty (the
    // start passes there), after which an ordinary producer wrote 0..2 through the leader
    destination.createTopic(topic, 1, 2, Map.of());
    int leader = destination.leaderOf(tp);
    int follower = destination.brokerIds().stream().filter(b -> b != leader).findFirst().get();
    JsonNode started =
        MirrorOps.control(destination, follower)
            .startMirroring(MIRROR, source.bootstrapServers(), source.clusterId(), topic, 0)
            .result(topic, 0);
    assertThat(started.has("error")).as(started.toString()).isFalse();
    List<String> local = ProducerWrites.idempotent(destination, topic, "local", 3);
    await()
        .atMost(Duration.ofSeconds(60))
        .ignoreExceptions()
        .untilAsserted(
            () -> {
              JsonNode d =
                  MirrorOps.control(destination, follower).describe(topic, 0).result(topic, 0);
              assertThat(d.get("logEndOffset").asLong()).isEqualTo(3);
            });
    List<String> before = batchesFrom(destination, leader, tp, 0);

    // When the registered replica becomes leader (and so starts fetching)
    moveLeadership(tp, follower);

    // Then it halts FAILED / LocalRecordsNotMirrored naming the partition, the mirror and the log
    // end, and appends nothing of the source after the local records
    JsonNode mirror = awaitFailedOrAppended(topic, 3);
    assertThat(destination.leaderOf(tp)).isEqualTo(follower);
    assertThat(mirror.get("state").asText())
        .as("a replica registered empty, leading 3 local records: " + leaderDescribe(topic))
        .isEqualTo("FAILED");
    assertThat(mirror.get("failedReason").asText()).isEqualTo("LocalRecordsNotMirrored");
    assertThat(mirror.get("lastError").asText())
        .contains(tp.toString(), MIRROR, "log end 3", "not mirrored");
    Thread.sleep(3_000);
    for (int broker : destination.brokerIds()) {
      JsonNode d = MirrorOps.control(destination, broker).describe(topic, 0).result(topic, 0);
      assertThat(d.get("logEndOffset").asLong()).as("broker " + broker + ": " + d).isEqualTo(3);
    }
    assertThat(batchesFrom(destination, follower, tp, 0)).isEqualTo(before);
    assertThat(readValues(destination, topic)).containsExactlyElementsOf(local);
  }

  // --- helpers

  private static void startOnEveryDestinationBroker(String topic) {
    destination.createTopic(topic, 1, 2, Map.of());
    for (int broker : destination.brokerIds()) {
      JsonNode started =
          MirrorOps.control(destination, broker)
              .startMirroring(MIRROR, source.bootstrapServers(), source.clusterId(), topic, 0)
              .result(topic, 0);
      assertThat(started.has("error")).as(started.toString()).isFalse();
    }
  }

  private static JsonNode leaderDescribe(String topic) {
    int leader = destination.leaderOf(new TopicPartition(topic, 0));
    return MirrorOps.control(destination, leader).describe(topic, 0).result(topic, 0);
  }

  private static void awaitDestinationHighWatermark(String topic, long offset) {
    await()
        .atMost(Duration.ofSeconds(90))
        .ignoreExceptions()
        .untilAsserted(
            () -> {
              JsonNode d = leaderDescribe(topic);
              assertThat(d.get("highWatermark").asLong()).as(d.toString()).isEqualTo(offset);
            });
  }

  /**
   * Waits until the leader's describe shows the partition FAILED, or its log grew beyond {@code
   * logEnd}; the mirror fields then.
   */
  private static JsonNode awaitFailedOrAppended(String topic, long logEnd) {
    JsonNode[] last = new JsonNode[1];
    await()
        .atMost(Duration.ofSeconds(60))
        .ignoreExceptions()
        .untilAsserted(
            () -> {
              JsonNode d = leaderDescribe(topic);
              last[0] = d.get("mirror");
              assertThat(
                      "FAILED".equals(last[0].get("state").asText())
                          || d.get("logEndOffset").asLong() > logEnd)
                  .as(d.toString())
                  .isTrue();
            });
    return last[0];
  }

  /** Makes {@code broker} the preferred replica of {@code tp} on the destination and elects it. */
  private static void moveLeadership(TopicPartition tp, int broker) throws Exception {
    try (Admin admin = destination.admin()) {
      List<Integer> replicas = new ArrayList<>(List.of(broker));
      destination.brokerIds().stream().filter(b -> b != broker).forEach(replicas::add);
      admin
          .alterPartitionReassignments(
              Map.of(
                  tp,
                  java.util.Optional.of(
                      new org.apache.kafka.clients.admin.NewPartitionReassignment(replicas))))
          .all()
          .get(30, TimeUnit.SECONDS);
      await()
          .atMost(Duration.ofSeconds(60))
          .ignoreExceptions()
          .until(
              () -> {
                if (destination.leaderOf(tp) == broker) {
                  return true;
                }
                admin
                    .electLeaders(
                        org.apache.kafka.common.ElectionType.PREFERRED, java.util.Set.of(tp))
                    .all()
                    .get(30, TimeUnit.SECONDS);
                return destination.leaderOf(tp) == broker;
              });
    }
  }

  private static Uuid sourceTopicId(String topic) throws Exception {
    try (Admin admin = source.admin()) {
      return admin
          .describeTopics(List.of(topic))
          .allTopicNames()
          .get(30, TimeUnit.SECONDS)
          .get(topic)
          .topicId();
    }
  }

  /** Creates {@code topic} on the source once its deletion is complete. */
  private static void createAgainWhenDeleted(String topic) {
    source.createTopicAgainWhenDeleted(topic);
    await()
        .atMost(Duration.ofSeconds(30))
        .ignoreExceptions()
        .until(() -> source.leaderOf(new TopicPartition(topic, 0)) >= 0);
  }

  private static void deleteRecordsBefore(TopicPartition tp, long offset) throws Exception {
    try (Admin admin = source.admin()) {
      long low =
          admin
              .deleteRecords(Map.of(tp, RecordsToDelete.beforeOffset(offset)))
              .lowWatermarks()
              .get(tp)
              .get(30, TimeUnit.SECONDS)
              .lowWatermark();
      assertThat(low).isEqualTo(offset);
    }
  }

  private static KafkaProducer<String, String> plainProducer(KafkaCluster cluster) {
    Properties props = new Properties();
    props.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, cluster.bootstrapServers());
    props.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, "false");
    props.put(ProducerConfig.ACKS_CONFIG, "all");
    props.put(ProducerConfig.LINGER_MS_CONFIG, "1000");
    props.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
    props.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
    return new KafkaProducer<>(props);
  }

  /**
   * Waits until the source's cleaner has removed whole batches (an offset gap between batches) and
   * records inside batches, and then until the log stays as it is for a few seconds.
   */
  private static void awaitCleaned(TopicPartition tp) {
    int broker = source.brokerIds().get(0);
    await()
        .atMost(Duration.ofSeconds(90))
        .pollInterval(Duration.ofMillis(500))
        .ignoreExceptions()
        .until(() -> cleaned(batchesFrom(source, broker, tp, 0)));
    List<String>[] previous = new List[] {List.of()};
    await()
        .atMost(Duration.ofSeconds(60))
        .pollInterval(Duration.ofSeconds(3))
        .ignoreExceptions()
        .until(
            () -> {
              List<String> now = batchesFrom(source, broker, tp, 0);
              boolean stable = now.equals(previous[0]);
              previous[0] = now;
              return stable;
            });
  }

  /** Whether the batch descriptions show a gap between batches and one inside a batch. */
  private static boolean cleaned(List<String> batches) {
    boolean between = false;
    boolean inside = false;
    long previousLast = -1;
    for (String b : batches) {
      String[] range = b.substring(0, b.indexOf(' ')).split("\\.\\.");
      long base = Long.parseLong(range[0]);
      long last = Long.parseLong(range[1]);
      between |= previousLast >= 0 && base > previousLast + 1;
      int records = Integer.parseInt(b.replaceAll(".* count=(\\d+) .*", "$1"));
      inside |= records > 0 && records < last - base + 1;
      previousLast = last;
    }
    return between && inside;
  }

  /**
   * Every batch of {@code tp} on {@code broker} whose last offset is at or above {@code from}, read
   * from its log files: offsets, CRC and each record's offset, key and value.
   */
  private static List<String> batchesFrom(
      KafkaCluster cluster, int broker, TopicPartition tp, long from) throws Exception {
    Path dir = cluster.partitionDir(broker, tp);
    List<Path> segments;
    try (Stream<Path> files = Files.list(dir)) {
      segments = files.filter(f -> f.getFileName().toString().endsWith(".log")).sorted().toList();
    }
    List<String> out = new ArrayList<>();
    for (Path segment : segments) {
      try (FileRecords records = FileRecords.open(segment.toFile(), false)) {
        for (FileLogInputStream.FileChannelRecordBatch batch : records.batches()) {
          if (batch.lastOffset() < from) {
            continue;
          }
          StringBuilder b =
              new StringBuilder()
                  .append(batch.baseOffset())
                  .append("..")
                  .append(batch.lastOffset())
                  .append(" crc=")
                  .append(batch.checksum())
                  .append(" pid=")
                  .append(batch.producerId())
                  .append(" control=")
                  .append(batch.isControlBatch());
          List<String> recs = new ArrayList<>();
          for (Record r : batch) {
            recs.add(r.offset() + ":" + text(r.key()) + "=" + text(r.value()));
          }
          b.append(" count=").append(recs.size()).append(" records=").append(recs);
          out.add(b.toString());
        }
      }
    }
    return out;
  }

  private static String text(java.nio.ByteBuffer buffer) {
    if (buffer == null) {
      return "null";
    }
    byte[] bytes = new byte[buffer.remaining()];
    buffer.duplicate().get(bytes);
    return new String(bytes, StandardCharsets.UTF_8);
  }

  private static List<String> readValues(KafkaCluster cluster, String topic) {
    return dev.kafkamirror.testing.kafka.TestClients.values(
        dev.kafkamirror.testing.kafka.TestClients.readAll(
            cluster.bootstrapServers(),
            topic,
            org.apache.kafka.common.IsolationLevel.READ_COMMITTED,
            Duration.ofSeconds(60)));
  }
}
