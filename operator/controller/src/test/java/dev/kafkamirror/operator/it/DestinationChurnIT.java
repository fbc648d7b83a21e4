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
import io.fabric8.kubernetes.client.KubernetesClient;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewPartitionReassignment;
import org.apache.kafka.common.ElectionType;
import org.apache.kafka.common.IsolationLevel;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * A stop driven by the operator (one step per reconcile) while the destination changes under it: a
 * leader broker killed and restarted, and leadership moved by a preferred-leader election.
 */
class DestinationChurnIT {

  private static final String NS = "churn";
  private static final int PARTITIONS = 4;

  private static OperatorTestEnvironment env;
  private static KubernetesClient client;
  private static KafkaCluster source;
  private static KafkaCluster destination;

  @BeforeAll
  static void start() throws Exception {
    env = OperatorTestEnvironment.start();
    client = env.client();
    env.installCrdAndNamespaces(NS);
    source = env.startSource("churn-a");
    destination = env.startDestination("churn-b", 3);
    env.startOperator(
        Map.of(
            "CMO_ROUNDS_PER_RECONCILE", "1",
            "CMO_REQUEUE_MS", "1000",
            "CMO_RESYNC_MS", "2000"));
  }

  @AfterAll
  static void stop() {
    if (env != null) {
      env.close();
    }
  }

  @Test
  void aLeaderBrokerKilledAndRestartedInTheMiddleOfAStopStillEndsStopped() throws Exception {
    // Given a mirrored topic at RF 3 whose stop has removed the fetchers everywhere and written no
    // barrier yet (FETCHERS_REMOVED, a truncation under way, or, on a leader with nothing to
    // truncate, the truncation and the offsets recorded by remove-fetchers itself)
    List<String> committed = mirror("restarted");
    StopProbe probe = new StopProbe(destination, "restarted", PARTITIONS);
    setState("restarted", MirrorState.Stopped);
    awaitSignature(
        probe,
        s ->
            s.stream()
                .allMatch(
                    x ->
                        x.endsWith("/FETCHERS_REMOVED")
                            || x.contains("TRUNCAT")
                            || x.endsWith("/OFFSETS_PERSISTED")));

    // When the leader of partition 0 is killed, and restarted a few seconds later
    int leader = destination.leaderOf(new TopicPartition("restarted", 0));
    destination.killBroker(leader);
    Thread.sleep(3_000);
    destination.restartBroker(leader);

    // Then the stop ends with one barrier per partition on every replica, every committed record
    // kept
    awaitStopped("restarted");
    assertOneBarrierOnEveryReplica(probe);
    assertThat(readCommitted("restarted")).containsExactlyInAnyOrderElementsOf(committed);
  }

  @Test
  void leadershipMovedInTheMiddleOfAStopContinuesOnTheNewLeaders() throws Exception {
    // Given a mirrored topic whose stop has truncated every partition (TRUNCATED, or the offsets
    // recorded with it: the plugin records both at once when the partition knows its source)
    List<String> committed = mirror("moved");
    StopProbe probe = new StopProbe(destination, "moved", PARTITIONS);
    setState("moved", MirrorState.Stopped);
    awaitSignature(
        probe,
        s ->
            s.stream().allMatch(x -> x.endsWith("/TRUNCATED") || x.endsWith("/OFFSETS_PERSISTED")));

    // When every partition's leadership moves to another replica (reassignment order + preferred
    // election)
    List<Integer> before = new ArrayList<>();
    try (Admin admin = destination.admin()) {
      Map<TopicPartition, Optional<NewPartitionReassignment>> moves = new java.util.HashMap<>();
      for (int p = 0; p < PARTITIONS; p++) {
        TopicPartition tp = new TopicPartition("moved", p);
        int current = destination.leaderOf(tp);
        before.add(current);
        List<Integer> order = new ArrayList<>(destination.brokerIds());
        order.remove(Integer.valueOf(current));
        order.add(current);
        moves.put(tp, Optional.of(new NewPartitionReassignment(order)));
      }
      admin.alterPartitionReassignments(moves).all().get(30, TimeUnit.SECONDS);
      await()
          .atMost(Duration.ofSeconds(30))
          .ignoreExceptions()
          .until(
              () ->
                  admin
                      .listPartitionReassignments()
                      .reassignments()
                      .get(30, TimeUnit.SECONDS)
                      .isEmpty());
      admin.electLeaders(ElectionType.PREFERRED, moves.keySet()).all().get(30, TimeUnit.SECONDS);
    }
    for (int p = 0; p < PARTITIONS; p++) {
      assertThat(destination.leaderOf(new TopicPartition("moved", p))).isNotEqualTo(before.get(p));
    }

    // Then the stop finishes on the new leaders with one barrier per partition on every replica
    awaitStopped("moved");
    assertOneBarrierOnEveryReplica(probe);
    assertThat(readCommitted("moved")).containsExactlyInAnyOrderElementsOf(committed);
  }

  private List<String> mirror(String topic) throws Exception {
    source.createTopic(topic, PARTITIONS, 1, Map.of());
    List<String> committed = SourceData.write(source, topic, PARTITIONS, 10, 5, topic);
    client
        .resource(
            MirrorFixtures.clusterMirror(
                NS,
                topic,
                source,
                source.clusterId(),
                destination,
                MirrorState.Mirroring,
                List.of(topic)))
        .create();
    await()
        .atMost(Duration.ofSeconds(120))
        .untilAsserted(
            () -> {
              ClusterMirrorStatus s = status(topic);
              assertThat(s).isNotNull();
              assertThat(s.getPartitionCounts().getMirroring()).isEqualTo(PARTITIONS);
              assertThat(s.getPartitions())
                  .allSatisfy(p -> assertThat(p.getLagRecords()).isEqualTo(0L));
            });
    return committed;
  }

  private static void awaitSignature(StopProbe probe, Predicate<List<String>> reached) {
    await()
        .atMost(Duration.ofSeconds(120))
        .pollInterval(Duration.ofMillis(50))
        .until(probe::signature, reached);
  }

  private static void awaitStopped(String name) {
    await()
        .atMost(Duration.ofSeconds(180))
        .untilAsserted(
            () ->
                assertThat(status(name).getConditions())
                    .as("status %s", status(name).getPartitions())
                    .anySatisfy(
                        c -> {
                          assertThat(c.getType()).isEqualTo(Conditions.STOPPED);
                          assertThat(c.getStatus()).isEqualTo(Conditions.TRUE);
                        }));
  }

  private static void assertOneBarrierOnEveryReplica(StopProbe probe) {
    await()
        .atMost(Duration.ofSeconds(60))
        .untilAsserted(
            () -> {
              for (var partition : probe.describeAll().entrySet()) {
                assertThat(partition.getValue())
                    .as("replicas of partition %s", partition.getKey())
                    .hasSize(3);
                Set<Long> offsets = new java.util.TreeSet<>();
                for (JsonNode replica : partition.getValue().values()) {
                  Set<Long> own = StopProbe.barrierOffsets(replica, source.clusterId());
                  assertThat(own).as("barriers of one replica: %s", replica).hasSize(1);
                  offsets.addAll(own);
                }
                assertThat(offsets)
                    .as("barrier offsets across replicas of partition %s", partition.getKey())
                    .hasSize(1);
              }
            });
  }

  private static List<String> readCommitted(String topic) {
    return TestClients.values(
        TestClients.readAll(
            destination.bootstrapServers(),
            topic,
            IsolationLevel.READ_COMMITTED,
            Duration.ofSeconds(60)));
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
    ClusterMirror cr = client.resources(ClusterMirror.class).inNamespace(NS).withName(name).get();
    return cr == null ? null : cr.getStatus();
  }
}
