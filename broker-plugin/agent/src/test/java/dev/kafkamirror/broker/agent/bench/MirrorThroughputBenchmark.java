package dev.kafkamirror.broker.agent.bench;

import com.fasterxml.jackson.databind.JsonNode;
import dev.kafkamirror.testing.kafka.KafkaCluster;
import dev.kafkamirror.testing.kafka.KafkaClusterConfig;
import dev.kafkamirror.testing.plugin.PluginControlClient;
import dev.kafkamirror.testing.process.Commands;
import dev.kafkamirror.testing.tls.TestCertificates;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewPartitionReassignment;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.TopicPartitionInfo;
import org.apache.kafka.common.serialization.ByteArraySerializer;

/**
 * Mirror throughput, three sides measured in one run: the plugin's mirror fetcher, Kafka's own
 * intra-cluster replication (a new follower catching up from empty), and MirrorMaker 2 as a
 * dedicated, tuned MirrorMaker process. Prints Markdown tables for docs/benchmarks.md. Not a test:
 * it asserts nothing and runs only when called.
 *
 * <p>How to run it (without installing into ~/.m2; the command docs/benchmarks.md shows):
 *
 * <pre>
 * ./mvnw -B -q -pl broker-plugin/agent -am package -DskipTests dependency:build-classpath \
 *     -Dmdep.outputFile=/tmp/agent-test.classpath -Dmdep.includeScope=test
 * java -cp broker-plugin/agent/target/test-classes:broker-plugin/agent/target/classes:$(cat /tmp/agent-test.classpath) \
 *     -Dcmo.agent.jar=$PWD/broker-plugin/agent/target/cmo-broker-agent-0.1.0-SNAPSHOT.jar \
 *     [-Drounds=3] [-Dpartitions=24] [-DpreloadMiB=256] [-Dcompression=none|zstd] [-Dmm2.tasks=4] \
 *     [-Dmm2.heap=2g] [-DsourceBrokers=1] [-DliveMiBs=0] [-DsourceTls=false] [-Dsettle=true] \
 *     [-DwarmupRounds=1] [-DgcLog=<dir>] [-Dnmt=<dir>] [-DcombinedDestinations=false] \
 *     dev.kafkamirror.broker.agent.bench.MirrorThroughputBenchmark
 * </pre>
 *
 * <p>The first {@code -DwarmupRounds} rounds (1 unless given) run like the others but are left out
 * of the median and the spread: every broker and the benchmark start cold, and in the first round
 * of a run each side was up to 2.5 times slower than in the later ones (docs/benchmarks.md). A
 * long-running broker's mirror is the figure a user gets.
 *
 * <p>Per round, with the order of the sides reversed every other round so that neither side always
 * runs on a warmer (or busier) machine:
 *
 * <ol>
 *   <li>A source topic of P partitions (one shared source cluster: a single node, or with {@code
 *       -DsourceBrokers=S} a controller plus S brokers, partition p on broker (p mod S) + 1) and a
 *       topic of P partitions on the replication cluster's brokers 1 to S, spread alike, are
 *       preloaded with the same N MiB of 1 KiB records (same producer settings, optional zstd).
 *       Nothing is timed while preloading.
 *   <li>Before each side, with {@code -Dsettle=true} (the default), the page cache's dirty pages
 *       are written out ({@code sync}) and the side waits until less than {@value
 *       #SETTLED_DIRTY_KIB} KiB are dirty or being written back: otherwise the kernel's writeback
 *       of the preload (30 s after it was written, by default) lands inside whichever side runs
 *       first. Each side's line on standard output shows what was dirty before.
 *   <li><b>plugin</b>: a destination of a controller plus one broker, with the agent (see {@link
 *       #destinationShape}); the topic is created and mirrored with one {@code mirror/start} call;
 *       timed from that call until every destination partition's log end (Admin listOffsets) equals
 *       the source's.
 *   <li><b>replication</b>: a cluster of a controller plus S + 1 brokers without the agent; each
 *       partition's replicas are reassigned from [its leader] to [its leader, S + 1], so broker S +
 *       1 is a new, empty follower that fetches everything (from S leaders at once); timed from the
 *       reassignment call until broker S + 1 is in the ISR of every partition (see {@link
 *       #replicationSide} for why that means caught up, also with live writes).
 *   <li><b>MirrorMaker 2</b>: a dedicated {@code org.apache.kafka.connect.mirror.MirrorMaker}
 *       (connect-mirror 4.3.1, its own JVM, classpath from cmo-mirrormaker2-runtime) into a target
 *       cluster shaped as the plugin's destination, with the topic pre-created; timed until the
 *       target's log ends sum to the source's. Two figures: from the process launch (includes the
 *       JVM, the Connect worker's start and its task assignment) and from the first record seen on
 *       the target (the steady rate); the ratio uses the steady rate, the one more favourable to
 *       MirrorMaker 2.
 * </ol>
 *
 * <p>The plugin and the follower get the same two figures: from their start call (the {@code
 * mirror/start} call, the reassignment call), and the steady rate, from the first copied record
 * seen (any destination partition's log end above 0; any byte in the follower's replica of the
 * topic, Admin describeLogDirs), both polled every {@value #POLL_MS} ms like MirrorMaker 2's. The
 * ratios are of steady rates, the ratio of the rates from the call in brackets: the plugin's start
 * (the stop-state read, one membership record per partition) is in the second, not in the first.
 *
 * <p>With {@code -DliveMiBs=R} the copied topic takes new writes while each side runs: a {@link
 * PacedWriter} writes R MiB/s of 1 KiB records into the topic the side copies from (the source for
 * the plugin and MirrorMaker 2, the leaders of the replication cluster for the follower) from the
 * side's start until the preloaded backlog is copied; then it stops, every record it sent is
 * acknowledged, and the side ends when the copy also holds those. A side's MiB/s is everything it
 * copied (backlog and live records) over its time.
 *
 * <p>With {@code -DsourceTls=true} the source cluster's client and inter-broker listener is TLS (a
 * CA and a broker certificate made by keytool, PEM), the plugin and MirrorMaker 2 connect to it
 * over TLS, and the replication cluster's listener is TLS alike, so its follower fetches over TLS
 * too. Destinations stay on PLAINTEXT.
 *
 * <p>Memory: the plugin destination broker's and the stock follower broker's {@code VmRSS} (and
 * {@code VmHWM}, the peak) right after their sides, the MirrorMaker 2 target broker's {@code VmRSS}
 * right after its side (a single combined node like the plugin's destination, without the agent:
 * the like-for-like baseline; the follower is a broker-only node), all with the same heap, and the
 * MirrorMaker JVM's peak.
 *
 * <p>Every process it starts (brokers, the MirrorMaker JVM) is stopped at the end, also on failure:
 * the clusters in try-with-resources, the MirrorMaker JVM in a finally block, and the {@link
 * dev.kafkamirror.testing.process.ProcessReaper} behind both. Single-threaded apart from the {@link
 * PacedWriter}'s thread.
 */
public final class MirrorThroughputBenchmark {

  static final int RECORD_BYTES = 1024;
  // More values than a 512 KiB batch has records: a compressed batch of live writes repeats none.
  private static final int WRITER_POOL = 2048;
  private static final byte[] ALPHABET =
      "abcdefghijklmnopqrstuvwxyz ,.;:-".getBytes(java.nio.charset.StandardCharsets.US_ASCII);
  private static final long POLL_MS = 100;
  private static final long SIDE_TIMEOUT_MS = TimeUnit.MINUTES.toMillis(20);
  private static final long SETTLED_DIRTY_KIB = 16 * 1024;
  private static final long SETTLE_TIMEOUT_MS = 60_000;

  private final Path agent;
  private final int rounds;
  private final int warmupRounds;
  private final int partitions;
  private final int preloadMiB;
  private final String compression;
  private final int mm2Tasks;
  private final String mm2Heap;
  private final int sourceBrokers;
  private final double liveMiBs;
  private final boolean settle;
  private final boolean combinedDestinations;

  /**
   * With {@code -DgcLog=<dir>}: where the plugin destination's and the replication cluster's nodes
   * write their GC logs (one file per process, wall-clock times, to set beside the sides' times on
   * standard output); null without.
   */
  private final Path gcLogDir;

  /**
   * With {@code -Dnmt=<dir>}: the three copying JVMs' brokers (the plugin's destination, the
   * replication cluster, the MirrorMaker 2 target) run with native memory tracking, and after each
   * side its copying broker's {@code VM.native_memory summary} and {@code GC.heap_info} go to
   * {@code <dir>/round<N>-<side>.txt}: where the RSS of each goes, category by category. Null
   * without. NMT costs a few MiB of its own on every tracked JVM alike.
   */
  private final Path nmtDir;

  /** The CA and broker certificate of a TLS source ({@code -DsourceTls=true}); null without. */
  private final TestCertificates certs;

  private MirrorThroughputBenchmark() {
    this.agent =
        Path.of(
            System.getProperty(
                "cmo.agent.jar", "broker-plugin/agent/target/cmo-broker-agent-0.1.0-SNAPSHOT.jar"));
    this.rounds = Integer.getInteger("rounds", 3);
    this.warmupRounds = Integer.getInteger("warmupRounds", 1);
    if (warmupRounds < 0) {
      throw new IllegalArgumentException("warmupRounds must be 0 or more, was " + warmupRounds);
    }
    this.partitions = Integer.getInteger("partitions", 24);
    this.preloadMiB = Integer.getInteger("preloadMiB", 256);
    this.compression = System.getProperty("compression", "none");
    this.mm2Tasks = Integer.getInteger("mm2.tasks", 4);
    this.mm2Heap = System.getProperty("mm2.heap", "2g");
    this.sourceBrokers = Integer.getInteger("sourceBrokers", 1);
    if (sourceBrokers < 1) {
      throw new IllegalArgumentException("sourceBrokers must be at least 1, was " + sourceBrokers);
    }
    this.liveMiBs = Double.parseDouble(System.getProperty("liveMiBs", "0"));
    if (liveMiBs < 0) {
      throw new IllegalArgumentException("liveMiBs must be 0 (off) or more, was " + liveMiBs);
    }
    this.settle = Boolean.parseBoolean(System.getProperty("settle", "true"));
    this.combinedDestinations = Boolean.getBoolean("combinedDestinations");
    this.gcLogDir =
        System.getProperty("gcLog") == null ? null : Path.of(System.getProperty("gcLog"));
    this.nmtDir = System.getProperty("nmt") == null ? null : Path.of(System.getProperty("nmt"));
    this.certs =
        Boolean.getBoolean("sourceTls")
            ? TestCertificates.create(
                Path.of(
                    System.getProperty("cmo.test.workdir", "target/test-work"),
                    "tp-tls-" + System.nanoTime()))
            : null;
  }

  /**
   * The broker that holds (leads) partition {@code p}: on the source and on the replication cluster
   * alike, partition p on broker (p mod sourceBrokers) + 1.
   */
  private int leaderOf(int p) {
    return p % sourceBrokers + 1;
  }

  /** The replication cluster's empty follower: the broker after the leaders. */
  private int followerBroker() {
    return sourceBrokers + 1;
  }

  public static void main(String[] args) throws Exception {
    // Gigabytes per run outside Maven's target/: deleted when each cluster closes.
    KafkaClusterConfig.deleteWorkOnCloseUnlessSet();
    System.out.println(new MirrorThroughputBenchmark().run());
  }

  /**
   * What one side copied (backlog and live records), in how many nanoseconds from its start call,
   * and after how many of them the first copied record was seen (polled every {@value #POLL_MS}
   * ms).
   */
  record Copy(long nanos, long firstNanos, long records) {

    /** From the side's start call (the plugin's mirror/start, the reassignment). */
    double mibPerSecond() {
      return (double) records * RECORD_BYTES / (1024 * 1024) / (nanos / 1e9);
    }

    /** From the first copied record seen, as MirrorMaker 2's steady rate. */
    double steadyMiBPerSecond() {
      return (double) records * RECORD_BYTES / (1024 * 1024) / ((nanos - firstNanos) / 1e9);
    }
  }

  /** One round's figures: MiB/s per side, the brokers' memory, the load at the start. */
  private record Round(
      int number,
      String order,
      double pluginMiBs,
      double pluginFromCallMiBs,
      double replicationMiBs,
      double replicationFromCallMiBs,
      double mm2SteadyMiBs,
      double mm2TotalMiBs,
      long pluginRssKiB,
      long pluginPeakRssKiB,
      long stockRssKiB,
      long stockPeakRssKiB,
      long mm2TargetRssKiB,
      long mm2PeakRssKiB,
      String load) {}

  private String run() throws Exception {
    StringBuilder out = new StringBuilder();
    List<Round> results = new ArrayList<>();
    List<Round> warmups = new ArrayList<>();
    KafkaClusterConfig.Builder sourceConfig = tls(KafkaClusterConfig.builder("tp-source"));
    if (sourceBrokers > 1) {
      sourceConfig.controllerPlusBrokers(sourceBrokers);
    }
    try (KafkaCluster source = sourceConfig.start();
        KafkaCluster pluginDestination =
            destinationShape(nmt(gcLog(KafkaClusterConfig.builder("tp-plugin-dest"))))
                .javaAgent(agent, null)
                .perBrokerListener(PluginControlClient.LISTENER_PROPERTY)
                .brokerProperty(
                    PluginControlClient.SECRET_PROPERTY, PluginControlClient.TEST_SECRET)
                .brokerProperty(PluginControlClient.INSECURE_PLAINTEXT_PROPERTY, "true")
                .start();
        KafkaCluster replication =
            nmt(gcLog(tls(KafkaClusterConfig.builder("tp-replication"))))
                .controllerPlusBrokers(sourceBrokers + 1)
                .start();
        KafkaCluster mm2Target =
            destinationShape(nmt(KafkaClusterConfig.builder("tp-mm2-target"))).start()) {
      MirrorMakerProcess.Settings mm2Settings =
          new MirrorMakerProcess.Settings(
              source.bootstrapServers(),
              sourceClientSecurity(),
              mm2Target.bootstrapServers(),
              compression,
              mm2Tasks,
              mm2Heap);
      for (int round = 1 - warmupRounds; round <= rounds; round++) {
        String topic = "tp-r" + (round + warmupRounds);
        preload(source, topic);
        preload(replication, topic);
        List<String> order =
            round % 2 == 1
                ? List.of("plugin", "replication", "mm2")
                : List.of("mm2", "replication", "plugin");
        String load = loadAverage();
        Copy plugin = null;
        Copy repl = null;
        double[] mm2 = {0, 0};
        long[] rss = {0, 0};
        long[] stockRss = {0, 0};
        long mm2Peak = 0;
        long mm2TargetRss = 0;
        for (String side : order) {
          String dirty = settleDisk();
          java.time.Instant sideStart = java.time.Instant.now();
          switch (side) {
            case "plugin" -> {
              plugin = pluginSide(source, pluginDestination, topic);
              rss = rssAndPeakKiB(pluginDestination.node(1).pid());
              nmtSummary(pluginDestination.node(1).pid(), round, side);
            }
            case "replication" -> {
              repl = replicationSide(replication, topic);
              stockRss = rssAndPeakKiB(replication.node(followerBroker()).pid());
              nmtSummary(replication.node(followerBroker()).pid(), round, side);
            }
            case "mm2" -> {
              try (PacedWriter writer = writerInto(source, topic)) {
                MirrorMakerProcess.Timing t =
                    MirrorMakerProcess.mirror(
                        mm2Settings,
                        source,
                        mm2Target,
                        topic,
                        partitions,
                        backlog -> writer == null ? backlog : stopAndCount(writer, source, topic));
                Copy copy = new Copy(t.totalNanos(), t.totalNanos() - t.steadyNanos(), t.records());
                mm2 = new double[] {copy.steadyMiBPerSecond(), copy.mibPerSecond()};
                mm2Peak = t.peakRssKiB();
                mm2TargetRss = procStatusKiB(mm2Target.node(1).pid(), "VmRSS");
                nmtSummary(mm2Target.node(1).pid(), round, side);
              }
            }
            default -> throw new IllegalStateException(side);
          }
          System.out.printf(
              Locale.ROOT,
              "round %d: %s from %s to %s (%s)%n",
              round,
              side,
              sideStart,
              java.time.Instant.now(),
              dirty);
        }
        Round r =
            new Round(
                round,
                String.join(" → ", order),
                plugin.steadyMiBPerSecond(),
                plugin.mibPerSecond(),
                repl.steadyMiBPerSecond(),
                repl.mibPerSecond(),
                mm2[0],
                mm2[1],
                rss[0],
                rss[1],
                stockRss[0],
                stockRss[1],
                mm2TargetRss,
                mm2Peak,
                load);
        if (round > 0) {
          results.add(r);
        } else {
          warmups.add(r);
        }
        System.out.println(row(r));
        for (KafkaCluster c : List.of(pluginDestination, mm2Target, source, replication)) {
          deleteTopic(c, topic);
        }
      }
    }
    out.append(
        String.format(
            Locale.ROOT,
            "### Mirror throughput: %d partitions, %d MiB of 1 KiB records preloaded, live writes %s,"
                + " compression %s, %d source broker(s), source %s, disk settled before each side:"
                + " %s, %d warm-up round(s) (numbered 0 and below, not in the median)%n%n",
            partitions,
            preloadMiB,
            liveMiBs > 0 ? String.format(Locale.ROOT, "%.1f MiB/s", liveMiBs) : "none",
            compression,
            sourceBrokers,
            certs == null ? "PLAINTEXT" : "TLS",
            settle ? "yes" : "no",
            warmupRounds));
    out.append(
        "| round | order | load avg (1/5/15 min) at start | plugin MiB/s steady (from call) |"
            + " replication MiB/s steady (from call) | MM2 MiB/s steady (from launch) |"
            + " plugin / replication steady (from call) | plugin / MM2 steady |"
            + " plugin broker RSS (peak) MiB | stock follower RSS (peak) MiB |"
            + " MM2 target broker RSS MiB | MM2 JVM peak RSS MiB |\n"
            + "|---|---|---|---|---|---|---|---|---|---|---|---|\n");
    warmups.forEach(r -> out.append(row(r)).append('\n'));
    results.forEach(r -> out.append(row(r)).append('\n'));
    double[] pr = values(results, r -> r.pluginMiBs() / r.replicationMiBs());
    double[] prCall = values(results, r -> r.pluginFromCallMiBs() / r.replicationFromCallMiBs());
    double[] pm = values(results, r -> r.pluginMiBs() / r.mm2SteadyMiBs());
    out.append(
        String.format(
            Locale.ROOT,
            "| median | | | %.1f (%.1f) | %.1f (%.1f) | %.1f (%.1f) | **%.2f** (%.2f) | **%.2f** |"
                + " | | | |%n",
            median(values(results, Round::pluginMiBs)),
            median(values(results, Round::pluginFromCallMiBs)),
            median(values(results, Round::replicationMiBs)),
            median(values(results, Round::replicationFromCallMiBs)),
            median(values(results, Round::mm2SteadyMiBs)),
            median(values(results, Round::mm2TotalMiBs)),
            median(pr),
            median(prCall),
            median(pm)));
    out.append(
        String.format(
            Locale.ROOT,
            "| min-max (steady) | | | %s | %s | %s | %s | %s | | | | |%n",
            spread(values(results, Round::pluginMiBs)),
            spread(values(results, Round::replicationMiBs)),
            spread(values(results, Round::mm2SteadyMiBs)),
            spread(pr),
            spread(pm)));
    out.append(
        String.format(
            Locale.ROOT,
            "| min-max (from call) | | | %s | %s | %s | %s | | | | | |%n%n",
            spread(values(results, Round::pluginFromCallMiBs)),
            spread(values(results, Round::replicationFromCallMiBs)),
            spread(values(results, Round::mm2TotalMiBs)),
            spread(prCall)));
    return out.toString();
  }

  /** One figure of every round, in round order. */
  private static double[] values(
      List<Round> rounds, java.util.function.ToDoubleFunction<Round> figure) {
    return rounds.stream().mapToDouble(figure).toArray();
  }

  /** A process's current and peak resident set, KiB ({@code VmRSS}, {@code VmHWM}). */
  private static long[] rssAndPeakKiB(long pid) {
    return new long[] {procStatusKiB(pid, "VmRSS"), procStatusKiB(pid, "VmHWM")};
  }

  private static String row(Round r) {
    return String.format(
        Locale.ROOT,
        "| %d | %s | %s | %.1f (%.1f) | %.1f (%.1f) | %.1f (%.1f) | %.2f (%.2f) | %.2f | %d (%d) |"
            + " %d (%d) | %d | %d |",
        r.number(),
        r.order(),
        r.load(),
        r.pluginMiBs(),
        r.pluginFromCallMiBs(),
        r.replicationMiBs(),
        r.replicationFromCallMiBs(),
        r.mm2SteadyMiBs(),
        r.mm2TotalMiBs(),
        r.pluginMiBs() / r.replicationMiBs(),
        r.pluginFromCallMiBs() / r.replicationFromCallMiBs(),
        r.pluginMiBs() / r.mm2SteadyMiBs(),
        r.pluginRssKiB() / 1024,
        r.pluginPeakRssKiB() / 1024,
        r.stockRssKiB() / 1024,
        r.stockPeakRssKiB() / 1024,
        r.mm2TargetRssKiB() / 1024,
        r.mm2PeakRssKiB() / 1024);
  }

  /**
   * With {@code -DsourceTls=true}: the cluster's PLAINTEXT listener (clients and inter-broker)
   * speaks TLS with the benchmark CA's broker certificate, and its harness clients trust that CA.
   */
  private KafkaClusterConfig.Builder tls(KafkaClusterConfig.Builder builder) {
    if (certs == null) {
      return builder;
    }
    builder.brokerProperty("listener.security.protocol.map", "PLAINTEXT:SSL,CONTROLLER:PLAINTEXT");
    certs.brokerTlsProperties("broker").forEach(builder::brokerProperty);
    sourceClientSecurity().forEach(builder::clientProperty);
    return builder;
  }

  /**
   * The plugin's destination and the MirrorMaker 2 target: a controller plus one broker (node 1),
   * so that the broker copying is a broker-only JVM like the replication cluster's follower; with
   * {@code -DcombinedDestinations=true} one combined node, as until 2026-12-05 (its heap also holds
   * the controller's, and in the run of 03:22 that day it ran a concurrent mark cycle about every
   * 250 ms where the follower's GC undid them).
   */
  private KafkaClusterConfig.Builder destinationShape(KafkaClusterConfig.Builder builder) {
    return combinedDestinations ? builder : builder.controllerPlusBrokers(1);
  }

  /** With {@code -DgcLog=<dir>}: every node of the cluster logs its GC pauses there. */
  private KafkaClusterConfig.Builder gcLog(KafkaClusterConfig.Builder builder) throws Exception {
    if (gcLogDir == null) {
      return builder;
    }
    java.nio.file.Files.createDirectories(gcLogDir);
    return builder.jvmArg("-Xlog:gc:file=" + gcLogDir.toAbsolutePath() + "/gc-%p.log:time");
  }

  private KafkaClusterConfig.Builder nmt(KafkaClusterConfig.Builder builder) throws Exception {
    if (nmtDir == null) {
      return builder;
    }
    java.nio.file.Files.createDirectories(nmtDir);
    return builder.jvmArg("-XX:NativeMemoryTracking=summary");
  }

  /**
   * With {@code -Dnmt}: writes the NMT summary and heap of {@code pid} (the broker that copied for
   * {@code side}) after the side, with its RSS then. A jcmd that fails is written as its output;
   * one that takes more than 60 s ends the run.
   */
  private void nmtSummary(long pid, int round, String side) throws Exception {
    if (nmtDir == null) {
      return;
    }
    String jcmd = Path.of(System.getProperty("java.home"), "bin", "jcmd").toString();
    long[] rss = rssAndPeakKiB(pid);
    StringBuilder text = new StringBuilder();
    text.append("pid ").append(pid).append(", VmRSS ").append(rss[0]);
    text.append(" KiB, VmHWM ").append(rss[1]).append(" KiB\n");
    for (List<String> command :
        List.of(List.of("VM.native_memory", "summary"), List.of("GC.heap_info"))) {
      List<String> args = new ArrayList<>(List.of(jcmd, Long.toString(pid)));
      args.addAll(command);
      Commands.Result r = Commands.run(Duration.ofSeconds(60), args);
      text.append("== ").append(String.join(" ", command)).append('\n');
      text.append(r.stdout()).append(r.stderr()).append('\n');
    }
    java.nio.file.Files.writeString(
        nmtDir.resolve("round" + round + "-" + side + ".txt"), text.toString());
  }

  /** The client settings a TLS source needs (none for PLAINTEXT). */
  private Map<String, String> sourceClientSecurity() {
    if (certs == null) {
      return Map.of();
    }
    Map<String, String> settings = new LinkedHashMap<>();
    settings.put("security.protocol", "SSL");
    settings.put("ssl.truststore.type", "PEM");
    settings.put("ssl.truststore.certificates", certs.caPemText().replace("\r", ""));
    return settings;
  }

  /**
   * With {@code -Dsettle=true}: writes the page cache's dirty pages out and waits (at most {@value
   * #SETTLE_TIMEOUT_MS} ms) until less than {@value #SETTLED_DIRTY_KIB} KiB are dirty or under
   * writeback. Returns what was dirty before and after, for the side's output line.
   */
  private String settleDisk() throws Exception {
    long before = dirtyKiB();
    if (!settle) {
      return String.format(Locale.ROOT, "dirty+writeback %d MiB, not settled", before / 1024);
    }
    long start = System.nanoTime();
    Commands.run(Duration.ofMillis(SETTLE_TIMEOUT_MS), List.of("sync"));
    long deadline = start + TimeUnit.MILLISECONDS.toNanos(SETTLE_TIMEOUT_MS);
    long now = dirtyKiB();
    while (now >= SETTLED_DIRTY_KIB && System.nanoTime() < deadline) {
      Thread.sleep(POLL_MS);
      now = dirtyKiB();
    }
    return String.format(
        Locale.ROOT,
        "dirty+writeback %d MiB, settled to %d MiB in %d ms",
        before / 1024,
        now / 1024,
        TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start));
  }

  /** Dirty plus Writeback of /proc/meminfo, KiB; -1 when unreadable. */
  static long dirtyKiB() {
    try {
      long sum = 0;
      for (String line : java.nio.file.Files.readAllLines(Path.of("/proc/meminfo"))) {
        if (line.startsWith("Dirty:") || line.startsWith("Writeback:")) {
          sum += Long.parseLong(line.replaceAll("[^0-9]", ""));
        }
      }
      return sum;
    } catch (java.io.IOException | NumberFormatException e) {
      return -1;
    }
  }

  /**
   * Creates {@code topic} with partition p on broker {@link #leaderOf}(p) alone (on a single-node
   * cluster, on that node), so that the source and the replication cluster spread their leaders
   * alike, and writes {@link #preloadMiB} MiB of 1 KiB records, spread evenly over the partitions.
   */
  private void preload(KafkaCluster cluster, String topic) throws Exception {
    try (Admin admin = cluster.admin()) {
      Map<Integer, List<Integer>> assignment = new HashMap<>();
      for (int p = 0; p < partitions; p++) {
        assignment.put(
            p, List.of(cluster.brokerIds().size() == 1 ? cluster.brokerIds().get(0) : leaderOf(p)));
      }
      NewTopic newTopic = new NewTopic(topic, assignment);
      admin.createTopics(List.of(newTopic)).all().get(60, TimeUnit.SECONDS);
      awaitLeaders(admin, topic);
    }
    long records = (long) preloadMiB * 1024 * 1024 / RECORD_BYTES;
    Random random = new Random(42);
    AtomicReference<Exception> failure = new AtomicReference<>();
    try (KafkaProducer<byte[], byte[]> producer =
        new KafkaProducer<>(producerProperties(cluster))) {
      for (long i = 0; i < records && failure.get() == null; i++) {
        producer.send(
            new ProducerRecord<>(topic, (int) (i % partitions), null, value(random)),
            (metadata, e) -> {
              if (e != null) {
                failure.compareAndSet(null, e);
              }
            });
      }
      producer.flush();
    }
    if (failure.get() != null) {
      throw new IllegalStateException(
          "preloading " + topic + " on cluster " + cluster.name() + " failed", failure.get());
    }
  }

  /**
   * The preload's and the live writes' producer: acks=all, 512 KiB batches, linger 20 ms, the run's
   * compression. Not idempotent: on a just-created topic an idempotent producer's first batches can
   * fail with NOT_LEADER and the batches behind them then loop on OUT_OF_ORDER_SEQUENCE_NUMBER
   * (seen here and in BrokerPluginBenchmarks' stop section). A retry may write a batch twice; every
   * side is measured against log ends, never against a count of records sent.
   */
  private Properties producerProperties(KafkaCluster cluster) {
    Properties props = new Properties();
    props.putAll(cluster.clientProperties());
    props.put(ProducerConfig.ACKS_CONFIG, "all");
    props.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, "false");
    props.put(ProducerConfig.BATCH_SIZE_CONFIG, Integer.toString(512 * 1024));
    props.put(ProducerConfig.LINGER_MS_CONFIG, "20");
    props.put(ProducerConfig.BUFFER_MEMORY_CONFIG, Long.toString(128L * 1024 * 1024));
    props.put(ProducerConfig.COMPRESSION_TYPE_CONFIG, compression);
    props.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
    props.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
    return props;
  }

  /**
   * A 1 KiB value of random characters from a 32-letter alphabet: about 5 bits of entropy per byte,
   * so zstd has something to compress (text-like, roughly 0.6-0.7 of the size) and no two records
   * are alike.
   */
  static byte[] value(Random random) {
    byte[] v = new byte[RECORD_BYTES];
    for (int i = 0; i < v.length; i++) {
      v[i] = ALPHABET[random.nextInt(ALPHABET.length)];
    }
    return v;
  }

  /** A {@link PacedWriter} into {@code topic} of {@code cluster}; null without live writes. */
  private PacedWriter writerInto(KafkaCluster cluster, String topic) {
    return liveMiBs > 0
        ? new PacedWriter(
            producerProperties(cluster),
            topic,
            partitions,
            PacedWriter.pool(WRITER_POOL, MirrorThroughputBenchmark::value),
            liveMiBs * 1024 * 1024 / RECORD_BYTES)
        : null;
  }

  /**
   * Stops {@code writer}, waits until everything it sent is acknowledged, and returns the source's
   * record count then: what a side must have copied to be done.
   */
  private static long stopAndCount(PacedWriter writer, KafkaCluster source, String topic)
      throws Exception {
    writer.stopAndFlush();
    return sumOfLogEnds(source, topic);
  }

  /**
   * Creates {@code topic} (RF 1) on the destination, starts the mirror of every partition with one
   * {@code mirror/start} call on its broker 1 and waits until its log ends reach the source's as
   * they were before the call; with live writes it then stops the writer and waits for the rest.
   */
  private Copy pluginSide(KafkaCluster source, KafkaCluster destination, String topic)
      throws Exception {
    destination.createTopic(topic, partitions, 1, Map.of());
    Map<TopicPartition, Long> backlog = logEnds(source, topic);
    try (PacedWriter writer = writerInto(source, topic)) {
      long start = System.nanoTime();
      long[] first = {-1};
      startMirror(source, destination, topic, partitions, "tp-" + topic, sourceClientSecurity());
      awaitUntil(
          "plugin destination " + destination.name() + " " + topic + " copied the backlog",
          () -> {
            Map<TopicPartition, Long> ends = logEnds(destination, topic);
            if (first[0] < 0 && ends.values().stream().anyMatch(end -> end > 0)) {
              first[0] = System.nanoTime() - start;
            }
            return reached(ends, backlog);
          });
      Map<TopicPartition, Long> everything = backlog;
      if (writer != null) {
        writer.stopAndFlush();
        everything = logEnds(source, topic);
      }
      Map<TopicPartition, Long> target = everything;
      awaitUntil(
          "plugin destination " + destination.name() + " " + topic + " caught up",
          () -> logEnds(destination, topic).equals(target));
      return new Copy(
          System.nanoTime() - start,
          first[0],
          target.values().stream().mapToLong(Long::longValue).sum());
    }
  }

  /**
   * Creates {@code topic} (RF 1) on {@code destination}, starts the mirror of every partition with
   * one {@code mirror/start} call on its broker 1, and waits until its log ends equal the source's
   * (as they were before the call). Returns the nanoseconds from the call to then.
   */
  static long mirrorAndAwait(
      KafkaCluster source,
      KafkaCluster destination,
      String topic,
      int partitions,
      String mirrorName)
      throws Exception {
    destination.createTopic(topic, partitions, 1, Map.of());
    Map<TopicPartition, Long> target = logEnds(source, topic);
    long start = System.nanoTime();
    startMirror(source, destination, topic, partitions, mirrorName, Map.of());
    awaitUntil(
        "plugin destination " + destination.name() + " " + topic + " caught up",
        () -> logEnds(destination, topic).equals(target));
    return System.nanoTime() - start;
  }

  /**
   * One {@code mirror/start} call on the destination's broker 1 for every partition of {@code
   * topic}; throws, naming the partition, when the broker refuses any.
   */
  private static void startMirror(
      KafkaCluster source,
      KafkaCluster destination,
      String topic,
      int partitions,
      String mirrorName,
      Map<String, String> sourceSecurity) {
    int[] all = new int[partitions];
    for (int p = 0; p < partitions; p++) {
      all[p] = p;
    }
    PluginControlClient control =
        new PluginControlClient(
            destination.listenerOf(1, PluginControlClient.LISTENER_PROPERTY),
            PluginControlClient.TEST_SECRET);
    PluginControlClient.Response started =
        control.startMirroring(
            mirrorName, source.bootstrapServers(), source.clusterId(), sourceSecurity, topic, all);
    for (int p = 0; p < partitions; p++) {
      JsonNode result = started.result(topic, p);
      if (result == null || result.has("error")) {
        throw new IllegalStateException(
            "mirror/start of "
                + topic
                + "-"
                + p
                + " on cluster "
                + destination.name()
                + " refused: "
                + result
                + "; see that broker's node.log");
      }
    }
  }

  /** True when every partition of {@code goal} has at least its offset in {@code ends}. */
  private static boolean reached(Map<TopicPartition, Long> ends, Map<TopicPartition, Long> goal) {
    return goal.entrySet().stream()
        .allMatch(e -> ends.getOrDefault(e.getKey(), -1L) >= e.getValue());
  }

  /**
   * Adds the follower broker ({@link #followerBroker}, broker 2 with one source broker) as a second
   * replica of every partition (led as on the source) and waits until it is in every partition's
   * ISR: it fetches from every leader at once, one fetcher thread per leader broker.
   *
   * <p>In the ISR of every partition means caught up, also with live writes once the writer has
   * stopped and every record it sent is acknowledged (acks=all): a record acknowledged before the
   * follower joined a partition's ISR is below the high watermark it had to reach to join, and one
   * acknowledged after it waited for the follower.
   */
  private Copy replicationSide(KafkaCluster cluster, String topic) throws Exception {
    try (Admin admin = cluster.admin()) {
      Map<TopicPartition, Optional<NewPartitionReassignment>> reassignment = new HashMap<>();
      for (int p = 0; p < partitions; p++) {
        reassignment.put(
            new TopicPartition(topic, p),
            Optional.of(new NewPartitionReassignment(List.of(leaderOf(p), followerBroker()))));
      }
      String what =
          "broker "
              + followerBroker()
              + " of cluster "
              + cluster.name()
              + " in the ISR of every partition of "
              + topic;
      long[] start = {0};
      long[] first = {-1};
      Check inSync =
          () -> {
            if (first[0] < 0 && holdsRecords(admin, followerBroker(), topic)) {
              first[0] = System.nanoTime() - start[0];
            }
            TopicDescription d =
                admin
                    .describeTopics(List.of(topic))
                    .allTopicNames()
                    .get(30, TimeUnit.SECONDS)
                    .get(topic);
            for (TopicPartitionInfo info : d.partitions()) {
              if (info.isr().stream().noneMatch(n -> n.id() == followerBroker())) {
                return false;
              }
            }
            return true;
          };
      try (PacedWriter writer = writerInto(cluster, topic)) {
        start[0] = System.nanoTime();
        admin.alterPartitionReassignments(reassignment).all().get(60, TimeUnit.SECONDS);
        awaitUntil(what, inSync);
        if (writer != null) {
          writer.stopAndFlush();
          awaitUntil(what + " after the live writes", inSync);
        }
        long nanos = System.nanoTime() - start[0];
        return new Copy(nanos, first[0], sumOfLogEnds(cluster, topic));
      }
    }
  }

  /** True when broker {@code brokerId} holds a replica of {@code topic} with bytes in it. */
  private static boolean holdsRecords(Admin admin, int brokerId, String topic) throws Exception {
    return admin
        .describeLogDirs(List.of(brokerId))
        .allDescriptions()
        .get(30, TimeUnit.SECONDS)
        .getOrDefault(brokerId, Map.of())
        .values()
        .stream()
        .flatMap(dir -> dir.replicaInfos().entrySet().stream())
        .anyMatch(e -> e.getKey().topic().equals(topic) && e.getValue().size() > 0);
  }

  /** Per partition, the log end (the high watermark: RF 1 here, or all replicas in sync). */
  static Map<TopicPartition, Long> logEnds(KafkaCluster cluster, String topic) throws Exception {
    try (Admin admin = cluster.admin()) {
      TopicDescription d =
          admin.describeTopics(List.of(topic)).allTopicNames().get(30, TimeUnit.SECONDS).get(topic);
      Map<TopicPartition, OffsetSpec> latest = new HashMap<>();
      for (TopicPartitionInfo info : d.partitions()) {
        latest.put(new TopicPartition(topic, info.partition()), OffsetSpec.latest());
      }
      Map<TopicPartition, Long> ends = new HashMap<>();
      admin
          .listOffsets(latest)
          .all()
          .get(30, TimeUnit.SECONDS)
          .forEach((tp, info) -> ends.put(tp, info.offset()));
      return ends;
    }
  }

  static long sumOfLogEnds(KafkaCluster cluster, String topic) throws Exception {
    return logEnds(cluster, topic).values().stream().mapToLong(Long::longValue).sum();
  }

  private static void awaitLeaders(Admin admin, String topic) throws Exception {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
    while (System.nanoTime() < deadline) {
      try {
        TopicDescription d =
            admin
                .describeTopics(List.of(topic))
                .allTopicNames()
                .get(30, TimeUnit.SECONDS)
                .get(topic);
        if (d.partitions().stream().allMatch(p -> p.leader() != null && !p.leader().isEmpty())) {
          return;
        }
      } catch (java.util.concurrent.ExecutionException e) {
        // Not in the answering broker's metadata yet.
      }
      Thread.sleep(POLL_MS);
    }
    throw new IllegalStateException(topic + " has partitions without a leader after 60 s");
  }

  static void deleteTopic(KafkaCluster cluster, String topic) {
    try (Admin admin = cluster.admin()) {
      admin.deleteTopics(List.of(topic)).all().get(60, TimeUnit.SECONDS);
    } catch (Exception e) {
      System.out.println(
          "could not delete " + topic + " on cluster " + cluster.name() + ": " + e.getMessage());
    }
  }

  /** A condition polled every {@link #POLL_MS}. */
  interface Check {
    boolean done() throws Exception;
  }

  static void awaitUntil(String what, Check check) throws Exception {
    long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(SIDE_TIMEOUT_MS);
    while (!check.done()) {
      if (System.nanoTime() > deadline) {
        throw new IllegalStateException(
            "timed out after " + SIDE_TIMEOUT_MS + " ms waiting for: " + what);
      }
      Thread.sleep(POLL_MS);
    }
  }

  /** A value of /proc/&lt;pid&gt;/status in KiB (VmRSS, VmHWM); -1 when unreadable. */
  static long procStatusKiB(long pid, String field) {
    try {
      for (String line : java.nio.file.Files.readAllLines(Path.of("/proc/" + pid + "/status"))) {
        if (line.startsWith(field + ":")) {
          return Long.parseLong(line.replaceAll("[^0-9]", ""));
        }
      }
    } catch (java.io.IOException | NumberFormatException e) {
      return -1;
    }
    return -1;
  }

  static String loadAverage() {
    try {
      String[] f = java.nio.file.Files.readString(Path.of("/proc/loadavg")).split(" ");
      return f[0] + " / " + f[1] + " / " + f[2];
    } catch (java.io.IOException e) {
      return "?";
    }
  }

  static double median(double[] values) {
    double[] sorted = values.clone();
    java.util.Arrays.sort(sorted);
    int n = sorted.length;
    return n % 2 == 1 ? sorted[n / 2] : (sorted[n / 2 - 1] + sorted[n / 2]) / 2;
  }

  private static String spread(double[] values) {
    double min = java.util.Arrays.stream(values).min().orElse(Double.NaN);
    double max = java.util.Arrays.stream(values).max().orElse(Double.NaN);
    double med = median(values);
    return String.format(
        Locale.ROOT,
        "%.2f-%.2f (%+.0f %% / %+.0f %%)",
        min,
        max,
        100 * (min - med) / med,
        100 * (max - med) / med);
  }
}
