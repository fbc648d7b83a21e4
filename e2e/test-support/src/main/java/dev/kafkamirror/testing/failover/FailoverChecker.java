package dev.kafkamirror.testing.failover;

import com.fasterxml.jackson.databind.JsonNode;
import dev.kafkamirror.testing.failover.LedgerComparison.Isolation;
import dev.kafkamirror.testing.kafka.KafkaCluster;
import dev.kafkamirror.testing.kafka.TestClients;
import dev.kafkamirror.testing.plugin.PluginControlClient;
import dev.kafkamirror.testing.process.Commands;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.ProducerState;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.IsolationLevel;
import org.apache.kafka.common.TopicPartition;

/**
 * The one way every failover leg is verified (issue 13 item 5), against a {@link WriteLedger}:
 *
 * <ol>
 *   <li>{@link #producerStateReset}: right after the stop, before any new write, no partition's
 *       producer state holds a producer id an earlier cluster used (Admin {@code DescribeProducers}
 *       on the leader) and, with the plugin's control endpoint, no replica holds any producer
 *       entry;
 *   <li>{@link #writeWithCollidingProducer}: new producers write until one has the id of an earlier
 *       cluster's producer, and their records go into the ledger;
 *   <li>{@link #verifyRecords}: the Java consumer at read_committed and at read_uncommitted, and
 *       kcat (librdkafka) at read_committed, read each topic from the beginning; every committed
 *       record is there once at its offset, nothing aborted (read_committed) or never committed
 *       (either) is visible, nothing unknown, and kcat and Java agree record for record.
 * </ol>
 *
 * <p>The comparison itself is {@link LedgerComparison} (pure, unit-tested); this class does the
 * reading. Not thread-safe; one checker per cluster and test.
 */
public final class FailoverChecker {

  private static final Duration READ_TIMEOUT = Duration.ofSeconds(60);

  private final KafkaCluster cluster;
  private final WriteLedger ledger;
  private boolean pluginDescribe;

  private FailoverChecker(KafkaCluster cluster, WriteLedger ledger) {
    this.cluster = cluster;
    this.ledger = ledger;
  }

  /** A checker of {@code cluster} (the failed-over destination) against {@code ledger}. */
  public static FailoverChecker of(KafkaCluster cluster, WriteLedger ledger) {
    return new FailoverChecker(cluster, ledger);
  }

  /**
   * Also reads each replica's producer entries through the plugin's describe (the cluster's brokers
   * run the plugin on the per-broker listener {@link PluginControlClient#LISTENER_PROPERTY} with
   * the test secret).
   */
  public FailoverChecker withPlugin() {
    this.pluginDescribe = true;
    return this;
  }

  /**
   * Records in the ledger, under {@code cluster.name()}, the producer ids in {@code topic}'s
   * producer state on {@code cluster} now (call it on each source before it is lost).
   */
  public static Set<Long> recordProducerIds(
      WriteLedger ledger, KafkaCluster cluster, String topic, int partitions) throws Exception {
    Set<Long> all = new TreeSet<>();
    producerIds(cluster, topic, partitions).values().forEach(all::addAll);
    ledger.producerIds(cluster.name(), all);
    return all;
  }

  /** The producer ids in each partition's state on its leader (Admin DescribeProducers). */
  public static Map<Integer, Set<Long>> producerIds(
      KafkaCluster cluster, String topic, int partitions) throws Exception {
    List<TopicPartition> tps = new ArrayList<>();
    for (int p = 0; p < partitions; p++) {
      tps.add(new TopicPartition(topic, p));
    }
    Map<Integer, Set<Long>> out = new TreeMap<>();
    try (Admin admin = cluster.admin()) {
      var described = admin.describeProducers(tps).all().get(30, TimeUnit.SECONDS);
      for (TopicPartition tp : tps) {
        Set<Long> ids = new TreeSet<>();
        for (ProducerState s : described.get(tp).activeProducers()) {
          ids.add(s.producerId());
        }
        out.put(tp.partition(), ids);
      }
    }
    return out;
  }

  /**
   * Checks, after the stop and before any new write, that no partition of {@code topic} holds the
   * producer state of an earlier cluster.
   */
  public FailoverReport producerStateReset(String topic, int partitions) throws Exception {
    List<String> problems = new ArrayList<>();
    Map<String, Set<Long>> earlier = ledger.producerIdsByCluster();
    producerIds(cluster, topic, partitions)
        .forEach(
            (p, ids) -> {
              for (long id : ids) {
                Set<String> users = ledger.clustersThatUsed(id);
                if (!users.isEmpty()) {
                  problems.add(
                      topic
                          + "-"
                          + p
                          + ": producer id "
                          + id
                          + " of "
                          + users
                          + " is still in the leader's producer state after the stop");
                }
              }
            });
    if (pluginDescribe) {
      int[] all = new int[partitions];
      for (int p = 0; p < partitions; p++) {
        all[p] = p;
      }
      for (int broker : cluster.brokerIds()) {
        if (!cluster.node(broker).isRunning()) {
          continue;
        }
        PluginControlClient control =
            new PluginControlClient(
                cluster.listenerOf(broker, PluginControlClient.LISTENER_PROPERTY),
                PluginControlClient.TEST_SECRET);
        for (JsonNode r : control.describe(topic, all).body().path("results")) {
          if (r.has("error")) {
            continue; // not a replica of it
          }
          int entries = r.path("producerEntries").asInt(-1);
          if (entries != 0) {
            problems.add(
                topic
                    + "-"
                    + r.path("partition").asInt()
                    + " on broker "
                    + broker
                    + " ("
                    + r.path("role").asText()
                    + "): "
                    + entries
                    + " producer entries after the stop, expected 0");
          }
        }
      }
    }
    return new FailoverReport(
        cluster.name(),
        "producer state of " + topic + " after the stop (earlier clusters' ids " + earlier + ")",
        problems);
  }

  /**
   * Writes from new idempotent producers, one record per partition each, until one producer's id is
   * an id an earlier cluster used (at most {@code maxProducers}); every write goes into the ledger.
   * Returns the colliding ids (empty when none collided within the bound; the caller decides
   * whether a collision was certain).
   */
  public Set<Long> writeWithCollidingProducer(
      String topic, int partitions, String tag, int maxProducers) throws Exception {
    Set<Long> earlier = new TreeSet<>();
    ledger.producerIdsByCluster().values().forEach(earlier::addAll);
    Set<Long> collided = new TreeSet<>();
    for (int n = 0; n < maxProducers && collided.isEmpty(); n++) {
      try (KafkaProducer<String, String> p =
          TestClients.idempotentProducer(cluster.bootstrapServers())) {
        for (int part = 0; part < partitions; part++) {
          String v = tag + "-local-" + n + "-" + part;
          RecordMetadata m =
              p.send(new ProducerRecord<>(topic, part, "k", v)).get(30, TimeUnit.SECONDS);
          ledger.committed(topic, part, m.offset(), v);
        }
      }
      producerIds(cluster, topic, partitions)
          .values()
          .forEach(ids -> ids.stream().filter(earlier::contains).forEach(collided::add));
    }
    return collided;
  }

  /**
   * Reads each topic with the Java consumer (read_committed, read_uncommitted) and kcat
   * (read_committed) and compares all three with the ledger and kcat with Java.
   */
  public FailoverReport verifyRecords(String... topics) {
    List<String> problems = new ArrayList<>();
    for (String topic : topics) {
      List<ObservedRecord> committed = javaRead(topic, IsolationLevel.READ_COMMITTED);
      List<ObservedRecord> uncommitted = javaRead(topic, IsolationLevel.READ_UNCOMMITTED);
      List<ObservedRecord> kcat = kcatReadCommitted(topic);
      problems.addAll(
          LedgerComparison.compare(ledger, topic, "java", Isolation.READ_COMMITTED, committed));
      problems.addAll(
          LedgerComparison.compare(ledger, topic, "java", Isolation.READ_UNCOMMITTED, uncommitted));
      problems.addAll(
          LedgerComparison.compare(ledger, topic, "kcat", Isolation.READ_COMMITTED, kcat));
      problems.addAll(
          LedgerComparison.agree("java read_committed", committed, "kcat read_committed", kcat));
    }
    return new FailoverReport(
        cluster.name(),
        "records of " + List.of(topics) + " (java at both isolation levels, kcat)",
        problems);
  }

  private List<ObservedRecord> javaRead(String topic, IsolationLevel isolation) {
    List<ObservedRecord> out = new ArrayList<>();
    for (ConsumerRecord<String, String> r :
        TestClients.readAll(cluster.bootstrapServers(), topic, isolation, READ_TIMEOUT)) {
      out.add(new ObservedRecord(r.topic(), r.partition(), r.offset(), r.value()));
    }
    return out;
  }

  private List<ObservedRecord> kcatReadCommitted(String topic) {
    Commands.Result kcat =
        Commands.run(
                READ_TIMEOUT,
                List.of(
                    "kcat",
                    "-C",
                    "-b",
                    cluster.bootstrapServers(),
                    "-t",
                    topic,
                    "-o",
                    "beginning",
                    "-e",
                    "-q",
                    "-X",
                    "isolation.level=read_committed",
                    "-f",
                    "%p %o %s\\n"))
            .requireSuccess();
    return parseKcat(topic, kcat.stdout());
  }

  /** Lines {@code partition offset value} (kcat's {@code -f '%p %o %s\n'}) as records. */
  static List<ObservedRecord> parseKcat(String topic, String stdout) {
    List<ObservedRecord> out = new ArrayList<>();
    for (String line : stdout.lines().toList()) {
      if (line.isBlank()) {
        continue;
      }
      String[] f = line.split(" ", 3);
      if (f.length < 2) {
        throw new IllegalStateException(
            "kcat printed an unexpected line for " + topic + ": " + line);
      }
      out.add(
          new ObservedRecord(
              topic, Integer.parseInt(f[0]), Long.parseLong(f[1]), f.length == 3 ? f[2] : ""));
    }
    return out;
  }
}
