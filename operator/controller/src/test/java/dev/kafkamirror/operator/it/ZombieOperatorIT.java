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
import io.fabric8.kubernetes.api.model.coordination.v1.Lease;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.io.ByteArrayOutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Stream;
import org.apache.kafka.common.IsolationLevel;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Concurrent and zombie callers (issue 9 item 9): two operator replicas share the Lease; the holder
 * is frozen with SIGSTOP in the middle of a stop, the standby takes the Lease over and goes on, and
 * the frozen one is let go again with SIGCONT while the stop is still running, so that it finishes
 * whatever call it was in (and plans from what it saw before it froze) next to the new holder.
 * Nothing may go backwards: each partition's step on its leader only moves forward (also after
 * Stopped), there is one barrier per replica at the same offset, the replicas hold the same bytes,
 * and nothing committed is lost.
 */
class ZombieOperatorIT {

  private static final String NS = "zombie";
  private static final String TOPIC = "ledger";
  private static final int PARTITIONS = 3;
  private static final List<String> STEPS =
      List.of(
          "FETCHERS_REMOVED",
          "TRUNCATING",
          "TRUNCATED",
          "OFFSETS_PERSISTED",
          "BARRIER_WRITTEN",
          "STOPPED");

  private OperatorTestEnvironment env;
  private KubernetesClient client;

  @AfterEach
  void stopEverything() {
    if (env != null) {
      env.close();
    }
  }

  @Test
  void aFrozenLeaseHolderThatWakesUpMidStopChangesNothingTheNewHolderDid() throws Exception {
    // Given a mirrored topic (RF 3) and two operator replicas that take one step per reconcile
    env = OperatorTestEnvironment.start();
    client = env.client();
    env.installCrdAndNamespaces(NS);
    KafkaCluster source = env.startSource("zombie-a");
    KafkaCluster destination = env.startDestination("zombie-b", 3);
    source.createTopic(TOPIC, PARTITIONS, 1, Map.of());
    destination.createTopic(TOPIC, PARTITIONS, 3, Map.of("min.insync.replicas", "2"));
    List<String> committed = SourceData.write(source, TOPIC, PARTITIONS, 20, 10, "zombie");
    OperatorProcess first = replica("operator-a");
    OperatorProcess second = replica("operator-b");
    first.start();
    second.start();
    client
        .resource(
            MirrorFixtures.clusterMirror(
                NS,
                "ledger",
                source,
                source.clusterId(),
                destination,
                MirrorState.Mirroring,
                List.of(TOPIC)))
        .create();
    await()
        .atMost(Duration.ofSeconds(120))
        .pollInterval(Duration.ofMillis(500))
        .untilAsserted(
            () -> {
              ClusterMirrorStatus s = status();
              assertThat(s).isNotNull();
              assertThat(condition(s, Conditions.MIRRORING)).isEqualTo(Conditions.TRUE);
              assertThat(s.getMaxLagRecords()).isZero();
            });
    String holder = holder();
    OperatorProcess zombie = "operator-a".equals(holder) ? first : second;
    OperatorProcess successor = zombie == first ? second : first;

    // When the spec asks to stop, the holder freezes once the stop has begun, the other replica
    // takes over, and the frozen one wakes up while the stop is still running
    client
        .resources(ClusterMirror.class)
        .inNamespace(NS)
        .withName("ledger")
        .edit(
            cr -> {
              cr.getSpec().setState(MirrorState.Stopped);
              return cr;
            });
    StopProbe probe = new StopProbe(destination, TOPIC, PARTITIONS);
    Monotonic steps = new Monotonic();
    long deadline = System.nanoTime() + Duration.ofSeconds(300).toNanos();
    boolean frozen = false;
    boolean woken = false;
    String stepsWhenTakenOver = null;
    while (!isStopped()) {
      assertThat(System.nanoTime())
          .as("stop did not finish; seen %s; successor log:%n%s", steps.seen, successor.tail(60))
          .isLessThan(deadline);
      List<String> now = steps.observe(probe.signature());
      if (!frozen && now.stream().anyMatch(s -> !s.endsWith("/-") && !s.equals("?"))) {
        zombie.pause();
        frozen = true;
        steps.mark("froze " + holder);
      } else if (frozen && stepsWhenTakenOver == null && successorHolds(holder)) {
        stepsWhenTakenOver = now.toString();
        steps.mark("lease taken over");
      } else if (stepsWhenTakenOver != null
          && !woken
          && !now.toString().equals(stepsWhenTakenOver)) {
        // The successor has taken at least one step since it took over: wake the zombie up.
        zombie.resume();
        woken = true;
        steps.mark("woke " + holder);
      }
      Thread.sleep(100);
    }
    if (!woken) {
      // The successor finished in one go: the zombie wakes up after Stopped, which must hold too.
      assertThat(frozen).as("the holder froze during the stop; seen %s", steps.seen).isTrue();
      zombie.resume();
      steps.mark("woke " + holder + " after Stopped");
    }
    // And the status and every step stay where they are for a while after Stopped
    long watchUntil = System.nanoTime() + Duration.ofSeconds(10).toNanos();
    while (System.nanoTime() < watchUntil) {
      steps.observe(probe.signature());
      assertThat(isStopped()).as("Stopped stays True; seen %s", steps.seen).isTrue();
      Thread.sleep(200);
    }

    // Then every partition ended STOPPED with exactly one barrier of the source on every replica,
    // at the same offset
    System.out.println("zombie operator: " + steps.seen);
    assertThat(steps.seen).anyMatch(s -> s.startsWith("lease taken over"));
    Map<Integer, Map<Integer, JsonNode>> all = probe.describeAll();
    for (var partition : all.entrySet()) {
      assertThat(partition.getValue()).as("replicas of %s", partition.getKey()).hasSize(3);
      Set<Long> barriers = new HashSet<>();
      for (var replica : partition.getValue().entrySet()) {
        Set<Long> offsets = StopProbe.barrierOffsets(replica.getValue(), source.clusterId());
        assertThat(offsets)
            .as("barriers on broker %s of %s-%s", replica.getKey(), TOPIC, partition.getKey())
            .hasSize(1);
        barriers.addAll(offsets);
      }
      assertThat(barriers).as("barrier offsets of %s-%s", TOPIC, partition.getKey()).hasSize(1);
      JsonNode leader =
          partition.getValue().values().stream()
              .filter(d -> "LEADER".equals(d.path("role").asText()))
              .findFirst()
              .orElseThrow();
      assertThat(leader.path("stop").path("step").asText()).isEqualTo("STOPPED");
      assertThat(leader.path("stop").path("barrierOffset").asLong())
          .isEqualTo(barriers.iterator().next());
    }
    // And the replicas of each partition hold the same bytes
    for (int p = 0; p < PARTITIONS; p++) {
      TopicPartition tp = new TopicPartition(TOPIC, p);
      awaitConverged(destination, probe, p);
      byte[] reference = replicaBytes(destination, destination.brokerIds().get(0), tp);
      for (int broker : destination.brokerIds()) {
        assertThat(Arrays.equals(replicaBytes(destination, broker, tp), reference))
            .as("bytes of %s on broker %s", tp, broker)
            .isTrue();
      }
    }
    // And nothing committed is lost
    assertThat(
            TestClients.values(
                TestClients.readAll(
                    destination.bootstrapServers(),
                    TOPIC,
                    IsolationLevel.READ_COMMITTED,
                    Duration.ofSeconds(60))))
        .containsExactlyInAnyOrderElementsOf(committed);
  }

  /** Fails as soon as a partition's state/step on its leader is lower than it was before. */
  private static final class Monotonic {
    final List<String> seen = new ArrayList<>();
    private int[] highest;
    private List<String> highestSeen;

    List<String> observe(List<String> signature) {
      if (highest == null) {
        highest = new int[signature.size()];
        Arrays.fill(highest, -2);
        highestSeen = new ArrayList<>(signature);
      }
      for (int p = 0; p < signature.size(); p++) {
        String s = signature.get(p);
        if (s.equals("?")) {
          continue; // no leader answered right now
        }
        int rank = rank(s);
        assertThat(rank)
            .as("partition %s went back from %s to %s; seen %s", p, highestSeen.get(p), s, seen)
            .isGreaterThanOrEqualTo(highest[p]);
        if (rank > highest[p]) {
          highest[p] = rank;
          highestSeen.set(p, s);
          seen.add(p + ":" + s);
        }
      }
      return signature;
    }

    void mark(String event) {
      seen.add(event + " at " + highestSeen);
    }

    /** MIRRORING/- is -1, each stop step its index, STOPPED/STOPPED one more. */
    private static int rank(String signature) {
      String[] parts = signature.split("/");
      int step = STEPS.indexOf(parts[1]);
      if (step < 0) {
        return -1;
      }
      return step == STEPS.size() - 1 && parts[0].equals("STOPPED") ? step + 1 : step;
    }
  }

  private static void awaitConverged(KafkaCluster destination, StopProbe probe, int partition) {
    await()
        .atMost(Duration.ofSeconds(120))
        .pollInterval(Duration.ofMillis(500))
        .ignoreExceptions()
        .untilAsserted(
            () -> {
              assertThat(destination.isrOf(new TopicPartition(TOPIC, partition)))
                  .containsExactlyInAnyOrderElementsOf(destination.brokerIds());
              Map<Integer, JsonNode> replicas = probe.describeAll().get(partition);
              assertThat(replicas).hasSize(destination.brokerIds().size());
              Set<Long> ends = new HashSet<>();
              for (JsonNode d : replicas.values()) {
                ends.add(d.path("logEndOffset").asLong());
              }
              assertThat(ends).hasSize(1);
            });
  }

  private static byte[] replicaBytes(KafkaCluster cluster, int broker, TopicPartition tp)
      throws Exception {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    List<Path> segments;
    try (Stream<Path> files = Files.list(cluster.partitionDir(broker, tp))) {
      segments = files.filter(f -> f.getFileName().toString().endsWith(".log")).sorted().toList();
    }
    for (Path segment : segments) {
      out.write(Files.readAllBytes(segment));
    }
    return out.toByteArray();
  }

  private boolean successorHolds(String formerHolder) {
    String now = holder();
    return now != null && !now.equals(formerHolder);
  }

  private OperatorProcess replica(String name) {
    return env.newOperatorProcess(
        "operator-" + name,
        Map.of(
            "CMO_POD_NAME", name,
            "CMO_LEASE_NAMESPACE", "default",
            "CMO_WATCH_NAMESPACES", NS,
            "CMO_ROUNDS_PER_RECONCILE", "1",
            "CMO_REQUEUE_MS", "1500",
            "CMO_RESYNC_MS", "2000"));
  }

  private String holder() {
    Lease lease = client.leases().inNamespace("default").withName("cluster-mirror-operator").get();
    return lease == null ? null : lease.getSpec().getHolderIdentity();
  }

  private boolean isStopped() {
    ClusterMirrorStatus s = status();
    return Conditions.isStopped(s);
  }

  private ClusterMirrorStatus status() {
    ClusterMirror cr =
        client.resources(ClusterMirror.class).inNamespace(NS).withName("ledger").get();
    return cr == null ? null : cr.getStatus();
  }

  private static String condition(ClusterMirrorStatus s, String type) {
    return Conditions.statusOf(s, type);
  }
}
