package dev.kafkamirror.broker.agent;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import dev.kafkamirror.testing.kafka.KafkaCluster;
import dev.kafkamirror.testing.kafka.KafkaClusterConfig;
import dev.kafkamirror.testing.kafka.TestClients;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.FeatureUpdate;
import org.apache.kafka.clients.admin.UpdateFeaturesOptions;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.InvalidRecordException;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.protocol.Errors;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;

/**
 * Destination transactions cannot put markers into a mirror partition (issue 9 item 2), under
 * transaction version 1 (the producer's AddPartitionsToTxn) and 2 (the partition leader's implicit
 * add on produce), and from a client speaking the raw protocol. After each attempt the source
 * writes on, and the destination must hold exactly the source's batches on every replica, with the
 * mirror following and reporting no error.
 *
 * <p>One destination of 3 brokers (RF 3, min ISR 2), formatted with transaction.version=1 and
 * upgraded to 2 for the last test, so that the transaction coordinator is often not the leader.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class DestinationTransactionIT {

  private static final String MIRROR = "a-to-b";

  private static KafkaCluster source;
  private static KafkaCluster destination;

  @BeforeAll
  static void start() {
    source = KafkaCluster.start(KafkaClusterConfig.builder("dtx-src").build());
    destination =
        KafkaCluster.start(
            AgentClusters.withAgent("dtx-dest")
                .controllerPlusBrokers(3)
                .feature("transaction.version", 1)
                .build());
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
  @Order(1)
  void aVersion1TransactionCannotAddAMirrorPartitionAndItsAbortLeavesTheMirrorIntact()
      throws Exception {
    // Given a mirrored partition under transaction version 1
    String topic = "tv1";
    mirror(topic);

    // When a destination transactional producer sends to it, tries to commit, and aborts
    Throwable refused;
    try (KafkaProducer<String, String> tx =
        TestClients.transactionalProducer(destination.bootstrapServers(), "b-tx-v1")) {
      tx.initTransactions();
      tx.beginTransaction();
      Future<RecordMetadata> send = tx.send(new ProducerRecord<>(topic, 0, "k", "b-into-mirror"));
      refused = catchThrowable(() -> send.get(60, TimeUnit.SECONDS));
      assertThat(catchThrowable(tx::commitTransaction))
          .as("commit after a refused add")
          .isNotNull();
      tx.abortTransaction();
    }
    TestClients.awaitTransactionCompleted(
        destination.bootstrapServers(), "b-tx-v1", Duration.ofSeconds(60));

    // Then the mirror partition holds the source's batches only, and the producer was told
    assertMirrorIntactAfterSourceWritesOn(topic);
    assertThat(refused).as("the send into the mirror partition").isNotNull();
    assertThat(causeMessages(refused)).contains("INVALID_RECORD");
    assertThat(sumOverBrokers(topic, "refusedTransactionAdds")).isGreaterThanOrEqualTo(1);
  }

  @Test
  @Order(2)
  void aRawAddPartitionsToTxnAndEndTxnPutNoMarkerIntoAMirrorPartition() throws Exception {
    // Given a mirrored partition
    String topic = "raw";
    mirror(topic);
    TopicPartition tp = new TopicPartition(topic, 0);

    // When a client speaking the raw protocol adds it to a transaction and commits, no produce
    RawTransactionClient raw = new RawTransactionClient(destination.bootstrapServers(), "b-raw-tx");
    raw.initProducerId(Duration.ofSeconds(60));
    Map<Errors, Integer> added = raw.addPartitions(List.of(tp));
    Errors ended = raw.endTransaction(true);
    TestClients.awaitTransactionCompleted(
        destination.bootstrapServers(), "b-raw-tx", Duration.ofSeconds(60));

    // Then no COMMIT marker reached the partition: the add was refused, it never joined
    assertMirrorIntactAfterSourceWritesOn(topic);
    assertThat(added).isEqualTo(Map.of(Errors.INVALID_RECORD, 1));
    assertThat(ended).as("EndTxn of a transaction with no partitions").isNotEqualTo(Errors.NONE);
  }

  @Test
  @Order(3)
  void aTransactionThatHeldThePartitionBeforeItBecameAMirrorPutsNoMarkerIntoIt() throws Exception {
    // Given a destination transaction that added partition 0 while it was an ordinary partition
    String topic = "held-before";
    TopicPartition tp = new TopicPartition(topic, 0);
    source.createTopic(topic, 1, 1, Map.of());
    writeToSource(topic, "a", 10);
    destination.createTopic(topic, 1, 3, Map.of("min.insync.replicas", "2"));
    RawTransactionClient raw =
        new RawTransactionClient(destination.bootstrapServers(), "b-held-tx");
    raw.initProducerId(Duration.ofSeconds(60));
    assertThat(raw.addPartitions(List.of(tp))).isEqualTo(Map.of(Errors.NONE, 1));

    // When the partition becomes a mirror and then the transaction commits
    StopFixtures.mirrorOnEveryBroker(source, destination, MIRROR, topic, 10);
    Errors ended = raw.endTransaction(true);
    TestClients.awaitTransactionCompleted(
        destination.bootstrapServers(), "b-held-tx", Duration.ofSeconds(60));

    // Then the commit completes without the mirror partition: its leader refused the marker
    assertThat(ended).isEqualTo(Errors.NONE);
    assertMirrorIntactAfterSourceWritesOn(topic);
    assertThat(sumOverBrokers(topic, "refusedTransactionMarkers")).isGreaterThanOrEqualTo(1);
  }

  @Test
  @Order(4)
  void aVersion2TransactionCannotImplicitlyAddAMirrorPartitionAndItsAbortLeavesTheMirrorIntact()
      throws Exception {
    // Given the destination on transaction version 2 and a mirrored partition
    upgradeToTransactionVersion2();
    String topic = "tv2";
    mirror(topic);

    // When a destination transactional producer sends to it (the leader adds it implicitly),
    // tries to commit, and aborts
    Throwable refused;
    try (KafkaProducer<String, String> tx =
        TestClients.transactionalProducer(destination.bootstrapServers(), "b-tx-v2")) {
      tx.initTransactions();
      tx.beginTransaction();
      Future<RecordMetadata> send = tx.send(new ProducerRecord<>(topic, 0, "k", "b-into-mirror"));
      refused = catchThrowable(() -> send.get(60, TimeUnit.SECONDS));
      assertThat(catchThrowable(tx::commitTransaction))
          .as("commit after a refused add")
          .isNotNull();
      tx.abortTransaction();
    }
    TestClients.awaitTransactionCompleted(
        destination.bootstrapServers(), "b-tx-v2", Duration.ofSeconds(60));

    // Then the mirror partition is intact, and the produce was refused as an invalid record
    assertMirrorIntactAfterSourceWritesOn(topic);
    assertThat(refused).as("the send into the mirror partition").isNotNull();
    assertThat(refused).hasRootCauseInstanceOf(InvalidRecordException.class);
    assertThat(sumOverBrokers(topic, "refusedTransactionAdds")).isGreaterThanOrEqualTo(2);
  }

  private static void mirror(String topic) throws Exception {
    source.createTopic(topic, 1, 1, Map.of());
    writeToSource(topic, "a", 10);
    destination.createTopic(topic, 1, 3, Map.of("min.insync.replicas", "2"));
    StopFixtures.mirrorOnEveryBroker(source, destination, MIRROR, topic, 10);
  }

  private static void writeToSource(String topic, String prefix, int count) throws Exception {
    try (KafkaProducer<String, String> p =
        TestClients.idempotentProducer(source.bootstrapServers())) {
      for (int i = 0; i < count; i++) {
        p.send(new ProducerRecord<>(topic, 0, "k", prefix + "-" + i)).get(30, TimeUnit.SECONDS);
      }
    }
  }

  /**
   * The source writes 5 more records (the next one would have been lost behind a marker); the
   * mirror must copy them, every destination replica must hold the source's batches exactly, and
   * the leader must report MIRRORING, lag 0 and no error.
   */
  private static void assertMirrorIntactAfterSourceWritesOn(String topic) throws Exception {
    TopicPartition tp = new TopicPartition(topic, 0);
    writeToSource(topic, "a-after", 5);
    long sourceEnd = MirrorOps.logEnd(source, topic);
    await()
        .atMost(Duration.ofSeconds(90))
        .ignoreExceptions()
        .untilAsserted(
            () -> {
              JsonNode d = describeOnLeader(tp);
              assertThat(d.get("highWatermark").asLong())
                  .as(d.toString())
                  .isGreaterThanOrEqualTo(sourceEnd);
            });
    StopFixtures.awaitReplicasConverged(destination, tp);
    List<String> expected = LogBatches.signatures(source, source.brokerIds().get(0), tp);
    for (int broker : destination.brokerIds()) {
      assertThat(LogBatches.signatures(destination, broker, tp))
          .as("batches of %s on destination broker %d", tp, broker)
          .containsExactlyElementsOf(expected);
    }
    JsonNode mirror = describeOnLeader(tp).get("mirror");
    assertThat(mirror.get("state").asText()).isEqualTo("MIRRORING");
    assertThat(mirror.has("lastError")).as(mirror.toString()).isFalse();
    assertThat(mirror.get("lagRecords").asLong()).as(mirror.toString()).isZero();
  }

  private static JsonNode describeOnLeader(TopicPartition tp) {
    return MirrorOps.control(destination, destination.leaderOf(tp))
        .describe(tp.topic(), tp.partition())
        .result(tp.topic(), tp.partition());
  }

  private static long sumOverBrokers(String topic, String counter) {
    long sum = 0;
    for (int broker : destination.brokerIds()) {
      JsonNode d = MirrorOps.control(destination, broker).describe(topic, 0).result(topic, 0);
      assertThat(d.has("writeGuards")).as(d.toString()).isTrue();
      sum += d.get("writeGuards").get(counter).asLong();
    }
    return sum;
  }

  private static void upgradeToTransactionVersion2() throws Exception {
    try (Admin admin = destination.admin()) {
      admin
          .updateFeatures(
              Map.of(
                  "transaction.version",
                  new FeatureUpdate((short) 2, FeatureUpdate.UpgradeType.UPGRADE)),
              new UpdateFeaturesOptions())
          .all()
          .get(30, TimeUnit.SECONDS);
    }
    // Every broker must serve the new level before a producer asks it (ApiVersions)
    for (String address : destination.bootstrapServers().split(",")) {
      Properties props = new Properties();
      props.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, address);
      try (Admin one = Admin.create(props)) {
        await()
            .atMost(Duration.ofSeconds(30))
            .ignoreExceptions()
            .until(
                () ->
                    one.describeFeatures()
                            .featureMetadata()
                            .get(10, TimeUnit.SECONDS)
                            .finalizedFeatures()
                            .get("transaction.version")
                            .maxVersionLevel()
                        == 2);
      }
    }
  }

  private static String causeMessages(Throwable t) {
    StringBuilder out = new StringBuilder();
    for (Throwable c = t; c != null; c = c.getCause()) {
      out.append(c).append(" / ");
    }
    return out.toString();
  }
}
