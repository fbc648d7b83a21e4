package dev.kafkamirror.operator.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import dev.kafkamirror.operator.api.v1alpha1.ClusterMirror;
import dev.kafkamirror.operator.api.v1alpha1.ClusterMirrorStatus;
import dev.kafkamirror.operator.api.v1alpha1.Conditions;
import dev.kafkamirror.operator.api.v1alpha1.MirrorState;
import dev.kafkamirror.testing.failover.FailoverChecker;
import dev.kafkamirror.testing.failover.LedgerWrites;
import dev.kafkamirror.testing.failover.WriteLedger;
import dev.kafkamirror.testing.kafka.KafkaCluster;
import dev.kafkamirror.testing.kafka.KafkaClusterConfig;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.ListOffsetsOptions;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.common.IsolationLevel;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;

/**
 * The mirroring topologies of the seed through the operator (issue 13 items 3 and 4): fan-out A→B
 * and A→C, fan-in A→C (one topic) and B→C (another), and the chain A→B→C, each with its own
 * failovers, each failed-over cluster verified by the one {@link FailoverChecker}.
 *
 * <p>Three single-node clusters, started once and shared by the ordered tests, each test on its own
 * topics: A (plain Kafka, a source only), B and C (the plugin; B is a destination in fan-out and
 * chain and a source in fan-in and chain). One node each is the smallest size that still tests the
 * point: the topologies are about which cluster mirrors which, not about replication inside one
 * (the multi-broker stop is covered by the plugin and operator ITs). The chain with a transaction
 * open on A stops B's mirror of A instead of killing A (B's stop is the same either way); the plain
 * chain runs last: it kills A and then B.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class MirrorTopologiesIT {

  private static final String NS = "topologies";
  private static final Duration WAIT = Duration.ofSeconds(90);

  private static OperatorTestEnvironment env;
  private static KubernetesClient client;
  private static KafkaCluster a;
  private static KafkaCluster b;
  private static KafkaCluster c;

  @BeforeAll
  static void start() throws Exception {
    env = OperatorTestEnvironment.start();
    client = env.client();
    env.installCrdAndNamespaces(NS);
    // The three clusters start side by side; each is owned as soon as it runs.
    CompletableFuture<KafkaCluster> startA =
        startOwned(KafkaClusterConfig.builder("topo-a").singleNode());
    CompletableFuture<KafkaCluster> startB =
        startOwned(MirrorFixtures.destination("topo-b").singleNode());
    CompletableFuture<KafkaCluster> startC =
        startOwned(MirrorFixtures.destination("topo-c").singleNode());
    CompletableFuture.allOf(startA, startB, startC).join();
    a = startA.join();
    b = startB.join();
    c = startC.join();
    env.startOperator(Map.of("CMO_REQUEUE_MS", "300", "CMO_RESYNC_MS", "2000"));
  }

  private static CompletableFuture<KafkaCluster> startOwned(KafkaClusterConfig.Builder cluster) {
    return CompletableFuture.supplyAsync(() -> env.startCluster(cluster));
  }

  @AfterAll
  static void stop() {
    if (env != null) {
      env.close();
    }
  }

  @Test
  @Order(1)
  void fanOutAToBAndAToCFailOverOneAfterTheOtherEachBehindItsOwnBarrier() throws Exception {
    // Given topic fan-out on A (2 partitions) with idempotent, committed, aborted and one open
    // transaction, mirrored to B and to C by two ClusterMirrors
    String topic = "fan-out";
    int partitions = 2;
    a.createTopic(topic, partitions, 1, Map.of());
    WriteLedger onA = new WriteLedger();
    LedgerWrites.idempotent(onA, a.bootstrapServers(), topic, partitions, 5, "fo");
    LedgerWrites.transactions(onA, a.bootstrapServers(), topic, partitions, 3, 2, "fo");
    create("fan-out-b", a, b, topic);
    create("fan-out-c", a, c, topic);
    try (KafkaProducer<String, String> open =
        LedgerWrites.openTransaction(onA, a.bootstrapServers(), topic, partitions, "fo")) {
      FailoverChecker.recordProducerIds(onA, a, topic, partitions);
      awaitCaughtUp(a, b, topic, partitions);
      awaitCaughtUp(a, c, topic, partitions);
      awaitCondition("fan-out-b", Conditions.MIRRORING, Conditions.TRUE);
      awaitCondition("fan-out-c", Conditions.MIRRORING, Conditions.TRUE);

      // When B fails over (A's transaction still open)
      stopAndAwait("fan-out-b");

      // Then B is verified, and C still mirrors A
      verifyFailedOver(b, onA.copy(), topic, partitions, "fo-b");
      assertMirroring(c, topic, partitions);
      assertThat(Conditions.isMirroring(status("fan-out-c"))).isTrue();

      // When C fails over too
      stopAndAwait("fan-out-c");

      // Then C is verified on its own: B's local writes are not C's
      verifyFailedOver(c, onA.copy(), topic, partitions, "fo-c");
      open.close(Duration.ZERO);
    }
  }

  @Test
  @Order(2)
  void fanInAToCAndBToCOnTwoTopicsFailOverEachWithoutDisturbingTheOther() throws Exception {
    // Given topic fan-in-x on A and topic fan-in-y on B (B's own topic: B is a source here), both
    // mirrored to C by two ClusterMirrors on one destination
    String x = "fan-in-x";
    String y = "fan-in-y";
    int partitions = 2;
    a.createTopic(x, partitions, 1, Map.of());
    b.createTopic(y, partitions, 1, Map.of());
    WriteLedger onA = new WriteLedger();
    WriteLedger onB = new WriteLedger();
    LedgerWrites.idempotent(onA, a.bootstrapServers(), x, partitions, 4, "fix");
    LedgerWrites.transactions(onA, a.bootstrapServers(), x, partitions, 3, 2, "fix");
    LedgerWrites.idempotent(onB, b.bootstrapServers(), y, partitions, 4, "fiy");
    LedgerWrites.transactions(onB, b.bootstrapServers(), y, partitions, 3, 2, "fiy");
    FailoverChecker.recordProducerIds(onA, a, x, partitions);
    FailoverChecker.recordProducerIds(onB, b, y, partitions);
    create("fan-in-x", a, c, x);
    create("fan-in-y", b, c, y);
    awaitCaughtUp(a, c, x, partitions);
    awaitCaughtUp(b, c, y, partitions);
    awaitCondition("fan-in-x", Conditions.MIRRORING, Conditions.TRUE);
    awaitCondition("fan-in-y", Conditions.MIRRORING, Conditions.TRUE);

    // When topic y (B's) fails over on C
    stopAndAwait("fan-in-y");

    // Then y is verified, and x still mirrors A: more records on A arrive on C
    verifyFailedOver(c, onB, y, partitions, "fiy-c");
    assertMirroring(c, x, partitions);
    LedgerWrites.idempotent(onA, a.bootstrapServers(), x, partitions, 2, "fix-more");
    awaitCaughtUp(a, c, x, partitions);
    assertThat(Conditions.isMirroring(status("fan-in-x"))).isTrue();

    // When x fails over too
    FailoverChecker.recordProducerIds(onA, a, x, partitions);
    stopAndAwait("fan-in-x");

    // Then x is verified
    verifyFailedOver(c, onA, x, partitions, "fix-c");
  }

  @Test
  @Order(3)
  void chainWithATransactionOpenOnANeverGivesCWhatBsFailoverCutsAndCFollowsBsBarrier()
      throws Exception {
    // Given topic chain-open on A with committed, aborted and one open transaction, mirrored A→B
    // and B→C (B mirrors A's log up to A's high watermark, the open record included)
    String topic = "chain-open";
    int partitions = 1;
    a.createTopic(topic, partitions, 1, Map.of());
    WriteLedger ledger = new WriteLedger();
    LedgerWrites.idempotent(ledger, a.bootstrapServers(), topic, partitions, 3, "cho");
    LedgerWrites.transactions(ledger, a.bootstrapServers(), topic, partitions, 2, 1, "cho");
    create("chain-open-ab", a, b, topic);
    create("chain-open-bc", b, c, topic);
    try (KafkaProducer<String, String> open =
        LedgerWrites.openTransaction(ledger, a.bootstrapServers(), topic, partitions, "cho")) {
      FailoverChecker.recordProducerIds(ledger, a, topic, partitions);
      awaitCondition("chain-open-ab", Conditions.MIRRORING, Conditions.TRUE);
      awaitCondition("chain-open-bc", Conditions.MIRRORING, Conditions.TRUE);

      // When B has copied A's log, the open record included, and C has fetched from B since
      // Then C holds B's log up to B's last stable offset only, although C saw B's high watermark
      // above it: a single-replica B cannot bump its leader epoch when its stop cuts the open
      // record away, so C could never tell B's barrier from the record C would hold at that
      // offset; B does not show it to C
      long[] settled = new long[2]; // B's end and last stable offset
      await()
          .atMost(WAIT)
          .pollInterval(Duration.ofMillis(200))
          .ignoreExceptions()
          .untilAsserted(
              () -> {
                long bEnd = logEnds(b, topic, partitions).get(0);
                long bStable = lastStableOffsets(b, topic, partitions).get(0);
                assertThat(bEnd)
                    .as("B's end against A's")
                    .isEqualTo(logEnds(a, topic, partitions).get(0));
                assertThat(bStable)
                    .as(
                        "B's last stable offset: below the open record (A's %s, B: %s)",
                        lastStableOffsets(a, topic, partitions), describe(b, topic, 0))
                    .isLessThan(bEnd);
                JsonNode d = describe(c, topic, 0);
                assertThat(d.path("mirror").path("sourceHighWatermark").asLong())
                    .as("C: %s", d)
                    .isEqualTo(bEnd);
                assertThat(d.path("logEndOffset").asLong())
                    .as("C's end: B's last stable offset, without the open record (C: %s)", d)
                    .isEqualTo(bStable);
                assertThat(d.path("mirror").path("lagRecords").asLong())
                    .as("C: %s", d)
                    .isEqualTo(bEnd - bStable);
                settled[0] = bEnd;
                settled[1] = bStable;
              });
      long bStable = settled[1];

      // When B fails over while A's transaction is open (an Immediate stop of a-to-b: B's stop
      // truncates to its last stable offset whether A is reachable or not, and A stays up for
      // the next test)
      stopAndAwait("chain-open-ab");
      JsonNode onB = describe(b, topic, 0);
      long bBarrier = onB.path("stop").path("barrierOffset").asLong(-1);
      System.out.printf(
          "chain-open: B's barrier at %d, B's end %d%n  B: %s%n",
          bBarrier, logEnds(b, topic, partitions).get(0), onB);

      // Then B's barrier sits where the open record was, and C copies it and goes on mirroring:
      // C's log is B's, one barrier naming A, nothing halted
      assertThat(bBarrier).as("B's barrier: %s", onB).isEqualTo(bStable);
      awaitCaughtUp(b, c, topic, partitions);
      assertThat(barrierSources(c, topic, 0)).containsExactly(a.clusterId());
      assertMirroring(c, topic, partitions);
      assertThat(Conditions.isMirroring(status("chain-open-bc"))).isTrue();
      assertThat(
              Conditions.find(status("chain-open-bc"), Conditions.DEGRADED)
                  .map(d -> d.getStatus() + " " + d.getReason())
                  .orElse("absent"))
          .as("chain-open-bc's Degraded condition")
          .doesNotStartWith(Conditions.TRUE);

      // When C fails over too
      stopAndAwait("chain-open-bc");

      // Then C writes its own barrier after B's, naming B; C holds every committed record of A once
      // at A's offsets, nothing of the open transaction, no producer state of A or B, and a
      // colliding producer writes safely
      assertThat(barrierSources(c, topic, 0)).containsExactly(a.clusterId(), b.clusterId());
      verifyFailedOver(c, ledger, topic, partitions, "cho-c");
      open.close(Duration.ZERO);
    }
  }

  @Test
  @Order(4)
  void chainAToBToCFailsOverBWhenALostThenCWhenBLostWithNothingOfAOrBInCsProducerState()
      throws Exception {
    // Given topic chain on A (2 partitions) mirrored A→B and B→C by two ClusterMirrors (B is a
    // mirror and a source)
    String topic = "chain";
    int partitions = 2;
    a.createTopic(topic, partitions, 1, Map.of());
    WriteLedger ledger = new WriteLedger();
    LedgerWrites.idempotent(ledger, a.bootstrapServers(), topic, partitions, 5, "ch");
    LedgerWrites.transactions(ledger, a.bootstrapServers(), topic, partitions, 3, 2, "ch");
    create("chain-ab", a, b, topic);
    create("chain-bc", b, c, topic);
    FailoverChecker.recordProducerIds(ledger, a, topic, partitions);
    awaitCaughtUp(a, b, topic, partitions);
    awaitCaughtUp(b, c, topic, partitions);
    awaitCondition("chain-ab", Conditions.MIRRORING, Conditions.TRUE);
    awaitCondition("chain-bc", Conditions.MIRRORING, Conditions.TRUE);
    Map<Integer, Long> cOffsetsOfA = logEnds(c, topic, partitions);
    assertThat(cOffsetsOfA).isEqualTo(logEnds(a, topic, partitions));

    // When A is lost and B fails over
    a.killBroker(a.brokerIds().get(0));
    stopAndAwait("chain-ab");

    // Then B holds nothing of A's producers, and C, still mirroring B, follows B's truncation
    // and receives B's barrier
    FailoverChecker.of(b, ledger).withPlugin().producerStateReset(topic, partitions).assertOk();
    awaitCaughtUp(b, c, topic, partitions);
    assertMirroring(c, topic, partitions);
    for (int p = 0; p < partitions; p++) {
      assertThat(barrierSources(c, topic, p))
          .as("barriers on C, partition %d", p)
          .containsExactly(a.clusterId());
    }

    // When new producers on B (one with an id A used) write, C mirrors them, B is lost and C
    // fails over
    Set<Long> collidedOnB =
        FailoverChecker.of(b, ledger).writeWithCollidingProducer(topic, partitions, "ch-b", 10);
    LedgerWrites.transactions(ledger, b.bootstrapServers(), topic, partitions, 2, 1, "ch-b");
    assertThat(collidedOnB).as("a new producer on B with a producer id A used").isNotEmpty();
    FailoverChecker.of(b, ledger).verifyRecords(topic).assertOk();
    FailoverChecker.recordProducerIds(ledger, b, topic, partitions);
    awaitCaughtUp(b, c, topic, partitions);
    b.killBroker(b.brokerIds().get(0));
    stopAndAwait("chain-bc");

    // Then C has A's records at A's offsets, B's after B's barrier, its own barrier after them,
    // and no producer state of A or B
    verifyFailedOver(c, ledger, topic, partitions, "ch-c");
    for (int p = 0; p < partitions; p++) {
      assertThat(barrierSources(c, topic, p))
          .as("barriers on C, partition %d", p)
          .containsExactlyInAnyOrder(a.clusterId(), b.clusterId());
    }
  }

  /**
   * The checker's three steps on a cluster that just failed over: producer state reset, a new
   * producer that collides with an earlier cluster's id, every record.
   */
  private static void verifyFailedOver(
      KafkaCluster cluster, WriteLedger ledger, String topic, int partitions, String tag)
      throws Exception {
    FailoverChecker checker = FailoverChecker.of(cluster, ledger).withPlugin();
    checker.producerStateReset(topic, partitions).assertOk();
    Set<Long> collided = checker.writeWithCollidingProducer(topic, partitions, tag, 10);
    assertThat(collided)
        .as("a new producer on %s whose producer id an earlier cluster used", cluster.name())
        .isNotEmpty();
    checker.verifyRecords(topic).assertOk();
  }

  private static void create(
      String name, KafkaCluster source, KafkaCluster destination, String topic) {
    client
        .resource(
            MirrorFixtures.clusterMirror(
                NS,
                name,
                source,
                source.clusterId(),
                destination,
                MirrorState.Mirroring,
                List.of(topic)))
        .create();
  }

  private static void stopAndAwait(String name) {
    client
        .resources(ClusterMirror.class)
        .inNamespace(NS)
        .withName(name)
        .edit(
            cr -> {
              cr.getSpec().setState(MirrorState.Stopped);
              return cr;
            });
    awaitCondition(name, Conditions.STOPPED, Conditions.TRUE);
  }

  private static ClusterMirrorStatus status(String name) {
    return MirrorFixtures.status(client, NS, name);
  }

  private static void awaitCondition(String name, String type, String value) {
    MirrorFixtures.awaitCondition(client, NS, name, type, value, WAIT);
  }

  /** Every partition of {@code topic} on the single-node {@code cluster} is MIRRORING. */
  private static void assertMirroring(KafkaCluster cluster, String topic, int partitions) {
    for (int p = 0; p < partitions; p++) {
      JsonNode d = describe(cluster, topic, p);
      assertThat(d.path("mirror").path("state").asText()).as(d.toString()).isEqualTo("MIRRORING");
    }
  }

  /** The source cluster ids of the barriers in one partition's log on the single-node cluster. */
  private static List<String> barrierSources(KafkaCluster cluster, String topic, int partition) {
    JsonNode d = describe(cluster, topic, partition);
    java.util.ArrayList<String> out = new java.util.ArrayList<>();
    d.path("barrierResets").forEach(r -> out.add(r.path("sourceClusterId").asText()));
    return out;
  }

  private static JsonNode describe(KafkaCluster cluster, String topic, int partition) {
    return MirrorFixtures.control(cluster, cluster.brokerIds().get(0))
        .describe(topic, partition)
        .result(topic, partition);
  }

  /** Waits until every partition's end offset on {@code destination} equals the source's. */
  private static void awaitCaughtUp(
      KafkaCluster source, KafkaCluster destination, String topic, int partitions) {
    await()
        .atMost(WAIT)
        .pollInterval(Duration.ofMillis(200))
        .ignoreExceptions()
        .untilAsserted(
            () ->
                assertThat(logEnds(destination, topic, partitions))
                    .as(
                        "%s's end offsets of %s against %s's",
                        destination.name(), topic, source.name())
                    .isEqualTo(logEnds(source, topic, partitions)));
  }

  private static Map<Integer, Long> logEnds(KafkaCluster cluster, String topic, int partitions)
      throws Exception {
    return latestOffsets(cluster, topic, partitions, IsolationLevel.READ_UNCOMMITTED);
  }

  /** The last stable offsets of {@code topic}. */
  private static Map<Integer, Long> lastStableOffsets(
      KafkaCluster cluster, String topic, int partitions) throws Exception {
    return latestOffsets(cluster, topic, partitions, IsolationLevel.READ_COMMITTED);
  }

  /** ListOffsets latest: the high watermarks, or the last stable offsets at read_committed. */
  private static Map<Integer, Long> latestOffsets(
      KafkaCluster cluster, String topic, int partitions, IsolationLevel isolation)
      throws Exception {
    Map<TopicPartition, OffsetSpec> latest = new HashMap<>();
    for (int p = 0; p < partitions; p++) {
      latest.put(new TopicPartition(topic, p), OffsetSpec.latest());
    }
    Map<Integer, Long> out = new java.util.TreeMap<>();
    try (Admin admin = cluster.admin()) {
      admin
          .listOffsets(latest, new ListOffsetsOptions(isolation))
          .all()
          .get(30, TimeUnit.SECONDS)
          .forEach((tp, info) -> out.put(tp.partition(), info.offset()));
    }
    return out;
  }
}
