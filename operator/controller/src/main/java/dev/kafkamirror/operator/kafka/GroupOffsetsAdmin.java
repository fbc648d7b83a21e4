package dev.kafkamirror.operator.kafka;

import dev.kafkamirror.operator.core.GroupOffsetPlanner.DestinationGroup;
import dev.kafkamirror.operator.core.GroupOffsetPlanner.LogRange;
import dev.kafkamirror.operator.core.PartitionKey;
import java.util.Collection;
import java.util.Map;
import java.util.Set;

/**
 * The Kafka Admin calls of the consumer group offset sync on one cluster. {@link
 * KafkaGroupOffsetsAdmin} is the real one; unit tests use a fake.
 *
 * <p>Every call is bounded and either answers or throws {@link ClusterAdmin.KafkaCallException}
 * naming the cluster, the call and the groups or partitions. Implementations are thread-safe.
 */
public interface GroupOffsetsAdmin extends AutoCloseable {

  /** The cluster id the cluster reports. */
  String clusterId() throws ClusterAdmin.KafkaCallException;

  /** The ids of every consumer group (classic and consumer protocol). */
  Set<String> consumerGroupIds() throws ClusterAdmin.KafkaCallException;

  /**
   * The committed offsets of {@code groups} on partitions of {@code topics}; a group without
   * commits (or unknown) maps to an empty map.
   */
  Map<String, Map<PartitionKey, Long>> committedOffsets(
      Collection<String> groups, Set<String> topics) throws ClusterAdmin.KafkaCallException;

  /** The state and member count of each group; a group the cluster does not know is ABSENT. */
  Map<String, DestinationGroup> describeGroups(Collection<String> groups)
      throws ClusterAdmin.KafkaCallException;

  /** The log start and log end offset of each partition. */
  Map<PartitionKey, LogRange> logRanges(Collection<PartitionKey> partitions)
      throws ClusterAdmin.KafkaCallException;

  /**
   * Commits {@code offsets} for {@code group} (an admin commit, refused by the coordinator when the
   * group has members).
   */
  void commit(String group, Map<PartitionKey, Long> offsets) throws ClusterAdmin.KafkaCallException;

  /** Releases the client; never throws. */
  @Override
  void close();
}
