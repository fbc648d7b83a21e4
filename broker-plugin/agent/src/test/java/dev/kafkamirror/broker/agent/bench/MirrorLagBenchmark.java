package dev.kafkamirror.broker.agent.bench;

import dev.kafkamirror.testing.kafka.KafkaCluster;
import dev.kafkamirror.testing.kafka.KafkaClusterConfig;
import dev.kafkamirror.testing.plugin.PluginControlClient;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Properties;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.record.TimestampType;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;

/**
 * End-to-end mirror lag under a steady produce rate, and the catch-up after a destination outage
 * (issue 16 item 3). Prints Markdown tables for docs/benchmarks.md. Not a test: it asserts nothing
 * and runs only when called.
 *
 * <pre>
 * ./mvnw -B -q -pl broker-plugin/agent -am package -DskipTests dependency:build-classpath \
 *     -Dmdep.outputFile=/tmp/agent-test.classpath -Dmdep.includeScope=test
 * java -cp broker-plugin/agent/target/test-classes:broker-plugin/agent/target/classes:$(cat /tmp/agent-test.classpath) \
 *     -Dcmo.agent.jar=$PWD/broker-plugin/agent/target/cmo-broker-agent-0.1.0-SNAPSHOT.jar \
 *     [-Dpartitions=24] [-DrecordBytes=1024] [-DcalibrateMiB=64] [-DthroughputMiBs=..] [-Drate=..] \
 *     [-DwarmupSeconds=20] [-DsteadySeconds=60] [-DoutageSeconds=60] [-DcatchUpTimeoutSeconds=600] \
 *     [-DpreferredElection=false] \
 *     dev.kafkamirror.broker.agent.bench.MirrorLagBenchmark
 * </pre>
 *
 * <p>Set-up: a single-node source and a destination of a controller plus 3 brokers, every broker
 * with the agent. One topic of P partitions: on the source RF 1 with {@code
 * message.timestamp.type=LogAppendTime}, so that every batch carries the source broker's append
 * time; on the destination RF 3, {@code min.insync.replicas=2}, mirrored with every replica
 * registered (one {@code mirror/start} per broker). The plugin appends the source's batches as they
 * are (a follower-style append), so a destination record's timestamp is its source append time; the
 * benchmark checks this on a sample at the end (same offset, timestamp, timestamp type and value on
 * both sides).
 *
 * <p>Phases:
 *
 * <ol>
 *   <li><b>Rate</b>: {@code -Drate} records/s when given; else half of {@code -DthroughputMiBs};
 *       else half of a calibration: {@code -DcalibrateMiB} MiB preloaded on the source, timed from
 *       the first {@code mirror/start} call until the destination's high watermarks equal the
 *       source's log ends.
 *   <li><b>Steady</b>: a producer thread sends at that rate (a rate limiter on a 5 ms tick, the
 *       partitions in turn); a consumer on the destination (read_uncommitted, every partition
 *       assigned, from the log end) stamps each record with the wall clock when {@code poll}
 *       returned it; lag = that time minus the record's timestamp (its source append time). All
 *       JVMs run on this machine and read the same clock. The receive time is an upper bound of the
 *       time the record became readable on the destination: after the leader's append and after the
 *       followers fetched it (the high watermark), plus the consumer's own fetch and poll. A second
 *       consumer on the source measures that floor: append to receive on the source itself. Figures
 *       are taken over records whose source append time falls in the steady window ({@code
 *       -DsteadySeconds}, after {@code -DwarmupSeconds}).
 *   <li><b>Outage</b> ({@code -DoutageSeconds} &gt; 0): every destination broker is stopped
 *       (SIGTERM, in parallel; the KRaft controller stays up) while the producer keeps going; after
 *       the outage (measured from the stop call) all brokers are restarted in parallel. Figures:
 *       the backlog (source log ends at the restart call minus the destination's high watermarks
 *       just before the stop), the time from the restart call until every broker is registered,
 *       until the destination's high watermarks reach the source's log ends as they were at the
 *       restart call ("backlog drained"), and until the lag is back to the steady p99 (the end of
 *       the first whole second, counted from the restart call, in which the destination consumer
 *       received records and their p99 lag was at most the steady p99). Also: until the first
 *       record reaches the destination consumer, the records it received per 10 s, and the leaders
 *       per broker. With {@code -DpreferredElection=true} a preferred-leader election is asked for
 *       every second after the restart until every partition has its preferred leader (after a
 *       restart of all brokers the first one back may lead every partition: seen in
 *       docs/benchmarks.md).
 * </ol>
 *
 * <p>Every process it starts is stopped at the end, also on failure: the clusters in
 * try-with-resources (their close stops every node, also one left stopped or half-restarted), the
 * producer and consumer threads in an inner try-with-resources closed before them, the {@link
 * dev.kafkamirror.testing.process.ProcessReaper} behind the clusters. The main thread drives the
 * clusters; the producer and the two consumers each own their client and thread.
 */
public final class MirrorLagBenchmark {

  private static final String TOPIC = "lag";
  private static final long POLL_MS = 100;

  private final Path agent;
  private final int partitions;
  private final int recordBytes;
  private final int calibrateMiB;
  private final double throughputMiBs;
  private final double rate;
  private final int warmupSeconds;
  private final int steadySeconds;
  private final int outageSeconds;
  private final int catchUpTimeoutSeconds;
  private final boolean preferredElection;

  private MirrorLagBenchmark() {
    this.agent =
        Path.of(
            System.getProperty(
                "cmo.agent.jar", "broker-plugin/agent/target/cmo-broker-agent-0.1.0-SNAPSHOT.jar"));
    this.partitions = Integer.getInteger("partitions", 24);
    this.recordBytes = Integer.getInteger("recordBytes", 1024);
    this.calibrateMiB = Integer.getInteger("calibrateMiB", 64);
    this.throughputMiBs = Double.parseDouble(System.getProperty("throughputMiBs", "0"));
    this.rate = Double.parseDouble(System.getProperty("rate", "0"));
    this.warmupSeconds = Integer.getInteger("warmupSeconds", 20);
    this.steadySeconds = Integer.getInteger("steadySeconds", 60);
    this.outageSeconds = Integer.getInteger("outageSeconds", 60);
    this.catchUpTimeoutSeconds = Integer.getInteger("catchUpTimeoutSeconds", 600);
    this.preferredElection = Boolean.getBoolean("preferredElection");
  }

  public static void main(String[] args) throws Exception {
    // Gigabytes per run outside Maven's target/: deleted when each cluster closes.
    KafkaClusterConfig.deleteWorkOnCloseUnlessSet();
    System.out.println(new MirrorLagBenchmark().run());
  }

  /**
   * Pairs of (source append time, receive time) in ms, appended by one consumer thread, read by the
   * main thread through {@link #snapshot}. Thread-safe (every method synchronized).
   */
  static final class Samples {
    private long[] appendMs = new long[1 << 16];
    private long[] receiveMs = new long[1 << 16];
    private int size;
    private long wrongTimestampType;

    synchronized void add(long append, long receive) {
      if (size == appendMs.length) {
        appendMs = Arrays.copyOf(appendMs, size * 2);
        receiveMs = Arrays.copyOf(receiveMs, size * 2);
      }
      appendMs[size] = append;
      receiveMs[size] = receive;
      size++;
    }

    synchronized void wrongTimestampType() {
      wrongTimestampType++;
    }

    synchronized long wrongTimestampTypes() {
      return wrongTimestampType;
    }

    /** A copy: {append[], receive[]}. */
    synchronized long[][] snapshot() {
      return new long[][] {Arrays.copyOf(appendMs, size), Arrays.copyOf(receiveMs, size)};
    }
  }

  /** A consumer thread that records every record's (timestamp, receive time) into samples. */
  private static final class LagConsumer implements AutoCloseable {
    private final Samples samples = new Samples();
    private final AtomicReference<Throwable> failure = new AtomicReference<>();
    private final Thread thread;
    private volatile boolean running = true;

    LagConsumer(KafkaCluster cluster, String name, int partitions) {
      Properties props = new Properties();
      props.putAll(cluster.clientProperties());
      props.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_uncommitted");
      props.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
      props.put(ConsumerConfig.FETCH_MIN_BYTES_CONFIG, "1");
      props.put(ConsumerConfig.MAX_POLL_RECORDS_CONFIG, "5000");
      props.put(
          ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
      props.put(
          ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
      KafkaConsumer<byte[], byte[]> consumer = new KafkaConsumer<>(props);
      List<TopicPartition> tps = new ArrayList<>();
      for (int p = 0; p < partitions; p++) {
        tps.add(new TopicPartition(TOPIC, p));
      }
      consumer.assign(tps);
      consumer.seekToEnd(tps);
      // Resolve the positions now: records appended from here on are measured.
      tps.forEach(consumer::position);
      thread =
          new Thread(
              () -> {
                try (consumer) {
                  while (running) {
                    ConsumerRecords<byte[], byte[]> records = consumer.poll(Duration.ofMillis(100));
                    long now = System.currentTimeMillis();
                    for (ConsumerRecord<byte[], byte[]> r : records) {
                      if (r.timestampType() != TimestampType.LOG_APPEND_TIME) {
                        samples.wrongTimestampType();
                      }
                      samples.add(r.timestamp(), now);
                    }
                  }
                } catch (Throwable t) {
                  failure.set(t);
                }
              },
              "lag-consumer-" + name);
      thread.setDaemon(true);
      thread.start();
    }

    void check() {
      if (failure.get() != null) {
        throw new IllegalStateException("lag consumer failed", failure.get());
      }
    }

    @Override
    public void close() throws InterruptedException {
      running = false;
      thread.join(30_000);
    }
  }

  /** The steady producer's settings: acks=all, not idempotent, {@code lingerMs}. */
  private Properties producerProps(KafkaCluster cluster, int lingerMs) {
    Properties props = new Properties();
    props.putAll(cluster.clientProperties());
    props.put(ProducerConfig.ACKS_CONFIG, "all");
    // Not idempotent, as in MirrorThroughputBenchmark: a retried batch may be written twice; every
    // figure here is per record received or against log ends, never against a record count.
    props.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, "false");
    props.put(ProducerConfig.BATCH_SIZE_CONFIG, Integer.toString(256 * 1024));
    props.put(ProducerConfig.LINGER_MS_CONFIG, Integer.toString(lingerMs));
    props.put(ProducerConfig.BUFFER_MEMORY_CONFIG, Long.toString(128L * 1024 * 1024));
    props.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
    props.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
    return props;
  }

  private byte[] value(Random random) {
    byte[] v = new byte[recordBytes];
    for (int i = 0; i < v.length; i++) {
      v[i] = (byte) ('a' + random.nextInt(26));
    }
    return v;
  }

  private String run() throws Exception {
    StringBuilder out = new StringBuilder();
    String loadAtStart = MirrorThroughputBenchmark.loadAverage();
    log("load average at start: " + loadAtStart);
    try (KafkaCluster source = KafkaClusterConfig.builder("lag-source").start();
        KafkaCluster destination =
            KafkaClusterConfig.builder("lag-dest")
                .controllerPlusBrokers(3)
                .javaAgent(agent, null)
                .perBrokerListener(PluginControlClient.LISTENER_PROPERTY)
                .brokerProperty(
                    PluginControlClient.SECRET_PROPERTY, PluginControlClient.TEST_SECRET)
                .brokerProperty(PluginControlClient.INSECURE_PLAINTEXT_PROPERTY, "true")
                .start()) {
      source.createTopic(TOPIC, partitions, 1, Map.of("message.timestamp.type", "LogAppendTime"));
      destination.createTopic(TOPIC, partitions, 3, Map.of("min.insync.replicas", "2"));

      double recordsPerSecond;
      String rateSource;
      if (rate > 0) {
        recordsPerSecond = rate;
        rateSource = "given (-Drate)";
        registerEverywhere(source, destination);
      } else if (throughputMiBs > 0) {
        recordsPerSecond = throughputMiBs / 2 * 1024 * 1024 / recordBytes;
        rateSource = String.format(Locale.ROOT, "half of -DthroughputMiBs=%.1f", throughputMiBs);
        registerEverywhere(source, destination);
      } else {
        preload(source);
        long records = MirrorThroughputBenchmark.sumOfLogEnds(source, TOPIC);
        Map<TopicPartition, Long> target = MirrorThroughputBenchmark.logEnds(source, TOPIC);
        long start = System.nanoTime();
        registerEverywhere(source, destination);
        MirrorThroughputBenchmark.awaitUntil(
            "destination " + destination.name() + " caught up with the calibration preload",
            () -> highWatermarksReached(destination, target));
        double seconds = (System.nanoTime() - start) / 1e9;
        double measured = records * (double) recordBytes / (1024 * 1024) / seconds;
        recordsPerSecond = records / seconds / 2;
        rateSource =
            String.format(
                Locale.ROOT,
                "half of the calibration: %,d records (%d MiB) mirrored in %.1f s = %.1f MiB/s",
                records,
                calibrateMiB,
                seconds,
                measured);
      }
      log(String.format(Locale.ROOT, "rate %.0f records/s (%s)", recordsPerSecond, rateSource));

      Result result;
      try (LagConsumer onDestination = new LagConsumer(destination, "destination", partitions);
          LagConsumer onSource = new LagConsumer(source, "source", partitions);
          PacedWriter producer =
              new PacedWriter(
                  producerProps(source, 5),
                  TOPIC,
                  partitions,
                  PacedWriter.pool(256, this::value),
                  recordsPerSecond)) {
        result = measure(source, destination, onDestination, onSource, producer, recordsPerSecond);
      }
      String check = checkTimestampsCopied(source, destination);
      log(check);
      out.append(report(result, recordsPerSecond, rateSource, loadAtStart, check));
    }
    return out.toString();
  }

  /** Registers every partition on every destination broker, repeating for those refused. */
  private void registerEverywhere(KafkaCluster source, KafkaCluster destination) throws Exception {
    int[] all = new int[partitions];
    for (int p = 0; p < partitions; p++) {
      all[p] = p;
    }
    long deadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(2);
    for (int broker : destination.brokerIds()) {
      PluginControlClient control =
          new PluginControlClient(
              destination.listenerOf(broker, PluginControlClient.LISTENER_PROPERTY),
              PluginControlClient.TEST_SECRET);
      int[] pending = all;
      while (pending.length > 0) {
        PluginControlClient.Response started =
            control.startMirroring(
                "lag", source.bootstrapServers(), source.clusterId(), TOPIC, pending);
        pending =
            Arrays.stream(pending)
                .filter(
                    p -> started.result(TOPIC, p) == null || started.result(TOPIC, p).has("error"))
                .toArray();
        if (pending.length > 0) {
          if (System.nanoTime() > deadline) {
            throw new IllegalStateException(
                "broker "
                    + broker
                    + " of cluster "
                    + destination.name()
                    + " refused mirror/start of "
                    + pending.length
                    + " partitions of "
                    + TOPIC
                    + " for 2 minutes; see that broker's node.log");
          }
          Thread.sleep(500);
        }
      }
    }
  }

  private void preload(KafkaCluster source) throws Exception {
    long records = (long) calibrateMiB * 1024 * 1024 / recordBytes;
    Random random = new Random(42);
    AtomicReference<Exception> failure = new AtomicReference<>();
    try (KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(producerProps(source, 20))) {
      for (long i = 0; i < records && failure.get() == null; i++) {
        producer.send(
            new ProducerRecord<>(TOPIC, (int) (i % partitions), null, value(random)),
            (m, e) -> {
              if (e != null) {
                failure.compareAndSet(null, e);
              }
            });
      }
      producer.flush();
    }
    if (failure.get() != null) {
      throw new IllegalStateException(
          "preloading " + TOPIC + " on cluster " + source.name() + " failed", failure.get());
    }
  }

  /** True when every destination partition's high watermark is at least the target's offset. */
  private static boolean highWatermarksReached(
      KafkaCluster destination, Map<TopicPartition, Long> target) {
    try {
      Map<TopicPartition, Long> ends = MirrorThroughputBenchmark.logEnds(destination, TOPIC);
      return target.entrySet().stream()
          .allMatch(e -> ends.getOrDefault(e.getKey(), -1L) >= e.getValue());
    } catch (Exception e) {
      // Brokers restarting: not reached yet.
      return false;
    }
  }

  /** Everything measured. Times in ms. */
  private record Result(
      Stats steady,
      Stats sourceFloor,
      double achievedRate,
      long steadyProduced,
      long producerFailures,
      String loadSteadyStart,
      String loadSteadyEnd,
      boolean outage,
      long backlogRecords,
      long stopMs,
      long restartRegisteredMs,
      long firstRecordMs,
      long backlogDrainedMs,
      long lagBackMs,
      long maxLagAfterRestart,
      String loadOutage,
      String leadersBefore,
      String leadersAfter,
      String receivedPer10s,
      long electedMs,
      long wrongTimestampTypes) {}

  /** Lag percentiles in ms over n records. */
  private record Stats(long n, long p50, long p90, long p99, long max) {
    static Stats of(long[] lags) {
      if (lags.length == 0) {
        return new Stats(0, -1, -1, -1, -1);
      }
      long[] s = lags.clone();
      Arrays.sort(s);
      return new Stats(s.length, pct(s, 0.50), pct(s, 0.90), pct(s, 0.99), s[s.length - 1]);
    }

    private static long pct(long[] sorted, double q) {
      int i = (int) Math.ceil(q * sorted.length) - 1;
      return sorted[Math.max(0, Math.min(sorted.length - 1, i))];
    }
  }

  /** Lags of the samples whose source append time is in [fromMs, toMs). */
  private static long[] lagsAppendedIn(long[][] samples, long fromMs, long toMs) {
    long[] append = samples[0];
    long[] receive = samples[1];
    long[] lags = new long[append.length];
    int n = 0;
    for (int i = 0; i < append.length; i++) {
      if (append[i] >= fromMs && append[i] < toMs) {
        lags[n++] = receive[i] - append[i];
      }
    }
    return Arrays.copyOf(lags, n);
  }

  private Result measure(
      KafkaCluster source,
      KafkaCluster destination,
      LagConsumer onDestination,
      LagConsumer onSource,
      PacedWriter producer,
      double recordsPerSecond)
      throws Exception {
    log("warm-up " + warmupSeconds + " s");
    sleepChecking(warmupSeconds * 1000L, onDestination, onSource);
    long windowStart = System.currentTimeMillis();
    long ackedAtStart = producer.acked();
    String loadSteadyStart = MirrorThroughputBenchmark.loadAverage();
    log("steady window " + steadySeconds + " s, load " + loadSteadyStart);
    sleepChecking(steadySeconds * 1000L, onDestination, onSource);
    long windowEnd = System.currentTimeMillis();
    long ackedAtEnd = producer.acked();
    String loadSteadyEnd = MirrorThroughputBenchmark.loadAverage();
    // Records appended at the end of the window still arriving: give them a bounded time.
    sleepChecking(10_000L, onDestination, onSource);
    Stats steady =
        Stats.of(lagsAppendedIn(onDestination.samples.snapshot(), windowStart, windowEnd));
    Stats floor = Stats.of(lagsAppendedIn(onSource.samples.snapshot(), windowStart, windowEnd));
    double achieved = (ackedAtEnd - ackedAtStart) / ((windowEnd - windowStart) / 1000.0);
    log(
        String.format(
            Locale.ROOT,
            "steady: %s (source floor %s), achieved %.0f records/s",
            steady,
            floor,
            achieved));
    if (outageSeconds <= 0) {
      return new Result(
          steady,
          floor,
          achieved,
          ackedAtEnd - ackedAtStart,
          producer.failed(),
          loadSteadyStart,
          loadSteadyEnd,
          false,
          0,
          0,
          0,
          0,
          0,
          0,
          0,
          "",
          leadersByBroker(destination),
          "",
          "",
          -1,
          onDestination.samples.wrongTimestampTypes());
    }

    String loadOutage = MirrorThroughputBenchmark.loadAverage();
    String leadersBefore = leadersByBroker(destination);
    long destinationBefore = MirrorThroughputBenchmark.sumOfLogEnds(destination, TOPIC);
    log("outage: stopping every destination broker, load " + loadOutage);
    long stopStart = System.nanoTime();
    inParallel(destination.brokerIds(), destination::stopBroker);
    long stopMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - stopStart);
    long restartAt = stopStart + TimeUnit.SECONDS.toNanos(outageSeconds);
    long wait = TimeUnit.NANOSECONDS.toMillis(restartAt - System.nanoTime());
    if (wait > 0) {
      sleepChecking(wait, onSource);
    }
    Map<TopicPartition, Long> sourceAtRestart = MirrorThroughputBenchmark.logEnds(source, TOPIC);
    long backlog =
        sourceAtRestart.values().stream().mapToLong(Long::longValue).sum() - destinationBefore;
    long restartWallMs = System.currentTimeMillis();
    long restartNanos = System.nanoTime();
    log("restarting every destination broker; backlog " + backlog + " records");
    inParallel(destination.brokerIds(), destination::restartBroker);
    long registeredMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - restartNanos);
    log("restarted in " + registeredMs + " ms");
    long deadline = restartNanos + TimeUnit.SECONDS.toNanos(catchUpTimeoutSeconds);
    long drainedMs = -1;
    long lagBackMs = -1;
    long electedMs = -1;
    java.util.Set<TopicPartition> toElect = new java.util.HashSet<>();
    if (preferredElection) {
      for (int p = 0; p < partitions; p++) {
        toElect.add(new TopicPartition(TOPIC, p));
      }
    }
    long nextElection = System.nanoTime();
    while (System.nanoTime() < deadline && (drainedMs < 0 || lagBackMs < 0)) {
      onDestination.check();
      if (!toElect.isEmpty() && System.nanoTime() >= nextElection) {
        electPreferred(destination, toElect);
        nextElection = System.nanoTime() + TimeUnit.SECONDS.toNanos(1);
        if (toElect.isEmpty()) {
          electedMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - restartNanos);
          log("preferred leaders elected " + electedMs + " ms after the restart call");
        }
      }
      if (drainedMs < 0 && highWatermarksReached(destination, sourceAtRestart)) {
        drainedMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - restartNanos);
        log("backlog drained " + drainedMs + " ms after the restart call");
      }
      if (lagBackMs < 0) {
        lagBackMs = lagBackUnder(onDestination.samples.snapshot(), restartWallMs, steady.p99());
        if (lagBackMs >= 0) {
          log("lag back under the steady p99 " + lagBackMs + " ms after the restart call");
        }
      }
      Thread.sleep(POLL_MS);
    }
    long maxAfter = 0;
    long firstReceived = Long.MAX_VALUE;
    long[][] all = onDestination.samples.snapshot();
    long[] per10s = new long[(int) ((System.currentTimeMillis() - restartWallMs) / 10_000) + 1];
    for (int i = 0; i < all[0].length; i++) {
      if (all[1][i] >= restartWallMs) {
        maxAfter = Math.max(maxAfter, all[1][i] - all[0][i]);
        firstReceived = Math.min(firstReceived, all[1][i]);
        int bucket = (int) ((all[1][i] - restartWallMs) / 10_000);
        if (bucket < per10s.length) {
          per10s[bucket]++;
        }
      }
    }
    return new Result(
        steady,
        floor,
        achieved,
        ackedAtEnd - ackedAtStart,
        producer.failed(),
        loadSteadyStart,
        loadSteadyEnd,
        true,
        backlog,
        stopMs,
        registeredMs,
        firstReceived == Long.MAX_VALUE ? -1 : firstReceived - restartWallMs,
        drainedMs,
        lagBackMs,
        maxAfter,
        loadOutage,
        leadersBefore,
        leadersByBroker(destination),
        Arrays.stream(per10s)
            .mapToObj(n -> String.format(Locale.ROOT, "%,d", n))
            .collect(java.util.stream.Collectors.joining(", ")),
        electedMs,
        onDestination.samples.wrongTimestampTypes());
  }

  /**
   * One preferred-leader election of {@code pending}; removes the partitions that now have their
   * preferred leader (elected or already leading) and keeps those whose preferred replica is not in
   * sync yet, for the next try.
   */
  private static void electPreferred(
      KafkaCluster destination, java.util.Set<TopicPartition> pending) {
    try (org.apache.kafka.clients.admin.Admin admin = destination.admin()) {
      Map<TopicPartition, java.util.Optional<Throwable>> result =
          admin
              .electLeaders(
                  org.apache.kafka.common.ElectionType.PREFERRED, java.util.Set.copyOf(pending))
              .partitions()
              .get(30, TimeUnit.SECONDS);
      result.forEach(
          (tp, error) -> {
            if (error.isEmpty()
                || error.get()
                    instanceof org.apache.kafka.common.errors.ElectionNotNeededException) {
              pending.remove(tp);
            }
          });
    } catch (Exception e) {
      // Brokers still starting: try again on the next round.
    }
  }

  /**
   * How many partitions of the topic each destination broker leads, e.g. "1: 8, 2: 8, 3: 8": each
   * leader's fetcher fetches its partitions with one request in flight per source broker.
   */
  private static String leadersByBroker(KafkaCluster destination) {
    try (org.apache.kafka.clients.admin.Admin admin = destination.admin()) {
      Map<Integer, Integer> counts = new java.util.TreeMap<>();
      admin
          .describeTopics(List.of(TOPIC))
          .allTopicNames()
          .get(30, TimeUnit.SECONDS)
          .get(TOPIC)
          .partitions()
          .forEach(p -> counts.merge(p.leader() == null ? -1 : p.leader().id(), 1, Integer::sum));
      StringBuilder b = new StringBuilder();
      counts.forEach(
          (k, v) -> b.append(b.length() == 0 ? "" : ", ").append(k).append(": ").append(v));
      return b.toString();
    } catch (Exception e) {
      return "? (" + e.getMessage() + ")";
    }
  }

  /**
   * The end of the first whole second after {@code restartWallMs} (by receive time) in which
   * records were received and their p99 lag is at most {@code p99}, as ms after {@code
   * restartWallMs}; -1 when none yet. Only whole seconds that have passed are considered.
   */
  static long lagBackUnder(long[][] samples, long restartWallMs, long p99) {
    long now = System.currentTimeMillis();
    int seconds = (int) ((now - restartWallMs) / 1000);
    List<List<Long>> buckets = new ArrayList<>();
    for (int s = 0; s < seconds; s++) {
      buckets.add(new ArrayList<>());
    }
    for (int i = 0; i < samples[0].length; i++) {
      long r = samples[1][i];
      if (r >= restartWallMs) {
        int s = (int) ((r - restartWallMs) / 1000);
        if (s < seconds) {
          buckets.get(s).add(r - samples[0][i]);
        }
      }
    }
    for (int s = 0; s < seconds; s++) {
      long[] lags = buckets.get(s).stream().mapToLong(Long::longValue).toArray();
      if (lags.length > 0 && Stats.of(lags).p99() <= p99) {
        return (s + 1) * 1000L;
      }
    }
    return -1;
  }

  /**
   * Reads up to 200 records of the first partitions from both clusters at the same offsets and
   * counts those identical in offset, timestamp, timestamp type and value.
   */
  private String checkTimestampsCopied(KafkaCluster source, KafkaCluster destination) {
    int checked = 0;
    int identical = 0;
    int sourceLogAppendTime = 0;
    for (int p = 0; p < Math.min(3, partitions); p++) {
      TopicPartition tp = new TopicPartition(TOPIC, p);
      List<ConsumerRecord<byte[], byte[]>> a = readFrom(source, tp, 200);
      List<ConsumerRecord<byte[], byte[]>> b = readFrom(destination, tp, 200);
      Map<Long, ConsumerRecord<byte[], byte[]>> byOffset = new HashMap<>();
      b.forEach(r -> byOffset.put(r.offset(), r));
      for (ConsumerRecord<byte[], byte[]> r : a) {
        checked++;
        if (r.timestampType() == TimestampType.LOG_APPEND_TIME) {
          sourceLogAppendTime++;
        }
        ConsumerRecord<byte[], byte[]> d = byOffset.get(r.offset());
        if (d != null
            && d.timestamp() == r.timestamp()
            && d.timestampType() == r.timestampType()
            && Arrays.equals(d.value(), r.value())) {
          identical++;
        }
      }
    }
    return String.format(
        Locale.ROOT,
        "%d of %d records read from both clusters (first 200 of partitions 0-%d) identical in"
            + " offset, timestamp, timestamp type and value; %d of them LogAppendTime on the"
            + " source",
        identical,
        checked,
        Math.min(3, partitions) - 1,
        sourceLogAppendTime);
  }

  private static List<ConsumerRecord<byte[], byte[]>> readFrom(
      KafkaCluster cluster, TopicPartition tp, int count) {
    Properties props = new Properties();
    props.putAll(cluster.clientProperties());
    props.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
    props.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
    props.put(
        ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
    List<ConsumerRecord<byte[], byte[]>> out = new ArrayList<>();
    try (KafkaConsumer<byte[], byte[]> consumer = new KafkaConsumer<>(props)) {
      consumer.assign(List.of(tp));
      consumer.seekToBeginning(List.of(tp));
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
      while (out.size() < count && System.nanoTime() < deadline) {
        for (ConsumerRecord<byte[], byte[]> r : consumer.poll(Duration.ofMillis(200))) {
          if (out.size() < count) {
            out.add(r);
          }
        }
      }
    }
    return out;
  }

  private String report(
      Result r, double recordsPerSecond, String rateSource, String loadAtStart, String check) {
    StringBuilder out = new StringBuilder();
    out.append(
        String.format(
            Locale.ROOT,
            "### Mirror lag: %d partitions, %d-byte records, target %.0f records/s (%.2f MiB/s; %s)%n%n",
            partitions,
            recordBytes,
            recordsPerSecond,
            recordsPerSecond * recordBytes / (1024 * 1024),
            rateSource));
    out.append(
        String.format(
            Locale.ROOT,
            "Load average (1/5/15 min): %s at start, %s at the steady window's start, %s at its"
                + " end%s.%n%n",
            loadAtStart,
            r.loadSteadyStart(),
            r.loadSteadyEnd(),
            r.outage() ? ", " + r.loadOutage() + " at the outage" : ""));
    out.append(
        "| steady window | records | achieved records/s | p50 ms | p90 ms | p99 ms | max ms |\n"
            + "|---|---|---|---|---|---|---|\n");
    out.append(
        String.format(
            Locale.ROOT,
            "| source append → destination consumer (%d s after %d s warm-up) | %,d | %,.0f | %d | %d"
                + " | %d | %d |%n",
            steadySeconds,
            warmupSeconds,
            r.steady().n(),
            r.achievedRate(),
            r.steady().p50(),
            r.steady().p90(),
            r.steady().p99(),
            r.steady().max()));
    out.append(
        String.format(
            Locale.ROOT,
            "| source append → source consumer (the measurement's floor) | %,d | | %d | %d | %d |"
                + " %d |%n%n",
            r.sourceFloor().n(),
            r.sourceFloor().p50(),
            r.sourceFloor().p90(),
            r.sourceFloor().p99(),
            r.sourceFloor().max()));
    out.append(
        String.format(
            Locale.ROOT,
            "Producer: %,d records acknowledged in the window, %d send failures in the whole run;"
                + " destination records not LogAppendTime: %d.%n%n",
            r.steadyProduced(),
            r.producerFailures(),
            r.wrongTimestampTypes()));
    if (r.outage()) {
      out.append(
          "| outage s | backlog records (MiB) | stop ms | restart to registered ms |"
              + " restart to first record on the destination consumer ms |"
              + " restart to backlog drained ms | restart to lag ≤ steady p99 ms |"
              + " max lag after restart ms |\n"
              + "|---|---|---|---|---|---|---|---|\n");
      out.append(
          String.format(
              Locale.ROOT,
              "| %d | %,d (%.1f) | %,d | %,d | %,d | %s | %s | %,d |%n%n",
              outageSeconds,
              r.backlogRecords(),
              r.backlogRecords() * (double) recordBytes / (1024 * 1024),
              r.stopMs(),
              r.restartRegisteredMs(),
              r.firstRecordMs(),
              r.backlogDrainedMs() < 0
                  ? "not within " + catchUpTimeoutSeconds + " s"
                  : String.format(Locale.ROOT, "%,d", r.backlogDrainedMs()),
              r.lagBackMs() < 0
                  ? "not within " + catchUpTimeoutSeconds + " s"
                  : String.format(Locale.ROOT, "%,d", r.lagBackMs()),
              r.maxLagAfterRestart()));
    }
    if (r.outage()) {
      out.append(
          String.format(
              Locale.ROOT,
              "Records received by the destination consumer per 10 s from the restart call: %s.%n%n",
              r.receivedPer10s()));
    }
    out.append(
        String.format(
            Locale.ROOT,
            "Partitions led per destination broker: %s before the outage%s%s.%n%n",
            r.leadersBefore(),
            r.outage() ? ", " + r.leadersAfter() + " after the catch-up" : "",
            !preferredElection
                ? "; no preferred-leader election after the restart"
                : r.electedMs() < 0
                    ? "; preferred-leader election asked for but not complete"
                    : String.format(
                        Locale.ROOT,
                        "; preferred leaders elected %,d ms after the restart call"
                            + " (-DpreferredElection=true)",
                        r.electedMs())));
    out.append(check).append(".\n");
    return out.toString();
  }

  private interface BrokerAction {
    void apply(int brokerId);
  }

  /** One thread per broker, so that the brokers stop (or start) together. */
  private static void inParallel(List<Integer> brokers, BrokerAction action) {
    ExecutorService pool = Executors.newFixedThreadPool(brokers.size());
    try {
      CompletableFuture.allOf(
              brokers.stream()
                  .map(b -> CompletableFuture.runAsync(() -> action.apply(b), pool))
                  .toArray(CompletableFuture[]::new))
          .join();
    } finally {
      pool.shutdownNow();
    }
  }

  private static void sleepChecking(long ms, LagConsumer... consumers) throws InterruptedException {
    long end = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(ms);
    while (System.nanoTime() < end) {
      for (LagConsumer c : consumers) {
        c.check();
      }
      Thread.sleep(
          Math.min(500, Math.max(1, TimeUnit.NANOSECONDS.toMillis(end - System.nanoTime()))));
    }
  }

  private static void log(String line) {
    System.out.printf(Locale.ROOT, "%tT %s%n", System.currentTimeMillis(), line);
  }
}
