package dev.kafkamirror.operator.kafka;

import dev.kafkamirror.operator.core.GroupOffsetPlanner.DestinationGroup;
import dev.kafkamirror.operator.core.GroupOffsetPlanner.LogRange;
import dev.kafkamirror.operator.core.PartitionKey;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.ConsumerGroupDescription;
import org.apache.kafka.clients.admin.GroupListing;
import org.apache.kafka.clients.admin.ListConsumerGroupOffsetsSpec;
import org.apache.kafka.clients.admin.ListGroupsOptions;
import org.apache.kafka.clients.admin.ListOffsetsResult.ListOffsetsResultInfo;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.KafkaFuture;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.GroupIdNotFoundException;

/**
 * {@link GroupOffsetsAdmin} over Kafka's Admin client. Every call is bounded by {@code timeoutMs}.
 * Commits carry no leader epoch: the destination's epochs need not be the source's, and a consumer
 * resuming from an offset without an epoch skips the epoch validation instead of mistaking the
 * difference for a truncation.
 *
 * <p>Thread-safe (Kafka's Admin is).
 */
public final class KafkaGroupOffsetsAdmin implements GroupOffsetsAdmin {

  private final String clusterLabel;
  private final Admin admin;
  private final long timeoutMs;

  /**
   * @param clusterLabel "ns/name source" or similar, for error messages
   * @param properties bootstrap.servers and security settings
   */
  public KafkaGroupOffsetsAdmin(String clusterLabel, Properties properties, long timeoutMs) {
    this.clusterLabel = clusterLabel;
    this.timeoutMs = timeoutMs;
    Properties props = new Properties();
    props.putAll(properties);
    props.putIfAbsent(AdminClientConfig.REQUEST_TIMEOUT_MS_CONFIG, Long.toString(timeoutMs));
    props.putIfAbsent(AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, Long.toString(timeoutMs));
    props.putIfAbsent(AdminClientConfig.RECONNECT_BACKOFF_MAX_MS_CONFIG, "2000");
    this.admin = Admin.create(props);
  }

  @Override
  public String clusterId() throws ClusterAdmin.KafkaCallException {
    return get(admin.describeCluster().clusterId(), "describe the cluster id");
  }

  @Override
  public Set<String> consumerGroupIds() throws ClusterAdmin.KafkaCallException {
    Collection<GroupListing> listings =
        get(admin.listGroups(ListGroupsOptions.forConsumerGroups()).all(), "list consumer groups");
    Set<String> out = new HashSet<>();
    listings.forEach(l -> out.add(l.groupId()));
    return out;
  }

  @Override
  public Map<String, Map<PartitionKey, Long>> committedOffsets(
      Collection<String> groups, Set<String> topics) throws ClusterAdmin.KafkaCallException {
    Map<String, Map<PartitionKey, Long>> out = new TreeMap<>();
    if (groups.isEmpty()) {
      return out;
    }
    Map<String, ListConsumerGroupOffsetsSpec> specs = new HashMap<>();
    groups.forEach(g -> specs.put(g, new ListConsumerGroupOffsetsSpec()));
    var result = admin.listConsumerGroupOffsets(specs);
    for (String group : groups) {
      Map<TopicPartition, OffsetAndMetadata> offsets;
      try {
        offsets =
            get(
                result.partitionsToOffsetAndMetadata(group),
                "read the committed offsets of group " + group);
      } catch (ClusterAdmin.KafkaCallException e) {
        if (e.getCause() instanceof GroupIdNotFoundException) {
          offsets = Map.of();
        } else {
          throw e;
        }
      }
      Map<PartitionKey, Long> commits = new TreeMap<>();
      offsets.forEach(
          (tp, om) -> {
            if (om != null && topics.contains(tp.topic())) {
              commits.put(new PartitionKey(tp.topic(), tp.partition()), om.offset());
            }
          });
      out.put(group, commits);
    }
    return out;
  }

  @Override
  public Map<String, DestinationGroup> describeGroups(Collection<String> groups)
      throws ClusterAdmin.KafkaCallException {
    Map<String, DestinationGroup> out = new TreeMap<>();
    if (groups.isEmpty()) {
      return out;
    }
    var described = admin.describeConsumerGroups(groups).describedGroups();
    for (String group : groups) {
      try {
        ConsumerGroupDescription d = get(described.get(group), "describe consumer group " + group);
        String state = d.groupState() == null ? "UNKNOWN" : d.groupState().name();
        out.put(group, new DestinationGroup(state, d.members().size()));
      } catch (ClusterAdmin.KafkaCallException e) {
        if (e.getCause() instanceof GroupIdNotFoundException) {
          out.put(group, DestinationGroup.ABSENT);
        } else {
          throw e;
        }
      }
    }
    return out;
  }

  @Override
  public Map<PartitionKey, LogRange> logRanges(Collection<PartitionKey> partitions)
      throws ClusterAdmin.KafkaCallException {
    Map<PartitionKey, LogRange> out = new TreeMap<>();
    if (partitions.isEmpty()) {
      return out;
    }
    Map<TopicPartition, OffsetSpec> earliest = new HashMap<>();
    Map<TopicPartition, OffsetSpec> latest = new HashMap<>();
    for (PartitionKey k : partitions) {
      earliest.put(new TopicPartition(k.topic(), k.partition()), OffsetSpec.earliest());
      latest.put(new TopicPartition(k.topic(), k.partition()), OffsetSpec.latest());
    }
    Map<TopicPartition, ListOffsetsResultInfo> starts =
        get(admin.listOffsets(earliest).all(), "read the log start offsets of " + partitions);
    Map<TopicPartition, ListOffsetsResultInfo> ends =
        get(admin.listOffsets(latest).all(), "read the log end offsets of " + partitions);
    for (PartitionKey k : partitions) {
      TopicPartition tp = new TopicPartition(k.topic(), k.partition());
      ListOffsetsResultInfo s = starts.get(tp);
      ListOffsetsResultInfo e = ends.get(tp);
      if (s != null && e != null && s.offset() >= 0 && e.offset() >= s.offset()) {
        out.put(k, new LogRange(s.offset(), e.offset()));
      }
    }
    return out;
  }

  @Override
  public void commit(String group, Map<PartitionKey, Long> offsets)
      throws ClusterAdmin.KafkaCallException {
    Map<TopicPartition, OffsetAndMetadata> commits = new HashMap<>();
    offsets.forEach(
        (k, v) ->
            commits.put(new TopicPartition(k.topic(), k.partition()), new OffsetAndMetadata(v)));
    get(
        admin.alterConsumerGroupOffsets(group, commits).all(),
        "commit offsets " + new TreeMap<>(offsets) + " of group " + group);
  }

  private <T> T get(KafkaFuture<T> future, String what) throws ClusterAdmin.KafkaCallException {
    try {
      return future.get(timeoutMs, TimeUnit.MILLISECONDS);
    } catch (ExecutionException e) {
      throw new ClusterAdmin.KafkaCallException(
          "cannot " + what + " on " + clusterLabel + ": " + e.getCause(), e.getCause());
    } catch (TimeoutException e) {
      throw new ClusterAdmin.KafkaCallException(
          "could not " + what + " on " + clusterLabel + " within " + timeoutMs + " ms", e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new ClusterAdmin.KafkaCallException("interrupted while trying to " + what, e);
    }
  }

  @Override
  public void close() {
    admin.close(java.time.Duration.ofSeconds(5));
  }
}
