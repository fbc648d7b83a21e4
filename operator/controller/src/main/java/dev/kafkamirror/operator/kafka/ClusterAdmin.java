package dev.kafkamirror.operator.kafka;

import dev.kafkamirror.operator.core.PartitionKey;
import dev.kafkamirror.operator.core.TopicSelector;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.ListTopicsOptions;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.common.Node;
import org.apache.kafka.common.TopicPartitionInfo;
import org.apache.kafka.common.errors.TopicExistsException;

/**
 * The Kafka Admin calls the operator needs on one cluster: broker hosts, the selected topics'
 * partitions with leaders and replicas, partition counts, topic creation. Every call is bounded by
 * {@code timeoutMs}.
 *
 * <p>Thread-safe (Kafka's Admin is). Close it when the ClusterMirror goes away or its connection
 * settings change.
 */
public final class ClusterAdmin implements AutoCloseable {

  private final String clusterLabel;
  private final Admin admin;
  private final long timeoutMs;

  /**
   * @param clusterLabel "destination of ns/name" or similar, for error messages
   * @param properties bootstrap.servers and security settings
   */
  public ClusterAdmin(String clusterLabel, Properties properties, long timeoutMs) {
    this.clusterLabel = clusterLabel;
    this.timeoutMs = timeoutMs;
    Properties props = new Properties();
    props.putAll(properties);
    props.putIfAbsent(AdminClientConfig.REQUEST_TIMEOUT_MS_CONFIG, Long.toString(timeoutMs));
    props.putIfAbsent(AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, Long.toString(timeoutMs));
    props.putIfAbsent(AdminClientConfig.RECONNECT_BACKOFF_MAX_MS_CONFIG, "2000");
    this.admin = Admin.create(props);
  }

  /** The cluster id the cluster reports. */
  public String clusterId() throws KafkaCallException {
    return get(admin.describeCluster().clusterId(), "describe the cluster id");
  }

  /** Broker id to advertised host, of every live broker. */
  public Map<Integer, String> brokerHosts() throws KafkaCallException {
    Collection<Node> nodes = get(admin.describeCluster().nodes(), "list the brokers");
    Map<Integer, String> out = new HashMap<>();
    for (Node n : nodes) {
      out.put(n.id(), n.host());
    }
    return out;
  }

  /** Every non-internal topic name. */
  public Set<String> topicNames() throws KafkaCallException {
    return get(
        admin.listTopics(new ListTopicsOptions().listInternal(false)).names(), "list topics");
  }

  /** The selected topics' partitions with their leader and replicas. */
  public List<PartitionPlacement> placements(TopicSelector selector) throws KafkaCallException {
    List<String> topics = selector.select(topicNames());
    if (topics.isEmpty()) {
      return List.of();
    }
    Map<String, TopicDescription> described =
        get(admin.describeTopics(topics).allTopicNames(), "describe topics " + topics);
    List<PartitionPlacement> out = new ArrayList<>();
    for (TopicDescription d : described.values()) {
      for (TopicPartitionInfo p : d.partitions()) {
        Integer leader = p.leader() == null || p.leader().isEmpty() ? null : p.leader().id();
        out.add(
            new PartitionPlacement(
                new PartitionKey(d.name(), p.partition()),
                leader,
                p.replicas().stream().map(Node::id).toList()));
      }
    }
    out.sort((a, b) -> a.key().compareTo(b.key()));
    return out;
  }

  /** Partition counts of {@code topics}. */
  public Map<String, Integer> partitionCounts(Collection<String> topics) throws KafkaCallException {
    Map<String, TopicDescription> described =
        get(admin.describeTopics(topics).allTopicNames(), "describe topics " + topics);
    Map<String, Integer> out = new HashMap<>();
    described.forEach((name, d) -> out.put(name, d.partitions().size()));
    return out;
  }

  /** Creates topics (an existing one is fine). */
  public void createTopics(Map<String, Integer> partitionCounts, short replicationFactor)
      throws KafkaCallException {
    List<NewTopic> topics = new ArrayList<>();
    partitionCounts.forEach((t, n) -> topics.add(new NewTopic(t, n, replicationFactor)));
    try {
      admin.createTopics(topics).all().get(timeoutMs, TimeUnit.MILLISECONDS);
    } catch (ExecutionException e) {
      if (!(e.getCause() instanceof TopicExistsException)) {
        throw new KafkaCallException(
            "cannot create topics "
                + partitionCounts.keySet()
                + " on "
                + clusterLabel
                + ": "
                + e.getCause(),
            e.getCause());
      }
    } catch (TimeoutException e) {
      throw new KafkaCallException(
          "creating topics "
              + partitionCounts.keySet()
              + " on "
              + clusterLabel
              + " timed out after "
              + timeoutMs
              + " ms",
          e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new KafkaCallException("interrupted", e);
    }
  }

  private <T> T get(org.apache.kafka.common.KafkaFuture<T> future, String what)
      throws KafkaCallException {
    try {
      return future.get(timeoutMs, TimeUnit.MILLISECONDS);
    } catch (ExecutionException e) {
      throw new KafkaCallException(
          "cannot " + what + " on " + clusterLabel + ": " + e.getCause(), e.getCause());
    } catch (TimeoutException e) {
      throw new KafkaCallException(
          "could not " + what + " on " + clusterLabel + " within " + timeoutMs + " ms", e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new KafkaCallException("interrupted while trying to " + what, e);
    }
  }

  @Override
  public void close() {
    admin.close(java.time.Duration.ofSeconds(5));
  }

  /** A Kafka Admin call that failed or timed out; the message names the cluster and the call. */
  public static final class KafkaCallException extends Exception {
    private static final long serialVersionUID = 1L;

    public KafkaCallException(String message, Throwable cause) {
      super(message, cause);
    }
  }
}
