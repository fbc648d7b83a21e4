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
import dev.kafkamirror.operator.api.v1alpha1.InitialSync;
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
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

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
class FailbackIT {

  private static final String NS = "failback";
  private static final Duration WAIT = Duration.ofSeconds(90);
  private static final String TOPIC = "orders";
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
    ClusterMirror cr =
        MirrorFixtures.clusterMirror(
            NS,
            name,
            source,
            source.clusterId(),
            destination,
            MirrorState.Mirroring,
            List.of(TOPIC));
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

  private static void setState(String name, MirrorState state) {
    client
        .resources(ClusterMirror.class)
        .inNamespace(NS)
        .withName(name)
        .edit(
            cr -> {
              cr.getSpec().setState(state);
              return cr;
            });
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
    return MirrorFixtures.control(cluster, cluster.brokerIds().get(0))
        .describe(TOPIC, partition)
        .result(TOPIC, partition);
  }

  private static void awaitCaughtUp(KafkaCluster source, KafkaCluster destination) {
    await()
        .atMost(WAIT)
        .pollInterval(Duration.ofMillis(200))
        .ignoreExceptions()
        .untilAsserted(
            () ->
                assertThat(logEnds(destination))
                    .as("%s's end offsets against %s's", destination.name(), source.name())
                    .isEqualTo(logEnds(source)));
  }

  private static Map<Integer, Long> logEnds(KafkaCluster cluster) throws Exception {
    Map<TopicPartition, OffsetSpec> latest = new HashMap<>();
    for (int p = 0; p < PARTITIONS; p++) {
      latest.put(new TopicPartition(TOPIC, p), OffsetSpec.latest());
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
