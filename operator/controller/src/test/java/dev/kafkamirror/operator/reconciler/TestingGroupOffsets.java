package dev.kafkamirror.operator.reconciler;

import dev.kafkamirror.operator.core.GroupOffsetPlanner.DestinationGroup;
import dev.kafkamirror.operator.core.GroupOffsetPlanner.LogRange;
import dev.kafkamirror.operator.core.PartitionKey;
import dev.kafkamirror.operator.kafka.ClusterAdmin;
import dev.kafkamirror.operator.kafka.GroupOffsetsAdmin;
import java.util.Collection;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;

/**
 * A fake {@link GroupOffsetsAdmin} of one cluster: groups with commits and states, log ranges, and
 * switches that make it unreachable or refuse a group's commit. Commits are journalled.
 */
final class TestingGroupOffsets implements GroupOffsetsAdmin {

  private final String label;
  private final Journal journal;
  volatile String clusterId;
  volatile boolean unreachable;
  final Map<String, Map<PartitionKey, Long>> commits = new ConcurrentHashMap<>();
  final Map<String, DestinationGroup> states = new ConcurrentHashMap<>();
  final Map<PartitionKey, LogRange> ranges = new ConcurrentHashMap<>();
  final Set<String> refuseCommit = ConcurrentHashMap.newKeySet();
  volatile int commitCalls;

  TestingGroupOffsets(String label, String clusterId, Journal journal) {
    this.label = label;
    this.clusterId = clusterId;
    this.journal = journal;
  }

  TestingGroupOffsets commit(String group, String topic, int partition, long offset) {
    commits
        .computeIfAbsent(group, g -> new ConcurrentHashMap<>())
        .put(new PartitionKey(topic, partition), offset);
    return this;
  }

  Long committed(String group, String topic, int partition) {
    return commits.getOrDefault(group, Map.of()).get(new PartitionKey(topic, partition));
  }

  TestingGroupOffsets range(String topic, int partition, long start, long end) {
    ranges.put(new PartitionKey(topic, partition), new LogRange(start, end));
    return this;
  }

  private void check(String call) throws ClusterAdmin.KafkaCallException {
    if (unreachable) {
      throw new ClusterAdmin.KafkaCallException(
          "could not " + call + " on " + label + " within 3000 ms", null);
    }
  }

  @Override
  public String clusterId() throws ClusterAdmin.KafkaCallException {
    check("describe the cluster id");
    return clusterId;
  }

  @Override
  public Set<String> consumerGroupIds() throws ClusterAdmin.KafkaCallException {
    check("list consumer groups");
    Set<String> out = new java.util.TreeSet<>(commits.keySet());
    out.addAll(states.keySet());
    return out;
  }

  @Override
  public Map<String, Map<PartitionKey, Long>> committedOffsets(
      Collection<String> groups, Set<String> topics) throws ClusterAdmin.KafkaCallException {
    check("read committed offsets");
    Map<String, Map<PartitionKey, Long>> out = new TreeMap<>();
    for (String g : groups) {
      Map<PartitionKey, Long> c = new TreeMap<>();
      commits
          .getOrDefault(g, Map.of())
          .forEach(
              (k, v) -> {
                if (topics.contains(k.topic())) {
                  c.put(k, v);
                }
              });
      out.put(g, c);
    }
    return out;
  }

  @Override
  public Map<String, DestinationGroup> describeGroups(Collection<String> groups)
      throws ClusterAdmin.KafkaCallException {
    check("describe consumer groups");
    Map<String, DestinationGroup> out = new TreeMap<>();
    for (String g : groups) {
      out.put(
          g,
          states.getOrDefault(
              g,
              commits.containsKey(g) ? new DestinationGroup("EMPTY", 0) : DestinationGroup.ABSENT));
    }
    return out;
  }

  @Override
  public Map<PartitionKey, LogRange> logRanges(Collection<PartitionKey> partitions)
      throws ClusterAdmin.KafkaCallException {
    check("list offsets");
    Map<PartitionKey, LogRange> out = new TreeMap<>();
    for (PartitionKey k : partitions) {
      if (ranges.containsKey(k)) {
        out.put(k, ranges.get(k));
      }
    }
    return out;
  }

  @Override
  public void commit(String group, Map<PartitionKey, Long> offsets)
      throws ClusterAdmin.KafkaCallException {
    check("commit offsets of group " + group);
    commitCalls++;
    if (refuseCommit.contains(group)) {
      throw new ClusterAdmin.KafkaCallException(
          "cannot commit offsets "
              + offsets
              + " of group "
              + group
              + " on "
              + label
              + ": UnknownMemberIdException",
          null);
    }
    journal.add("groups commit " + label + " " + group + " " + new TreeMap<>(offsets));
    offsets.forEach((k, v) -> commit(group, k.topic(), k.partition(), v));
  }

  @Override
  public void close() {}
}
