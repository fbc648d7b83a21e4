package dev.kafkamirror.operator.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import dev.kafkamirror.operator.api.v1alpha1.ClusterMirror;
import dev.kafkamirror.operator.api.v1alpha1.Conditions;
import dev.kafkamirror.operator.api.v1alpha1.MirrorState;
import dev.kafkamirror.testing.kafka.KafkaCluster;
import io.fabric8.kubernetes.api.model.coordination.v1.Lease;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Two operator processes share one Lease: only the holder reconciles; when it is killed with
 * SIGKILL the other takes the Lease over and finishes the stop.
 */
class LeaderElectionIT {

  private static final String NS = "ha";
  private static final String UNREACHABLE_SOURCE_ID = "QUFBQUFBQUFBQUFBQUFBQQ";

  private OperatorTestEnvironment env;
  private KubernetesClient client;
  private KafkaCluster destination;

  @AfterEach
  void stopEverything() {
    if (env != null) {
      env.close();
    }
  }

  @Test
  void whenTheLeaseHolderIsKilledTheOtherReplicaTakesOverAndFinishesTheStop() throws Exception {
    // Given two operator replicas and a mirror (its source is unreachable; Immediate stops need
    // none)
    env = OperatorTestEnvironment.start();
    client = env.client();
    env.installCrdAndNamespaces(NS);
    destination = env.startDestination("ha-b");
    destination.createTopic("ha", 2, 1, Map.of());
    OperatorProcess first = replica("operator-a");
    OperatorProcess second = replica("operator-b");
    first.start();
    second.start();
    ClusterMirror cr =
        MirrorFixtures.clusterMirror(
            NS,
            "ha",
            destination,
            UNREACHABLE_SOURCE_ID,
            destination,
            MirrorState.Mirroring,
            List.of("ha"));
    cr.getSpec().getSource().setBootstrapServers("127.0.0.1:1");
    client.resource(cr).create();
    // Registered on the destination; not Mirroring, since the source never verified its cluster id
    await()
        .atMost(Duration.ofSeconds(90))
        .untilAsserted(
            () -> {
              ClusterMirror registered =
                  client.resources(ClusterMirror.class).inNamespace(NS).withName("ha").get();
              assertThat(registered.getStatus()).isNotNull();
              assertThat(registered.getStatus().getPartitionCounts().getMirroring()).isEqualTo(2);
              assertThat(condition(Conditions.MIRRORING)).isEqualTo(Conditions.FALSE);
            });
    String holder = holder();
    assertThat(holder).isIn("operator-a", "operator-b");
    OperatorProcess leader = holder.equals("operator-a") ? first : second;
    OperatorProcess standby = leader == first ? second : first;
    assertThat(standby.tail(500)).doesNotContain("clusterMirror=ha/ha condition");

    // When the holder dies and the spec asks to stop
    leader.kill();
    client
        .resources(ClusterMirror.class)
        .inNamespace(NS)
        .withName("ha")
        .edit(
            c -> {
              c.getSpec().setState(MirrorState.Stopped);
              return c;
            });

    // Then the other replica holds the Lease and the stop finishes
    await()
        .atMost(Duration.ofSeconds(120))
        .untilAsserted(
            () ->
                assertThat(condition(Conditions.STOPPED))
                    .as(standby.tail(30))
                    .isEqualTo(Conditions.TRUE));
    assertThat(holder()).isNotEqualTo(holder);
    for (int p = 0; p < 2; p++) {
      JsonNode d = MirrorFixtures.control(destination, 1).describe("ha", p).result("ha", p);
      assertThat(d.path("stop").path("step").asText()).as(d.toString()).isEqualTo("STOPPED");
    }
  }

  private OperatorProcess replica(String name) {
    return env.newOperatorProcess(
        "operator-" + name,
        Map.of(
            "CMO_POD_NAME",
            name,
            "CMO_LEASE_NAMESPACE",
            "default",
            "CMO_WATCH_NAMESPACES",
            NS,
            "CMO_RESYNC_MS",
            "2000"));
  }

  private String holder() {
    Lease lease = client.leases().inNamespace("default").withName("cluster-mirror-operator").get();
    return lease == null ? null : lease.getSpec().getHolderIdentity();
  }

  private String condition(String type) {
    ClusterMirror cr = client.resources(ClusterMirror.class).inNamespace(NS).withName("ha").get();
    return Conditions.statusOf(cr == null ? null : cr.getStatus(), type);
  }
}
