package dev.kafkamirror.operator.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.kafkamirror.operator.api.v1alpha1.ClusterMirror;
import dev.kafkamirror.operator.api.v1alpha1.ClusterMirrorStatus;
import dev.kafkamirror.operator.api.v1alpha1.Conditions;
import dev.kafkamirror.operator.api.v1alpha1.MirrorState;
import dev.kafkamirror.operator.core.MetadataRequestPlanner;
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
 * ./mvnw -B verify -pl operator/controller -am -Dtest=NONE -Dsurefire.failIfNoSpecifiedTests=false \
 *   -Dit.test=FailoverLatencyBenchmark -Dfailsafe.failIfNoSpecifiedTests=false \
 *   -Dcmo.bench.sizes=100,1000 -Dcmo.bench.runs=5 [-Dcmo.bench.modes=quiescent,open]
 *   [-Dcmo.bench.settle=replicated|idle|quiet|mirroring] [-Dcmo.bench.quietCpu=0.25]
 *   [-Dcmo.bench.brokerHeap=2g]
 *   [-Dcmo.bench.destinationBrokerProperties=num.replica.fetchers=4,...]
 *   [-Dcmo.bench.profileDir=/tmp/stop-jfr [-Dcmo.bench.jfrSettings=/tmp/low-thresholds.jfc]]
 * </pre>
 *
 * <p>Profiling: with {@code cmo.bench.profileDir}, every run's stop (from just before the patch to
 * {@code Stopped=True}) is recorded with Java Flight Recorder ({@code settings=profile}) in each
 * destination broker (by {@code jcmd}) and in this JVM, which runs the operator: one file per JVM
 * and run, {@code <size>-<mode>-<run>-broker-<id>.jfr} and {@code ...-operator.jfr}.
 *
 * <p>Broker heap: every Kafka node (source, destination brokers and controller) runs with the
 * harness's 512 MiB unless {@code cmo.bench.brokerHeap} sets another -Xms/-Xmx. At 10,000
 * partitions (each destination broker holds a replica of every one) 512 MiB is not enough: all
 * three destination brokers ended with OutOfMemoryError five minutes after the mirror started.
 *
 * <p>Destination broker settings: {@code cmo.bench.destinationBrokerProperties} (comma-separated
 * {@code name=value} pairs) adds settings to the destination's brokers on top of the harness's, for
 * example {@code num.replica.fetchers=4} to see whether the followers' fetcher threads bound a
 * step. A pair without {@code =} fails the run before anything starts.
 *
 * <p>Settle: {@code replicated} (the default) patches the spec once the mirror is at lag 0, every
 * destination partition has its full ISR and every replica is registered as a mirror on its broker
 * (registry files), as an established mirror would, although the operator's last start rounds and
 * their status write may still be running then; {@code idle} waits after that until the resource
 * has not been written for 5 s (the operator waits for its resync, as it does for an established
 * mirror between two resyncs); {@code quiet} waits after {@code idle} until the machine's CPU
 * (every core, from {@code /proc/stat}) was busy at most {@code cmo.bench.quietCpu} (a fraction,
 * default 0.25) over a whole {@value #QUIET_WINDOW_SECONDS} s window, within {@value
 * #QUIET_BOUND_SECONDS} s: the brokers have finished the work the run's set-up left them (topic
 * creation and the previous run's deletion), as on an established mirror; a run whose machine did
 * not get quiet in time is patched anyway and marked so in the table; {@code mirroring} patches as
 * soon as the status shows every partition MIRRORING at lag 0, while the destination may still be
 * creating follower replicas and the operator still starting them (a stop right after a start).
 *
 * <p>Modes: {@code quiescent} (one committed record per partition, nothing to truncate) and {@code
 * open} (then one transactional record per partition in a transaction left open until the stop is
 * done: every partition has something above its last stable offset, so the truncate step fences
 * every partition with a leadership move).
 *
 * <p>The table (every run, with the 1-minute load average when it began) is printed and written to
 * target/failover-latency.md.
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
    String settle = System.getProperty("cmo.bench.settle", "replicated");
    if (!List.of("replicated", "mirroring", "idle", "quiet").contains(settle)) {
      throw new IllegalArgumentException(
          "cmo.bench.settle: unknown value "
              + settle
              + "; use replicated, idle, quiet or mirroring");
    }
    boolean replicatedFirst = !settle.equals("mirroring");
    boolean quietFirst = settle.equals("quiet");
    boolean idleFirst = settle.equals("idle") || quietFirst;
    double quietCpu = Double.parseDouble(System.getProperty("cmo.bench.quietCpu", "0.25"));
    if (!(quietCpu > 0 && quietCpu <= 1)) {
      throw new IllegalArgumentException(
          "cmo.bench.quietCpu: " + quietCpu + " is not a fraction of the CPU in (0, 1]");
    }
    List<String> modes = new ArrayList<>();
    for (String m : System.getProperty("cmo.bench.modes", "quiescent").split(",")) {
      String mode = m.trim();
      if (!mode.equals("quiescent") && !mode.equals("open")) {
        throw new IllegalArgumentException(
            "cmo.bench.modes: unknown mode " + mode + "; use quiescent, open or both");
      }
      modes.add(mode);
    }
    StringBuilder table = new StringBuilder();
    table.append("settle: ").append(settle);
    if (quietFirst) {
      table.append(" (CPU busy at most ").append(quietCpu).append(" over ");
      table.append(QUIET_WINDOW_SECONDS).append(" s)");
    }
    table.append("\n\n");
    table.append(
        "| partitions | mode | runs | median ms | min ms | max ms | all runs ms | load average"
            + " (1 min) at each run | CPU busy in the "
            + QUIET_WINDOW_SECONDS
            + " s before each patch |\n");
    table.append("|---:|---|---:|---:|---:|---:|---|---|---|\n");
    try (OperatorTestEnvironment env = OperatorTestEnvironment.start()) {
      KubernetesClient client = env.client();
      KafkaCluster source =
          env.startCluster(
              withHeap(
                  KafkaClusterConfig.builder("bench-a")
                      .singleNode()
                      .brokerProperty("num.partitions", "1")
                      // the logs of a run's deleted topic go within seconds, not a minute
                      .brokerProperty("file.delete.delay.ms", "1000")));
      KafkaCluster destination =
          env.startCluster(
              withHeap(
                  withDestinationProperties(
                      MirrorFixtures.destination("bench-b")
                          .controllerPlusBrokers(3)
                          .brokerProperty("file.delete.delay.ms", "1000"))));
      env.installCrdAndNamespaces(NS);
      env.startOperator(Map.of("CMO_RESYNC_MS", "30000"));
      for (int size : sizes) {
        for (String mode : modes) {
          boolean open = mode.equals("open");
          List<Long> millis = new ArrayList<>();
          List<String> loads = new ArrayList<>();
          List<String> cpus = new ArrayList<>();
          for (int run = 0; run < runs; run++) {
            String topic = "bench-" + size + "-" + mode + "-" + run;
            createInSteps(source, topic, size);
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
            awaitMirroredAtLagZero(client, topic, size);
            if (replicatedFirst) {
              // A failover stops an established mirror: the destination has created every
              // follower replica (at 1,000 partitions, RF 3, on 2 cores, that takes the brokers
              // up to a minute after the topic's creation, and the stop would share their time).
              awaitFullyReplicated(destination, topic, size);
              awaitEveryReplicaRegistered(destination, topic, size * 3);
              awaitMirroredAtLagZero(client, topic, size);
            }
            if (idleFirst) {
              // The operator's last start rounds end after the registrations: its status write
              // and the reconcile before it would otherwise overlap the patch.
              awaitStatusUnchangedFor(client, topic, IDLE_QUIET, setupBound(size));
            }
            KafkaProducer<String, String> openTransaction = null;
            if (open) {
              // One record per partition in a transaction that stays open until the stop is done.
              openTransaction = openTransactionInEveryPartition(source, topic, size);
              awaitMirroredAtLagZero(client, topic, size);
            }
            String cpu = "-";
            if (quietFirst) {
              // Last before the patch: after the open transaction too, whose mirroring is work.
              cpu = awaitQuietCpu(topic, quietCpu);
            }
            cpus.add(cpu);
            String load = loadAverage();
            loads.add(load);
            // the prefix docs/bench-scripts/failover-phases.py reads
            String runName = "failover " + size + " partitions " + mode + " run " + run;
            System.out.println(
                runName
                    + ": patching spec.state at "
                    + Instant.now()
                    + " (load average "
                    + load
                    + ", CPU busy "
                    + cpu
                    + ")");
            StopProfile profile = StopProfile.start(destination, size + "-" + mode + "-" + run);
            long start = System.nanoTime();
            client
                .resources(ClusterMirror.class)
                .inNamespace(NS)
                .withName(topic)
                // A merge patch of the spec alone, as `kubectl patch --type merge` sends: an
                // edit (read, then patch with its resourceVersion) failed with a conflict when the
                // operator's status write landed in between.
                .patch(
                    io.fabric8.kubernetes.client.dsl.base.PatchContext.of(
                        io.fabric8.kubernetes.client.dsl.base.PatchType.JSON_MERGE),
                    "{\"spec\":{\"state\":\"" + MirrorState.Stopped.name() + "\"}}");
            System.out.println(
                runName
                    + ": the API server answered the patch after "
                    + TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start)
                    + " ms");
            // A watch, not a poll: reading a 1,000-partition status every 20 ms loaded the API
            // server the operator writes the status through.
            client
                .resources(ClusterMirror.class)
                .inNamespace(NS)
                .withName(topic)
                .waitUntilCondition(
                    cr -> cr != null && stopped(cr.getStatus()),
                    setupBound(size).toMinutes(),
                    TimeUnit.MINUTES);
            long ms = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
            profile.dump();
            millis.add(ms);
            System.out.println(runName + ": " + ms + " ms");
            if (openTransaction != null) {
              // The mirror is stopped: the abort markers stay on the source.
              openTransaction.abortTransaction();
              openTransaction.close(Duration.ofSeconds(30));
            }
            // Each run starts from brokers without the previous runs' partitions.
            client.resources(ClusterMirror.class).inNamespace(NS).withName(topic).delete();
            for (KafkaCluster c : List.of(source, destination)) {
              try (org.apache.kafka.clients.admin.Admin admin = c.admin()) {
                admin.deleteTopics(List.of(topic)).all().get(120, TimeUnit.SECONDS);
              }
            }
            // Deletion is asynchronous: until the logs are gone their files stay open. At 10,000
            // partitions the source broker then ran out of file descriptors (20,000 here) while
            // creating the next run's topic, left 147 of its partitions in the metadata but not
            // hosted, and answered NOT_LEADER_OR_FOLLOWER for them for good.
            for (KafkaCluster c : List.of(source, destination)) {
              awaitLogsDeleted(c, topic, setupBound(size));
            }
          }
          List<Long> sorted = new ArrayList<>(millis);
          Collections.sort(sorted);
          long median = sorted.get(sorted.size() / 2);
          table
              .append("| ")
              .append(size)
              .append(" | ")
              .append(mode)
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
              .append(" | ")
              .append(loads)
              .append(" | ")
              .append(cpus)
              .append(" |\n");
        }
      }
    }
    System.out.println(table);
    Path out = Path.of("target", "failover-latency.md");
    Files.createDirectories(out.getParent());
    Files.writeString(out, table.toString(), StandardCharsets.UTF_8);
  }

  /** How long the resource must stay unwritten for {@code cmo.bench.settle=idle}. */
  private static final Duration IDLE_QUIET = Duration.ofSeconds(5);

  /**
   * Waits until the resource's resourceVersion has not changed for {@code quiet} (read every
   * second), within {@code bound}: the operator has written the status of its last start round and
   * waits for its resync.
   */
  private static void awaitStatusUnchangedFor(
      KubernetesClient client, String topic, Duration quiet, Duration bound) {
    long deadline = System.nanoTime() + bound.toNanos();
    String version = null;
    long sameSince = System.nanoTime();
    while (System.nanoTime() - sameSince < quiet.toNanos()) {
      if (System.nanoTime() - deadline > 0) {
        throw new IllegalStateException(
            "ClusterMirror "
                + NS
                + "/"
                + topic
                + " was written at least every "
                + quiet.toSeconds()
                + " s for "
                + bound
                + ": the operator does not settle");
      }
      ClusterMirror cr =
          client.resources(ClusterMirror.class).inNamespace(NS).withName(topic).get();
      String now = cr == null ? null : cr.getMetadata().getResourceVersion();
      if (!java.util.Objects.equals(now, version)) {
        version = now;
        sameSince = System.nanoTime();
      }
      pauseOneSecond(topic + " to settle");
    }
  }

  /** Sleeps a second; interrupted, it says what it was waiting for. */
  private static void pauseOneSecond(String waitingFor) {
    try {
      Thread.sleep(1_000L);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while waiting for " + waitingFor);
    }
  }

  private static void awaitMirroredAtLagZero(KubernetesClient client, String topic, int size) {
    await()
        .atMost(setupBound(size))
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
  }

  /** Waits until every partition of {@code topic} on {@code destination} has its full ISR. */
  private static void awaitFullyReplicated(KafkaCluster destination, String topic, int size) {
    try (org.apache.kafka.clients.admin.Admin admin = destination.admin()) {
      awaitEveryPartition(admin, topic, size, p -> assertThat(p.isr()).hasSameSizeAs(p.replicas()));
    }
  }

  /**
   * Waits, within the set-up bound, until {@code topic} has {@code size} partitions and each
   * satisfies {@code check}.
   */
  private static void awaitEveryPartition(
      org.apache.kafka.clients.admin.Admin admin,
      String topic,
      int size,
      java.util.function.Consumer<org.apache.kafka.common.TopicPartitionInfo> check) {
    await()
        .atMost(setupBound(size))
        .pollInterval(Duration.ofMillis(500))
        .ignoreExceptions()
        .untilAsserted(
            () -> {
              org.apache.kafka.clients.admin.TopicDescription d =
                  admin
                      .describeTopics(List.of(topic))
                      .allTopicNames()
                      .get(30, TimeUnit.SECONDS)
                      .get(topic);
              assertThat(d.partitions()).hasSize(size);
              assertThat(d.partitions()).allSatisfy(check::accept);
            });
  }

  /**
   * Waits until the destination's brokers hold {@code replicas} MIRRORING registrations of {@code
   * topic} in their registry files, leaders' and followers' (the operator starts the followers
   * after their replicas exist, which at 1,000 partitions can take it a minute past the full ISR).
   */
  private static void awaitEveryReplicaRegistered(
      KafkaCluster destination, String topic, int replicas) {
    int size = replicas / 3;
    com.fasterxml.jackson.databind.ObjectMapper json =
        new com.fasterxml.jackson.databind.ObjectMapper();
    await()
        .atMost(setupBound(size))
        .pollInterval(Duration.ofMillis(500))
        .ignoreExceptions()
        .untilAsserted(
            () -> {
              int registered = 0;
              for (int id : destination.brokerIds()) {
                Path file = destination.logDir(id).resolve("cluster-mirror-registry.json");
                if (!Files.exists(file)) {
                  continue;
                }
                for (com.fasterxml.jackson.databind.JsonNode row : json.readTree(file.toFile())) {
                  if (topic.equals(row.path("topic").asText())
                      && "MIRRORING".equals(row.path("state").asText())) {
                    registered++;
                  }
                }
              }
              assertThat(registered).as("MIRRORING registrations of " + topic).isEqualTo(replicas);
            });
  }

  /**
   * A transactional producer that wrote one record to each partition of {@code topic} and left its
   * transaction open (timeout 10 minutes, so that the source's coordinator does not abort it during
   * the run); the caller closes it.
   */
  private static KafkaProducer<String, String> openTransactionInEveryPartition(
      KafkaCluster source, String topic, int size) {
    java.util.Properties props = new java.util.Properties();
    props.put("bootstrap.servers", source.bootstrapServers());
    props.put("transactional.id", topic + "-open");
    props.put("transaction.timeout.ms", "600000");
    props.put(
        "key.serializer", org.apache.kafka.common.serialization.StringSerializer.class.getName());
    props.put(
        "value.serializer", org.apache.kafka.common.serialization.StringSerializer.class.getName());
    KafkaProducer<String, String> p = new KafkaProducer<>(props);
    try {
      p.initTransactions();
      p.beginTransaction();
      for (int part = 0; part < size; part++) {
        p.send(new ProducerRecord<>(topic, part, "k", "open" + part));
      }
      p.flush();
      return p;
    } catch (RuntimeException e) {
      p.close(Duration.ZERO);
      throw e;
    }
  }

  /**
   * Flight recordings of one stop in the destination brokers and this JVM when {@code
   * cmo.bench.profileDir} is set; nothing otherwise. A recording that cannot be started or dumped
   * is reported and skipped: profiling never fails a run.
   */
  private static final class StopProfile {
    private final Path dir;
    private final String label;
    private final Map<Integer, Long> brokerPids;
    private final jdk.jfr.Recording own;

    private StopProfile(
        Path dir, String label, Map<Integer, Long> brokerPids, jdk.jfr.Recording own) {
      this.dir = dir;
      this.label = label;
      this.brokerPids = brokerPids;
      this.own = own;
    }

    static StopProfile start(KafkaCluster destination, String label) throws Exception {
      String dirName = System.getProperty("cmo.bench.profileDir");
      if (dirName == null || dirName.isBlank()) {
        return new StopProfile(null, label, Map.of(), null);
      }
      Path dir = Path.of(dirName).toAbsolutePath();
      Files.createDirectories(dir);
      Map<Integer, Long> pids = new java.util.LinkedHashMap<>();
      for (int id : destination.brokerIds()) {
        long pid = destination.node(id).pid();
        if (jcmd(pid, "JFR.start", "name=stop", "settings=" + jfrSettings())) {
          pids.put(id, pid);
        }
      }
      String settings = jfrSettings();
      jdk.jfr.Recording own =
          new jdk.jfr.Recording(
              settings.equals("profile")
                  ? jdk.jfr.Configuration.getConfiguration("profile")
                  : jdk.jfr.Configuration.create(Path.of(settings)));
      own.start();
      return new StopProfile(dir, label, pids, own);
    }

    /**
     * {@code profile}, or the .jfc file {@code cmo.bench.jfrSettings} names (for example one with
     * lower thresholds for parks, monitor waits and file syncs: the profile settings record only
     * those over 10 to 20 ms, and a stop step made of thousands of 2 to 5 ms waits shows none).
     */
    private static String jfrSettings() {
      String settings = System.getProperty("cmo.bench.jfrSettings", "").trim();
      return settings.isEmpty() ? "profile" : Path.of(settings).toAbsolutePath().toString();
    }

    void dump() throws Exception {
      if (dir == null) {
        return;
      }
      brokerPids.forEach(
          (id, pid) -> {
            Path file = dir.resolve(label + "-broker-" + id + ".jfr");
            jcmd(pid, "JFR.stop", "name=stop", "filename=" + file);
          });
      own.stop();
      own.dump(dir.resolve(label + "-operator.jfr"));
      own.close();
    }

    /** Runs {@code jcmd pid args...}; whether it succeeded (a failure is printed). */
    private static boolean jcmd(long pid, String... args) {
      try {
        Jcmd.Result r = Jcmd.run(pid, args);
        if (r.exitCode() != 0) {
          System.out.println(
              "profile: jcmd " + pid + " " + List.of(args) + " failed: " + r.output().strip());
        }
        return r.exitCode() == 0;
      } catch (java.io.IOException | IllegalStateException e) {
        System.out.println("profile: jcmd " + pid + " " + List.of(args) + " failed: " + e);
        return false;
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return false;
      }
    }
  }

  /**
   * Waits, within {@code bound}, until no broker of {@code cluster} has a log directory of {@code
   * topic} left (deleted ones are renamed {@code topic-N.<id>-delete} and removed after {@code
   * file.delete.delay.ms}).
   */
  private static void awaitLogsDeleted(KafkaCluster cluster, String topic, Duration bound) {
    await("the logs of deleted topic " + topic + " removed from " + cluster.name())
        .atMost(bound)
        .pollInterval(Duration.ofSeconds(1))
        .until(
            () -> {
              for (int broker : cluster.brokerIds()) {
                try (java.util.stream.Stream<Path> dirs = Files.list(cluster.logDir(broker))) {
                  if (dirs.anyMatch(d -> d.getFileName().toString().startsWith(topic + "-"))) {
                    return false;
                  }
                }
              }
              return true;
            });
  }

  /** {@code cluster} with the settings of {@code cmo.bench.destinationBrokerProperties}. */
  private static KafkaClusterConfig.Builder withDestinationProperties(
      KafkaClusterConfig.Builder cluster) {
    String pairs = System.getProperty("cmo.bench.destinationBrokerProperties", "");
    for (String pair : pairs.split(",")) {
      if (pair.isBlank()) {
        continue;
      }
      int eq = pair.indexOf('=');
      if (eq <= 0) {
        throw new IllegalArgumentException(
            "cmo.bench.destinationBrokerProperties: '"
                + pair
                + "' is not name=value (comma-separated pairs, e.g. num.replica.fetchers=4)");
      }
      cluster.brokerProperty(pair.substring(0, eq).trim(), pair.substring(eq + 1).trim());
    }
    return cluster;
  }

  /** {@code cluster} with -Xms and -Xmx of {@code cmo.bench.brokerHeap} when it is set. */
  private static KafkaClusterConfig.Builder withHeap(KafkaClusterConfig.Builder cluster) {
    String heap = System.getProperty("cmo.bench.brokerHeap");
    // the last -Xms/-Xmx of a command line wins over the harness's defaults before it
    return heap == null ? cluster : cluster.jvmArg("-Xms" + heap).jvmArg("-Xmx" + heap);
  }

  /**
   * Creates {@code topic} with {@code size} partitions (replication factor 1) in the steps the
   * operator takes ({@link MetadataRequestPlanner}): KRaft refuses an operation of more than 10,000
   * records, one per partition.
   */
  private static void createInSteps(KafkaCluster cluster, String topic, int size) throws Exception {
    MetadataRequestPlanner.Plan plan =
        MetadataRequestPlanner.forCreation(
            Map.of(topic, size), Map.of(), MetadataRequestPlanner.RECORDS_PER_REQUEST);
    try (org.apache.kafka.clients.admin.Admin admin = cluster.admin()) {
      // Not the harness's createTopic: its 30 s wait for every leader ran out at 9,000 partitions
      // on a loaded machine; the set-up bound applies instead (below).
      admin
          .createTopics(
              List.of(
                  new org.apache.kafka.clients.admin.NewTopic(
                      topic, plan.creates().get(0).get(topic), (short) 1)))
          .all()
          .get(120, TimeUnit.SECONDS);
      for (Map<String, Integer> step : plan.grows()) {
        admin
            .createPartitions(
                Map.of(
                    topic,
                    org.apache.kafka.clients.admin.NewPartitions.increaseTo(step.get(topic))))
            .all()
            .get(120, TimeUnit.SECONDS);
      }
      awaitEveryPartition(admin, topic, size, p -> assertThat(p.leader()).isNotNull());
    }
  }

  /**
   * How long one set-up phase (or the stop) may take: 10 minutes up to 3,000 partitions, then 10
   * minutes more per 3,000 (on 2 cores, creating and replicating 10,000 partitions takes the
   * brokers many minutes).
   */
  private static Duration setupBound(int size) {
    return Duration.ofMinutes(10L * Math.max(1, (size + 2_999) / 3_000));
  }

  /** The window over which {@code cmo.bench.settle=quiet} measures the machine's CPU. */
  private static final int QUIET_WINDOW_SECONDS = 5;

  /** How long {@code cmo.bench.settle=quiet} waits for a quiet window before it patches anyway. */
  private static final int QUIET_BOUND_SECONDS = 180;

  /**
   * Waits until the machine's CPU was busy at most {@code threshold} over the last {@value
   * #QUIET_WINDOW_SECONDS} s (sampled every second), or {@value #QUIET_BOUND_SECONDS} s have
   * passed.
   *
   * @return the busy fraction of the last window, as a percentage, followed by " (not quiet)" when
   *     the bound ran out first
   */
  private static String awaitQuietCpu(String topic, double threshold) {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(QUIET_BOUND_SECONDS);
    java.util.ArrayDeque<long[]> samples = new java.util.ArrayDeque<>();
    while (true) {
      samples.addLast(cpuTimes());
      if (samples.size() > QUIET_WINDOW_SECONDS + 1) {
        samples.removeFirst();
      }
      if (samples.size() == QUIET_WINDOW_SECONDS + 1) {
        double busy = busyFraction(samples.getFirst(), samples.getLast());
        String shown = String.format(java.util.Locale.ROOT, "%.0f %%", busy * 100);
        if (busy <= threshold) {
          return shown;
        }
        if (System.nanoTime() - deadline > 0) {
          System.out.println(
              topic
                  + ": the machine's CPU was still "
                  + shown
                  + " busy after "
                  + QUIET_BOUND_SECONDS
                  + " s; patching anyway");
          return shown + " (not quiet)";
        }
      }
      pauseOneSecond("a quiet CPU before " + topic);
    }
  }

  /**
   * The first line of {@code /proc/stat}: {busy, total} in clock ticks over every core, where busy
   * is everything but idle and iowait.
   */
  private static long[] cpuTimes() {
    try {
      String[] f = Files.readAllLines(Path.of("/proc/stat")).get(0).trim().split("\\s+");
      if (!f[0].equals("cpu") || f.length < 6) {
        throw new IllegalStateException("/proc/stat does not start with a cpu line: " + f[0]);
      }
      long total = 0;
      // user nice system idle iowait irq softirq steal; guest time is inside user already
      for (int i = 1; i < Math.min(f.length, 9); i++) {
        total += Long.parseLong(f[i]);
      }
      long idle = Long.parseLong(f[4]) + Long.parseLong(f[5]);
      return new long[] {total - idle, total};
    } catch (java.io.IOException e) {
      throw new IllegalStateException("cannot read /proc/stat for cmo.bench.settle=quiet", e);
    }
  }

  private static double busyFraction(long[] from, long[] to) {
    long total = to[1] - from[1];
    return total <= 0 ? 0 : (double) (to[0] - from[0]) / total;
  }

  /** The 1-minute load average ({@code /proc/loadavg}), or "unknown". */
  private static String loadAverage() {
    try {
      return Files.readString(Path.of("/proc/loadavg")).split(" ")[0];
    } catch (java.io.IOException | RuntimeException e) {
      return "unknown";
    }
  }

  private static boolean stopped(ClusterMirrorStatus s) {
    return Conditions.isStopped(s);
  }

  private static ClusterMirrorStatus status(KubernetesClient client, String name) {
    ClusterMirror cr = client.resources(ClusterMirror.class).inNamespace(NS).withName(name).get();
    return cr == null ? null : cr.getStatus();
  }
}
