package dev.kafkamirror.operator.kafka;

import dev.kafkamirror.operator.core.TopicSelector;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The Kafka Admin calls the operator needs on one cluster: broker hosts, the selected topics'
 * partitions with leaders and replicas, partition counts, the unclean-election settings, topic
 * creation. {@link KafkaClusterAdmin} is the real one; unit tests of the reconciler use a fake.
 *
 * <p>Every call is bounded and either answers or throws {@link KafkaCallException} naming the
 * cluster and the call. Implementations are thread-safe.
 */
public interface ClusterAdmin extends AutoCloseable {

  /** The topic config that decides unclean leader election. */
  String UNCLEAN_LEADER_ELECTION = "unclean.leader.election.enable";

  /** The cluster id the cluster reports. */
  String clusterId() throws KafkaCallException;

  /** Broker id to advertised host, of every live broker. */
  Map<Integer, String> brokerHosts() throws KafkaCallException;

  /** Every non-internal topic name. */
  Set<String> topicNames() throws KafkaCallException;

  /** The selected topics' partitions with their leader and replicas, sorted by partition. */
  List<PartitionPlacement> placements(TopicSelector selector) throws KafkaCallException;

  /** Partition counts of {@code topics}. */
  Map<String, Integer> partitionCounts(Collection<String> topics) throws KafkaCallException;

  /**
   * The selected topics whose effective setting allows unclean leader election, each with where it
   * is enabled: the topic's own config, or (without a topic-level setting) the default any live
   * broker reports (its dynamic, cluster-wide or static config).
   */
  Map<String, String> uncleanLeaderElectionTopics(TopicSelector selector) throws KafkaCallException;

  /**
   * Creates topics with {@link #mirrorTopicConfigs} (an existing one is fine: its configs are
   * checked when it is stopped).
   */
  default void createTopics(Map<String, Integer> partitionCounts, short replicationFactor)
      throws KafkaCallException {
    createTopics(partitionCounts, replicationFactor, Map.of());
  }

  /**
   * Creates topics with {@code topicConfigs} (per topic; the source's synced configs) and {@link
   * #mirrorTopicConfigs}, which win (an existing topic is fine and left as it is). Any width: a
   * topic too wide for one request is created with part of its partitions and raised in steps; when
   * a step fails, the topic stays with the partitions it has.
   */
  void createTopics(
      Map<String, Integer> partitionCounts,
      short replicationFactor,
      Map<String, Map<String, String>> topicConfigs)
      throws KafkaCallException;

  /**
   * Raises existing topics' partition counts to {@code partitionCounts} (Kafka never lowers one; a
   * topic at or above its count is left as it is); the new partitions get the topic's replication
   * factor and configs.
   */
  void createPartitions(Map<String, Integer> partitionCounts) throws KafkaCallException;

  /**
   * The effective values of configs {@code keys} of {@code topics}; a topic the cluster does not
   * have is absent, a config it does not report is absent from its map.
   */
  Map<String, Map<String, String>> topicConfigs(Collection<String> topics, Set<String> keys)
      throws KafkaCallException;

  /** Sets topic configs (incrementally: every other config of the topic is left as it is). */
  void alterTopicConfigs(Map<String, Map<String, String>> configs) throws KafkaCallException;

  /** Releases the client; never throws. */
  @Override
  void close();

  /**
   * The configs of a mirror topic the operator creates: no unclean leader election (it could
   * truncate the MIRROR_PID_RESET barrier away), and with three or more replicas a write needs two
   * in sync, so that one lost replica cannot take acknowledged mirrored data or the barrier with
   * it.
   */
  static Map<String, String> mirrorTopicConfigs(short replicationFactor) {
    Map<String, String> configs = new java.util.TreeMap<>();
    configs.put(UNCLEAN_LEADER_ELECTION, "false");
    if (replicationFactor >= 3) {
      configs.put("min.insync.replicas", "2");
    }
    return configs;
  }

  /** A Kafka Admin call that failed or timed out; the message names the cluster and the call. */
  final class KafkaCallException extends Exception {
    private static final long serialVersionUID = 1L;

    public KafkaCallException(String message, Throwable cause) {
      super(message, cause);
    }

    /**
     * The cluster's refusal of the client's credentials (SASL authentication or the TLS handshake
     * failed) this call failed with, or null when it failed otherwise. Kafka's messages of these
     * name the mechanism, never the password or the key.
     */
    public org.apache.kafka.common.errors.AuthenticationException authenticationFailure() {
      for (Throwable t = getCause(); t != null; t = t.getCause()) {
        if (t instanceof org.apache.kafka.common.errors.AuthenticationException a) {
          return a;
        }
        if (t.getCause() == t) {
          break;
        }
      }
      return null;
    }

    /**
     * The cluster's refusal of the call itself that waiting does not change, or null: a policy
     * ({@code PolicyViolationException}: a CreateTopicPolicy, an AlterConfigPolicy), an ACL the
     * principal lacks ({@code AuthorizationException}), a config or a topic name the cluster
     * rejects. Not a refusal of the credentials ({@link #authenticationFailure()}), nor one that
     * passes by itself (an invalid replication factor while brokers are fenced, a quota).
     */
    public org.apache.kafka.common.errors.ApiException refusal() {
      for (Throwable t = getCause(); t != null; t = t.getCause()) {
        // InvalidConfigurationException by its exact class (INVALID_CONFIG): Kafka derives
        // passing errors from it too (InvalidReplicationFactor while brokers are fenced,
        // UnsupportedVersion during a rolling upgrade) and AuthenticationException, which is
        // authenticationFailure()
        if (t instanceof org.apache.kafka.common.errors.PolicyViolationException
            || t instanceof org.apache.kafka.common.errors.AuthorizationException
            || t.getClass() == org.apache.kafka.common.errors.InvalidConfigurationException.class
            || t instanceof org.apache.kafka.common.errors.InvalidTopicException) {
          return (org.apache.kafka.common.errors.ApiException) t;
        }
        if (t.getCause() == t) {
          break;
        }
      }
      return null;
    }
  }
}
