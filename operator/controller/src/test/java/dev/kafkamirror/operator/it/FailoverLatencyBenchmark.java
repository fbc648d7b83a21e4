package dev.kafkamirror.operator.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.kafkamirror.operator.api.v1alpha1.ClusterMirror;
import dev.kafkamirror.operator.api.v1alpha1.ClusterMirrorStatus;
import dev.kafkamirror.operator.api.v1alpha1.Conditions;
import dev.kafkamirror.operator.api.v1alpha1.MirrorState;
import dev.kafkamirror.testing.kafka.KafkaCluster;
import dev.kafkamirror.testing.kafka.KafkaClusterConfig;
import dev.kafkamirror.testing.kafka.TestClients;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.junit.jupiter.api.Test;

/**
 * Failover latency: from the spec change to Stopped=True, for 100 and 1,000 partitions on a
 * 3-broker destination (RF 3), median of several runs. Not part of the test suite (the name does
 * not end in IT); run it with
 *
 * <pre>
 * ./mvnw -B verify -pl operator/controller -am -Dcmo.install.skip=true \
 *   -Dit.test=FailoverLatencyBenchmark -Dfailsafe.failIfNoSpecifiedTests=false \
 *   -Dcmo.bench.sizes=100,1000 -Dcmo.bench.runs=3
 * </pre>
 *
 * The table is printed and written to target/failover-latency.md.
 */
class FailoverLatencyBenchmark {

  private static final String NS = "bench";

  @Test
  void failoverLatencyFromSpecChangeToStoppedTrue() throws Exception {
    List<Integer> sizes = new ArrayList<>();
    for (String s : System.getProperty("cmo.bench.sizes", "100,1000").split(",")) {
      sizes.add(Integer.parseInt(s.trim()));
    }
    int runs = Integer.getInteger("cmo.bench.runs", 3);
    StringBuilder table = new StringBuilder();
    table.append("| partitions | runs | median ms | min ms | max ms | all runs ms |\n");
    table.append("|---:|---:|---:|---:|---:|---|\n");
    try (OperatorTestEnvironment env = OperatorTestEnvironment.start()) {
      KubernetesClient client = env.client();
      KafkaCluster source =
          env.startCluster(
              KafkaClusterConfig.builder("bench-a")
                  .singleNode()
                  .brokerProperty("num.partitions", "1"));
      KafkaCluster destination = env.startDestination("bench-b", 3);
      env.installCrdAndNamespaces(NS);
      env.startOperator(Map.of("CMO_RESYNC_MS", "30000"));
      for (int size : sizes) {
        List<Long> millis = new ArrayList<>();
        for (int run = 0; run < runs; run++) {
          String topic = "bench-" + size + "-" + run;
          source.createTopic(topic, size, 1, Map.of());
          try (KafkaProducer<String, String> p =
              TestClients.idempotentProducer(source.bootstrapServers())) {
            for (int part = 0; part < size; part++) {
              p.send(new ProducerRecord<>(topic, part, "k", "v" + part));
            }
            p.flush();
          }
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
              .atMost(Duration.ofMinutes(10))
              .pollInterval(Duration.ofMillis(500))
              .untilAsserted(
                  () -> {
                    ClusterMirrorStatus s = status(client, topic);
                    assertThat(s).isNotNull();
                    assertThat(s.getPartitionCounts().getMirroring()).isEqualTo(size);
                    assertThat(s.getMaxLagRecords()).isZero();
                    assertThat(s.getPartitions())
                        .allSatisfy(x -> assertThat(x.getLagRecords()).isEqualTo(0L));
                  });
          System.out.println(
              "failover "
                  + size
                  + " partitions run "
                  + run
                  + ": patching spec.state at "
                  + Instant.now());
          long start = System.nanoTime();
          client
              .resources(ClusterMirror.class)
              .inNamespace(NS)
              .withName(topic)
              .edit(
                  cr -> {
                    cr.getSpec().setState(MirrorState.Stopped);
                    return cr;
                  });
          await()
              .atMost(Duration.ofMinutes(10))
              .pollInterval(Duration.ofMillis(20))
              .until(() -> stopped(status(client, topic)));
          long ms = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
          millis.add(ms);
          System.out.println("failover " + size + " partitions run " + run + ": " + ms + " ms");
          // Each run starts from brokers without the previous runs' partitions.
          client.resources(ClusterMirror.class).inNamespace(NS).withName(topic).delete();
          for (KafkaCluster c : List.of(source, destination)) {
            try (org.apache.kafka.clients.admin.Admin admin = c.admin()) {
              admin.deleteTopics(List.of(topic)).all().get(120, TimeUnit.SECONDS);
            }
          }
        }
        List<Long> sorted = new ArrayList<>(millis);
        Collections.sort(sorted);
        long median = sorted.get(sorted.size() / 2);
        table
            .append("| ")
            .append(size)
            .append(" | ")
            .append(runs)
            .append(" | ")
            .append(median)
            .append(" | ")
            .append(sorted.get(0))
            .append(" | ")
            .append(sorted.get(sorted.size() - 1))
            .append(" | ")
            .append(millis)
            .append(" |\n");
      }
    }
    System.out.println(table);
    Path out = Path.of("target", "failover-latency.md");
    Files.createDirectories(out.getParent());
    Files.writeString(out, table.toString(), StandardCharsets.UTF_8);
  }

  private static boolean stopped(ClusterMirrorStatus s) {
    return Conditions.isStopped(s);
  }

  private static ClusterMirrorStatus status(KubernetesClient client, String name) {
    ClusterMirror cr = client.resources(ClusterMirror.class).inNamespace(NS).withName(name).get();
    return cr == null ? null : cr.getStatus();
  }
}
