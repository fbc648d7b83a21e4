package dev.kafkamirror.operator.kafka;

import dev.kafkamirror.operator.core.MetadataRequestPlanner;
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
import org.apache.kafka.clients.admin.AlterConfigOp;
import org.apache.kafka.clients.admin.Config;
import org.apache.kafka.clients.admin.ConfigEntry;
import org.apache.kafka.clients.admin.ListTopicsOptions;
import org.apache.kafka.clients.admin.NewPartitions;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.common.Node;
import org.apache.kafka.common.TopicPartitionInfo;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.errors.TopicExistsException;

/**
 * {@link ClusterAdmin} over Kafka's Admin client. Every call is bounded by {@code timeoutMs}.
 *
 * <p>Thread-safe (Kafka's Admin is). Close it when the ClusterMirror goes away or its connection
 * settings change.
 */
public final class KafkaClusterAdmin implements ClusterAdmin {

  private final String clusterLabel;
  private final Admin admin;
  private final long timeoutMs;
  private final Runnable onClose;

  /**
   * A client with an Admin of its own, closed with it.
   *
   * @param clusterLabel "destination of ns/name" or similar, for error messages
   * @param properties bootstrap.servers and security settings
   */
  public KafkaClusterAdmin(String clusterLabel, Properties properties, long timeoutMs) {
    this.clusterLabel = clusterLabel;
    this.timeoutMs = timeoutMs;
    Admin own = Admin.create(adminProperties(properties, timeoutMs));
    this.admin = own;
    this.onClose = () -> own.close(java.time.Duration.ofSeconds(5));
  }

  /**
   * A client over an Admin it does not own (shared, see {@link SharedKafkaAdmins}): its calls and
   * error messages are its own ({@code clusterLabel}), and {@link #close()} runs {@code onClose}
   * instead of closing the Admin.
   */
  KafkaClusterAdmin(String clusterLabel, Admin admin, long timeoutMs, Runnable onClose) {
    this.clusterLabel = clusterLabel;
    this.admin = admin;
    this.timeoutMs = timeoutMs;
    this.onClose = onClose;
  }

  /** {@code properties} with the call bounds every Admin of the operator has. */
  static Properties adminProperties(Properties properties, long timeoutMs) {
    Properties props = new Properties();
    props.putAll(properties);
    props.putIfAbsent(AdminClientConfig.REQUEST_TIMEOUT_MS_CONFIG, Long.toString(timeoutMs));
    props.putIfAbsent(AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, Long.toString(timeoutMs));
    props.putIfAbsent(AdminClientConfig.RECONNECT_BACKOFF_MAX_MS_CONFIG, "2000");
    return props;
  }

  /** The cluster id the cluster reports. */
  @Override
  public String clusterId() throws KafkaCallException {
    return get(admin.describeCluster().clusterId(), "describe the cluster id");
  }

  /** Broker id to advertised host, of every live broker. */
  @Override
  public Map<Integer, String> brokerHosts() throws KafkaCallException {
    Collection<Node> nodes = get(admin.describeCluster().nodes(), "list the brokers");
    Map<Integer, String> out = new HashMap<>();
    for (Node n : nodes) {
      out.put(n.id(), n.host());
    }
    return out;
  }

  /** Every non-internal topic name. */
  @Override
  public Set<String> topicNames() throws KafkaCallException {
    return get(
        admin.listTopics(new ListTopicsOptions().listInternal(false)).names(), "list topics");
  }

  /** The selected topics' partitions with their leader and replicas. */
  @Override
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
  @Override
  public Map<String, Integer> partitionCounts(Collection<String> topics) throws KafkaCallException {
    Map<String, TopicDescription> described =
        get(admin.describeTopics(topics).allTopicNames(), "describe topics " + topics);
    Map<String, Integer> out = new HashMap<>();
    described.forEach((name, d) -> out.put(name, d.partitions().size()));
    return out;
  }

  /**
   * The selected topics whose effective setting allows unclean leader election, each with where it
   * is enabled: the topic's own config, or (without a topic-level setting) the default any live
   * broker reports (its dynamic, cluster-wide or static config).
   */
  @Override
  public Map<String, String> uncleanLeaderElectionTopics(TopicSelector selector)
      throws KafkaCallException {
    List<String> topics = selector.select(topicNames());
    if (topics.isEmpty()) {
      return Map.of();
    }
    List<ConfigResource> resources = new ArrayList<>();
    topics.forEach(t -> resources.add(new ConfigResource(ConfigResource.Type.TOPIC, t)));
    Map<ConfigResource, Config> topicConfigs =
        get(admin.describeConfigs(resources).all(), "describe the configs of topics " + topics);
    String brokerDefault = null;
    Map<String, String> out = new java.util.TreeMap<>();
    for (String topic : topics) {
      Config config = topicConfigs.get(new ConfigResource(ConfigResource.Type.TOPIC, topic));
      ConfigEntry entry = config == null ? null : config.get(UNCLEAN_LEADER_ELECTION);
      if (entry != null && entry.source() == ConfigEntry.ConfigSource.DYNAMIC_TOPIC_CONFIG) {
        if (Boolean.parseBoolean(entry.value())) {
          out.put(topic, "topic config " + UNCLEAN_LEADER_ELECTION + "=true");
        }
        continue;
      }
      if (entry != null && Boolean.parseBoolean(entry.value())) {
        out.put(topic, "default " + UNCLEAN_LEADER_ELECTION + "=true (" + entry.source() + ")");
        continue;
      }
      if (brokerDefault == null) {
        brokerDefault = brokersEnablingUncleanElection();
      }
      if (!brokerDefault.isEmpty()) {
        out.put(topic, brokerDefault);
      }
    }
    return out;
  }

  /** Which live brokers default to unclean leader election, or "" when none does. */
  private String brokersEnablingUncleanElection() throws KafkaCallException {
    List<ConfigResource> brokers = new ArrayList<>();
    for (Integer id : brokerHosts().keySet()) {
      brokers.add(new ConfigResource(ConfigResource.Type.BROKER, Integer.toString(id)));
    }
    Map<ConfigResource, Config> configs =
        get(admin.describeConfigs(brokers).all(), "describe the broker configs");
    List<String> enabling = new ArrayList<>();
    configs.forEach(
        (resource, config) -> {
          ConfigEntry entry = config.get(UNCLEAN_LEADER_ELECTION);
          if (entry != null && Boolean.parseBoolean(entry.value())) {
            enabling.add("broker " + resource.name() + " (" + entry.source() + ")");
          }
        });
    enabling.sort(null);
    return enabling.isEmpty()
        ? ""
        : "default " + UNCLEAN_LEADER_ELECTION + "=true on " + String.join(", ", enabling);
  }

  /**
   * Creates topics with {@link ClusterAdmin#mirrorTopicConfigs} (an existing one is fine: its
   * configs are checked when it is stopped, and {@link #createPartitions} raises its count).
   *
   * <p>In steps a KRaft controller accepts ({@link MetadataRequestPlanner}): topics are created
   * with as many partitions as fit in one request and the rest are added by CreatePartitions, so a
   * topic of 10,000 partitions or more, or many topics at once, is created too. A topic this call
   * did not create (it existed) is not raised here. When a step fails, the topics created so far
   * stay as they are: the partitions they lack are the source's partitions the destination lacks,
   * which the reconcile adds as it adds partitions a source gained.
   */
  @Override
  public void createTopics(
      Map<String, Integer> partitionCounts,
      short replicationFactor,
      Map<String, Map<String, String>> topicConfigs)
      throws KafkaCallException {
    Map<String, String> safety = ClusterAdmin.mirrorTopicConfigs(replicationFactor);
    Map<String, Map<String, String>> configs = new java.util.TreeMap<>();
    Map<String, Integer> configCounts = new HashMap<>();
    partitionCounts.forEach(
        (t, n) -> {
          Map<String, String> c = new java.util.TreeMap<>(topicConfigs.getOrDefault(t, Map.of()));
          c.putAll(safety);
          configs.put(t, c);
          configCounts.put(t, c.size());
        });
    MetadataRequestPlanner.Plan plan =
        MetadataRequestPlanner.forCreation(
            partitionCounts, configCounts, MetadataRequestPlanner.RECORDS_PER_REQUEST);
    Map<String, Integer> created = new HashMap<>();
    // The first topic that failed; the others go on, and the created ones are raised, so that one
    // refused topic does not hold the rest at their first step.
    KafkaCallException first = null;
    for (Map<String, Integer> request : plan.creates()) {
      List<NewTopic> topics = new ArrayList<>();
      request.forEach(
          (t, n) -> topics.add(new NewTopic(t, n, replicationFactor).configs(configs.get(t))));
      for (Map.Entry<String, org.apache.kafka.common.KafkaFuture<Void>> e :
          admin.createTopics(topics).values().entrySet()) {
        String topic = e.getKey();
        try {
          get(
              e.getValue(),
              "create topic " + topic + " with " + request.get(topic) + " partitions");
          created.put(topic, request.get(topic));
        } catch (KafkaCallException failed) {
          if (!(failed.getCause() instanceof TopicExistsException) && first == null) {
            first = failed;
          }
        }
      }
    }
    for (Map<String, Integer> request :
        MetadataRequestPlanner.forGrowth(
            created, partitionCounts, MetadataRequestPlanner.RECORDS_PER_REQUEST)) {
      try {
        increase(request);
        created.putAll(request);
      } catch (KafkaCallException failed) {
        if (first == null) {
          first = failed;
        }
        break; // the next steps start from this one's count
      }
    }
    if (first != null) {
      throw new KafkaCallException(
          first.getMessage() + createdSoFar(created, partitionCounts), first.getCause());
    }
  }

  /** "; created so far: ..." naming each created topic's count and target, or "". */
  private static String createdSoFar(Map<String, Integer> created, Map<String, Integer> targets) {
    if (created.isEmpty()) {
      return "";
    }
    List<String> rows = new ArrayList<>();
    new java.util.TreeMap<>(created)
        .forEach((t, n) -> rows.add(t + " (" + n + " of " + targets.get(t) + " partitions)"));
    return "; created so far: "
        + String.join(", ", rows)
        + "; the partitions they lack are added at a later reconcile";
  }

  /**
   * Raises existing topics' partition counts to {@code partitionCounts}; the new partitions get the
   * topic's replication factor and configs. A topic already at or above its count is left as it is;
   * wide increases go in steps a KRaft controller accepts ({@link MetadataRequestPlanner}).
   */
  @Override
  public void createPartitions(Map<String, Integer> partitionCounts) throws KafkaCallException {
    if (partitionCounts.isEmpty()) {
      return;
    }
    raise(partitionCounts(partitionCounts.keySet()), partitionCounts);
  }

  /**
   * Raises topics from {@code current} to {@code targets} in the steps {@link
   * MetadataRequestPlanner#forGrowth} plans, stopping at the first step that fails.
   */
  void raise(Map<String, Integer> current, Map<String, Integer> targets) throws KafkaCallException {
    for (Map<String, Integer> request :
        MetadataRequestPlanner.forGrowth(
            current, targets, MetadataRequestPlanner.RECORDS_PER_REQUEST)) {
      increase(request);
    }
  }

  /**
   * One CreatePartitions: each topic raised to its count. A topic the controller says already has
   * that count or more is done: the count read before came from a broker whose metadata lagged
   * behind the controller's (as it does for a while after a wide creation).
   */
  private void increase(Map<String, Integer> request) throws KafkaCallException {
    Map<String, NewPartitions> increases = new java.util.TreeMap<>();
    request.forEach((t, n) -> increases.put(t, NewPartitions.increaseTo(n)));
    Map<String, org.apache.kafka.common.KafkaFuture<Void>> answers =
        admin.createPartitions(increases).values();
    for (Map.Entry<String, NewPartitions> e : increases.entrySet()) {
      String topic = e.getKey();
      int to = e.getValue().totalCount();
      try {
        get(answers.get(topic), "add partitions to topic " + topic + " (to " + to + ")");
      } catch (KafkaCallException failed) {
        Integer has = controllerCount(failed.getCause());
        if (has == null || has < to) {
          throw failed;
        }
      }
    }
  }

  private static final java.util.regex.Pattern CONTROLLER_COUNT =
      java.util.regex.Pattern.compile("(?:already|currently) has (\\d+) partition");

  /**
   * The partition count a controller's refusal of a CreatePartitions names ("Topic already has 10
   * partition(s).", "Topic currently has 12 partitions, ..."), or null.
   */
  static Integer controllerCount(Throwable refusal) {
    if (!(refusal instanceof org.apache.kafka.common.errors.InvalidPartitionsException)
        || refusal.getMessage() == null) {
      return null;
    }
    java.util.regex.Matcher m = CONTROLLER_COUNT.matcher(refusal.getMessage());
    return m.find() ? Integer.valueOf(m.group(1)) : null;
  }

  @Override
  public Map<String, Map<String, String>> topicConfigs(Collection<String> topics, Set<String> keys)
      throws KafkaCallException {
    if (topics.isEmpty()) {
      return Map.of();
    }
    // One DescribeConfigs: a topic this cluster lacks answers UNKNOWN_TOPIC_OR_PARTITION and is
    // left out, without listing every topic first.
    List<ConfigResource> resources = new ArrayList<>();
    for (String t : topics) {
      resources.add(new ConfigResource(ConfigResource.Type.TOPIC, t));
    }
    Map<ConfigResource, Config> described = new HashMap<>();
    for (Map.Entry<ConfigResource, org.apache.kafka.common.KafkaFuture<Config>> e :
        admin.describeConfigs(resources).values().entrySet()) {
      try {
        described.put(
            e.getKey(), get(e.getValue(), "describe the configs of topic " + e.getKey().name()));
      } catch (KafkaCallException missing) {
        if (!(missing.getCause()
            instanceof org.apache.kafka.common.errors.UnknownTopicOrPartitionException)) {
          throw missing;
        }
      }
    }
    Map<String, Map<String, String>> out = new java.util.TreeMap<>();
    described.forEach(
        (resource, config) -> {
          Map<String, String> values = new java.util.TreeMap<>();
          for (ConfigEntry e : config.entries()) {
            if (keys.contains(e.name()) && !e.isSensitive() && e.value() != null) {
              values.put(e.name(), e.value());
            }
          }
          out.put(resource.name(), values);
        });
    return out;
  }

  @Override
  public void alterTopicConfigs(Map<String, Map<String, String>> configs)
      throws KafkaCallException {
    if (configs.isEmpty()) {
      return;
    }
    Map<ConfigResource, Collection<AlterConfigOp>> ops = new HashMap<>();
    configs.forEach(
        (topic, values) -> {
          List<AlterConfigOp> list = new ArrayList<>();
          values.forEach(
              (k, v) ->
                  list.add(new AlterConfigOp(new ConfigEntry(k, v), AlterConfigOp.OpType.SET)));
          ops.put(new ConfigResource(ConfigResource.Type.TOPIC, topic), list);
        });
    get(admin.incrementalAlterConfigs(ops).all(), "set the configs " + configs);
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
    onClose.run();
  }
}
