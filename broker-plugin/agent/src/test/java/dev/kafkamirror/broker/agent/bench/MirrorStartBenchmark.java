package dev.kafkamirror.broker.agent.bench;

import dev.kafkamirror.testing.kafka.KafkaCluster;
import dev.kafkamirror.testing.kafka.KafkaClusterConfig;
import dev.kafkamirror.testing.plugin.PluginControlClient;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.StringSerializer;

/**
 * The time a mirror of many partitions takes to start: from the {@code mirror/start} call until
 * every destination partition holds the source's records (a few per partition, so the copy itself
 * is negligible and the plugin's per-partition start work is what is timed: the stop-state check,
 * the membership record and the source epoch history of each partition before its first append).
 *
 * <p>Two agent jars side by side in one run, each on a single-node destination of its own reading
 * the same source, in alternating order per round: {@code -Dcmo.agent.jar} (candidate) and {@code
 * -Dcmo.agent.jar.baseline}. Not a test: prints a table and asserts nothing. Every process it
 * starts is stopped at the end, also on failure (clusters in try-with-resources).
 */
public final class MirrorStartBenchmark {

  private static final int RECORDS_PER_PARTITION = 3;

  private final Path candidate;
  private final Path baseline;
  private final int rounds;
  private final int partitions;

  private MirrorStartBenchmark() {
    this.candidate =
        Path.of(
            System.getProperty(
                "cmo.agent.jar", "broker-plugin/agent/target/cmo-broker-agent-0.1.0-SNAPSHOT.jar"));
    String base = System.getProperty("cmo.agent.jar.baseline");
    if (base == null || !Files.isRegularFile(Path.of(base))) {
      throw new IllegalArgumentException(
          "set -Dcmo.agent.jar.baseline to the agent jar to compare with (got " + base + ")");
    }
    this.baseline = Path.of(base);
    this.rounds = Integer.getInteger("rounds", 3);
    this.partitions = Integer.getInteger("partitions", 1000);
  }

  public static void main(String[] args) throws Exception {
    // Gigabytes per run outside Maven's target/: deleted when each cluster closes.
    KafkaClusterConfig.deleteWorkOnCloseUnlessSet();
    System.out.println(new MirrorStartBenchmark().run());
  }

  private KafkaCluster destination(String name, Path jar) {
    return KafkaClusterConfig.builder(name)
        .javaAgent(jar, null)
        .perBrokerListener(PluginControlClient.LISTENER_PROPERTY)
        .brokerProperty(PluginControlClient.SECRET_PROPERTY, PluginControlClient.TEST_SECRET)
        .brokerProperty(PluginControlClient.INSECURE_PLAINTEXT_PROPERTY, "true")
        .start();
  }

  private String run() throws Exception {
    StringBuilder table = new StringBuilder();
    table.append(
        String.format(
            Locale.ROOT,
            "### Mirror start: %d partitions, %d records each; candidate %s, baseline %s%n%n"
                + "| round | order | load avg (1/5/15 min) at start | candidate s | baseline s |"
                + " candidate / baseline |%n|---|---|---|---|---|---|%n",
            partitions,
            RECORDS_PER_PARTITION,
            candidate.getFileName(),
            baseline));
    List<double[]> results = new ArrayList<>();
    try (KafkaCluster source = KafkaClusterConfig.builder("ms-source").start();
        KafkaCluster withCandidate = destination("ms-candidate", candidate);
        KafkaCluster withBaseline = destination("ms-baseline", baseline)) {
      for (int round = 1; round <= rounds; round++) {
        String topic = "ms-r" + round;
        source.createTopic(topic, partitions, 1, Map.of());
        preload(source, topic);
        String load = MirrorThroughputBenchmark.loadAverage();
        boolean candidateFirst = round % 2 == 1;
        double c = 0;
        double b = 0;
        for (int side = 0; side < 2; side++) {
          boolean isCandidate = (side == 0) == candidateFirst;
          KafkaCluster destination = isCandidate ? withCandidate : withBaseline;
          double s =
              seconds(
                  MirrorThroughputBenchmark.mirrorAndAwait(
                      source, destination, topic, partitions, "ms-" + topic));
          if (isCandidate) {
            c = s;
          } else {
            b = s;
          }
          System.out.printf(
              Locale.ROOT,
              "round %d: %s %.2f s%n",
              round,
              isCandidate ? "candidate" : "baseline",
              s);
        }
        results.add(new double[] {c, b});
        // A round's partitions are deleted afterwards: the single-node source (512 MiB heap) ran
        // out of memory holding 2,000 partitions of two rounds.
        for (KafkaCluster cluster : List.of(withCandidate, withBaseline, source)) {
          MirrorThroughputBenchmark.deleteTopic(cluster, topic);
        }
        table.append(
            String.format(
                Locale.ROOT,
                "| %d | %s | %s | %.2f | %.2f | %.2f |%n",
                round,
                candidateFirst ? "candidate → baseline" : "baseline → candidate",
                load,
                c,
                b,
                c / b));
      }
    }
    double[] ratios = results.stream().mapToDouble(r -> r[0] / r[1]).sorted().toArray();
    table.append(
        String.format(
            Locale.ROOT,
            "| median | | | %.2f | %.2f | **%.2f** |%n",
            median(results.stream().mapToDouble(r -> r[0]).toArray()),
            median(results.stream().mapToDouble(r -> r[1]).toArray()),
            median(ratios)));
    return table.toString();
  }

  private void preload(KafkaCluster source, String topic) {
    java.util.Properties props = new java.util.Properties();
    props.putAll(source.clientProperties());
    props.put(ProducerConfig.ACKS_CONFIG, "all");
    props.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
    props.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
    try (KafkaProducer<String, String> producer = new KafkaProducer<>(props)) {
      for (int p = 0; p < partitions; p++) {
        for (int i = 0; i < RECORDS_PER_PARTITION; i++) {
          producer.send(new ProducerRecord<>(topic, p, "k", "v" + i));
        }
      }
      producer.flush();
    }
  }

  private static double seconds(long nanos) {
    return nanos / 1e9;
  }

  private static double median(double[] values) {
    double[] v = values.clone();
    java.util.Arrays.sort(v);
    return v.length % 2 == 1 ? v[v.length / 2] : (v[v.length / 2 - 1] + v[v.length / 2]) / 2;
  }
}
