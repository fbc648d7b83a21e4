package dev.kafkamirror.broker.agent.bench;

import com.fasterxml.jackson.databind.JsonNode;
import dev.kafkamirror.testing.kafka.KafkaCluster;
import dev.kafkamirror.testing.kafka.KafkaClusterConfig;
import dev.kafkamirror.testing.kafka.KafkaTools;
import dev.kafkamirror.testing.kafka.TestClients;
import dev.kafkamirror.testing.plugin.PluginControlClient;
import dev.kafkamirror.testing.process.Commands;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;

/**
 * Scripted benchmarks of the broker plugin, printed as Markdown tables for docs/benchmarks.md. Not
 * a test: it asserts nothing and runs only when called.
 *
 * <pre>
 * ./mvnw -q -pl broker-plugin/agent -am install -DskipTests
 * ./mvnw -q -pl broker-plugin/agent exec:java -Dexec.classpathScope=test \
 *     -Dexec.mainClass=dev.kafkamirror.broker.agent.bench.BrokerPluginBenchmarks
 * </pre>
 *
 * <ol>
 *   <li>Produce throughput, stock broker beside a broker with the agent, in the same run, rounds
 *       alternating: Kafka's own ProducerPerformance, acks=all, idempotent.
 *   <li>Restart time after kill -9 of a broker whose partition holds many producers, with and
 *       without agent.
 *   <li>The cost of the producer-state reset against the number of producer entries (measured in
 *       the broker).
 * </ol>
 */
public final class BrokerPluginBenchmarks {

  private static final Pattern RECORDS_PER_SEC =
      Pattern.compile("records sent, ([0-9.]+) records/sec \\(([0-9.]+) MB/sec\\)");

  private BrokerPluginBenchmarks() {}

  public static void main(String[] args) throws Exception {
    int rounds = Integer.parseInt(System.getProperty("rounds", "3"));
    int records = Integer.parseInt(System.getProperty("records", "1000000"));
    Path agent =
        Path.of(
            System.getProperty(
                "cmo.agent.jar", "broker-plugin/agent/target/cmo-broker-agent-0.1.0-SNAPSHOT.jar"));
    String sections = System.getProperty("sections", "throughput,restart,reset");
    StringBuilder out = new StringBuilder();
    if (sections.contains("throughput")) {
      throughput(agent, rounds, records, out);
    }
    if (sections.contains("restart")) {
      restartWithManyProducers(agent, rounds, out);
    }
    if (sections.contains("reset")) {
      resetCost(agent, out);
    }
    System.out.println(out);
  }

  private static KafkaClusterConfig.Builder node(String name, Path agent) {
    KafkaClusterConfig.Builder builder = KafkaClusterConfig.builder(name).singleNode();
    if (agent != null) {
      builder
          .javaAgent(agent, null)
          .perBrokerListener(PluginControlClient.LISTENER_PROPERTY)
          .brokerProperty(PluginControlClient.SECRET_PROPERTY, PluginControlClient.TEST_SECRET);
    }
    return builder;
  }

  private static void throughput(Path agent, int rounds, int records, StringBuilder out)
      throws Exception {
    List<double[]> stock = new ArrayList<>();
    List<double[]> withAgent = new ArrayList<>();
    try (KafkaCluster plain = node("bench-stock", null).start();
        KafkaCluster agented = node("bench-agent", agent).start()) {
      for (KafkaCluster c : List.of(plain, agented)) {
        c.createTopic("bench", 1, 1, Map.of());
      }
      for (int round = 0; round < rounds; round++) {
        // Alternate the order so that neither side always runs on a warmer machine.
        List<KafkaCluster> order =
            round % 2 == 0 ? List.of(plain, agented) : List.of(agented, plain);
        for (KafkaCluster c : order) {
          double[] result = producerPerformance(c, records);
          (c == plain ? stock : withAgent).add(result);
        }
      }
    }
    out.append("### Produce throughput, stock vs agent (same run)\n\n");
    out.append(
        "ProducerPerformance, "
            + records
            + " records of 100 bytes, acks=all, idempotent, one partition, one node per side.\n\n");
    out.append(
        "| round | stock records/s | agent records/s | agent / stock |\n|---|---|---|---|\n");
    for (int i = 0; i < rounds; i++) {
      out.append(
          String.format(
              "| %d | %,.0f | %,.0f | %.3f |%n",
              i + 1, stock.get(i)[0], withAgent.get(i)[0], withAgent.get(i)[0] / stock.get(i)[0]));
    }
    double ms = median(stock.stream().mapToDouble(r -> r[0]).toArray());
    double ma = median(withAgent.stream().mapToDouble(r -> r[0]).toArray());
    double[] ratios = new double[rounds];
    for (int i = 0; i < rounds; i++) {
      ratios[i] = withAgent.get(i)[0] / stock.get(i)[0];
    }
    out.append(
        String.format(
            "| median | %,.0f | %,.0f | **%.3f** (median of the per-round ratios; ratio of medians %.3f) |%n%n",
            ms, ma, median(ratios), ma / ms));
  }

  private static double[] producerPerformance(KafkaCluster cluster, int records) {
    Commands.Result result =
        KafkaTools.run(
                Duration.ofMinutes(10),
                List.of(),
                "org.apache.kafka.tools.ProducerPerformance",
                "--topic",
                "bench",
                "--num-records",
                Integer.toString(records),
                "--record-size",
                "100",
                "--throughput",
                "-1",
                "--producer-props",
                "bootstrap.servers=" + cluster.bootstrapServers(),
                "acks=all",
                "enable.idempotence=true",
                "linger.ms=5",
                "batch.size=65536")
            .requireSuccess();
    String last = result.stdout().lines().reduce((a, b) -> b).orElse("");
    Matcher m = RECORDS_PER_SEC.matcher(last);
    if (!m.find()) {
      throw new IllegalStateException("no throughput in ProducerPerformance output: " + last);
    }
    return new double[] {Double.parseDouble(m.group(1)), Double.parseDouble(m.group(2))};
  }

  private static void restartWithManyProducers(Path agent, int rounds, StringBuilder out)
      throws Exception {
    int producers = 500;
    out.append("### Restart after kill -9 with ")
        .append(producers)
        .append(" producers in a partition\n\n");
    out.append(
        "| round | stock restart ms | agent restart ms | agent / stock |\n|---|---|---|---|\n");
    List<Double> ratios = new ArrayList<>();
    try (KafkaCluster plain = node("restart-stock", null).start();
        KafkaCluster agented = node("restart-agent", agent).start()) {
      for (KafkaCluster c : List.of(plain, agented)) {
        c.createTopic("many", 1, 1, Map.of());
        writeWithManyProducers(c, "many", producers);
      }
      for (int round = 0; round < rounds; round++) {
        long stockMs = killAndRestartMs(plain);
        long agentMs = killAndRestartMs(agented);
        ratios.add((double) agentMs / stockMs);
        out.append(
            String.format(
                "| %d | %,d | %,d | %.3f |%n",
                round + 1, stockMs, agentMs, (double) agentMs / stockMs));
      }
    }
    out.append(
        String.format(
            "| median | | | **%.3f** |%n%n",
            median(ratios.stream().mapToDouble(Double::doubleValue).toArray())));
  }

  private static long killAndRestartMs(KafkaCluster cluster) {
    cluster.killBroker(1);
    long started = System.nanoTime();
    cluster.restartBroker(1);
    return TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started);
  }

  private static void resetCost(Path agent, StringBuilder out) throws Exception {
    out.append("### Producer-state reset cost against producer entries\n\n");
    out.append("Measured inside the broker around the reset (microseconds).\n\n");
    out.append("| producer entries | reset µs |\n|---|---|\n");
    try (KafkaCluster cluster = node("reset-cost", agent).start()) {
      PluginControlClient control =
          new PluginControlClient(
              cluster.listenerOf(1, PluginControlClient.LISTENER_PROPERTY),
              PluginControlClient.TEST_SECRET);
      for (int producers : new int[] {1, 10, 100, 1000}) {
        String topic = "reset-" + producers;
        cluster.createTopic(topic, 1, 1, Map.of());
        writeWithManyProducers(cluster, topic, producers);
        control.barrier(topic, "bench-source", 0);
        JsonNode reset = control.describe(topic, 0).result(topic, 0).get("barrierResets").get(0);
        out.append(
            String.format(
                "| %,d | %,d |%n",
                reset.get("producersRemoved").asInt(), reset.get("resetMicros").asLong()));
      }
    }
    out.append('\n');
  }

  private static void writeWithManyProducers(KafkaCluster cluster, String topic, int producers)
      throws Exception {
    for (int p = 0; p < producers; p++) {
      try (KafkaProducer<String, String> producer =
          TestClients.idempotentProducer(cluster.bootstrapServers())) {
        producer.send(new ProducerRecord<>(topic, "k", "v" + p)).get(30, TimeUnit.SECONDS);
      }
    }
  }

  private static double median(double[] values) {
    double[] sorted = values.clone();
    java.util.Arrays.sort(sorted);
    int n = sorted.length;
    return n % 2 == 1 ? sorted[n / 2] : (sorted[n / 2 - 1] + sorted[n / 2]) / 2;
  }
}
