package dev.kafkamirror.operator.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.kafkamirror.operator.api.v1alpha1.ClusterMirror;
import dev.kafkamirror.operator.api.v1alpha1.ClusterMirrorStatus;
import dev.kafkamirror.operator.api.v1alpha1.Condition;
import dev.kafkamirror.operator.api.v1alpha1.Conditions;
import dev.kafkamirror.operator.api.v1alpha1.ConsumerGroupSync;
import dev.kafkamirror.operator.api.v1alpha1.GroupSyncStatus;
import dev.kafkamirror.operator.api.v1alpha1.MirrorState;
import dev.kafkamirror.operator.api.v1alpha1.TopicConfigSync;
import dev.kafkamirror.testing.kafka.KafkaCluster;
import dev.kafkamirror.testing.kafka.TestClients;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Properties;
import java.util.TreeMap;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AlterConfigOp;
import org.apache.kafka.clients.admin.ConfigEntry;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.IsolationLevel;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;

/**
 * Topic config sync (spec.topicConfigs) and consumer group offset sync (spec.consumerGroups) with
 * the operator in-process, a real kube-apiserver, a real source and a real plugin destination,
 * shared by the ordered methods: the destination topic takes the source's configs but not its
 * unclean election setting, and drift is corrected; a group active on the destination is never
 * overwritten; a read_committed group that committed mid-stream on the source resumes on the
 * destination, after a failover with the source killed, exactly after its last commit.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class ConsumerGroupSyncIT {

  private static final String NS = "groups";
  private static final String NAME = "payments-mirror";
  private static final String TOPIC = "payments";
  private static final int PARTITIONS = 2;
  private static final Duration WAIT = Duration.ofSeconds(90);

  private static OperatorTestEnvironment env;
  private static KubernetesClient client;
  private static KafkaCluster source;
  private static KafkaCluster destination;

  @BeforeAll
  static void start() throws Exception {
    env = OperatorTestEnvironment.start();
    client = env.client();
    env.installCrdAndNamespaces(NS);
    source = env.startSource("grp-a");
    destination = env.startDestination("grp-b");
    env.startOperator(Map.of("CMO_REQUEUE_MS", "300", "CMO_RESYNC_MS", "2000"));
    // The source topic keeps records forever, takes larger messages and allows unclean election
    source.createTopic(
        TOPIC,
        PARTITIONS,
        1,
        Map.of(
            "retention.ms", "-1",
            "max.message.bytes", "2000000",
            "unclean.leader.election.enable", "true"));
    ClusterMirror cr =
        MirrorFixtures.clusterMirror(
            NS,
            NAME,
            source,
            source.clusterId(),
            destination,
            MirrorState.Mirroring,
            List.of(TOPIC));
    ConsumerGroupSync groups = new ConsumerGroupSync();
    groups.setInclude(List.of("app-.*"));
    groups.setExclude(List.of("app-ignored"));
    groups.setSyncIntervalSeconds(1);
    cr.getSpec().setConsumerGroups(groups);
    TopicConfigSync configs = new TopicConfigSync();
    configs.setSyncIntervalSeconds(1);
    cr.getSpec().setTopicConfigs(configs);
    client.resource(cr).create();
  }

  @AfterAll
  static void stop() {
    if (env != null) {
      env.close();
    }
  }

  @Test
  @Order(0)
  void theDestinationTopicTakesTheSourcesConfigsButNotItsSafetySettingsAndDriftIsCorrected()
      throws Exception {
    // Given the destination topic the operator created from the source topic (unknown until then)
    await()
        .atMost(WAIT)
        .pollInterval(Duration.ofMillis(200))
        .ignoreExceptionsInstanceOf(java.util.concurrent.ExecutionException.class)
        .untilAsserted(
            () ->
                assertThat(topicConfigs(destination))
                    .containsEntry("retention.ms", "-1")
                    .containsEntry("max.message.bytes", "2000000")
                    // the destination's own: a stop's barrier must not be truncated away
                    .containsEntry("unclean.leader.election.enable", "false"));

    // When someone shortens the destination's retention and the source's max.message.bytes grows
    alterTopic(destination, Map.of("retention.ms", "60000"));
    alterTopic(source, Map.of("max.message.bytes", "3000000"));

    // Then the destination is brought back in line, its unclean election setting untouched
    await()
        .atMost(WAIT)
        .pollInterval(Duration.ofMillis(200))
        .untilAsserted(
            () ->
                assertThat(topicConfigs(destination))
                    .containsEntry("retention.ms", "-1")
                    .containsEntry("max.message.bytes", "3000000")
                    .containsEntry("unclean.leader.election.enable", "false"));
    // And status and an Event say what was corrected
    await()
        .atMost(WAIT)
        .pollInterval(Duration.ofMillis(200))
        .untilAsserted(
            () -> {
              ClusterMirrorStatus written = status();
              assertThat(written).as("status").isNotNull();
              var sync = written.getTopicConfigSync();
              assertThat(sync).as("status.topicConfigSync").isNotNull();
              assertThat(sync.getLastError()).isNull();
              assertThat(sync.getTopicsInSync()).isEqualTo(1);
              assertThat(sync.getConfigs())
                  .contains("retention.ms")
                  .doesNotContain("unclean.leader.election.enable", "min.insync.replicas");
              assertThat(client.v1().events().inNamespace(NS).list().getItems())
                  .anyMatch(
                      e ->
                          e.getReason().equals("TopicConfigsCorrected")
                              && e.getMessage().contains(TOPIC + " retention.ms=-1 (was 60000)"));
            });
  }

  @Test
  @Order(1)
  void aGroupWithAMemberOnTheDestinationKeepsItsOwnCommitUntilItLeaves() throws Exception {
    // Given mirrored data (idempotent, committed and aborted transactions) on both partitions
    SourceData.write(source, TOPIC, PARTITIONS, 6, 4, "live");
    awaitCondition(Conditions.MIRRORING, Conditions.TRUE);
    awaitLagZero();
    TopicPartition p0 = new TopicPartition(TOPIC, 0);

    // And group app-live with a member on the destination that committed offset 2 there (an
    // OffsetCommit on a mirrored, read-only partition: the plugin's guard does not refuse it)
    try (KafkaConsumer<String, String> member =
        groupConsumer(destination.bootstrapServers(), "app-live", "earliest")) {
      member.subscribe(List.of(TOPIC));
      await()
          .atMost(WAIT)
          .until(
              () -> {
                member.poll(Duration.ofMillis(200));
                return !member.assignment().isEmpty();
              });
      member.commitSync(Map.of(p0, new OffsetAndMetadata(2)), Duration.ofSeconds(30));

      // When the same group commits 7 on the source (and an excluded group commits 5)
      try (Admin admin = source.admin()) {
        admin
            .alterConsumerGroupOffsets("app-live", Map.of(p0, new OffsetAndMetadata(7)))
            .all()
            .get(30, TimeUnit.SECONDS);
        admin
            .alterConsumerGroupOffsets("app-ignored", Map.of(p0, new OffsetAndMetadata(5)))
            .all()
            .get(30, TimeUnit.SECONDS);
      }

      // Then the sync reports the group skipped because it is active, and its commit stays 2
      await()
          .atMost(WAIT)
          .pollInterval(Duration.ofMillis(200))
          .untilAsserted(
              () -> {
                member.poll(Duration.ofMillis(50));
                GroupSyncStatus row = groupRow("app-live");
                assertThat(row.getState()).isEqualTo("SkippedActive");
                assertThat(row.getPartitionsBehind()).isEqualTo(1);
                assertThat(status().getConsumerGroupSync().getGroupsSkippedActive()).isEqualTo(1);
              });
      assertThat(committed(destination, "app-live")).containsEntry(p0, 2L);
    }

    // And once its member left, the source's commit is carried over
    await()
        .atMost(WAIT)
        .pollInterval(Duration.ofMillis(200))
        .untilAsserted(() -> assertThat(committed(destination, "app-live")).containsEntry(p0, 7L));
    await()
        .atMost(WAIT)
        .pollInterval(Duration.ofMillis(200))
        .untilAsserted(() -> assertThat(groupRow("app-live").getState()).isEqualTo("Synced"));
    assertThat(committed(destination, "app-ignored")).isEmpty();

    // And a transactional offset commit (TxnOffsetCommit) on the read-only mirror is not refused
    // either: it writes __consumer_offsets, not the mirrored partition
    try (KafkaProducer<String, String> tx =
        TestClients.transactionalProducer(destination.bootstrapServers(), "groups-txn")) {
      tx.initTransactions();
      tx.beginTransaction();
      tx.sendOffsetsToTransaction(
          Map.of(p0, new OffsetAndMetadata(3)),
          new org.apache.kafka.clients.consumer.ConsumerGroupMetadata("app-txn"));
      // Under transaction version 2 the commit returns before the markers are written; the
      // offsets become visible with the markers
      TestClients.commitAndAwaitMarkers(tx, destination.bootstrapServers(), "groups-txn");
    }
    await()
        .atMost(WAIT)
        .pollInterval(Duration.ofMillis(200))
        .untilAsserted(() -> assertThat(committed(destination, "app-txn")).containsEntry(p0, 3L));
  }

  @Test
  @Order(2)
  void aReadCommittedGroupResumesOnTheDestinationExactlyAfterItsLastSourceCommit()
      throws Exception {
    // Given more data and a read_committed group on the source that reads everything and commits
    // mid-stream: half of each partition's records
    SourceData.write(source, TOPIC, PARTITIONS, 5, 5, "mid");
    Map<TopicPartition, Long> commit =
        new TreeMap<>(java.util.Comparator.comparing(TopicPartition::toString));
    try (KafkaConsumer<String, String> reader =
        groupConsumer(source.bootstrapServers(), "app-readers", "earliest")) {
      reader.subscribe(List.of(TOPIC));
      Map<TopicPartition, List<ConsumerRecord<String, String>>> read = readToEnd(reader);
      for (var e : read.entrySet()) {
        List<ConsumerRecord<String, String>> records = e.getValue();
        commit.put(e.getKey(), records.get(records.size() / 2).offset());
      }
      Map<TopicPartition, OffsetAndMetadata> offsets = new HashMap<>();
      commit.forEach((tp, o) -> offsets.put(tp, new OffsetAndMetadata(o)));
      reader.commitSync(offsets, Duration.ofSeconds(30));
    }
    // And records written after the commit, an aborted transaction, and a group committed at the
    // source's log end while a transaction is still open (beyond what the stop keeps)
    SourceData.write(source, TOPIC, PARTITIONS, 3, 3, "after");
    KafkaProducer<String, String> open =
        SourceData.openTransaction(source, TOPIC, PARTITIONS, "open");
    for (int p = 0; p < PARTITIONS; p++) {
      for (int i = 0; i < 3; i++) {
        open.send(new ProducerRecord<>(TOPIC, p, "k", "open-more-" + p + "-" + i))
            .get(30, TimeUnit.SECONDS);
      }
    }
    Map<TopicPartition, Long> sourceEnd = logEnd(source);
    try (Admin admin = source.admin()) {
      Map<TopicPartition, OffsetAndMetadata> tail = new HashMap<>();
      sourceEnd.forEach((tp, o) -> tail.put(tp, new OffsetAndMetadata(o)));
      admin.alterConsumerGroupOffsets("app-tail", tail).all().get(30, TimeUnit.SECONDS);
    }
    List<ConsumerRecord<String, String>> sourceRecords =
        TestClients.readAll(
            source.bootstrapServers(),
            TOPIC,
            IsolationLevel.READ_COMMITTED,
            Duration.ofSeconds(60));

    // When the sync carried both groups' commits (status says so, and the destination holds them)
    awaitLagZero();
    await()
        .atMost(WAIT)
        .pollInterval(Duration.ofMillis(200))
        .untilAsserted(
            () -> {
              assertThat(committed(destination, "app-readers")).isEqualTo(commit);
              assertThat(committed(destination, "app-tail")).isEqualTo(sourceEnd);
              GroupSyncStatus row = groupRow("app-readers");
              assertThat(row.getState()).isEqualTo("Synced");
              assertThat(row.getPartitionsBehind()).isZero();
              assertThat(status().getConsumerGroupSync().getLastSuccessfulSyncAt()).isNotNull();
            });
    String lastSuccessful = status().getConsumerGroupSync().getLastSuccessfulSyncAt();

    // And the source is killed with the transaction open, and the mirror is stopped
    source.killBroker(source.brokerIds().get(0));
    open.close(Duration.ZERO);
    client
        .resources(ClusterMirror.class)
        .inNamespace(NS)
        .withName(NAME)
        .edit(
            c -> {
              c.getSpec().setState(MirrorState.Stopped);
              return c;
            });
    awaitCondition(Conditions.STOPPED, Conditions.TRUE);

    // Then the final sync ran without the source: the last successful sync's commits stand, the one
    // beyond the truncated logs clamped to their end
    var sync = status().getConsumerGroupSync();
    assertThat(sync.getFinalSyncAt()).isNotNull();
    assertThat(sync.getFinalSyncReadSource()).isFalse();
    assertThat(sync.getLastSuccessfulSyncAt()).isGreaterThanOrEqualTo(lastSuccessful);
    assertThat(committed(destination, "app-readers")).isEqualTo(commit);
    Map<TopicPartition, Long> destinationEnd = logEnd(destination);
    assertThat(committed(destination, "app-tail")).isEqualTo(destinationEnd);
    destinationEnd.forEach(
        (tp, end) -> assertThat(end).as("clamped: %s", tp).isLessThan(sourceEnd.get(tp)));

    // And the group resumes on the destination (no reset allowed: it must find its commits) and
    // reads exactly the source's committed records after its commit, none before, none twice
    Map<TopicPartition, List<String>> expected =
        new TreeMap<>(java.util.Comparator.comparing(TopicPartition::toString));
    for (ConsumerRecord<String, String> r : sourceRecords) {
      TopicPartition tp = new TopicPartition(r.topic(), r.partition());
      if (r.offset() >= commit.get(tp)) {
        expected.computeIfAbsent(tp, k -> new ArrayList<>()).add(r.offset() + ":" + r.value());
      }
    }
    Map<TopicPartition, List<String>> resumed =
        new TreeMap<>(java.util.Comparator.comparing(TopicPartition::toString));
    try (KafkaConsumer<String, String> reader =
        groupConsumer(destination.bootstrapServers(), "app-readers", "none")) {
      reader.subscribe(List.of(TOPIC));
      readToEnd(reader)
          .forEach(
              (tp, records) ->
                  records.forEach(
                      r ->
                          resumed
                              .computeIfAbsent(tp, k -> new ArrayList<>())
                              .add(r.offset() + ":" + r.value())));
    }
    assertThat(resumed).isEqualTo(expected);
    assertThat(expected.values().stream().mapToInt(List::size).sum()).isGreaterThan(0);
  }

  private static KafkaConsumer<String, String> groupConsumer(
      String bootstrapServers, String group, String reset) {
    Properties props = new Properties();
    props.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers);
    props.put(ConsumerConfig.GROUP_ID_CONFIG, group);
    props.put(ConsumerConfig.GROUP_PROTOCOL_CONFIG, "consumer");
    props.put(
        ConsumerConfig.ISOLATION_LEVEL_CONFIG,
        IsolationLevel.READ_COMMITTED.toString().toLowerCase(Locale.ROOT));
    props.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
    props.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, reset);
    props.put(ConsumerConfig.CLIENT_ID_CONFIG, "cmo-groups-" + UUID.randomUUID());
    props.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class.getName());
    props.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class.getName());
    props.put(ConsumerConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, "30000");
    return new KafkaConsumer<>(props);
  }

  /**
   * Polls a subscribed consumer until it holds both partitions and its position reached each
   * partition's end (the last stable offset for read_committed), bounded by {@link #WAIT}.
   */
  private static Map<TopicPartition, List<ConsumerRecord<String, String>>> readToEnd(
      KafkaConsumer<String, String> consumer) {
    Map<TopicPartition, List<ConsumerRecord<String, String>>> out =
        new TreeMap<>(java.util.Comparator.comparing(TopicPartition::toString));
    long deadline = System.nanoTime() + WAIT.toNanos();
    Map<TopicPartition, Long> end = null;
    while (true) {
      if (System.nanoTime() > deadline) {
        throw new AssertionError("the group did not reach the end " + end + " within " + WAIT);
      }
      consumer
          .poll(Duration.ofMillis(200))
          .forEach(
              r ->
                  out.computeIfAbsent(
                          new TopicPartition(r.topic(), r.partition()), k -> new ArrayList<>())
                      .add(r));
      if (consumer.assignment().size() < PARTITIONS) {
        continue;
      }
      if (end == null) {
        end = consumer.endOffsets(consumer.assignment(), Duration.ofSeconds(30));
      }
      Map<TopicPartition, Long> target = end;
      if (target.entrySet().stream()
          .allMatch(e -> consumer.position(e.getKey(), Duration.ofSeconds(30)) >= e.getValue())) {
        return out;
      }
    }
  }

  private static Map<TopicPartition, Long> committed(KafkaCluster cluster, String group)
      throws Exception {
    try (Admin admin = cluster.admin()) {
      Map<TopicPartition, Long> out =
          new TreeMap<>(java.util.Comparator.comparing(TopicPartition::toString));
      admin
          .listConsumerGroupOffsets(group)
          .partitionsToOffsetAndMetadata()
          .get(30, TimeUnit.SECONDS)
          .forEach((tp, om) -> out.put(tp, om.offset()));
      return out;
    }
  }

  private static Map<TopicPartition, Long> logEnd(KafkaCluster cluster) throws Exception {
    try (Admin admin = cluster.admin()) {
      Map<TopicPartition, OffsetSpec> specs = new HashMap<>();
      for (int p = 0; p < PARTITIONS; p++) {
        specs.put(new TopicPartition(TOPIC, p), OffsetSpec.latest());
      }
      Map<TopicPartition, Long> out =
          new TreeMap<>(java.util.Comparator.comparing(TopicPartition::toString));
      admin
          .listOffsets(specs)
          .all()
          .get(30, TimeUnit.SECONDS)
          .forEach((tp, i) -> out.put(tp, i.offset()));
      return out;
    }
  }

  private static Map<String, String> topicConfigs(KafkaCluster cluster) throws Exception {
    try (Admin admin = cluster.admin()) {
      ConfigResource r = new ConfigResource(ConfigResource.Type.TOPIC, TOPIC);
      Map<String, String> out = new TreeMap<>();
      admin
          .describeConfigs(List.of(r))
          .all()
          .get(30, TimeUnit.SECONDS)
          .get(r)
          .entries()
          .forEach(e -> out.put(e.name(), e.value()));
      return out;
    }
  }

  private static void alterTopic(KafkaCluster cluster, Map<String, String> configs)
      throws Exception {
    try (Admin admin = cluster.admin()) {
      ConfigResource r = new ConfigResource(ConfigResource.Type.TOPIC, TOPIC);
      List<AlterConfigOp> ops = new java.util.ArrayList<>();
      configs.forEach(
          (k, v) -> ops.add(new AlterConfigOp(new ConfigEntry(k, v), AlterConfigOp.OpType.SET)));
      admin.incrementalAlterConfigs(Map.of(r, ops)).all().get(30, TimeUnit.SECONDS);
    }
  }

  private static ClusterMirrorStatus status() {
    ClusterMirror cr = client.resources(ClusterMirror.class).inNamespace(NS).withName(NAME).get();
    return cr == null ? null : cr.getStatus();
  }

  private static GroupSyncStatus groupRow(String group) {
    ClusterMirrorStatus s = status();
    assertThat(s).isNotNull();
    assertThat(s.getConsumerGroupSync()).as("status.consumerGroupSync").isNotNull();
    return s.getConsumerGroupSync().getGroups().stream()
        .filter(r -> group.equals(r.getGroup()))
        .findFirst()
        .orElseThrow(
            () ->
                new AssertionError(
                    group
                        + " not in status.consumerGroupSync "
                        + s.getConsumerGroupSync().getGroups()
                        + " lastError="
                        + s.getConsumerGroupSync().getLastError()));
  }

  private static void awaitLagZero() {
    await()
        .atMost(WAIT)
        .pollInterval(Duration.ofMillis(200))
        .untilAsserted(
            () -> {
              ClusterMirrorStatus s = status();
              assertThat(s).isNotNull();
              assertThat(s.getMaxLagRecords()).isZero();
              assertThat(s.getPartitions()).hasSize(PARTITIONS);
              assertThat(s.getPartitions())
                  .allSatisfy(p -> assertThat(p.getLagRecords()).isEqualTo(0L));
            });
  }

  private static void awaitCondition(String type, String value) {
    await()
        .atMost(WAIT)
        .pollInterval(Duration.ofMillis(200))
        .untilAsserted(
            () -> {
              ClusterMirror cr =
                  client.resources(ClusterMirror.class).inNamespace(NS).withName(NAME).get();
              assertThat(cr.getStatus()).isNotNull();
              Condition c = Conditions.find(cr.getStatus(), type).orElse(null);
              assertThat(c).as("%s in %s", type, cr.getStatus().getConditions()).isNotNull();
              assertThat(c.getStatus())
                  .as("%s: %s %s", type, c.getReason(), c.getMessage())
                  .isEqualTo(value);
              assertThat(c.getObservedGeneration()).isEqualTo(cr.getMetadata().getGeneration());
            });
  }
}
