package dev.kafkamirror.operator.reconciler;

import dev.kafkamirror.operator.core.PartitionKey;
import dev.kafkamirror.operator.core.TopicSelector;
import dev.kafkamirror.operator.kafka.ClusterAdmin;
import dev.kafkamirror.operator.kafka.PartitionPlacement;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;

/**
 * A destination (or source) cluster's metadata in memory: brokers on 127.0.0.1, topics with their
 * partition count, every partition led by the first broker and replicated on all. It can be made
 * unreachable ({@link #failWith}).
 */
final class TestingClusterAdmin implements ClusterAdmin {

  private final String label;
  private final List<Integer> brokers;
  private final Map<String, Integer> topics = new ConcurrentHashMap<>();
  private final Map<String, String> uncleanTopics = new ConcurrentHashMap<>();
  private final Journal journal;
  private volatile String failure;
  private volatile Throwable failureCause;
  private volatile boolean closed;

  TestingClusterAdmin(String label, List<Integer> brokers, Journal journal) {
    this.label = label;
    this.brokers = List.copyOf(brokers);
    this.journal = journal;
  }

  TestingClusterAdmin topic(String name, int partitions) {
    topics.put(name, partitions);
    return this;
  }

  TestingClusterAdmin uncleanElection(String topic, String where) {
    uncleanTopics.put(topic, where);
    return this;
  }

  /** Every later call throws with {@code message}; null heals. */
  void failWith(String message) {
    failWith(message, null);
  }

  /**
   * Every later call throws with {@code message} and {@code cause} (such as the refusal of the
   * client's credentials); null heals.
   */
  void failWith(String message, Throwable cause) {
    this.failureCause = cause;
    this.failure = message;
  }

  /**
   * Every later topic creation throws as Kafka's Admin does when the cluster refuses it with {@code
   * refusal} (a policy, an ACL); null heals.
   */
  void refuseTopicCreation(org.apache.kafka.common.errors.ApiException refusal) {
    this.creationRefusal = refusal;
  }

  private org.apache.kafka.common.errors.ApiException creationRefusal;

  /**
   * Every later partition growth throws as Kafka's Admin does when the cluster refuses it with
   * {@code refusal}; null heals.
   */
  void refusePartitionGrowth(org.apache.kafka.common.errors.ApiException refusal) {
    this.growthRefusal = refusal;
  }

  private org.apache.kafka.common.errors.ApiException growthRefusal;

  boolean closed() {
    return closed;
  }

  private void check(String what) throws KafkaCallException {
    String f = failure;
    if (f != null) {
      throw new KafkaCallException("cannot " + what + " on " + label + ": " + f, failureCause);
    }
  }

  @Override
  public String clusterId() throws KafkaCallException {
    check("describe the cluster id");
    return label + "-id";
  }

  @Override
  public Map<Integer, String> brokerHosts() throws KafkaCallException {
    check("list the brokers");
    Map<Integer, String> out = new TreeMap<>();
    brokers.forEach(b -> out.put(b, "127.0.0.1"));
    return out;
  }

  @Override
  public Set<String> topicNames() throws KafkaCallException {
    check("list topics");
    return new TreeSet<>(topics.keySet());
  }

  /** Each partition's leader after a move; the first broker when absent. */
  private final Map<PartitionKey, Integer> leaders = new ConcurrentHashMap<>();

  /** A leadership move the metadata does not show yet: to whom, and after how many more reads. */
  /**
   * A move the metadata does not show yet on every read: {@code staleReads} more reads show the old
   * leader; with {@code alternate} those are every other read (the first shows the move), as when
   * the Admin client asks an up-to-date broker, then one that has not applied the election yet.
   */
  private record PendingMove(int leader, int staleReads, boolean alternate, boolean showNext) {}

  private final Map<PartitionKey, PendingMove> pendingMoves = new ConcurrentHashMap<>();

  /**
   * Moves the leadership of {@code key} to {@code leader}; the next {@code staleReads} metadata
   * reads ({@link #placements}) still show the leader before the move, as a broker that has not
   * applied the election yet does.
   */
  synchronized void moveLeader(PartitionKey key, int leader, int staleReads) {
    if (staleReads <= 0) {
      pendingMoves.remove(key);
      leaders.put(key, leader);
    } else {
      pendingMoves.put(key, new PendingMove(leader, staleReads, false, false));
    }
  }

  /**
   * Moves the leadership of {@code key} to {@code leader}; the next read shows it, but {@code
   * laggingReads} of the reads after it, every other one, still show the leader before the move.
   */
  synchronized void moveLeaderSeenByOneBrokerFirst(PartitionKey key, int leader, int laggingReads) {
    if (laggingReads <= 0) {
      moveLeader(key, leader, 0);
    } else {
      pendingMoves.put(key, new PendingMove(leader, laggingReads, true, true));
    }
  }

  private final java.util.concurrent.atomic.AtomicInteger placementReads =
      new java.util.concurrent.atomic.AtomicInteger();

  /** How many metadata reads ({@link #placements}) there were. */
  int placementReads() {
    return placementReads.get();
  }

  /** The leader the metadata shows for {@code key} now. */
  int leaderOf(PartitionKey key) {
    return leaders.getOrDefault(key, brokers.get(0));
  }

  /** The broker after {@code brokerId} in the broker list (wrapping), as a fence would choose. */
  int nextBroker(int brokerId) {
    return brokers.get((brokers.indexOf(brokerId) + 1) % brokers.size());
  }

  /** Metadata reads ({@link #placements}) after this many more succeed fail; negative: never. */
  private volatile int placementReadsBeforeFailure = -1;

  /** The next {@code reads} metadata reads succeed, every one after them fails. */
  void failPlacementsAfter(int reads) {
    placementReadsBeforeFailure = reads;
  }

  @Override
  public synchronized List<PartitionPlacement> placements(TopicSelector selector)
      throws KafkaCallException {
    check("describe topics");
    if (placementReadsBeforeFailure == 0) {
      throw new KafkaCallException("cannot describe topics on " + label + ": injected", null);
    }
    if (placementReadsBeforeFailure > 0) {
      placementReadsBeforeFailure--;
    }
    placementReads.incrementAndGet();
    List<PartitionPlacement> out = new ArrayList<>();
    for (String topic : selector.select(topicNames())) {
      for (int p = 0; p < topics.get(topic); p++) {
        PartitionKey key = new PartitionKey(topic, p);
        PendingMove pending = pendingMoves.get(key);
        if (pending != null && pending.alternate() && pending.showNext()) {
          out.add(new PartitionPlacement(key, pending.leader(), brokers));
          pendingMoves.put(
              key, new PendingMove(pending.leader(), pending.staleReads(), true, false));
          continue;
        }
        out.add(new PartitionPlacement(key, leaderOf(key), brokers));
        if (pending != null && pending.alternate()) {
          // A lagging broker's read; once the last of them is served every read shows the move.
          if (pending.staleReads() <= 1) {
            moveLeader(key, pending.leader(), 0);
          } else {
            pendingMoves.put(
                key, new PendingMove(pending.leader(), pending.staleReads() - 1, true, true));
          }
        } else if (pending != null) {
          // This read was one of the stale ones; the read after the last of them shows the move.
          moveLeader(key, pending.leader(), pending.staleReads() - 1);
        }
      }
    }
    out.sort((a, b) -> a.key().compareTo(b.key()));
    return out;
  }

  @Override
  public Map<String, Integer> partitionCounts(Collection<String> names) throws KafkaCallException {
    check("describe topics " + names);
    Map<String, Integer> out = new TreeMap<>();
    names.forEach(n -> out.put(n, topics.get(n)));
    return out;
  }

  @Override
  public Map<String, String> uncleanLeaderElectionTopics(TopicSelector selector)
      throws KafkaCallException {
    check("describe the configs");
    Map<String, String> out = new TreeMap<>();
    for (String topic : selector.select(topicNames())) {
      if (uncleanTopics.containsKey(topic)) {
        out.put(topic, uncleanTopics.get(topic));
      }
    }
    return out;
  }

  @Override
  public void createTopics(
      Map<String, Integer> partitionCounts,
      short replicationFactor,
      Map<String, Map<String, String>> topicConfigs)
      throws KafkaCallException {
    check("create topics");
    if (creationRefusal != null) {
      throw new KafkaCallException(
          "cannot create topic "
              + new TreeMap<>(partitionCounts).firstKey()
              + " on "
              + label
              + ": "
              + creationRefusal,
          creationRefusal);
    }
    journal.add(
        "createTopics "
            + new TreeMap<>(partitionCounts)
            + " rf="
            + replicationFactor
            + (topicConfigs.isEmpty() ? "" : " configs=" + new TreeMap<>(topicConfigs)));
    partitionCounts.forEach(topics::putIfAbsent);
    topicConfigs.forEach((t, c) -> configs.putIfAbsent(t, new TreeMap<>(c)));
  }

  /** Topic configs, per topic: what topicConfigs answers and alterTopicConfigs changes. */
  final Map<String, Map<String, String>> configs = new TreeMap<>();

  @Override
  public Map<String, Map<String, String>> topicConfigs(
      java.util.Collection<String> names, java.util.Set<String> keys) throws KafkaCallException {
    check("describe topic configs");
    Map<String, Map<String, String>> out = new TreeMap<>();
    for (String n : names) {
      if (topics.containsKey(n)) {
        Map<String, String> values = new TreeMap<>();
        configs
            .getOrDefault(n, Map.of())
            .forEach(
                (k, v) -> {
                  if (keys.contains(k)) {
                    values.put(k, v);
                  }
                });
        out.put(n, values);
      }
    }
    return out;
  }

  @Override
  public void alterTopicConfigs(Map<String, Map<String, String>> changes)
      throws KafkaCallException {
    check("alter topic configs");
    journal.add("alterTopicConfigs " + new TreeMap<>(changes));
    changes.forEach((t, c) -> configs.computeIfAbsent(t, x -> new TreeMap<>()).putAll(c));
  }

  @Override
  public void createPartitions(Map<String, Integer> partitionCounts) throws KafkaCallException {
    check("add partitions");
    if (growthRefusal != null) {
      throw new KafkaCallException(
          "cannot add partitions to topics "
              + new TreeMap<>(partitionCounts)
              + " on "
              + label
              + ": "
              + growthRefusal,
          growthRefusal);
    }
    journal.add("createPartitions " + new TreeMap<>(partitionCounts));
    partitionCounts.forEach((t, n) -> topics.merge(t, n, Math::max));
  }

  @Override
  public void close() {
    closed = true;
  }
}
