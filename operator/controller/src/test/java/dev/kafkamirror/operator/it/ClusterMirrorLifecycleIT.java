package dev.kafkamirror.operator.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import dev.kafkamirror.operator.api.v1alpha1.ClusterMirror;
import dev.kafkamirror.operator.api.v1alpha1.Condition;
import dev.kafkamirror.operator.api.v1alpha1.Conditions;
import dev.kafkamirror.operator.api.v1alpha1.DeletionPolicy;
import dev.kafkamirror.operator.api.v1alpha1.MirrorState;
import dev.kafkamirror.operator.api.v1alpha1.StopMode;
import dev.kafkamirror.operator.api.v1alpha1.StopPolicy;
import dev.kafkamirror.operator.app.OperatorMain;
import dev.kafkamirror.testing.kafka.KafkaCluster;
import dev.kafkamirror.testing.kafka.TestClients;
import dev.kafkamirror.testing.kube.KubeApiServerHarness;
import dev.kafkamirror.testing.plugin.PluginControlClient;
import dev.kafkamirror.testing.process.Commands;
import io.fabric8.kubernetes.api.model.Event;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.IsolationLevel;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;

/**
 * The operator in-process against a real kube-apiserver, a real source cluster and a real
 * destination whose broker runs the plugin: mirroring, pause, refusal of another source's data, and
 * a stop that completes with the source cluster down.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class ClusterMirrorLifecycleIT {

  private static final String NS = "mirrors";
  private static final Duration WAIT = Duration.ofSeconds(90);

  /** Nothing listens there: the mirrors of the deletion and catch-up tests never reach a source. */
  private static final String UNREACHABLE_SOURCE = "127.0.0.1:1";

  private static final String UNREACHABLE_SOURCE_ID = "QUFBQUFBQUFBQUFBQUFBQQ";

  private static OperatorTestEnvironment env;
  private static KubernetesClient client;
  private static KafkaCluster source;
  private static KafkaCluster destination;
  private static OperatorMain operator;

  @BeforeAll
  static void start() throws Exception {
    env = OperatorTestEnvironment.start();
    client = env.client();
    env.installCrdAndNamespaces(NS, "elsewhere");
    source = env.startSource("op-a");
    destination = env.startDestination("op-b");
    operator =
        env.startOperator(
            Map.of(
                "CMO_HEALTH_PORT", "0",
                "CMO_METRICS_PORT", "0",
                "CMO_REQUEUE_MS", "300",
                "CMO_RESYNC_MS", "2000"));
  }

  @AfterAll
  static void stop() {
    if (env != null) {
      env.close();
    }
  }

  @Test
  @Order(1)
  void refusesToStopDataMirroredFromAnotherSourceClusterWithDegradedAndAnEvent() throws Exception {
    // Given topic "shared" mirrored by mirrors/orders from the real source
    source.createTopic("shared", 1, 1, Map.of());
    SourceData.write(source, "shared", 1, 5, 0, "shared");
    client
        .resource(
            MirrorFixtures.clusterMirror(
                NS,
                "orders",
                source,
                source.clusterId(),
                destination,
                MirrorState.Mirroring,
                List.of("shared")))
        .create();
    awaitCondition(NS, "orders", Conditions.MIRRORING, Conditions.TRUE);

    // When a ClusterMirror of the same name elsewhere claims it comes from another cluster and asks
    // to stop
    String otherId = "ZZZZZZZZZZZZZZZZZZZZZZ";
    client
        .resource(
            MirrorFixtures.clusterMirror(
                "elsewhere",
                "orders",
                source,
                otherId,
                destination,
                MirrorState.Stopped,
                List.of("shared")))
        .create();

    // Then it is Degraded with SourceClusterMismatch naming both ids, a Warning Event, and the
    // partition still mirrors
    Condition degraded =
        awaitCondition("elsewhere", "orders", Conditions.DEGRADED, Conditions.TRUE);
    assertThat(degraded.getReason()).isEqualTo("SourceClusterMismatch");
    assertThat(degraded.getMessage()).contains("shared-0", source.clusterId(), otherId);
    // And kstatus (Flux) reads it Failed: Stalled names the refusal, the phase is Failed
    Kstatus.Verdict refused = awaitKstatus("elsewhere", "orders", "Failed");
    assertThat(refused.reason()).as(refused.toString()).isEqualTo("SourceClusterMismatch");
    assertThat(refused.phase()).as(refused.toString()).isEqualTo("Failed");
    assertThat(kstatusNow(NS, "orders").status()).isEqualTo("Current");
    await()
        .atMost(WAIT)
        .untilAsserted(
            () ->
                assertThat(events("elsewhere"))
                    .anySatisfy(
                        e -> {
                          assertThat(e.getType()).isEqualTo("Warning");
                          assertThat(e.getReason()).isEqualTo("SourceClusterMismatch");
                        }));
    JsonNode d = describe("shared", 0);
    assertThat(d.path("mirror").path("state").asText()).as(d.toString()).isEqualTo("MIRRORING");
    client.resources(ClusterMirror.class).inNamespace("elsewhere").withName("orders").delete();
  }

  @Test
  @Order(2)
  void mirrorsPausesAndStopsWithTheSourceDownBehindOneBarrierPerPartition() throws Exception {
    // Given a 3-partition topic on the source with idempotent and transactional data, mirrored by
    // the operator
    int partitions = 3;
    source.createTopic("orders", partitions, 1, Map.of());
    List<String> committed = SourceData.write(source, "orders", partitions, 10, 5, "before");
    ClusterMirror cr =
        MirrorFixtures.clusterMirror(
            NS,
            "orders-mirror",
            source,
            source.clusterId(),
            destination,
            MirrorState.Mirroring,
            List.of("orders"));
    client.resource(cr).create();
    awaitCondition(NS, "orders-mirror", Conditions.MIRRORING, Conditions.TRUE);
    awaitLagZero("orders-mirror");
    Kstatus.Verdict mirroring = kstatusNow(NS, "orders-mirror");
    assertThat(mirroring.status()).as(mirroring.toString()).isEqualTo("Current");
    assertThat(mirroring.phase()).isEqualTo("Mirroring");

    // When paused, the status follows; resumed, more data arrives
    setState("orders-mirror", MirrorState.Paused);
    awaitCondition(NS, "orders-mirror", Conditions.READY, Conditions.TRUE);
    assertThat(status("orders-mirror").getPartitionCounts().getPaused()).isEqualTo(partitions);
    Kstatus.Verdict paused = kstatusNow(NS, "orders-mirror");
    assertThat(paused.status()).as(paused.toString()).isEqualTo("Current");
    assertThat(paused.phase()).isEqualTo("Paused");
    setState("orders-mirror", MirrorState.Mirroring);
    awaitCondition(NS, "orders-mirror", Conditions.MIRRORING, Conditions.TRUE);
    committed.addAll(SourceData.write(source, "orders", partitions, 4, 4, "after"));
    awaitLagZero("orders-mirror");

    // And the source cluster goes away with a transaction still open, then the spec asks to stop
    KafkaProducer<String, String> open =
        SourceData.openTransaction(source, "orders", partitions, "open");
    awaitLagZero("orders-mirror");
    source.close();
    open.close(Duration.ZERO);
    long stopAskedAt = System.nanoTime();
    setState("orders-mirror", MirrorState.Stopped);

    // Then kubectl wait returns, every partition is STOPPED behind exactly one barrier
    Commands.Result wait =
        Commands.run(
            Duration.ofSeconds(100),
            List.of(
                KubeApiServerHarness.kubectl().toString(),
                "--kubeconfig",
                env.apiServer().kubeconfigFile().toString(),
                "-n",
                NS,
                "wait",
                "--for=condition=" + Conditions.STOPPED,
                "--timeout=90s",
                "clustermirror/orders-mirror"));
    assertThat(wait.exitCode()).as(wait.toString()).isZero();
    long failoverMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - stopAskedAt);
    System.out.println(
        "failover of " + partitions + " partitions with the source down: " + failoverMs + " ms");
    var status = status("orders-mirror");
    assertThat(status.getStoppedOfTotal()).isEqualTo(partitions + "/" + partitions);
    assertThat(status.getStopStartedAt()).isNotNull();
    assertThat(status.getStopFinishedAt()).isNotNull();
    Kstatus.Verdict stopped = kstatusNow(NS, "orders-mirror");
    assertThat(stopped.status()).as(stopped.toString()).isEqualTo("Current");
    assertThat(stopped.phase()).isEqualTo("Stopped");
    // And kubectl get lists the observed state: NAME, READY, PHASE, STOPPED, MAX LAG, AGE last
    Commands.Result listed = kubectl("get", "cmirror", "orders-mirror");
    List<String> lines = listed.stdout().lines().toList();
    assertThat(lines).as(listed.toString()).hasSize(2);
    assertThat(lines.get(0).trim().split("\\s{2,}"))
        .as(listed.toString())
        .containsExactly("NAME", "READY", "PHASE", "STOPPED", "MAX LAG", "AGE");
    assertThat(lines.get(1).trim().split("\\s+"))
        .as(listed.toString())
        .startsWith("orders-mirror", "True", "Stopped", partitions + "/" + partitions);
    String sourceId = status.getSourceClusterId();
    for (int partition = 0; partition < partitions; partition++) {
      final int p = partition;
      JsonNode d = describe("orders", p);
      assertThat(d.path("mirror").path("state").asText()).as(d.toString()).isEqualTo("STOPPED");
      assertThat(barrierOffsets(d, sourceId)).as(d.toString()).hasSize(1);
      if (d.has("stop")) {
        assertThat(d.path("stop").path("step").asText()).isEqualTo("STOPPED");
      }
      assertThat(
              status.getPartitions().stream()
                  .filter(s -> s.getPartition() == p)
                  .findFirst()
                  .orElseThrow()
                  .getBarrierOffset())
          .isNotNull();
    }

    // And no committed record is lost, none of the open or aborted transactions is visible, and a
    // new producer writes
    List<String> readCommitted =
        TestClients.values(
            TestClients.readAll(
                destination.bootstrapServers(),
                "orders",
                IsolationLevel.READ_COMMITTED,
                Duration.ofSeconds(60)));
    assertThat(readCommitted).containsExactlyInAnyOrderElementsOf(committed);
    try (KafkaProducer<String, String> p =
        TestClients.idempotentProducer(destination.bootstrapServers())) {
      p.send(new ProducerRecord<>("orders", 0, "k", "written-on-b")).get(30, TimeUnit.SECONDS);
    }
    assertThat(events(NS))
        .anySatisfy(e -> assertThat(e.getReason()).isEqualTo("AllPartitionsStopped"));
  }

  @Test
  @Order(3)
  void deletingWithRetainChangesNothingAndWithStopMirroringStopsFirst() throws Exception {
    // Given two mirrors of a source that is unreachable, one Retain and one StopMirroring
    destination.createTopic("kept", 1, 1, Map.of());
    destination.createTopic("released", 1, 1, Map.of());
    ClusterMirror kept =
        MirrorFixtures.clusterMirror(
            NS,
            "kept",
            source,
            UNREACHABLE_SOURCE_ID,
            destination,
            MirrorState.Mirroring,
            List.of("kept"));
    kept.getSpec().getSource().setBootstrapServers(UNREACHABLE_SOURCE);
    ClusterMirror released =
        MirrorFixtures.clusterMirror(
            NS,
            "released",
            source,
            UNREACHABLE_SOURCE_ID,
            destination,
            MirrorState.Mirroring,
            List.of("released"));
    released.getSpec().getSource().setBootstrapServers(UNREACHABLE_SOURCE);
    released.getSpec().setDeletionPolicy(DeletionPolicy.StopMirroring);
    client.resource(kept).create();
    client.resource(released).create();
    awaitRegisteredButUnverified("kept", 1);
    awaitRegisteredButUnverified("released", 1);
    assertThat(get("kept").getMetadata().getFinalizers()).isEmpty();
    await()
        .atMost(WAIT)
        .untilAsserted(
            () ->
                assertThat(get("released").getMetadata().getFinalizers())
                    .containsExactly("kafkamirror.dev/stop-mirroring"));

    // When both are deleted
    client.resources(ClusterMirror.class).inNamespace(NS).withName("kept").delete();
    client.resources(ClusterMirror.class).inNamespace(NS).withName("released").delete();

    // Then both go away; the Retain one's partition still mirrors, the StopMirroring one's is
    // STOPPED behind a barrier
    await().atMost(WAIT).untilAsserted(() -> assertThat(get("kept")).isNull());
    await().atMost(WAIT).untilAsserted(() -> assertThat(get("released")).isNull());
    JsonNode keptPartition = describe("kept", 0);
    assertThat(keptPartition.path("mirror").path("state").asText())
        .as(keptPartition.toString())
        .isEqualTo("MIRRORING");
    JsonNode releasedPartition = describe("released", 0);
    assertThat(releasedPartition.path("mirror").path("state").asText())
        .as(releasedPartition.toString())
        .isEqualTo("STOPPED");
    assertThat(releasedPartition.path("stop").path("step").asText()).isEqualTo("STOPPED");
    assertThat(barrierOffsets(releasedPartition, UNREACHABLE_SOURCE_ID)).hasSize(1);
  }

  @Test
  @Order(4)
  void afterCatchUpWithAnUnknownLagReportsAndDoesNotStopButImmediateStops() throws Exception {
    // Given a mirror whose source never answered (its lag is unknown), planned as AfterCatchUp with
    // 2 s
    destination.createTopic("planned", 2, 1, Map.of());
    ClusterMirror cr =
        MirrorFixtures.clusterMirror(
            NS,
            "planned",
            source,
            UNREACHABLE_SOURCE_ID,
            destination,
            MirrorState.Mirroring,
            List.of("planned"));
    cr.getSpec().getSource().setBootstrapServers(UNREACHABLE_SOURCE);
    StopPolicy policy = new StopPolicy();
    policy.setMode(StopMode.AfterCatchUp);
    // (long enough for kstatus to be read while the stop waits)
    policy.setCatchUpTimeoutSeconds(15);
    cr.getSpec().setStop(policy);
    client.resource(cr).create();
    awaitRegisteredButUnverified("planned", 2);
    // (kstatus: still in progress, its mirrors are starting, not Current)
    Kstatus.Verdict starting = kstatusNow(NS, "planned");
    assertThat(starting.status()).as(starting.toString()).isEqualTo("InProgress");
    assertThat(starting.reason()).as(starting.toString()).isEqualTo("StartingMirrors");
    assertThat(starting.phase()).isEqualTo("Starting");

    // When it is asked to stop
    setState("planned", MirrorState.Stopped);

    // Then, while the stop waits for the catch-up, kstatus reads it InProgress, phase Stopping
    Kstatus.Verdict stopping = awaitKstatus(NS, "planned", "InProgress");
    assertThat(stopping.reason()).as(stopping.toString()).isEqualTo("WaitingForCatchUp");
    assertThat(stopping.phase()).as(stopping.toString()).isEqualTo("Stopping");
    assertThat(
            Conditions.find(status("planned"), Conditions.DEGRADED)
                .map(Condition::getStatus)
                .orElse(null))
        .as("the catch-up has not timed out yet")
        .isEqualTo(Conditions.FALSE);

    // And it reports CatchUpTimedOut, kstatus Failed, and leaves both partitions mirroring
    Condition degraded = awaitCondition(NS, "planned", Conditions.DEGRADED, Conditions.TRUE);
    assertThat(degraded.getReason()).isEqualTo("CatchUpTimedOut");
    Kstatus.Verdict timedOut = kstatusNow(NS, "planned");
    assertThat(timedOut.status()).as(timedOut.toString()).isEqualTo("Failed");
    assertThat(timedOut.reason()).as(timedOut.toString()).isEqualTo("CatchUpTimedOut");
    assertThat(timedOut.phase()).isEqualTo("Failed");
    assertThat(awaitCondition(NS, "planned", Conditions.STOPPED, Conditions.FALSE).getReason())
        .isEqualTo("CatchUpTimedOut");
    for (int p = 0; p < 2; p++) {
      JsonNode d = describe("planned", p);
      assertThat(d.path("mirror").path("state").asText()).as(d.toString()).isEqualTo("MIRRORING");
      assertThat(d.has("stop")).as(d.toString()).isFalse();
    }

    // And switched to Immediate, it stops without the source
    client
        .resources(ClusterMirror.class)
        .inNamespace(NS)
        .withName("planned")
        .edit(
            c -> {
              c.getSpec().getStop().setMode(StopMode.Immediate);
              return c;
            });
    awaitCondition(NS, "planned", Conditions.STOPPED, Conditions.TRUE);
    assertThat(status("planned").getStoppedOfTotal()).isEqualTo("2/2");
    Kstatus.Verdict stopped = kstatusNow(NS, "planned");
    assertThat(stopped.status()).as(stopped.toString()).isEqualTo("Current");
    assertThat(stopped.phase()).isEqualTo("Stopped");
  }

  @Test
  @Order(5)
  void servesHealthAndPrometheusMetrics() throws Exception {
    HttpClient http = HttpClient.newHttpClient();
    HttpResponse<String> ready =
        http.send(
            HttpRequest.newBuilder(
                    URI.create("http://127.0.0.1:" + operator.healthPort() + "/readyz"))
                .build(),
            HttpResponse.BodyHandlers.ofString());
    HttpResponse<String> metrics =
        http.send(
            HttpRequest.newBuilder(
                    URI.create("http://127.0.0.1:" + operator.metricsPort() + "/metrics"))
                .build(),
            HttpResponse.BodyHandlers.ofString());
    assertThat(ready.statusCode()).isEqualTo(200);
    // the operator's own series, per ClusterMirror ("planned" was stopped above, 2 partitions)
    assertThat(metrics.body())
        .contains(
            "cmo_mirror_partitions{name=\"planned\",namespace=\""
                + NS
                + "\",phase=\"STOPPED\"} 2.0")
        .contains("cmo_mirror_max_lag_records{name=\"planned\",namespace=\"" + NS + "\"}")
        .contains(
            "cmo_mirror_condition{name=\"planned\",namespace=\""
                + NS
                + "\",status=\"True\",type=\"Stopped\"} 1.0")
        .contains(
            "cmo_mirror_last_successful_reconcile_timestamp_seconds{name=\"planned\",namespace=\""
                + NS
                + "\"}")
        .contains("cmo_stop_duration_seconds_bucket")
        .contains("cmo_control_calls_total{call=\"MAKE_WRITABLE\"}")
        .contains("cmo_control_calls_total{call=\"DESCRIBE\"}")
        .contains("cmo_build_info{git_commit=")
        // JOSDK's reconcile metrics, through its Micrometer support
        .contains("operator_sdk_reconciliations_started_total")
        .contains("operator_sdk_reconciliations_success_total");
  }

  @Test
  @Order(6)
  void anInvalidSpecIsStalledAndKstatusFailed() throws Exception {
    // Given a mirror whose control Secret does not exist
    ClusterMirror cr =
        MirrorFixtures.clusterMirror(
            NS,
            "unresolvable",
            source,
            UNREACHABLE_SOURCE_ID,
            destination,
            MirrorState.Mirroring,
            List.of("planned"));
    cr.getSpec().getSource().setBootstrapServers(UNREACHABLE_SOURCE);
    cr.getSpec().getDestination().getControl().getSecretRef().setName("no-such-secret");

    // When it is applied
    client.resource(cr).create();

    // Then Degraded and Stalled say InvalidSpec, and kstatus (Flux) reads it Failed
    assertThat(awaitCondition(NS, "unresolvable", Conditions.DEGRADED, Conditions.TRUE).getReason())
        .isEqualTo("InvalidSpec");
    Condition stalled = awaitCondition(NS, "unresolvable", Conditions.STALLED, Conditions.TRUE);
    assertThat(stalled.getReason()).isEqualTo("InvalidSpec");
    assertThat(stalled.getMessage()).contains("no-such-secret");
    assertThat(awaitCondition(NS, "unresolvable", Conditions.RECONCILING, Conditions.FALSE))
        .isNotNull();
    Kstatus.Verdict failed = kstatusNow(NS, "unresolvable");
    assertThat(failed.status()).as(failed.toString()).isEqualTo("Failed");
    assertThat(failed.reason()).as(failed.toString()).isEqualTo("InvalidSpec");
    assertThat(failed.message()).as(failed.toString()).contains("no-such-secret");
    assertThat(failed.phase()).isEqualTo("Failed");
    client.resources(ClusterMirror.class).inNamespace(NS).withName("unresolvable").delete();
  }

  /**
   * kstatus of the mirror now; the status must be of the current generation, so that the verdict
   * comes from the conditions and not from an observedGeneration behind. The chart's Argo CD health
   * check (Lua) and Flux healthCheckExprs (CEL) must read the same object the same way.
   */
  private static Kstatus.Verdict kstatusNow(String ns, String name) {
    Kstatus.Verdict v = kstatusOfCurrentGeneration(ns, name);
    GitOpsHealth.assertAgreesWithKstatus(v);
    return v;
  }

  private static Kstatus.Verdict kstatusOfCurrentGeneration(String ns, String name) {
    Kstatus.Verdict v = Kstatus.of(env.apiServer(), ns, name);
    assertThat(v.object().path("status").path("observedGeneration").asLong())
        .as("observedGeneration of %s", v)
        .isEqualTo(v.object().path("metadata").path("generation").asLong());
    return v;
  }

  /**
   * Waits until kstatus reads {@code expected} from a status of the current generation; the Argo CD
   * and Flux checks must then agree on that same object.
   */
  private static Kstatus.Verdict awaitKstatus(String ns, String name, String expected) {
    Kstatus.Verdict[] last = new Kstatus.Verdict[1];
    await()
        .atMost(WAIT)
        .pollInterval(Duration.ofMillis(300))
        .untilAsserted(
            () -> {
              last[0] = kstatusOfCurrentGeneration(ns, name);
              assertThat(last[0].status()).as("kstatus: %s", last[0]).isEqualTo(expected);
            });
    GitOpsHealth.assertAgreesWithKstatus(last[0]);
    return last[0];
  }

  private static Commands.Result kubectl(String... args) {
    List<String> command = new java.util.ArrayList<>();
    command.add(KubeApiServerHarness.kubectl().toString());
    command.add("--kubeconfig");
    command.add(env.apiServer().kubeconfigFile().toString());
    command.add("-n");
    command.add(NS);
    command.addAll(List.of(args));
    Commands.Result r = Commands.run(Duration.ofSeconds(30), command);
    assertThat(r.exitCode()).as(r.toString()).isZero();
    return r;
  }

  static Set<Long> barrierOffsets(JsonNode describe, String sourceId) {
    Set<Long> offsets = new TreeSet<>();
    for (JsonNode r : describe.path("barrierResets")) {
      if (sourceId == null || sourceId.equals(r.path("sourceClusterId").asText())) {
        offsets.add(r.path("barrierOffset").asLong());
      }
    }
    return offsets;
  }

  private static JsonNode describe(String topic, int partition) {
    PluginControlClient control = MirrorFixtures.control(destination, 1);
    return control.describe(topic, partition).result(topic, partition);
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

  private static ClusterMirror get(String name) {
    return client.resources(ClusterMirror.class).inNamespace(NS).withName(name).get();
  }

  private static dev.kafkamirror.operator.api.v1alpha1.ClusterMirrorStatus status(String name) {
    return client.resources(ClusterMirror.class).inNamespace(NS).withName(name).get().getStatus();
  }

  private static void awaitLagZero(String name) {
    await()
        .atMost(WAIT)
        .untilAsserted(
            () -> {
              var s = status(name);
              assertThat(s).isNotNull();
              assertThat(s.getMaxLagRecords()).isZero();
              assertThat(s.getPartitions())
                  .allSatisfy(p -> assertThat(p.getLagRecords()).isEqualTo(0L));
            });
  }

  /**
   * Every partition registered as MIRRORING on the destination, yet the resource is not Mirroring:
   * the source never answered, so its cluster id was never verified.
   */
  private static void awaitRegisteredButUnverified(String name, int partitions) {
    await()
        .atMost(WAIT)
        .pollInterval(Duration.ofMillis(200))
        .untilAsserted(
            () -> {
              var s = status(name);
              assertThat(s).isNotNull();
              assertThat(s.getPartitionCounts().getMirroring()).isEqualTo(partitions);
            });
    Condition mirroring = awaitCondition(NS, name, Conditions.MIRRORING, Conditions.FALSE);
    assertThat(mirroring.getReason()).isEqualTo("StartingMirrors");
    assertThat(mirroring.getMessage()).contains("not verified");
  }

  private static List<Event> events(String namespace) {
    return client.v1().events().inNamespace(namespace).list().getItems();
  }

  static Condition awaitCondition(String ns, String name, String type, String value) {
    Condition[] found = new Condition[1];
    await()
        .atMost(WAIT)
        .pollInterval(Duration.ofMillis(200))
        .untilAsserted(
            () -> {
              ClusterMirror cr =
                  client.resources(ClusterMirror.class).inNamespace(ns).withName(name).get();
              assertThat(cr.getStatus()).as("status of %s/%s", ns, name).isNotNull();
              Condition c = Conditions.find(cr.getStatus(), type).orElse(null);
              assertThat(c)
                  .as("condition %s of %s/%s in %s", type, ns, name, cr.getStatus().getConditions())
                  .isNotNull();
              assertThat(c.getStatus())
                  .as("%s: %s %s", type, c.getReason(), c.getMessage())
                  .isEqualTo(value);
              assertThat(c.getObservedGeneration()).isEqualTo(cr.getMetadata().getGeneration());
              found[0] = c;
            });
    return found[0];
  }
}
