package dev.kafkamirror.broker.agent.bench;

import dev.kafkamirror.testing.kafka.KafkaCluster;
import dev.kafkamirror.testing.process.ProcessReaper;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.URL;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * One run of Apache Kafka's MirrorMaker 2 (connect-mirror {@value #VERSION}) as a dedicated
 * MirrorMaker process in a JVM of its own, mirroring one topic from a source cluster into a target
 * cluster, tuned as a careful user would tune it for throughput (see {@link #properties}).
 *
 * <p>The classpath comes from the {@code cmo-mirrormaker2-runtime} module (resolved by Maven,
 * listed in a classpath resource), so none of MirrorMaker's jars (Kafka 4.3.1 clients, Connect,
 * Jetty) land on the benchmark's own classpath. The process is registered with the {@link
 * ProcessReaper} and stopped (SIGTERM, then SIGKILL after 30 s) before {@link #mirror} returns or
 * throws.
 *
 * <p>Not thread-safe; the benchmark calls it from its one thread.
 */
final class MirrorMakerProcess {

  static final String VERSION = "4.3.1";
  private static final String MAIN_CLASS = "org.apache.kafka.connect.mirror.MirrorMaker";
  private static final long POLL_MS = 100;
  private static final long TIMEOUT_MS = TimeUnit.MINUTES.toMillis(20);
  private static final long STOP_WAIT_MS = 30_000;

  private MirrorMakerProcess() {}

  /** What the MirrorMaker side needs to know about the clusters and the tuning. */
  record Settings(
      String sourceBootstrap,
      Map<String, String> sourceSecurity,
      String targetBootstrap,
      String compression,
      int tasksMax,
      String heap) {}

  /**
   * Nanoseconds from the JVM's launch and from the first record seen on the target until the
   * target's log ends summed to the source's, the records copied then, and the JVM's peak RSS
   * (VmHWM) in KiB.
   */
  record Timing(long totalNanos, long steadyNanos, long records, long peakRssKiB) {}

  /** What the copy must reach once it holds the backlog: the source's record count then. */
  interface Tail {
    long recordsToCopy(long backlog) throws Exception;
  }

  /**
   * Pre-creates {@code topic} on the target (so MirrorMaker's topic creation is not timed), starts
   * MirrorMaker for it, waits until the target holds every source record of the start, asks {@code
   * tail} how many it must hold in all (more when the source took writes meanwhile), waits for
   * those, and stops MirrorMaker.
   */
  static Timing mirror(
      Settings settings,
      KafkaCluster source,
      KafkaCluster target,
      String topic,
      int partitions,
      Tail tail)
      throws Exception {
    target.createTopic(topic, partitions, 1, Map.of());
    long sourceRecords = MirrorThroughputBenchmark.sumOfLogEnds(source, topic);
    boolean backlogCopied = false;
    Path dir =
        Path.of(
            System.getProperty(
                "cmo.test.workdir", System.getProperty("java.io.tmpdir") + "/cmo-test-work"),
            "tp-mm2",
            topic);
    Files.createDirectories(dir);
    Path config = dir.resolve("mm2.properties");
    Files.writeString(config, properties(settings, topic), StandardCharsets.UTF_8);
    Path log4j = dir.resolve("log4j2.properties");
    Files.writeString(log4j, LOG4J, StandardCharsets.UTF_8);
    Path argFile = dir.resolve("classpath.args");
    Files.writeString(argFile, "-cp \"" + classpath() + "\"\n", StandardCharsets.UTF_8);
    Path output = dir.resolve("mirrormaker.log");
    List<String> command = new ArrayList<>();
    command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    command.addAll(
        List.of(
            "-Xms256m",
            "-Xmx" + settings.heap(),
            "-XX:+UseG1GC",
            // A task that runs out of heap ends the process, so the run fails instead of waiting
            // for a copy that cannot finish (seen with a 1 GiB heap and a 1 GiB backlog).
            "-XX:+ExitOnOutOfMemoryError",
            "-XX:MaxGCPauseMillis=20",
            "-Djava.awt.headless=true",
            "-Dlog4j2.configurationFile=" + log4j,
            "-Dcmo.parent.pid=" + ProcessHandle.current().pid(),
            "@" + argFile,
            MAIN_CLASS,
            config.toString(),
            "--clusters",
            "target"));
    long start = System.nanoTime();
    Process process =
        new ProcessBuilder(command)
            .redirectErrorStream(true)
            .redirectOutput(output.toFile())
            .start();
    ProcessReaper.instance().register(process.toHandle());
    try {
      long first = -1;
      long deadline = start + TimeUnit.MILLISECONDS.toNanos(TIMEOUT_MS);
      long peak = 0;
      while (true) {
        long copied = MirrorThroughputBenchmark.sumOfLogEnds(target, topic);
        long now = System.nanoTime();
        if (first < 0 && copied > 0) {
          first = now;
        }
        peak = Math.max(peak, MirrorThroughputBenchmark.procStatusKiB(process.pid(), "VmHWM"));
        if (copied >= sourceRecords && !backlogCopied) {
          backlogCopied = true;
          sourceRecords = tail.recordsToCopy(sourceRecords);
        }
        if (copied >= sourceRecords) {
          return new Timing(now - start, now - first, copied, peak);
        }
        if (!process.isAlive()) {
          throw new IllegalStateException(
              "MirrorMaker 2 (pid "
                  + process.pid()
                  + ") exited with "
                  + process.exitValue()
                  + " after copying "
                  + copied
                  + " of "
                  + sourceRecords
                  + " records of "
                  + topic
                  + "; see "
                  + output);
        }
        if (now > deadline) {
          throw new IllegalStateException(
              "MirrorMaker 2 copied only "
                  + copied
                  + " of "
                  + sourceRecords
                  + " records of "
                  + topic
                  + " in "
                  + TIMEOUT_MS
                  + " ms; see "
                  + output);
        }
        Thread.sleep(POLL_MS);
      }
    } finally {
      stop(process);
    }
  }

  private static void stop(Process process) {
    process.destroy();
    try {
      if (!process.waitFor(STOP_WAIT_MS, TimeUnit.MILLISECONDS)) {
        ProcessReaper.killTree(process.toHandle());
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      ProcessReaper.killTree(process.toHandle());
    } finally {
      ProcessReaper.instance().unregister(process.toHandle());
    }
  }

  /**
   * The mm2.properties: source to target only, the one topic, topic names kept (identity policy),
   * replication factor 1 for everything on these single-broker clusters, no checkpoints (there are
   * no consumer groups to translate), and a throughput tuning: 512 KiB batches, linger 20 ms, 5
   * requests in flight, acks=all, the source's compression, consumer fetches of at least 1 MiB.
   * Offset syncs stay on (the default): they are what lets MirrorMaker 2 translate offsets, the
   * closest it comes to what the plugin gives.
   */
  static String properties(Settings s, String topic) {
    return String.join(
            "\n",
            "clusters = source, target",
            "source.bootstrap.servers = " + s.sourceBootstrap(),
            sourceSecurityLines(s),
            "target.bootstrap.servers = " + s.targetBootstrap(),
            "source->target.enabled = true",
            "source->target.topics = " + topic,
            "target->source.enabled = false",
            "replication.policy.class = org.apache.kafka.connect.mirror.IdentityReplicationPolicy",
            "tasks.max = " + s.tasksMax(),
            "replication.factor = 1",
            "offset-syncs.topic.replication.factor = 1",
            "heartbeats.topic.replication.factor = 1",
            "checkpoints.topic.replication.factor = 1",
            "offset.storage.replication.factor = 1",
            "status.storage.replication.factor = 1",
            "config.storage.replication.factor = 1",
            "emit.checkpoints.enabled = false",
            "sync.group.offsets.enabled = false",
            "sync.topic.acls.enabled = false",
            "target.producer.batch.size = " + 512 * 1024,
            "target.producer.linger.ms = 20",
            "target.producer.max.in.flight.requests.per.connection = 5",
            "target.producer.acks = all",
            "target.producer.compression.type = " + s.compression(),
            "target.producer.buffer.memory = " + 128L * 1024 * 1024,
            "source.consumer.fetch.min.bytes = " + 1024 * 1024,
            "source.consumer.fetch.max.wait.ms = 100",
            "source.consumer.max.partition.fetch.bytes = " + 2 * 1024 * 1024,
            "source.consumer.fetch.max.bytes = " + 64 * 1024 * 1024,
            "source.consumer.max.poll.records = 2000")
        + "\n";
  }

  /** The source's client security settings under MirrorMaker's {@code source.} prefix. */
  private static String sourceSecurityLines(Settings s) {
    StringBuilder lines = new StringBuilder("# source client security");
    s.sourceSecurity()
        .forEach(
            (key, value) ->
                lines
                    .append("\nsource.")
                    .append(key)
                    .append(" = ")
                    .append(dev.kafkamirror.testing.tls.TestCertificates.inline(value)));
    return lines.toString();
  }

  private static final String LOG4J =
      String.join(
          "\n",
          "status = warn",
          "appender.out.type = Console",
          "appender.out.name = STDOUT",
          "appender.out.layout.type = PatternLayout",
          "appender.out.layout.pattern = [%d] %p %m (%c)%n",
          "rootLogger.level = INFO",
          "rootLogger.appenderRef.out.ref = STDOUT",
          "");

  /** The MirrorMaker classpath listed by cmo-mirrormaker2-runtime; every entry must exist. */
  private static String classpath() {
    String resource = "META-INF/cmo/mirrormaker2-" + VERSION + ".classpath";
    URL listing = MirrorMakerProcess.class.getClassLoader().getResource(resource);
    if (listing == null) {
      throw new IllegalStateException(
          "the MirrorMaker 2 runtime is not on the test classpath: resource "
              + resource
              + " is missing; build e2e/mirrormaker2-runtime (./mvnw -pl broker-plugin/agent -am"
              + " package -DskipTests) and run with -Dexec.classpathScope=test");
    }
    try (InputStream in = listing.openStream()) {
      String text = new String(in.readAllBytes(), StandardCharsets.UTF_8).trim();
      for (String entry : text.split(":")) {
        if (!entry.isBlank() && !Files.exists(Path.of(entry))) {
          throw new IllegalStateException(
              "MirrorMaker 2 classpath entry "
                  + entry
                  + " (from "
                  + listing
                  + ") does not exist; rebuild e2e/mirrormaker2-runtime");
        }
      }
      return text;
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read " + listing, e);
    }
  }
}
