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

  private static final Pattern AGENT_STARTUP =
      Pattern.compile("cluster mirror agent: start-up cost (\\d+ ms \\([^)]*\\))");

  private BrokerPluginBenchmarks() {}

  public static void main(String[] args) throws Exception {
    // Gigabytes per run outside Maven's target/: deleted when each cluster closes.
    KafkaClusterConfig.deleteWorkOnCloseUnlessSet();
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
    if (sections.contains("stop")) {
      stopTime(agent, rounds, out);
    }
    System.out.println(out);
  }

  private static KafkaClusterConfig.Builder node(String name, Path agent) {
    KafkaClusterConfig.Builder builder = KafkaClusterConfig.builder(name).singleNode();
    // Extra broker JVM arguments for both sides, whitespace-separated: a profiling aid, such as
    // -Xlog:class+load:file=/tmp/cl-%p.log:uptime (the same on both sides, so ratios stay fair).
    for (String arg : System.getProperty("cmo.bench.brokerJvmArgs", "").trim().split("\\s+")) {
      if (!arg.isEmpty()) {
        builder.jvmArg(arg);
      }
    }
    if (agent != null) {
      builder
          .javaAgent(agent, null)
          .perBrokerListener(PluginControlClient.LISTENER_PROPERTY)
          .brokerProperty(PluginControlClient.SECRET_PROPERTY, PluginControlClient.TEST_SECRET)
          .brokerProperty(PluginControlClient.INSECURE_PLAINTEXT_PROPERTY, "true");
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
        "| round | stock restart ms | agent restart ms | agent / stock | stock CPU ms | agent CPU ms"
            + " | CPU agent / stock | agent's own start-up |\n|---|---|---|---|---|---|---|---|\n");
    List<Double> ratios = new ArrayList<>();
    List<Double> cpuRatios = new ArrayList<>();
    try (KafkaCluster plain = node("restart-stock", null).start();
        KafkaCluster agented = node("restart-agent", agent).start()) {
      for (KafkaCluster c : List.of(plain, agented)) {
        c.createTopic("many", 1, 1, Map.of());
        writeWithManyProducers(c, "many", producers);
      }
      for (int round = 0; round < rounds; round++) {
        // Alternate the order so that neither side always runs on a warmer machine.
        long[] stock;
        long[] withAgent;
        if (round % 2 == 0) {
          stock = killAndRestart(plain);
          withAgent = killAndRestart(agented);
        } else {
          withAgent = killAndRestart(agented);
          stock = killAndRestart(plain);
        }
        ratios.add((double) withAgent[0] / stock[0]);
        cpuRatios.add((double) withAgent[1] / stock[1]);
        out.append(
            String.format(
                "| %d | %,d | %,d | %.3f | %,d | %,d | %.3f | %s |%n",
                round + 1,
                stock[0],
                withAgent[0],
                (double) withAgent[0] / stock[0],
                stock[1],
                withAgent[1],
                (double) withAgent[1] / stock[1],
                agentStartupLogged(agented)));
      }
    }
    out.append(
        String.format(
            "| median | | | **%.3f** | | | **%.3f** | |%n%n",
            median(ratios.stream().mapToDouble(Double::doubleValue).toArray()),
            median(cpuRatios.stream().mapToDouble(Double::doubleValue).toArray())));
  }

  /**
   * What the agent logged as its own start-up cost on the broker's latest start (the {@code cluster
   * mirror agent: start-up ...} line), or "n/a" for an agent jar that does not log it.
   */
  private static String agentStartupLogged(KafkaCluster cluster) {
    Matcher m = AGENT_STARTUP.matcher(cluster.node(1).outputSinceStart());
    return m.find() ? m.group(1) : "n/a";
  }

  /**
   * Kills the node and restarts it: {wall ms from the restart call until registered, CPU ms the new
   * JVM used by then}. The CPU figure (all threads, the JIT's included) hardly depends on what else
   * runs on the machine, unlike the wall time.
   */
  private static long[] killAndRestart(KafkaCluster cluster) {
    cluster.killBroker(1);
    long started = System.nanoTime();
    cluster.restartBroker(1);
    long wallMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started);
    long cpuMs =
        ProcessHandle.of(cluster.node(1).pid())
            .flatMap(p -> p.info().totalCpuDuration())
            .map(Duration::toMillis)
            .orElse(-1L);
    return new long[] {wallMs, cpuMs};
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

  /**
   * Broker-side stop time of N partitions (RF=3) on a 3-broker destination, each step batched per
   * broker through {@link dev.kafkamirror.broker.agent.StopDriver}: quiescent partitions (nothing
   * above the LSO, no fence needed) and partitions with an open transaction (truncation with a
   * leadership move each).
   */
  private static void stopTime(Path agent, int rounds, StringBuilder out) throws Exception {
    out.append("### Broker-side stop time, 3-broker destination, RF=3\n\n");
    out.append(
        "| partitions | source state | round | remove-fetchers ms | truncate ms | persist-offsets ms |"
            + " barrier ms | make-writable ms | total ms | leader moves |\n"
            + "|---|---|---|---|---|---|---|---|---|---|\n");
    try (KafkaCluster source = KafkaClusterConfig.builder("bench-stop-src").start();
        KafkaCluster destination =
            KafkaClusterConfig.builder("bench-stop-dest")
                .controllerPlusBrokers(3)
                .javaAgent(agent, null)
                .perBrokerListener(PluginControlClient.LISTENER_PROPERTY)
                .brokerProperty(
                    PluginControlClient.SECRET_PROPERTY, PluginControlClient.TEST_SECRET)
                .brokerProperty(PluginControlClient.INSECURE_PLAINTEXT_PROPERTY, "true")
                .start()) {
      int topicIndex = 0;
      for (String size : System.getProperty("stopPartitions", "100,1000").split(",")) {
        int partitions = Integer.parseInt(size.trim());
        for (boolean openTransaction : stopModes()) {
          List<Double> totals = new ArrayList<>();
          for (int round = 0; round < rounds; round++) {
            String topic = "stop-" + partitions + "-" + (topicIndex++);
            long[] stepMs = new long[StopDriverSteps.COUNT];
            int moves = stopOnce(source, destination, topic, partitions, openTransaction, stepMs);
            long total = 0;
            StringBuilder row = new StringBuilder();
            for (long ms : stepMs) {
              row.append(String.format(" %,d |", ms));
              total += ms;
            }
            totals.add((double) total);
            String line =
                String.format(
                    "| %,d | %s | %d |%s %,d | %d |%n",
                    partitions,
                    openTransaction ? "open transaction in each" : "quiescent",
                    round + 1,
                    row,
                    total,
                    moves);
            out.append(line);
            System.out.print(line);
          }
          out.append(
              String.format(
                  "| %,d | %s | median | | | | | | **%,.0f** | |%n",
                  partitions,
                  openTransaction ? "open transaction in each" : "quiescent",
                  median(totals.stream().mapToDouble(Double::doubleValue).toArray())));
        }
      }
    }
    out.append("\n");
  }

  /**
   * {@code -DstopModes=quiescent,open} (default both): which source states the stop section runs.
   */
  private static List<Boolean> stopModes() {
    List<Boolean> modes = new ArrayList<>();
    for (String mode : System.getProperty("stopModes", "quiescent,open").split(",")) {
      switch (mode.trim()) {
        case "quiescent" -> modes.add(false);
        case "open" -> modes.add(true);
        default ->
            throw new IllegalArgumentException(
                "stopModes: unknown mode '" + mode + "' (known: quiescent, open)");
      }
    }
    return modes;
  }

  /** Step count of the stop sequence. */
  private static final class StopDriverSteps {
    static final int COUNT = dev.kafkamirror.broker.agent.StopDriver.STEPS.size();
  }

  private static int stopOnce(
      KafkaCluster source,
      KafkaCluster destination,
      String topic,
      int partitions,
      boolean openTransaction,
      long[] stepMs)
      throws Exception {
    createTopicPatiently(source, topic, partitions, 1, Map.of());
    createTopicPatiently(destination, topic, partitions, 3, Map.of("min.insync.replicas", "2"));
    // Not idempotent: on a just-created topic with many partitions, an idempotent producer's first
    // batches can fail with NOT_LEADER and the batches behind them then loop on
    // OUT_OF_ORDER_SEQUENCE_NUMBER; the stop's cost does not depend on producer ids here.
    java.util.Properties plain = new java.util.Properties();
    plain.put("bootstrap.servers", source.bootstrapServers());
    plain.put("acks", "all");
    plain.put("enable.idempotence", "false");
    plain.put(
        "key.serializer", org.apache.kafka.common.serialization.StringSerializer.class.getName());
    plain.put(
        "value.serializer", org.apache.kafka.common.serialization.StringSerializer.class.getName());
    try (KafkaProducer<String, String> p = new KafkaProducer<>(plain)) {
      for (int round = 0; round < 3; round++) {
        for (int i = 0; i < partitions; i++) {
          p.send(new ProducerRecord<>(topic, i, "k", "v" + round));
        }
      }
      p.flush();
    }
    KafkaProducer<String, String> open = null;
    if (openTransaction) {
      // Open for the whole set-up, however slow: with the default 60 s a loaded machine's set-up
      // outlasts the transaction, the coordinator aborts it, and nothing is left to fence.
      java.util.Properties txn = new java.util.Properties();
      txn.put("bootstrap.servers", source.bootstrapServers());
      txn.put("acks", "all");
      txn.put("enable.idempotence", "true");
      txn.put("transactional.id", topic + "-open");
      txn.put("transaction.timeout.ms", "900000");
      txn.put(
          "key.serializer", org.apache.kafka.common.serialization.StringSerializer.class.getName());
      txn.put(
          "value.serializer",
          org.apache.kafka.common.serialization.StringSerializer.class.getName());
      open = new KafkaProducer<>(txn);
      open.initTransactions();
      open.beginTransaction();
      for (int i = 0; i < partitions; i++) {
        open.send(new ProducerRecord<>(topic, i, "k", "open"));
      }
      open.flush();
    }
    int[] all = new int[partitions];
    List<org.apache.kafka.common.TopicPartition> tps = new ArrayList<>();
    for (int i = 0; i < partitions; i++) {
      all[i] = i;
      tps.add(new org.apache.kafka.common.TopicPartition(topic, i));
    }
    // Every replica registered, as the operator ensures before a stop: a follower whose replica is
    // not
    // online yet refuses, so repeat for those (a fence can make any replica the leader).
    long registerDeadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(2);
    for (int broker : destination.brokerIds()) {
      PluginControlClient control =
          new PluginControlClient(
              destination.listenerOf(broker, PluginControlClient.LISTENER_PROPERTY),
              PluginControlClient.TEST_SECRET);
      int[] pending = all;
      while (pending.length > 0) {
        PluginControlClient.Response started =
            control.startMirroring(
                "m-" + topic, source.bootstrapServers(), source.clusterId(), topic, pending);
        pending =
            java.util.Arrays.stream(pending)
                .filter(p -> started.result(topic, p).has("error"))
                .toArray();
        if (pending.length > 0) {
          if (System.nanoTime() > registerDeadline) {
            throw new IllegalStateException(
                topic
                    + ": broker "
                    + broker
                    + " did not register "
                    + pending.length
                    + " partitions");
          }
          Thread.sleep(500);
        }
      }
    }
    dev.kafkamirror.broker.agent.StopDriver driver =
        new dev.kafkamirror.broker.agent.StopDriver(destination, source.clusterId());
    long deadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(5);
    // The source's log ends, not a record count: the producer is not idempotent, so a retry after
    // NOT_LEADER on a just-created topic can write a record twice.
    Map<org.apache.kafka.common.TopicPartition, Long> sourceEnds = new java.util.HashMap<>();
    try (var admin = source.admin()) {
      Map<org.apache.kafka.common.TopicPartition, org.apache.kafka.clients.admin.OffsetSpec>
          latest = new java.util.HashMap<>();
      tps.forEach(tp -> latest.put(tp, org.apache.kafka.clients.admin.OffsetSpec.latest()));
      admin
          .listOffsets(latest)
          .all()
          .get(60, TimeUnit.SECONDS)
          .forEach((tp, info) -> sourceEnds.put(tp, info.offset()));
    }
    while (true) {
      Map<org.apache.kafka.common.TopicPartition, JsonNode> d = driver.describeOnLeaders(tps);
      long caughtUp =
          d.entrySet().stream()
              .filter(
                  e ->
                      e.getValue().get("highWatermark").asLong()
                          == sourceEnds.get(e.getKey()).longValue())
              .count();
      if (caughtUp == partitions) {
        break;
      }
      if (System.nanoTime() > deadline) {
        throw new IllegalStateException(topic + ": only " + caughtUp + " partitions caught up");
      }
      Thread.sleep(200);
    }
    if (open != null) {
      open.close(Duration.ZERO);
    }
    int movesBefore = driver.leaderMoves();
    for (int i = 0; i < stepMs.length; i++) {
      long start = System.nanoTime();
      driver.step(dev.kafkamirror.broker.agent.StopDriver.STEPS.get(i), tps);
      stepMs[i] = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
    }
    int moves = driver.leaderMoves() - movesBefore;
    // Keep the clusters small for the next round.
    for (KafkaCluster c : List.of(source, destination)) {
      try (var admin = c.admin()) {
        admin.deleteTopics(List.of(topic)).all().get(60, TimeUnit.SECONDS);
      }
    }
    return moves;
  }

  /**
   * {@link KafkaCluster#createTopic}, then, on a loaded machine where the leaders take longer than
   * its 30 s, up to 5 minutes more for every partition to have a leader.
   */
  private static void createTopicPatiently(
      KafkaCluster cluster, String topic, int partitions, int rf, Map<String, String> configs)
      throws Exception {
    try {
      cluster.createTopic(topic, partitions, rf, configs);
      return;
    } catch (IllegalStateException e) {
      if (e.getMessage() == null || !e.getMessage().contains("without a leader")) {
        throw e;
      }
      System.out.println("slow topic creation, waiting longer: " + e.getMessage());
    }
    long deadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(5);
    try (var admin = cluster.admin()) {
      while (true) {
        var description =
            admin
                .describeTopics(List.of(topic))
                .allTopicNames()
                .get(60, TimeUnit.SECONDS)
                .get(topic);
        if (description.partitions().size() == partitions
            && description.partitions().stream()
                .allMatch(p -> p.leader() != null && !p.leader().isEmpty())) {
          return;
        }
        if (System.nanoTime() > deadline) {
          throw new IllegalStateException(
              topic + " has partitions without a leader after 5 minutes more");
        }
        Thread.sleep(500);
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
