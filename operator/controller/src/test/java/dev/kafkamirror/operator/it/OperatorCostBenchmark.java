package dev.kafkamirror.operator.it;

import static org.assertj.core.api.Assertions.assertThat;

import dev.kafkamirror.operator.api.v1alpha1.ClusterMirror;
import dev.kafkamirror.operator.api.v1alpha1.MirrorState;
import dev.kafkamirror.testing.kafka.KafkaCluster;
import dev.kafkamirror.testing.kafka.KafkaClusterConfig;
import dev.kafkamirror.testing.kafka.TestClients;
import dev.kafkamirror.testing.process.FreePorts;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.Watch;
import io.fabric8.kubernetes.client.Watcher;
import io.fabric8.kubernetes.client.WatcherException;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.junit.jupiter.api.Test;

/**
 * What the operator costs while it does nothing but watch idle mirrors: its RSS and CPU, its
 * reconciles and its status writes, with {@code cmo.bench.mirrors} ClusterMirrors of {@code
 * cmo.bench.partitions} partitions each, all MIRRORING at lag 0, over {@code cmo.bench.minutes}.
 *
 * <p>The operator runs as its own JVM with the image's JVM flags and the chart's default memory
 * limit as the JVM's idea of physical memory ({@code -XX:MaxRAM=512m}, {@code
 * MaxRAMPercentage=60}), so its heap is sized as in a pod. Source and destination are single nodes
 * (RF 1) so that 10,000 partitions fit on this machine; the destination runs the plugin. Not part
 * of the suite (the name does not end in IT):
 *
 * <pre>
 * ./mvnw -B verify -pl operator/controller -am -Dit.test=OperatorCostBenchmark -Dtest=NONE \
 *   -Dsurefire.failIfNoSpecifiedTests=false -Dfailsafe.failIfNoSpecifiedTests=false \
 *   -Dcmo.bench.mirrors=100 -Dcmo.bench.partitions=100 -Dcmo.bench.minutes=10
 * </pre>
 *
 * Samples every {@code cmo.bench.sampleSeconds} (10): VmRSS from /proc, user+system CPU time from
 * /proc, the operator's reconcile counter from its /metrics, and status writes as MODIFIED events
 * of a watch on the namespace's ClusterMirrors (a write that changes nothing does not produce one),
 * and the status writes the reconciler sent ({@code cmo_status_writes_total{result="sent"}}). The
 * table is printed and written to target/operator-cost.md.
 */
class OperatorCostBenchmark {

  private static final String NS = "cost";
  private static final String RECONCILES = "operator_sdk_reconciliations_started_total";
  private static final String SENT = "cmo_status_writes_total{result=\"sent\"";

  /** The image's entrypoint flags (operator/controller/pom.xml, Jib) under the chart's limit. */
  private static final List<String> IMAGE_JVM_FLAGS =
      List.of(
          "-XX:MaxRAM=512m",
          "-XX:MaxRAMPercentage=60.0",
          "-XX:InitialRAMPercentage=5.0",
          "-XX:+UseSerialGC",
          "-XX:MinHeapFreeRatio=10",
          "-XX:MaxHeapFreeRatio=20",
          "-XX:TieredStopAtLevel=1",
          "-XX:TrimNativeHeapInterval=10000",
          "-XX:+ExitOnOutOfMemoryError",
          "-XX:-UsePerfData");

  /** The image's environment (operator/controller/pom.xml, Jib). */
  private static final Map<String, String> IMAGE_ENVIRONMENT = Map.of("MALLOC_ARENA_MAX", "2");

  @Test
  void operatorCostWithIdleMirrors() throws Exception {
    int mirrors = Integer.getInteger("cmo.bench.mirrors", 100);
    int partitions = Integer.getInteger("cmo.bench.partitions", 100);
    int minutes = Integer.getInteger("cmo.bench.minutes", 10);
    int sampleSeconds = Integer.getInteger("cmo.bench.sampleSeconds", 10);
    // Flags after the image's (a later flag wins), to look for the floor: e.g.
    // -Dcmo.bench.extraJvmFlags=-XX:MaxRAMPercentage=30,-XX:+UseSerialGC
    List<String> jvmFlags = new ArrayList<>(IMAGE_JVM_FLAGS);
    for (String flag : System.getProperty("cmo.bench.extraJvmFlags", "").split(",")) {
      if (!flag.isBlank()) {
        jvmFlags.add(flag.trim());
      }
    }
    System.out.println("operator cost: operator JVM flags " + jvmFlags);
    try (OperatorTestEnvironment env = OperatorTestEnvironment.start()) {
      KubernetesClient client = env.client();
      KafkaCluster source =
          env.startCluster(
              KafkaClusterConfig.builder("cost-a")
                  .singleNode()
                  .brokerProperty("num.partitions", "1"));
      KafkaCluster destination = env.startDestination("cost-b");
      env.installCrdAndNamespaces(NS);
      List<String> topics = new ArrayList<>();
      try (KafkaProducer<String, String> p =
          TestClients.idempotentProducer(source.bootstrapServers())) {
        for (int m = 0; m < mirrors; m++) {
          String topic = "cost-" + m;
          topics.add(topic);
          source.createTopic(topic, partitions, 1, Map.of());
          for (int part = 0; part < partitions; part++) {
            p.send(new ProducerRecord<>(topic, part, "k", "v" + part));
          }
        }
        p.flush();
      }
      int metricsPort = FreePorts.pick(1).get(0);
      // More environment for the operator, e.g. -Dcmo.bench.extraEnv=MALLOC_ARENA_MAX=2
      Map<String, String> operatorEnv = new java.util.LinkedHashMap<>(IMAGE_ENVIRONMENT);
      operatorEnv.put("CMO_METRICS_PORT", Integer.toString(metricsPort));
      operatorEnv.put("CMO_LOG_LEVEL", "warn");
      for (String pair : System.getProperty("cmo.bench.extraEnv", "").split(",")) {
        if (!pair.isBlank()) {
          int eq = pair.indexOf('=');
          if (eq < 1) {
            throw new IllegalArgumentException(
                "cmo.bench.extraEnv takes NAME=value pairs separated by commas, got '"
                    + pair
                    + "'");
          }
          operatorEnv.put(pair.substring(0, eq).trim(), pair.substring(eq + 1).trim());
        }
      }
      System.out.println("operator cost: operator environment " + operatorEnv);
      OperatorProcess operator = env.newOperatorProcess("cost-operator", operatorEnv, jvmFlags);
      operator.start();
      long started = System.nanoTime();
      for (String topic : topics) {
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
      }
      long deadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(30);
      long lastPrint = 0;
      // The setup phase's RSS and thread count (the peak of the run is here, not in the idle
      // phase): one sample per loop (about 2 s), the maximum and a row every 10 s.
      StringBuilder setup = new StringBuilder("| t s | RSS MiB | threads |\n|---:|---:|---:|\n");
      long setupRssMaxKb = 0;
      long setupThreadsMax = 0;
      long lastSetupRow = 0;
      // A dump while setting up too (the run may not settle at all): after this many seconds.
      long setupDumpNanos =
          TimeUnit.SECONDS.toNanos(Integer.getInteger("cmo.bench.setupDumpSeconds", 0));
      boolean setupDumped = setupDumpNanos == 0;
      while (true) {
        assertThat(operator.isAlive()).as(operator.tail(40)).isTrue();
        long rssNowKb = rssKb(operator.pid());
        long threadsNow = threads(operator.pid());
        setupRssMaxKb = Math.max(setupRssMaxKb, rssNowKb);
        setupThreadsMax = Math.max(setupThreadsMax, threadsNow);
        if (System.nanoTime() - lastSetupRow >= TimeUnit.SECONDS.toNanos(10)) {
          setup.append(
              String.format(
                  "| %d | %.1f | %d |%n",
                  TimeUnit.NANOSECONDS.toSeconds(System.nanoTime() - started),
                  rssNowKb / 1024.0,
                  threadsNow));
          lastSetupRow = System.nanoTime();
        }
        if (!setupDumped && System.nanoTime() - started >= setupDumpNanos) {
          setupDumped = true;
          Path setupDumps = Path.of("target", "operator-cost");
          Files.createDirectories(setupDumps);
          dumpJvm(operator.pid(), jvmFlags, setupDumps.resolve("setup"));
        }
        int settled = 0;
        long partitionsMirroring = 0;
        for (ClusterMirror cr :
            client.resources(ClusterMirror.class).inNamespace(NS).list().getItems()) {
          if (cr.getStatus() != null && cr.getStatus().getPartitionCounts() != null) {
            Integer mirroringNow = cr.getStatus().getPartitionCounts().getMirroring();
            long m = mirroringNow == null ? 0 : mirroringNow;
            partitionsMirroring += m;
            Long lag = cr.getStatus().getMaxLagRecords();
            if (m == partitions && lag != null && lag == 0) {
              settled++;
            }
          }
        }
        if (settled == mirrors) {
          break;
        }
        if (System.nanoTime() - lastPrint > TimeUnit.SECONDS.toNanos(30)) {
          System.out.println(
              "operator cost: "
                  + settled
                  + " of "
                  + mirrors
                  + " ClusterMirrors mirroring at lag 0, "
                  + partitionsMirroring
                  + " partitions MIRRORING");
          lastPrint = System.nanoTime();
        }
        assertThat(System.nanoTime())
            .as(
                "every ClusterMirror mirroring at lag 0 within 30 minutes; operator log:\n%s",
                operator.tail(40))
            .isLessThan(deadline);
        Thread.sleep(2_000);
      }
      long settledMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started);
      System.out.println(
          "operator cost: "
              + mirrors
              + " x "
              + partitions
              + " mirroring after "
              + settledMs
              + " ms");
      setup.append(
          String.format(
              "%nsetup (%d ms to every ClusterMirror mirroring at lag 0): RSS max %.1f MiB,"
                  + " threads max %d%n",
              settledMs, setupRssMaxKb / 1024.0, setupThreadsMax));
      System.out.println(setup);
      Path dumps = Path.of("target", "operator-cost");
      Files.createDirectories(dumps);
      Files.writeString(dumps.resolve("setup.md"), setup.toString(), StandardCharsets.UTF_8);
      dumpJvm(operator.pid(), jvmFlags, dumps.resolve("settled"));

      AtomicLong modified = new AtomicLong();
      HttpClient http = HttpClient.newHttpClient();
      StringBuilder table = new StringBuilder();
      table.append(
          "| t s | RSS MiB | CPU % of one core (interval) | reconciles (interval) | status writes sent"
              + " (interval) | status changes seen (interval) | API requests on clustermirrors"
              + " (interval) |\n");
      table.append("|---:|---:|---:|---:|---:|---:|---:|\n");
      long pid = operator.pid();
      long clkTck = clockTicksPerSecond();
      List<Long> rss = new ArrayList<>();
      try (Watch watch =
          client
              .resources(ClusterMirror.class)
              .inNamespace(NS)
              .watch(
                  new Watcher<>() {
                    @Override
                    public void eventReceived(Action action, ClusterMirror resource) {
                      if (action == Action.MODIFIED) {
                        modified.incrementAndGet();
                      }
                    }

                    @Override
                    public void onClose(WatcherException cause) {}
                  })) {
        long t0 = System.nanoTime();
        long cpu0 = cpuTicks(pid);
        double rec0 = metric(http, metricsPort, RECONCILES);
        double writes0 = metric(http, metricsPort, SENT);
        long mod0 = modified.get();
        double api0 = apiRequests(client);
        double apiPrev = api0;
        long cpuPrev = cpu0;
        double recPrev = rec0;
        double writesPrev = writes0;
        long modPrev = mod0;
        long tPrev = t0;
        long end = t0 + TimeUnit.MINUTES.toNanos(minutes);
        while (System.nanoTime() < end) {
          Thread.sleep(TimeUnit.SECONDS.toMillis(sampleSeconds));
          assertThat(operator.isAlive()).as(operator.tail(40)).isTrue();
          long now = System.nanoTime();
          long cpu = cpuTicks(pid);
          double rec = metric(http, metricsPort, RECONCILES);
          double writes = metric(http, metricsPort, SENT);
          long mod = modified.get();
          double api = apiRequests(client);
          long rssKb = rssKb(pid);
          rss.add(rssKb);
          double seconds = (now - tPrev) / 1e9;
          table.append(
              String.format(
                  "| %d | %.1f | %.1f | %.0f | %.0f | %d | %.0f |%n",
                  TimeUnit.NANOSECONDS.toSeconds(now - t0),
                  rssKb / 1024.0,
                  100.0 * (cpu - cpuPrev) / clkTck / seconds,
                  rec - recPrev,
                  writes - writesPrev,
                  mod - modPrev,
                  api - apiPrev));
          apiPrev = api;
          cpuPrev = cpu;
          recPrev = rec;
          writesPrev = writes;
          modPrev = mod;
          tPrev = now;
        }
        double totalSeconds = (tPrev - t0) / 1e9;
        long maxRss = rss.stream().mapToLong(Long::longValue).max().orElse(0);
        table.append(
            String.format(
                "%n%d ClusterMirrors x %d partitions, %.0f s: RSS max %.1f MiB, CPU %.1f %% of one"
                    + " core, %.2f reconciles/s (%.3f per ClusterMirror per minute), %.0f status"
                    + " writes sent, %d status changes seen, %.0f API requests on clustermirrors%n",
                mirrors,
                partitions,
                totalSeconds,
                maxRss / 1024.0,
                100.0 * (cpuPrev - cpu0) / clkTck / totalSeconds,
                (recPrev - rec0) / totalSeconds,
                (recPrev - rec0) / mirrors / (totalSeconds / 60),
                writesPrev - writes0,
                modPrev - mod0,
                apiPrev - api0));
      }
      System.out.println(table);
      dumpJvm(operator.pid(), jvmFlags, dumps.resolve("end"));
      Path out = Path.of("target", "operator-cost.md");
      Files.createDirectories(out.getParent());
      Files.writeString(out, table.toString(), StandardCharsets.UTF_8);
    }
  }

  /** The sum of every sample of the counters whose name starts with {@code prefix}. */
  private static double metric(HttpClient http, int port, String prefix)
      throws IOException, InterruptedException {
    HttpResponse<String> response =
        http.send(
            HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/metrics"))
                .timeout(Duration.ofSeconds(20))
                .build(),
            HttpResponse.BodyHandlers.ofString());
    double sum = 0;
    boolean found = false;
    for (String line : response.body().split("\n")) {
      if (line.startsWith(prefix)) {
        sum += Double.parseDouble(line.substring(line.lastIndexOf(' ') + 1));
        found = true;
      }
    }
    if (!found) {
      System.out.println("operator cost: no sample of " + prefix + " in /metrics (yet)");
    }
    return sum;
  }

  /**
   * The API server's count of requests on ClusterMirrors (every verb and subresource, every client:
   * the operator's reads and writes, the benchmark's own watch), from its /metrics.
   */
  private static double apiRequests(KubernetesClient client) {
    double sum = 0;
    for (String line : client.raw("/metrics").split("\n")) {
      if (line.startsWith("apiserver_request_total{")
          && line.contains("resource=\"clustermirrors\"")) {
        sum += Double.parseDouble(line.substring(line.lastIndexOf(' ') + 1));
      }
    }
    return sum;
  }

  /**
   * What the operator's memory is made of, written next to the table as {@code <prefix>-*.txt}: its
   * threads grouped by name (digits dropped), the native memory summary when the JVM runs with
   * {@code -XX:NativeMemoryTracking}, the heap after a full GC ({@code GC.class_histogram} collects
   * first) and the histogram's top 40 classes. Also printed.
   */
  private static void dumpJvm(long pid, List<String> jvmFlags, Path prefix)
      throws IOException, InterruptedException {
    Map<String, Integer> groups = new java.util.TreeMap<>();
    for (String line : jcmd(pid, "Thread.print").split("\n")) {
      if (line.startsWith("\"")) {
        String name = line.substring(1, line.indexOf('"', 1)).replaceAll("[0-9]+", "#");
        groups.merge(name, 1, Integer::sum);
      }
    }
    StringBuilder threads = new StringBuilder();
    groups.entrySet().stream()
        .sorted((a, b) -> b.getValue() - a.getValue())
        .forEach(e -> threads.append(String.format("%4d %s%n", e.getValue(), e.getKey())));
    threads.append(String.format("%4d threads in /proc%n", threads(pid)));
    write(prefix, "threads", threads.toString());
    if (jvmFlags.stream().anyMatch(f -> f.startsWith("-XX:NativeMemoryTracking="))) {
      write(prefix, "nmt", jcmd(pid, "VM.native_memory", "summary"));
    }
    String histogram = jcmd(pid, "GC.class_histogram");
    String[] lines = histogram.split("\n");
    StringBuilder top = new StringBuilder();
    for (int i = 0; i < Math.min(lines.length, 45); i++) {
      top.append(lines[i]).append('\n');
    }
    top.append(lines[lines.length - 1]).append('\n');
    write(prefix, "histogram", top.toString());
    write(prefix, "heap", jcmd(pid, "GC.heap_info"));
    write(
        prefix,
        "rss",
        String.format("VmRSS %.1f MiB, threads %d%n", rssKb(pid) / 1024.0, threads(pid)));
  }

  private static void write(Path prefix, String what, String text) throws IOException {
    Path file = prefix.resolveSibling(prefix.getFileName() + "-" + what + ".txt");
    Files.writeString(file, text, StandardCharsets.UTF_8);
    System.out.println("operator cost: " + file + "\n" + text);
  }

  private static String jcmd(long pid, String... command) throws IOException, InterruptedException {
    return Jcmd.run(pid, command).output();
  }

  private static long threads(long pid) throws IOException {
    for (String line : Files.readAllLines(Path.of("/proc/" + pid + "/status"))) {
      if (line.startsWith("Threads:")) {
        return Long.parseLong(line.replaceAll("[^0-9]", ""));
      }
    }
    throw new IllegalStateException("no Threads in /proc/" + pid + "/status");
  }

  private static long rssKb(long pid) throws IOException {
    for (String line : Files.readAllLines(Path.of("/proc/" + pid + "/status"))) {
      if (line.startsWith("VmRSS:")) {
        return Long.parseLong(line.replaceAll("[^0-9]", ""));
      }
    }
    throw new IllegalStateException("no VmRSS in /proc/" + pid + "/status");
  }

  /** utime + stime of {@code pid}, in clock ticks (/proc/pid/stat fields 14 and 15). */
  private static long cpuTicks(long pid) throws IOException {
    String stat = Files.readString(Path.of("/proc/" + pid + "/stat"));
    String[] fields = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
    return Long.parseLong(fields[11]) + Long.parseLong(fields[12]);
  }

  private static long clockTicksPerSecond() {
    return 100;
  }
}
