package dev.kafkamirror.operator.it;

import static org.assertj.core.api.Assertions.assertThat;

import dev.kafkamirror.operator.api.v1alpha1.ClusterMirror;
import dev.kafkamirror.operator.api.v1alpha1.ClusterMirrorStatus;
import dev.kafkamirror.operator.api.v1alpha1.PartitionStatus;
import dev.kafkamirror.operator.reconciler.StatusWriter;
import dev.kafkamirror.testing.kube.KubeApiServerHarness;
import io.fabric8.kubernetes.api.model.NamespaceBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.dsl.Resource;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import org.junit.jupiter.api.Test;

/**
 * What one status write of a large ClusterMirror costs on a real API server, against a two-field
 * merge patch of the same resource and a read of it: the floor under the two status writes of a
 * failover ({@code stopStartedAt} before the first step, {@code Stopped=True} after the last). Not
 * part of the suite (run with {@code -Dit.test=StatusWriteCostBenchmark}); it prints a Markdown
 * table and asserts only that every write landed.
 *
 * <p>{@code -Dcmo.bench.partitions} (default 1000) partition entries, {@code -Dcmo.bench.writes}
 * (default 20) of each kind per round, 3 rounds; the kinds alternate within a round.
 */
class StatusWriteCostBenchmark {

  private static final String NS = "status-cost";

  @Test
  void statusWritesOfALargeClusterMirror() throws Exception {
    int partitions = Integer.getInteger("cmo.bench.partitions", 1000);
    int writes = Integer.getInteger("cmo.bench.writes", 20);
    try (KubeApiServerHarness api = KubeApiServerHarness.start();
        KubernetesClient client = api.newClient();
        InputStream crd =
            Files.newInputStream(Path.of("../../crds/clustermirrors.kafkamirror.dev-v1.yml"))) {
      KubeApiServerHarness.installCrd(client, crd);
      client
          .namespaces()
          .resource(new NamespaceBuilder().withNewMetadata().withName(NS).endMetadata().build())
          .create();
      ClusterMirror cr =
          client
              .getKubernetesSerialization()
              .unmarshal(
                  Files.readString(Path.of("../../samples/clustermirror.yaml")),
                  ClusterMirror.class);
      cr.getMetadata().setNamespace(NS);
      cr = client.resource(cr).create();
      ClusterMirrorStatus status = statusOf(partitions);
      int bytes = client.getKubernetesSerialization().asJson(status).length();
      StatusWriter writer = StatusWriter.kubernetes(client);
      StringBuilder table = new StringBuilder();
      table.append(
          String.format(
              Locale.ROOT,
              "%n### %d partition entries, status %,d bytes of JSON, %d writes of each kind per"
                  + " round%n%n| round | whole status (JSON patch, the operator's write) p50 / max"
                  + " ms | two fields (merge patch) p50 / max ms | read (GET) p50 / max ms |%n"
                  + "|---:|---|---|---|%n",
              partitions,
              bytes,
              writes));
      Resource<ClusterMirror> resource =
          client
              .resources(ClusterMirror.class)
              .inNamespace(NS)
              .withName(cr.getMetadata().getName());
      for (int round = 1; round <= 3; round++) {
        long[] whole = new long[writes];
        long[] twoFields = new long[writes];
        long[] read = new long[writes];
        for (int i = 0; i < writes; i++) {
          status.setStopStartedAt(String.format(Locale.ROOT, "2026-12-05T00:%02d:%02dZ", round, i));
          long t = System.nanoTime();
          String version = writer.write(cr, status);
          whole[i] = millisSince(t);
          assertThat(version).isNotBlank();
          t = System.nanoTime();
          ClusterMirror patched =
              resource
                  .subresource("status")
                  .patch(
                      PatchContext.of(PatchType.JSON_MERGE),
                      String.format(
                          Locale.ROOT,
                          "{\"status\":{\"stopStartedAt\":\"2026-12-05T01:%02d:%02dZ\","
                              + "\"observedGeneration\":%d}}",
                          round,
                          i,
                          i + 1));
          twoFields[i] = millisSince(t);
          assertThat(patched.getStatus().getPartitions()).hasSize(partitions);
          t = System.nanoTime();
          ClusterMirror got = resource.get();
          read[i] = millisSince(t);
          assertThat(got.getStatus().getObservedGeneration()).isEqualTo(i + 1L);
        }
        table.append(
            String.format(
                Locale.ROOT,
                "| %d | %s | %s | %s |%n",
                round,
                p50AndMax(whole),
                p50AndMax(twoFields),
                p50AndMax(read)));
      }
      System.out.println(table);
    }
  }

  /** A Mirroring status of {@code partitions} entries, as the operator writes at 1 record each. */
  private static ClusterMirrorStatus statusOf(int partitions) {
    List<PartitionStatus> entries = new ArrayList<>();
    for (int p = 0; p < partitions; p++) {
      PartitionStatus entry = new PartitionStatus();
      entry.setTopic("bench-" + partitions + "-quiescent-0");
      entry.setPartition(p);
      entry.setState("MIRRORING");
      entry.setLastMirroredOffset(1L);
      entry.setLagRecords(0L);
      entries.add(entry);
    }
    ClusterMirrorStatus status = new ClusterMirrorStatus();
    status.setPartitions(entries);
    status.setObservedGeneration(1L);
    return status;
  }

  private static long millisSince(long startNanos) {
    return (System.nanoTime() - startNanos) / 1_000_000;
  }

  private static String p50AndMax(long[] millis) {
    long[] sorted = millis.clone();
    Arrays.sort(sorted);
    return sorted[sorted.length / 2] + " / " + sorted[sorted.length - 1];
  }
}
