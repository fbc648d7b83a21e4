package dev.kafkamirror.operator.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import dev.kafkamirror.operator.api.v1alpha1.ClusterMirror;
import dev.kafkamirror.operator.api.v1alpha1.ClusterMirrorStatus;
import dev.kafkamirror.operator.api.v1alpha1.Conditions;
import dev.kafkamirror.operator.api.v1alpha1.MirrorState;
import dev.kafkamirror.testing.kafka.KafkaCluster;
import dev.kafkamirror.testing.kafka.TestClients;
import dev.kafkamirror.testing.kube.KubeApiServerHarness;
import dev.kafkamirror.testing.process.Commands;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.common.IsolationLevel;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The operator as its own JVM, killed with SIGKILL after every stop step it takes and started
 * again, on a real API server with a 3-broker destination (RF 3) whose brokers run the plugin. The
 * operator takes one step per reconcile (CMO_ROUNDS_PER_RECONCILE=1), so that every pair of steps
 * has a kill between them.
 */
class OperatorCrashIT {

  private static final String NS = "crash";
  private static final String TOPIC = "payments";
  private static final int PARTITIONS = 3;

  private OperatorTestEnvironment env;
  private KubernetesClient client;
  private OperatorProcess operator;

  @AfterEach
  void stopEverything() {
    if (env != null) {
      env.close();
    }
  }

  @Test
  void killedBetweenEveryPairOfStepsTheOperatorStillEndsStoppedWithOneBarrierPerPartition()
      throws Exception {
    // Given a mirrored topic (idempotent, committed, aborted and one open transaction) and a
    // separate operator process with a Lease
    env = OperatorTestEnvironment.start();
    client = env.client();
    env.installCrdAndNamespaces(NS);
    KafkaCluster source = env.startSource("crash-a");
    KafkaCluster destination = env.startDestination("crash-b", 3);
    source.createTopic(TOPIC, PARTITIONS, 1, Map.of());
    destination.createTopic(TOPIC, PARTITIONS, 3, Map.of());
    List<String> committed = SourceData.write(source, TOPIC, PARTITIONS, 20, 10, "crash");
    operator =
        env.newOperatorProcess(
            "operator-crash",
            Map.of(
                "CMO_ROUNDS_PER_RECONCILE", "1",
                "CMO_REQUEUE_MS", "1500",
                "CMO_RESYNC_MS", "2000",
                "CMO_LEASE_NAMESPACE", "default",
                "CMO_WATCH_NAMESPACES", NS));
    operator.start();
    client
        .resource(
            MirrorFixtures.clusterMirror(
                NS,
                "payments",
                source,
                source.clusterId(),
                destination,
                MirrorState.Mirroring,
                List.of(TOPIC)))
        .create();
    awaitCondition(Conditions.MIRRORING, Conditions.TRUE, Duration.ofSeconds(120));
    KafkaProducer<String, String> open =
        SourceData.openTransaction(source, TOPIC, PARTITIONS, "crash");
    await()
        .atMost(Duration.ofSeconds(60))
        .untilAsserted(() -> assertThat(status().getMaxLagRecords()).isZero());
    assertThat(client.leases().inNamespace("default").withName("cluster-mirror-operator").get())
        .as("the leader-election Lease")
        .isNotNull();

    // When the spec asks to stop, and the operator is killed each time a stop step shows on a
    // leader
    client
        .resources(ClusterMirror.class)
        .inNamespace(NS)
        .withName("payments")
        .edit(
            cr -> {
              cr.getSpec().setState(MirrorState.Stopped);
              return cr;
            });
    StopProbe probe = new StopProbe(destination, TOPIC, PARTITIONS);
    List<String> seen = new ArrayList<>();
    List<String> last = probe.signature();
    seen.add(last.toString());
    long deadline = System.nanoTime() + Duration.ofSeconds(240).toNanos();
    while (!isStopped()) {
      assertThat(System.nanoTime())
          .as("stop did not finish; seen %s; operator log:%n%s", seen, operator.tail(60))
          .isLessThan(deadline);
      List<String> now = probe.signature();
      if (!now.equals(last) && !now.contains("?")) {
        seen.add(now.toString());
        last = now;
        operator.kill();
        operator.start();
      }
      Thread.sleep(50);
    }
    open.close(Duration.ZERO);

    // Then it ended Stopped after a kill between every pair of steps, and kubectl wait returns
    assertThat(operator.starts() - 1).as("kills; states seen %s", seen).isGreaterThanOrEqualTo(5);
    Commands.Result wait =
        Commands.run(
            Duration.ofSeconds(60),
            List.of(
                KubeApiServerHarness.kubectl().toString(),
                "--kubeconfig",
                env.apiServer().kubeconfigFile().toString(),
                "-n",
                NS,
                "wait",
                "--for=condition=" + Conditions.STOPPED,
                "--timeout=30s",
                "clustermirror/payments"));
    assertThat(wait.exitCode()).as(wait.toString()).isZero();
    // And every replica holds exactly one barrier of this source per partition, at the same offset
    Map<Integer, Map<Integer, JsonNode>> all = probe.describeAll();
    for (var partition : all.entrySet()) {
      assertThat(partition.getValue())
          .as("replicas of %s-%s", TOPIC, partition.getKey())
          .hasSize(3);
      List<Long> barriers = new ArrayList<>();
      for (var replica : partition.getValue().entrySet()) {
        var offsets = StopProbe.barrierOffsets(replica.getValue(), source.clusterId());
        assertThat(offsets)
            .as(
                "barriers on broker %s of %s-%s: %s",
                replica.getKey(), TOPIC, partition.getKey(), replica.getValue())
            .hasSize(1);
        barriers.add(offsets.iterator().next());
      }
      assertThat(barriers)
          .as("barrier offsets of %s-%s", TOPIC, partition.getKey())
          .containsOnly(barriers.get(0));
      JsonNode leader =
          partition.getValue().values().stream()
              .filter(d -> "LEADER".equals(d.path("role").asText()))
              .findFirst()
              .orElseThrow();
      assertThat(leader.path("stop").path("step").asText()).isEqualTo("STOPPED");
      assertThat(leader.path("stop").path("barrierOffset").asLong()).isEqualTo(barriers.get(0));
    }
    // And no committed record went missing; the open transaction is gone
    List<String> readCommitted =
        TestClients.values(
            TestClients.readAll(
                destination.bootstrapServers(),
                TOPIC,
                IsolationLevel.READ_COMMITTED,
                Duration.ofSeconds(60)));
    assertThat(readCommitted).containsExactlyInAnyOrderElementsOf(committed);
    System.out.println("operator kills: " + (operator.starts() - 1) + "; states seen: " + seen);
  }

  private boolean isStopped() {
    ClusterMirrorStatus s = status();
    return Conditions.isStopped(s);
  }

  private ClusterMirrorStatus status() {
    ClusterMirror cr =
        client.resources(ClusterMirror.class).inNamespace(NS).withName("payments").get();
    return cr == null ? null : cr.getStatus();
  }

  private void awaitCondition(String type, String value, Duration atMost) {
    await()
        .atMost(atMost)
        .pollInterval(Duration.ofMillis(200))
        .untilAsserted(
            () -> {
              ClusterMirrorStatus s = status();
              assertThat(s).as("status; operator log:%n%s", operator.tail(40)).isNotNull();
              assertThat(s.getConditions())
                  .as("conditions; operator log:%n%s", operator.tail(40))
                  .anySatisfy(
                      c -> {
                        assertThat(c.getType()).isEqualTo(type);
                        assertThat(c.getStatus()).isEqualTo(value);
                      });
            });
  }
}
