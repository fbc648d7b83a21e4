package dev.kafkamirror.testing.failover;

import java.util.Collection;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.NavigableMap;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import org.apache.kafka.common.TopicPartition;

/**
 * What a test wrote, as the truth a failover is checked against: per partition the committed
 * records at the offsets the producer was told, the values of aborted and never-committed
 * transactions, and the producer ids each earlier cluster used.
 *
 * <p>Offsets are the ones the writing cluster acknowledged; offset-preserving mirroring keeps them,
 * so they are the offsets every mirror of that cluster must hold the records at. Values must be
 * unique across the ledger (a tag per write does that): a value names its record.
 *
 * <p>Thread-safe: every method synchronises on the ledger.
 */
public final class WriteLedger {

  private final Map<TopicPartition, NavigableMap<Long, String>> committed = new LinkedHashMap<>();
  private final Map<TopicPartition, Set<String>> aborted = new LinkedHashMap<>();
  private final Map<TopicPartition, Set<String>> neverCommitted = new LinkedHashMap<>();
  private final Map<String, Set<Long>> producerIdsByCluster = new LinkedHashMap<>();

  /**
   * A record that committed (idempotent, or in a committed transaction) at {@code offset}.
   *
   * @throws IllegalArgumentException if another value is already recorded at that offset
   */
  public synchronized void committed(String topic, int partition, long offset, String value) {
    TopicPartition tp = new TopicPartition(topic, partition);
    String before = committed.computeIfAbsent(tp, k -> new TreeMap<>()).putIfAbsent(offset, value);
    if (before != null && !before.equals(value)) {
      throw new IllegalArgumentException(
          "the ledger already holds "
              + before
              + " at "
              + tp
              + " offset "
              + offset
              + "; cannot record "
              + value
              + " there too (give each write its own tag)");
    }
  }

  /**
   * A record of an aborted transaction: in the log (read_uncommitted may see it), never visible to
   * read_committed.
   */
  public synchronized void aborted(String topic, int partition, String value) {
    aborted.computeIfAbsent(new TopicPartition(topic, partition), k -> new TreeSet<>()).add(value);
  }

  /**
   * A record of a transaction still open when its cluster was lost: a failover truncates it away,
   * so no reader may see it at any isolation level.
   */
  public synchronized void neverCommitted(String topic, int partition, String value) {
    neverCommitted
        .computeIfAbsent(new TopicPartition(topic, partition), k -> new TreeSet<>())
        .add(value);
  }

  /** Producer ids {@code cluster} used: none may be left in a destination's state after a stop. */
  public synchronized void producerIds(String cluster, Collection<Long> ids) {
    producerIdsByCluster.computeIfAbsent(cluster, k -> new TreeSet<>()).addAll(ids);
  }

  /**
   * An independent copy: a ledger per destination, when two destinations of one source go on
   * separately after their failovers (fan-out).
   */
  public synchronized WriteLedger copy() {
    WriteLedger c = new WriteLedger();
    committed.forEach((tp, m) -> c.committed.put(tp, new TreeMap<>(m)));
    aborted.forEach((tp, s) -> c.aborted.put(tp, new TreeSet<>(s)));
    neverCommitted.forEach((tp, s) -> c.neverCommitted.put(tp, new TreeSet<>(s)));
    producerIdsByCluster.forEach((k, v) -> c.producerIdsByCluster.put(k, new TreeSet<>(v)));
    return c;
  }

  /** The committed records of one partition, by offset (a copy). */
  public synchronized NavigableMap<Long, String> committed(TopicPartition tp) {
    return new TreeMap<>(committed.getOrDefault(tp, Collections.emptyNavigableMap()));
  }

  /** Every committed value of {@code topic}, partition by partition in offset order. */
  public synchronized java.util.List<String> committedValues(String topic) {
    java.util.List<String> out = new java.util.ArrayList<>();
    for (TopicPartition tp : partitions(topic)) {
      out.addAll(committed.getOrDefault(tp, Collections.emptyNavigableMap()).values());
    }
    return out;
  }

  /** The aborted values of one partition (a copy). */
  public synchronized Set<String> aborted(TopicPartition tp) {
    return new TreeSet<>(aborted.getOrDefault(tp, Set.of()));
  }

  /** The never-committed values of one partition (a copy). */
  public synchronized Set<String> neverCommitted(TopicPartition tp) {
    return new TreeSet<>(neverCommitted.getOrDefault(tp, Set.of()));
  }

  /** Every partition of {@code topic} the ledger knows of. */
  public synchronized Set<TopicPartition> partitions(String topic) {
    Set<TopicPartition> out =
        new TreeSet<>(
            java.util.Comparator.comparing(TopicPartition::topic)
                .thenComparingInt(TopicPartition::partition));
    for (Map<TopicPartition, ?> m : java.util.List.of(committed, aborted, neverCommitted)) {
      m.keySet().stream().filter(tp -> tp.topic().equals(topic)).forEach(out::add);
    }
    return out;
  }

  /** The producer ids recorded for each cluster (a copy). */
  public synchronized Map<String, Set<Long>> producerIdsByCluster() {
    Map<String, Set<Long>> out = new LinkedHashMap<>();
    producerIdsByCluster.forEach((k, v) -> out.put(k, new TreeSet<>(v)));
    return out;
  }

  /** Which clusters used {@code producerId}, in the order they were recorded. */
  public synchronized Set<String> clustersThatUsed(long producerId) {
    Set<String> out = new java.util.LinkedHashSet<>();
    producerIdsByCluster.forEach(
        (cluster, ids) -> {
          if (ids.contains(producerId)) {
            out.add(cluster);
          }
        });
    return out;
  }
}
