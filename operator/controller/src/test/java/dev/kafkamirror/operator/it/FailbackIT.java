package dev.kafkamirror.operator.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import dev.kafkamirror.operator.api.v1alpha1.BrokerControlEndpoint;
import dev.kafkamirror.operator.api.v1alpha1.ClusterMirror;
import dev.kafkamirror.operator.api.v1alpha1.ClusterMirrorStatus;
import dev.kafkamirror.operator.api.v1alpha1.Conditions;
import dev.kafkamirror.operator.api.v1alpha1.ControlEndpoint;
import dev.kafkamirror.operator.api.v1alpha1.FailbackDiscard;
import dev.kafkamirror.operator.api.v1alpha1.FailbackPolicy;
import dev.kafkamirror.operator.api.v1alpha1.InitialSync;
import dev.kafkamirror.operator.api.v1alpha1.KeepDiscarded;
import dev.kafkamirror.operator.api.v1alpha1.MirrorState;
import dev.kafkamirror.operator.api.v1alpha1.PartitionStatus;
import dev.kafkamirror.operator.api.v1alpha1.SecretKeyRef;
import dev.kafkamirror.operator.api.v1alpha1.StopMode;
import dev.kafkamirror.operator.api.v1alpha1.StopPolicy;
import dev.kafkamirror.testing.failover.FailoverChecker;
import dev.kafkamirror.testing.failover.LedgerWrites;
import dev.kafkamirror.testing.failover.WriteLedger;
import dev.kafkamirror.testing.kafka.KafkaCluster;
import dev.kafkamirror.testing.plugin.PluginControlClient;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;

/**
 * Failback through the operator (issue 13 items 1 and 2): A→B fails over while A holds split-brain
 * records B never received, then a ClusterMirror B→A with {@code initialSync: TruncateAndRestore}
 * aligns A to B's recorded stop, mirrors B (B's barrier included), and a planned switchback
 * (AfterCatchUp) stops it on A behind A's own barrier; then A→B again the same way (B's split-brain
 * records written after the switchback discarded, reported first), with new producers on each side
 * each time; each failed-over cluster verified by the {@link FailoverChecker}.
 *
 * <p>Two single-node clusters, both with the plugin (each is a mirror destination in one leg),
 * started once. "A isolated" is a Paused A→B mirror: B stops fetching, A keeps taking writes, as
 * when B loses its link to A; then B fails over Immediately.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class FailbackIT {

  private static final String NS = "failback";
  private static final Duration WAIT = Duration.ofSeconds(90);
  private static final String TOPIC = "orders";
  private static final String KEEP_TOPIC = "payments";
  private static final String REPLACED_TOPIC = "journal";
  private static final int PARTITIONS = 2;
  private static final int SPLIT_BRAIN_PER_PARTITION = 3;

  private static OperatorTestEnvironment env;
  private static KubernetesClient client;
  private static KafkaCluster a;
  private static KafkaCluster b;

  @BeforeAll
  static void start() throws Exception {
    env = OperatorTestEnvironment.start();
    client = env.client();
    env.installCrdAndNamespaces(NS);
    CompletableFuture<KafkaCluster> startA =
        CompletableFuture.supplyAsync(
            () -> env.startCluster(MirrorFixtures.destination("fb-a").singleNode()));
    CompletableFuture<KafkaCluster> startB =
        CompletableFuture.supplyAsync(
            () -> env.startCluster(MirrorFixtures.destination("fb-b").singleNode()));
    CompletableFuture.allOf(startA, startB).join();
    a = startA.join();
    b = startB.join();
    env.startOperator(Map.of("CMO_REQUEUE_MS", "300", "CMO_RESYNC_MS", "2000"));
  }

  @AfterAll
  static void stop() {
    if (env != null) {
      env.close();
    }
  }

  // First: its colliding-producer checks need A's and B's producer id allocation close together,
  // which the other tests' producers (and broker restart) on A move apart.
  @Order(1)
  @Test
  void failbackTruncatesTheSplitBrainRecordsMirrorsBAndSwitchesBackBehindABarrier()
      throws Exception {
    // Given topic orders on A with idempotent, committed and aborted transactional writes,
    // mirrored A->B
    long started = System.nanoTime();
    a.createTopic(TOPIC, PARTITIONS, 1, Map.of());
    WriteLedger ledger = new WriteLedger();
    LedgerWrites.idempotent(ledger, a.bootstrapServers(), TOPIC, PARTITIONS, 5, "fb-a");
    LedgerWrites.transactions(ledger, a.bootstrapServers(), TOPIC, PARTITIONS, 3, 2, "fb-a");
    FailoverChecker.recordProducerIds(ledger, a, TOPIC, PARTITIONS);
    client.resource(mirror("a-to-b", a, b, null)).create();
    awaitCaughtUp(a, b);
    awaitCondition("a-to-b", Conditions.MIRRORING, Conditions.TRUE);

    // When B loses A (the mirror is paused), A takes split-brain writes B never receives, and B
    // fails over
    setState("a-to-b", MirrorState.Paused);
    awaitPartitionStates("a-to-b", "PAUSED");
    Map<Integer, Long> mirroredOnB = logEnds(b);
    WriteLedger splitBrain = new WriteLedger();
    LedgerWrites.idempotent(
        splitBrain, a.bootstrapServers(), TOPIC, PARTITIONS, SPLIT_BRAIN_PER_PARTITION, "fb-split");
    setState("a-to-b", MirrorState.Stopped);
    awaitCondition("a-to-b", Conditions.STOPPED, Conditions.TRUE);

    // Then B is a verified failover: new producers on B (one with an id A used) write, and their
    // records are part of what every later leg must keep
    verifyFailedOver(b, ledger, "fb-b-check");
    LedgerWrites.transactions(ledger, b.bootstrapServers(), TOPIC, PARTITIONS, 2, 1, "fb-b");
    // More producers on B than A has had, so that B's ids (mirrored to A with B's batches) reach
    // beyond A's own allocation (its recorded ids and the split-brain producer) and a new producer
    // on A after the switchback collides with one
    producersUntilIdReaches(ledger, b, maxRecordedId(ledger, a) + 3, "fb-b-more");
    FailoverChecker.recordProducerIds(ledger, b, TOPIC, PARTITIONS);
    // The stopped A->B mirror is deleted (deletionPolicy Retain: the operator calls nothing), as
    // the runbook says, before the failback is applied
    deleteMirror("a-to-b");

    // When the failback B->A is applied with TruncateAndRestore
    client.resource(mirror("b-to-a", b, a, InitialSync.TruncateAndRestore)).create();

    // Then A drops its split-brain records, mirrors B to B's end (B's barrier included), and is
    // Mirroring under b-to-a
    awaitCondition("b-to-a", Conditions.MIRRORING, Conditions.TRUE);
    awaitCaughtUp(b, a);
    for (int p = 0; p < PARTITIONS; p++) {
      JsonNode d = describe(a, p);
      assertThat(d.path("mirror").path("mirrorName").asText()).as(d.toString()).isEqualTo("b-to-a");
      assertThat(d.path("mirror").path("state").asText()).as(d.toString()).isEqualTo("MIRRORING");
      assertThat(barrierSources(a, p)).as("barriers on A, partition %d", p).contains(a.clusterId());
    }

    // And what A discarded is accounted for per partition (exactly the split-brain records, from
    // B's mirrored end), in status (planned first, then truncated) and in a Warning Event
    assertDiscardRows("b-to-a", mirroredOnB);
    awaitWarning("b-to-a", "FailbackDiscards", "will discard (planned", "orders-0", "orders-1");
    awaitWarning("b-to-a", "FailbackDiscards", " discarded: ", "orders-0 (truncated) offsets");

    // When the planned switchback stops the B->A mirror on A after catch-up
    setState("b-to-a", MirrorState.Stopped);
    awaitCondition("b-to-a", Conditions.STOPPED, Conditions.TRUE);

    // Then A holds every committed record of both legs once at B's offsets, none of the
    // split-brain ones, B's barrier and its own, and no producer state of A's or B's producers
    // What A mirrored is B's whole log (AfterCatchUp, nothing written on B since): A's stop
    // records it as the last mirrored offset, where the next failback aligns B
    Map<Integer, Long> mirroredOnA = logEnds(b);
    verifyFailedOver(a, ledger, "fb-a2");
    for (int p = 0; p < PARTITIONS; p++) {
      assertThat(barrierSources(a, p))
          .as("barriers on A by offset, partition %d (B's copied, A's own)", p)
          .containsExactly(a.clusterId(), b.clusterId());
    }
    long secondLeg = TimeUnit.NANOSECONDS.toSeconds(System.nanoTime() - started);

    // When A->B is failed back again: B, still writable, takes split-brain writes after the
    // switchback, A has new producers (committed and aborted transactions, and more ids than B
    // has had), and a new ClusterMirror A->B with TruncateAndRestore is applied
    deleteMirror("b-to-a");
    WriteLedger splitBrainOnB = new WriteLedger();
    LedgerWrites.idempotent(
        splitBrainOnB,
        b.bootstrapServers(),
        TOPIC,
        PARTITIONS,
        SPLIT_BRAIN_PER_PARTITION,
        "fb-split-b");
    LedgerWrites.transactions(ledger, a.bootstrapServers(), TOPIC, PARTITIONS, 2, 1, "fb-a3");
    producersUntilIdReaches(ledger, a, maxRecordedId(ledger, b) + 3, "fb-a-more");
    FailoverChecker.recordProducerIds(ledger, a, TOPIC, PARTITIONS);
    client.resource(mirror("a-to-b-2", a, b, InitialSync.TruncateAndRestore)).create();

    // Then B drops its split-brain records (reported first), mirrors A to A's end (A's barrier
    // included), and is Mirroring under a-to-b-2
    awaitCondition("a-to-b-2", Conditions.MIRRORING, Conditions.TRUE);
    awaitCaughtUp(a, b);
    for (int p = 0; p < PARTITIONS; p++) {
      JsonNode d = describe(b, p);
      assertThat(d.path("mirror").path("mirrorName").asText())
          .as(d.toString())
          .isEqualTo("a-to-b-2");
      assertThat(d.path("mirror").path("state").asText()).as(d.toString()).isEqualTo("MIRRORING");
      assertThat(barrierSources(b, p)).as("barriers on B, partition %d", p).contains(b.clusterId());
    }
    assertDiscardRows("a-to-b-2", mirroredOnA);
    awaitWarning("a-to-b-2", "FailbackDiscards", "will discard (planned", "orders-0", "orders-1");
    awaitWarning("a-to-b-2", "FailbackDiscards", " discarded: ", "orders-0 (truncated) offsets");

    // When the planned switchback stops the A->B mirror on B after catch-up
    setState("a-to-b-2", MirrorState.Stopped);
    awaitCondition("a-to-b-2", Conditions.STOPPED, Conditions.TRUE);

    // Then B holds every committed record of all three legs once at A's offsets, none of either
    // side's split-brain records, and a new producer on B whose id A used writes safely
    verifyFailedOver(b, ledger, "fb-b3");
    for (int p = 0; p < PARTITIONS; p++) {
      assertThat(barrierSources(b, p))
          .as("barriers on B by offset, partition %d (leg 1, A's copied, leg 3)", p)
          .containsExactly(a.clusterId(), b.clusterId(), a.clusterId());
    }
    System.out.printf(
        "FailbackIT: A->B, B->A, switchback in %d s; A->B again in %d s%n",
        secondLeg, TimeUnit.NANOSECONDS.toSeconds(System.nanoTime() - started) - secondLeg);
  }

  @Test
  void keepDiscardedCopiesTheCommittedSplitBrainRecordsToASideTopicBeforeTruncating()
      throws Exception {
    // Given topic payments on A, mirrored A->B, then B isolated (paused) while A takes split-brain
    // writes: idempotent records, a committed and an aborted transaction on each partition
    long started = System.nanoTime();
    a.createTopic(KEEP_TOPIC, PARTITIONS, 1, Map.of());
    produce(a, KEEP_TOPIC, "before", 4, null, true);
    client.resource(mirror("pay-a-to-b", a, b, null, KEEP_TOPIC)).create();
    awaitCaughtUp(a, b, KEEP_TOPIC);
    setState("pay-a-to-b", MirrorState.Paused);
    awaitPartitionStates("pay-a-to-b", "PAUSED");
    Map<Integer, Long> mirroredOnB = logEnds(b, KEEP_TOPIC);
    produce(a, KEEP_TOPIC, "split", 2, null, true);
    produce(a, KEEP_TOPIC, "split-committed", 2, "keep-tx-c", true);
    produce(a, KEEP_TOPIC, "split-aborted", 2, "keep-tx-a", false);
    Map<Integer, List<Kept>> committedOnA = committed(a, KEEP_TOPIC, mirroredOnB);
    assertThat(committedOnA.values())
        .allSatisfy(l -> assertThat(l).hasSize(4))
        .allSatisfy(l -> assertThat(l).noneMatch(k -> k.value().startsWith("split-aborted")));
    // and B fails over (the stopped mirror is deleted, as the runbook says)
    setState("pay-a-to-b", MirrorState.Stopped);
    awaitCondition("pay-a-to-b", Conditions.STOPPED, Conditions.TRUE);
    deleteMirror("pay-a-to-b");

    // When the failback B->A is applied with keepDiscarded (every status it writes is watched)
    List<List<FailbackDiscard>> written = new java.util.concurrent.CopyOnWriteArrayList<>();
    var watch =
        client
            .resources(ClusterMirror.class)
            .inNamespace(NS)
            .withName("pay-b-to-a")
            .watch(
                new io.fabric8.kubernetes.client.Watcher<ClusterMirror>() {
                  @Override
                  public void eventReceived(Action action, ClusterMirror cr) {
                    if (cr.getStatus() != null && cr.getStatus().getFailback() != null) {
                      written.add(cr.getStatus().getFailback());
                    }
                  }

                  @Override
                  public void onClose(io.fabric8.kubernetes.client.WatcherException cause) {}
                });
    ClusterMirror failback = mirror("pay-b-to-a", b, a, InitialSync.TruncateAndRestore, KEEP_TOPIC);
    FailbackPolicy policy = new FailbackPolicy();
    policy.setKeepDiscarded(new KeepDiscarded());
    failback.getSpec().setFailback(policy);
    client.resource(failback).create();

    // Then A is aligned to B and mirrors it
    awaitCondition("pay-b-to-a", Conditions.MIRRORING, Conditions.TRUE);
    awaitCaughtUp(b, a, KEEP_TOPIC);
    assertThat(committed(a, KEEP_TOPIC, mirroredOnB).values())
        .as("A's payments above the alignment point: B's records only")
        .allSatisfy(l -> assertThat(l).noneMatch(k -> k.value().startsWith("split")));

    // And the side topic on A holds exactly the committed split-brain records of each partition,
    // in the same partition, in order, with key, value and their original offsets in headers;
    // none of the aborted ones
    String side = KEEP_TOPIC + ".cmo-discarded";
    assertThat(read(a, side, PARTITIONS)).isEqualTo(committedOnA);

    // And status.failback says, per partition, where they were kept and that the copy covered
    // the whole discarded range before the truncation; the Events name the side topic
    ClusterMirrorStatus s = status("pay-b-to-a");
    assertThat(s.getFailback()).hasSize(PARTITIONS);
    for (FailbackDiscard row : s.getFailback()) {
      long at = mirroredOnB.get(row.getPartition());
      assertThat(row.getTruncated()).as("%s", row.getMessage()).isTrue();
      assertThat(row.getAlignmentOffset()).isEqualTo(at);
      assertThat(row.getKeptIn()).isEqualTo(side);
      assertThat(row.getCopiedThrough()).isEqualTo(row.getDiscardedToOffset()).isGreaterThan(at);
      assertThat(row.getCopiedRecords()).isEqualTo(4L);
    }
    awaitEvent(
        "pay-b-to-a", "Normal", "FailbackDiscardsKept", "payments-0 offsets", side + " partition");
    awaitEvent("pay-b-to-a", "Warning", "FailbackDiscards", " discarded: ", "kept in " + side);

    // And no partition was truncated before a status saying its copy was complete, and not yet
    // truncated, had been persisted (the copy's progress is written before the truncation)
    watch.close();
    for (int p = 0; p < PARTITIONS; p++) {
      int partition = p;
      int copied = -1;
      int truncated = -1;
      for (int i = 0; i < written.size(); i++) {
        for (FailbackDiscard row : written.get(i)) {
          if (row.getPartition() != partition) {
            continue;
          }
          if (copied < 0
              && !Boolean.TRUE.equals(row.getTruncated())
              && row.getCopiedThrough() != null
              && row.getCopiedThrough().equals(row.getDiscardedToOffset())) {
            copied = i;
          }
          if (truncated < 0 && Boolean.TRUE.equals(row.getTruncated())) {
            truncated = i;
          }
        }
      }
      assertThat(copied)
          .as(
              "first persisted complete copy of partition %d, statuses (copiedThrough/to/truncated)"
                  + " %s",
              partition,
              written.stream()
                  .map(
                      rows ->
                          rows.stream()
                              .map(
                                  r ->
                                      r.getPartition()
                                          + ":"
                                          + r.getCopiedThrough()
                                          + "/"
                                          + r.getDiscardedToOffset()
                                          + "/"
                                          + r.getTruncated())
                              .toList())
                  .toList())
          .isNotNegative()
          .isLessThan(truncated);
    }
    System.out.printf(
        "FailbackIT keepDiscarded: %d s%n",
        TimeUnit.NANOSECONDS.toSeconds(System.nanoTime() - started));
  }

  @Test
  void failbackOntoATopicReplacedInTheSameLeaderEpochIsRefusedNotAligned() throws Exception {
    // Given topic journal on A in leader epoch 0, mirrored A->B, and B failed over: B's stop
    // records A's epoch 0
    long started = System.nanoTime();
    a.createTopic(REPLACED_TOPIC, PARTITIONS, 1, Map.of());
    produce(a, REPLACED_TOPIC, "old", 4, null, true);
    client.resource(mirror("rp-a-to-b", a, b, null, REPLACED_TOPIC)).create();
    awaitCaughtUp(a, b, REPLACED_TOPIC);
    setState("rp-a-to-b", MirrorState.Stopped);
    awaitCondition("rp-a-to-b", Conditions.STOPPED, Conditions.TRUE);
    deleteMirror("rp-a-to-b");
    for (int p = 0; p < PARTITIONS; p++) {
      JsonNode stop = describe(b, REPLACED_TOPIC, p).path("stop");
      assertThat(stop.path("lastMirroredOffset").asLong(-1)).as("%s", stop).isEqualTo(4L);
      assertThat(stop.path("lastMirroredSourceEpoch").asInt(-1)).as("%s", stop).isZero();
    }

    // And A's topic is then replaced (deleted, created again with the same name and partitions,
    // so with a new topic id) and written: its history is again epoch 0 from offset 0, but none
    // of its records is one B copied
    recreateTopic(a, REPLACED_TOPIC);
    produce(a, REPLACED_TOPIC, "replaced", 6, null, true);
    Map<Integer, Long> zero = new HashMap<>();
    for (int p = 0; p < PARTITIONS; p++) {
      zero.put(p, 0L);
    }
    Map<Integer, Long> endsOnA = logEnds(a, REPLACED_TOPIC);
    Map<Integer, List<Kept>> recordsOnA = committed(a, REPLACED_TOPIC, zero);

    // When the failback B->A is applied with TruncateAndRestore
    client
        .resource(mirror("rp-b-to-a", b, a, InitialSync.TruncateAndRestore, REPLACED_TOPIC))
        .create();

    // Then no partition is aligned: an equal epoch number in another incarnation of the topic
    // proves nothing, so each partition is refused (FAILED), not truncated and mirrored
    await()
        .atMost(WAIT)
        .pollInterval(Duration.ofMillis(200))
        .untilAsserted(
            () ->
                assertThat(status("rp-b-to-a").getPartitions())
                    .hasSize(PARTITIONS)
                    .extracting(PartitionStatus::getState)
                    .allMatch(s -> "FAILED".equals(s) || "MIRRORING".equals(s)));
    ClusterMirrorStatus s = status("rp-b-to-a");
    System.out.printf(
        "FailbackIT replaced topic: A's log ends %s (before %s); partitions %s; failback rows"
            + " %s%n",
        logEnds(a, REPLACED_TOPIC),
        endsOnA,
        s.getPartitions().stream().map(ps -> ps.getState() + ": " + ps.getMessage()).toList(),
        s.getFailback() == null
            ? null
            : s.getFailback().stream().map(FailbackDiscard::getMessage).toList());
    assertThat(s.getPartitions())
        .as("a failback onto a replaced topic whose epoch numbers repeat")
        .allSatisfy(
            ps -> {
              assertThat(ps.getState()).as(ps.getMessage()).isEqualTo("FAILED");
              // refused by the topic id B recorded, naming the plugin's reason and the partition
              assertThat(ps.getMessage())
                  .contains("FailbackTopicReplaced", REPLACED_TOPIC + "-" + ps.getPartition());
            });

    // And nothing on A was truncated
    assertThat(logEnds(a, REPLACED_TOPIC)).isEqualTo(endsOnA);
    assertThat(committed(a, REPLACED_TOPIC, zero)).isEqualTo(recordsOnA);
    System.out.printf(
        "FailbackIT replaced topic: %d s%n",
        TimeUnit.NANOSECONDS.toSeconds(System.nanoTime() - started));
  }

  /** Deletes {@code topic} and creates it again, same partitions, once the deletion is done. */
  private static void recreateTopic(KafkaCluster cluster, String topic) throws Exception {
    try (Admin admin = cluster.admin()) {
      admin.deleteTopics(List.of(topic)).all().get(30, TimeUnit.SECONDS);
      await()
          .atMost(WAIT)
          .pollInterval(Duration.ofMillis(200))
          .until(() -> !admin.listTopics().names().get(30, TimeUnit.SECONDS).contains(topic));
    }
    await()
        .atMost(WAIT)
        .pollInterval(Duration.ofMillis(500))
        .ignoreExceptions()
        .untilAsserted(() -> cluster.createTopic(topic, PARTITIONS, 1, Map.of()));
  }

  /** One record as the side topic must hold it: key, value, original offset. */
  private record Kept(String key, String value, long offset) {}

  /**
   * {@code perPartition} records per partition on {@code cluster}, keyed {@code tag-p-i}: with a
   * transactional id, in one transaction committed or aborted; else idempotent.
   */
  private static void produce(
      KafkaCluster cluster,
      String topic,
      String tag,
      int perPartition,
      String transactionalId,
      boolean commit)
      throws Exception {
    Properties p = new Properties();
    p.putAll(cluster.clientProperties());
    p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, cluster.bootstrapServers());
    p.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, "true");
    p.put(ProducerConfig.ACKS_CONFIG, "all");
    if (transactionalId != null) {
      p.put(ProducerConfig.TRANSACTIONAL_ID_CONFIG, transactionalId);
    }
    try (KafkaProducer<String, String> producer =
        new KafkaProducer<>(p, new StringSerializer(), new StringSerializer())) {
      if (transactionalId != null) {
        producer.initTransactions();
        producer.beginTransaction();
      }
      for (int part = 0; part < PARTITIONS; part++) {
        for (int i = 0; i < perPartition; i++) {
          producer.send(new ProducerRecord<>(topic, part, tag + "-" + part + "-" + i, tag));
        }
      }
      if (transactionalId == null) {
        producer.flush();
      } else if (commit) {
        producer.commitTransaction();
      } else {
        producer.flush();
        producer.abortTransaction();
      }
    }
  }

  /** The committed records of each partition from {@code from} to its end (read_committed). */
  private static Map<Integer, List<Kept>> committed(
      KafkaCluster cluster, String topic, Map<Integer, Long> from) throws Exception {
    Map<Integer, Long> ends = logEnds(cluster, topic);
    Map<Integer, List<Kept>> out = new java.util.TreeMap<>();
    try (KafkaConsumer<String, String> consumer = consumer(cluster)) {
      for (int p = 0; p < PARTITIONS; p++) {
        TopicPartition tp = new TopicPartition(topic, p);
        consumer.assign(List.of(tp));
        consumer.seek(tp, from.get(p));
        List<Kept> records = new ArrayList<>();
        long deadline = System.nanoTime() + WAIT.toNanos();
        while (consumer.position(tp) < ends.get(p) && System.nanoTime() < deadline) {
          consumer
              .poll(Duration.ofMillis(200))
              .records(tp)
              .forEach(r -> records.add(new Kept(r.key(), r.value(), r.offset())));
        }
        out.put(p, records);
      }
    }
    return out;
  }

  /**
   * Every record of the side topic per partition, with its original offset from its header; each
   * must name the original topic and its own partition.
   */
  private static Map<Integer, List<Kept>> read(KafkaCluster cluster, String side, int partitions)
      throws Exception {
    Map<Integer, List<Kept>> out = new java.util.TreeMap<>();
    Map<Integer, Long> ends = logEnds(cluster, side);
    try (KafkaConsumer<String, String> consumer = consumer(cluster)) {
      for (int p = 0; p < partitions; p++) {
        TopicPartition tp = new TopicPartition(side, p);
        consumer.assign(List.of(tp));
        consumer.seekToBeginning(List.of(tp));
        List<Kept> records = new ArrayList<>();
        long deadline = System.nanoTime() + WAIT.toNanos();
        while (consumer.position(tp) < ends.get(p) && System.nanoTime() < deadline) {
          for (var r : consumer.poll(Duration.ofMillis(200)).records(tp)) {
            assertThat(header(r, "cmo.discarded.topic")).isEqualTo(KEEP_TOPIC);
            assertThat(header(r, "cmo.discarded.partition")).isEqualTo(String.valueOf(p));
            records.add(
                new Kept(r.key(), r.value(), Long.parseLong(header(r, "cmo.discarded.offset"))));
          }
        }
        out.put(p, records);
      }
    }
    return out;
  }

  private static String header(
      org.apache.kafka.clients.consumer.ConsumerRecord<String, String> r, String key) {
    var h = r.headers().lastHeader(key);
    return h == null ? null : new String(h.value(), StandardCharsets.UTF_8);
  }

  private static KafkaConsumer<String, String> consumer(KafkaCluster cluster) {
    Properties c = new Properties();
    c.putAll(cluster.clientProperties());
    c.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, cluster.bootstrapServers());
    c.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
    c.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
    return new KafkaConsumer<>(c, new StringDeserializer(), new StringDeserializer());
  }

  private static void awaitEvent(String name, String type, String reason, String... mentions) {
    await()
        .atMost(WAIT)
        .pollInterval(Duration.ofMillis(200))
        .untilAsserted(
            () ->
                assertThat(client.v1().events().inNamespace(NS).list().getItems())
                    .as("Events of %s/%s", NS, name)
                    .anySatisfy(
                        e -> {
                          assertThat(e.getInvolvedObject().getName()).isEqualTo(name);
                          assertThat(e.getType()).isEqualTo(type);
                          assertThat(e.getReason()).isEqualTo(reason);
                          assertThat(e.getMessage()).contains(mentions);
                        }));
  }

  /**
   * The failback's status rows of {@code name}: one per partition, truncated, discarding exactly
   * the split-brain records from the recorded end of the earlier mirror.
   */
  private static void assertDiscardRows(String name, Map<Integer, Long> alignedAt) {
    ClusterMirrorStatus s = status(name);
    assertThat(s.getFailback()).as("status.failback of %s", name).hasSize(PARTITIONS);
    for (FailbackDiscard row : s.getFailback()) {
      long at = alignedAt.get(row.getPartition());
      assertThat(row.getTopic()).isEqualTo(TOPIC);
      assertThat(row.getTruncated()).as("%s", row.getMessage()).isTrue();
      assertThat(row.getDiscardedRecords())
          .as("%s", row.getMessage())
          .isEqualTo((long) SPLIT_BRAIN_PER_PARTITION);
      assertThat(row.getDiscardedBytes()).isPositive();
      assertThat(row.getAlignmentOffset()).isEqualTo(at);
      assertThat(row.getDiscardedFromOffset()).isEqualTo(at);
      assertThat(row.getDiscardedToOffset()).isEqualTo(at + SPLIT_BRAIN_PER_PARTITION);
    }
  }

  /** The highest producer id recorded in the ledger for {@code cluster}. */
  private static long maxRecordedId(WriteLedger ledger, KafkaCluster cluster) {
    return ledger.producerIdsByCluster().getOrDefault(cluster.name(), Set.of()).stream()
        .mapToLong(Long::longValue)
        .max()
        .orElse(-1L);
  }

  /**
   * New idempotent producers on {@code writer}, one record per partition each (into the ledger),
   * until the highest producer id in its producer state is at least {@code target}; at most 40.
   */
  private static void producersUntilIdReaches(
      WriteLedger ledger, KafkaCluster writer, long target, String tag) throws Exception {
    for (int i = 0; i < 40; i++) {
      long max =
          FailoverChecker.producerIds(writer, TOPIC, PARTITIONS).values().stream()
              .flatMap(Set::stream)
              .mapToLong(Long::longValue)
              .max()
              .orElse(-1L);
      if (max >= target) {
        return;
      }
      LedgerWrites.idempotent(ledger, writer.bootstrapServers(), TOPIC, PARTITIONS, 1, tag + i);
    }
    throw new AssertionError(
        writer.name() + "'s producer ids did not reach " + target + " after 40 new producers");
  }

  private static void deleteMirror(String name) {
    client.resources(ClusterMirror.class).inNamespace(NS).withName(name).delete();
    await()
        .atMost(WAIT)
        .pollInterval(Duration.ofMillis(200))
        .untilAsserted(
            () ->
                assertThat(
                        client.resources(ClusterMirror.class).inNamespace(NS).withName(name).get())
                    .as("ClusterMirror %s/%s after its deletion", NS, name)
                    .isNull());
  }

  private static void verifyFailedOver(KafkaCluster cluster, WriteLedger ledger, String tag)
      throws Exception {
    FailoverChecker checker = FailoverChecker.of(cluster, ledger).withPlugin();
    checker.producerStateReset(TOPIC, PARTITIONS).assertOk();
    Set<Long> collided = checker.writeWithCollidingProducer(TOPIC, PARTITIONS, tag, 6);
    assertThat(collided)
        .as("a new producer on %s whose producer id an earlier cluster used", cluster.name())
        .isNotEmpty();
    checker.verifyRecords(TOPIC).assertOk();
  }

  /**
   * A ClusterMirror of the topic; with {@code initialSync} a failback, which also names the
   * source's control endpoint (where the source's recorded stop is read). Stops after catch-up.
   */
  private static ClusterMirror mirror(
      String name, KafkaCluster source, KafkaCluster destination, InitialSync initialSync) {
    return mirror(name, source, destination, initialSync, TOPIC);
  }

  private static ClusterMirror mirror(
      String name,
      KafkaCluster source,
      KafkaCluster destination,
      InitialSync initialSync,
      String topic) {
    ClusterMirror cr =
        MirrorFixtures.clusterMirror(
            NS,
            name,
            source,
            source.clusterId(),
            destination,
            MirrorState.Mirroring,
            List.of(topic));
    if (initialSync != null) {
      cr.getSpec().setInitialSync(initialSync);
      cr.getSpec().getSource().setControl(control(source));
      StopPolicy stop = new StopPolicy();
      stop.setMode(StopMode.AfterCatchUp);
      cr.getSpec().setStop(stop);
    }
    return cr;
  }

  private static ControlEndpoint control(KafkaCluster cluster) {
    ControlEndpoint control = new ControlEndpoint();
    String first =
        cluster.listenerOf(cluster.brokerIds().get(0), PluginControlClient.LISTENER_PROPERTY);
    control.setPort(Integer.parseInt(first.substring(first.lastIndexOf(':') + 1)));
    SecretKeyRef ref = new SecretKeyRef();
    ref.setName(MirrorFixtures.SECRET_NAME);
    ref.setKey(MirrorFixtures.SECRET_KEY);
    control.setSecretRef(ref);
    List<BrokerControlEndpoint> endpoints = new ArrayList<>();
    for (int id : cluster.brokerIds()) {
      endpoints.add(
          new BrokerControlEndpoint(
              id, cluster.listenerOf(id, PluginControlClient.LISTENER_PROPERTY)));
    }
    control.setBrokerEndpoints(endpoints);
    return control;
  }

  /**
   * A merge patch of spec.state alone: no resourceVersion, so an operator status write between the
   * read and the write cannot make it fail with a conflict (edit() does, seen once).
   */
  private static void setState(String name, MirrorState state) {
    client
        .resources(ClusterMirror.class)
        .inNamespace(NS)
        .withName(name)
        .patch(
            io.fabric8.kubernetes.client.dsl.base.PatchContext.of(
                io.fabric8.kubernetes.client.dsl.base.PatchType.JSON_MERGE),
            "{\"spec\":{\"state\":\"" + state.name() + "\"}}");
  }

  private static ClusterMirrorStatus status(String name) {
    return MirrorFixtures.status(client, NS, name);
  }

  private static void awaitCondition(String name, String type, String value) {
    MirrorFixtures.awaitCondition(client, NS, name, type, value, WAIT);
  }

  private static void awaitWarning(String name, String reason, String... mentions) {
    await()
        .atMost(WAIT)
        .pollInterval(Duration.ofMillis(200))
        .untilAsserted(
            () ->
                assertThat(client.v1().events().inNamespace(NS).list().getItems())
                    .as("Events of %s/%s", NS, name)
                    .anySatisfy(
                        e -> {
                          assertThat(e.getInvolvedObject().getName()).isEqualTo(name);
                          assertThat(e.getType()).isEqualTo("Warning");
                          assertThat(e.getReason()).isEqualTo(reason);
                          assertThat(e.getMessage()).contains(mentions);
                        }));
  }

  private static void awaitPartitionStates(String name, String state) {
    await()
        .atMost(WAIT)
        .pollInterval(Duration.ofMillis(200))
        .untilAsserted(
            () -> {
              ClusterMirrorStatus s = status(name);
              assertThat(s).isNotNull();
              assertThat(s.getPartitions()).hasSize(PARTITIONS);
              assertThat(s.getPartitions())
                  .extracting(PartitionStatus::getState)
                  .as("%s", s.getPartitions())
                  .containsOnly(state);
            });
  }

  /**
   * The source cluster id of each barrier the partition's producer state was reset by, one per
   * barrier offset: describe's {@code barrierResets} lists reset events, and a truncation replays
   * the barriers below it (a second event of the same barrier, on the rebuild path).
   */
  private static List<String> barrierSources(KafkaCluster cluster, int partition) {
    Map<Long, String> byOffset = new java.util.TreeMap<>();
    describe(cluster, partition)
        .path("barrierResets")
        .forEach(
            r ->
                byOffset.merge(
                    r.path("barrierOffset").asLong(-1),
                    r.path("sourceClusterId").asText(),
                    (x, y) -> {
                      assertThat(y)
                          .as("the barrier at one offset reset twice with two sources")
                          .isEqualTo(x);
                      return x;
                    }));
    assertThat(byOffset).as("barrier offsets on %s", cluster.name()).doesNotContainKey(-1L);
    return new ArrayList<>(byOffset.values());
  }

  private static JsonNode describe(KafkaCluster cluster, int partition) {
    return describe(cluster, TOPIC, partition);
  }

  private static JsonNode describe(KafkaCluster cluster, String topic, int partition) {
    return MirrorFixtures.control(cluster, cluster.brokerIds().get(0))
        .describe(topic, partition)
        .result(topic, partition);
  }

  private static void awaitCaughtUp(KafkaCluster source, KafkaCluster destination) {
    awaitCaughtUp(source, destination, TOPIC);
  }

  private static void awaitCaughtUp(KafkaCluster source, KafkaCluster destination, String topic) {
    await()
        .atMost(WAIT)
        .pollInterval(Duration.ofMillis(200))
        .ignoreExceptions()
        .untilAsserted(
            () ->
                assertThat(logEnds(destination, topic))
                    .as("%s's end offsets against %s's", destination.name(), source.name())
                    .isEqualTo(logEnds(source, topic)));
  }

  private static Map<Integer, Long> logEnds(KafkaCluster cluster) throws Exception {
    return logEnds(cluster, TOPIC);
  }

  private static Map<Integer, Long> logEnds(KafkaCluster cluster, String topic) throws Exception {
    Map<TopicPartition, OffsetSpec> latest = new HashMap<>();
    for (int p = 0; p < PARTITIONS; p++) {
      latest.put(new TopicPartition(topic, p), OffsetSpec.latest());
    }
    Map<Integer, Long> out = new java.util.TreeMap<>();
    try (Admin admin = cluster.admin()) {
      admin
          .listOffsets(latest)
          .all()
          .get(30, TimeUnit.SECONDS)
          .forEach((tp, info) -> out.put(tp.partition(), info.offset()));
    }
    return out;
  }
}
