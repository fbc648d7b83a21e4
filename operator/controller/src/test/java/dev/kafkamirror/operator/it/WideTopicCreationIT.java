package dev.kafkamirror.operator.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.kafkamirror.operator.core.DiscardKeeping;
import dev.kafkamirror.operator.core.PartitionKey;
import dev.kafkamirror.operator.kafka.ClusterAdmin;
import dev.kafkamirror.operator.kafka.KafkaClusterAdmin;
import dev.kafkamirror.operator.kafka.KafkaDiscardKeeper;
import dev.kafkamirror.testing.kafka.KafkaCluster;
import dev.kafkamirror.testing.kafka.KafkaClusterConfig;
import dev.kafkamirror.testing.kafka.TestClients;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.IsolationLevel;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The operator creates destination topics wider than one KRaft operation allows (a controller
 * writes at most 10,000 metadata records per request, and a topic takes one per partition plus one
 * per config plus one): on a real single-node KRaft cluster, through {@link KafkaClusterAdmin}, the
 * topic ends with every partition and the mirror configs; a failback side topic a crashed creation
 * left short is raised before records are kept in it.
 */
class WideTopicCreationIT {

  /** Wider than one CreateTopics may be: 10,000 records at most, one per partition. */
  private static final int WIDE = 10_050;

  private static KafkaCluster cluster;
  private static KafkaClusterAdmin admin;

  @BeforeAll
  static void start() {
    cluster =
        KafkaClusterConfig.builder("wide-topics")
            .singleNode()
            // 10,050 partitions answer slower than the harness's default
            .clientProperty("default.api.timeout.ms", "120000")
            .start();
    admin = new KafkaClusterAdmin("wide-topics", cluster.clientProperties(), 120_000L);
  }

  @AfterAll
  static void stop() {
    if (admin != null) {
      admin.close();
    }
    if (cluster != null) {
      cluster.close();
    }
  }

  @Test
  void aTopicWiderThanOneKraftOperationIsCreatedWithEveryPartitionAndTheMirrorConfigs()
      throws Exception {
    // Given a topic of 10,050 partitions with a synced config, and one of 3
    Map<String, Integer> counts = Map.of("wide", WIDE, "narrow", 3);

    // When the operator creates both
    admin.createTopics(counts, (short) 1, Map.of("wide", Map.of("retention.ms", "3600000")));

    // Then both have every partition (once the broker answering has the controller's last
    // metadata), and the wide one its synced and mirror configs
    await()
        .atMost(Duration.ofSeconds(60))
        .pollInterval(Duration.ofMillis(500))
        .untilAsserted(
            () ->
                assertThat(admin.partitionCounts(List.of("wide", "narrow")))
                    .isEqualTo(Map.of("wide", WIDE, "narrow", 3)));
    assertThat(
            admin
                .topicConfigs(
                    List.of("wide"), Set.of("retention.ms", ClusterAdmin.UNCLEAN_LEADER_ELECTION))
                .get("wide"))
        .containsEntry("retention.ms", "3600000")
        .containsEntry(ClusterAdmin.UNCLEAN_LEADER_ELECTION, "false");
  }

  @Test
  void aTopicTheDestinationRefusesDoesNotHoldTheOthersAndTheErrorNamesWhatWasCreated() {
    // Given a topic that exists with 2 partitions, one whose name the broker refuses, and a new one
    cluster.createTopic("existing", 2, 1, Map.of());
    Map<String, Integer> counts = Map.of("existing", 5, "bad/name", 1, "fresh", 3);

    // When the operator creates them
    ClusterAdmin.KafkaCallException refused =
        org.assertj.core.api.Assertions.catchThrowableOfType(
            ClusterAdmin.KafkaCallException.class,
            () -> admin.createTopics(counts, (short) 1, Map.of()));

    // Then the refusal is reported as one (InvalidTopicException), naming the topic and what was
    // created; the new topic exists with its partitions, and the existing one is left as it was
    assertThat(refused).isNotNull();
    assertThat(refused.refusal())
        .isInstanceOf(org.apache.kafka.common.errors.InvalidTopicException.class);
    assertThat(refused.getMessage())
        .contains("create topic bad/name")
        .contains("created so far: fresh (3 of 3 partitions)");
    await()
        .atMost(Duration.ofSeconds(30))
        .untilAsserted(
            () ->
                assertThat(admin.partitionCounts(List.of("existing", "fresh")))
                    .isEqualTo(Map.of("existing", 2, "fresh", 3)));
  }

  @Test
  void aSideTopicACrashedCreationLeftShortIsRaisedAndTheDiscardedRecordsAreKept() throws Exception {
    // Given kept with 4 partitions, 3 records in partition 3, and its side topic left with 1
    // partition, as a creation in steps that crashed after its first step leaves it
    cluster.createTopic("kept", 4, 1, Map.of());
    try (KafkaProducer<String, String> producer =
        TestClients.idempotentProducer(cluster.bootstrapServers())) {
      for (int i = 0; i < 3; i++) {
        producer.send(new ProducerRecord<>("kept", 3, "k" + i, "v" + i)).get();
      }
    }
    cluster.createTopic("kept.discarded", 1, 1, Map.of());

    // When failback keeps partition 3's records [0, 3)
    DiscardKeeping.Outcome out;
    try (KafkaDiscardKeeper keeper =
        new KafkaDiscardKeeper("wide-topics", cluster.clientProperties(), 30_000L)) {
      out =
          keeper.keep(
              "failback-1",
              new PartitionKey("kept", 3),
              new DiscardKeeping.Range(0, 3),
              "kept.discarded");
    }

    // Then the side topic has kept's 4 partitions and its partition 3 the 3 records
    assertThat(out.problem()).isNull();
    assertThat(out.copiedThrough()).isEqualTo(3);
    await()
        .atMost(Duration.ofSeconds(30))
        .untilAsserted(
            () ->
                assertThat(admin.partitionCounts(List.of("kept.discarded")))
                    .isEqualTo(Map.of("kept.discarded", 4)));
    List<ConsumerRecord<String, String>> kept =
        TestClients.readAll(
            cluster.bootstrapServers(),
            "kept.discarded",
            IsolationLevel.READ_COMMITTED,
            Duration.ofSeconds(30));
    assertThat(kept).allMatch(r -> r.partition() == 3);
    assertThat(TestClients.values(kept)).containsExactly("v0", "v1", "v2");
  }
}
