package dev.kafkamirror.testing.kafka;

import dev.kafkamirror.testing.net.FaultProxy;
import dev.kafkamirror.testing.process.FreePorts;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.stream.Collectors;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.CreateTopicsResult;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.common.ElectionType;
import org.apache.kafka.common.Node;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.TopicPartitionInfo;
import org.apache.kafka.common.TopicPartitionReplica;
import org.apache.kafka.common.Uuid;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A real Apache Kafka cluster (KRaft) whose nodes are separate JVMs on the stock broker classpath,
 * on loopback ports the harness picks itself.
 *
 * <p>Two shapes: a single combined broker+controller node ({@link KafkaClusterConfig#brokers} = 1),
 * or one controller plus N brokers. Broker ids are 1..N; the dedicated controller has id 0. Each
 * cluster gets its own random cluster id, so several clusters (A, B, C) can run side by side.
 *
 * <p>{@link #close()} stops every JVM the cluster started, also those a test left killed or
 * half-started. A {@link dev.kafkamirror.testing.process.ProcessReaper} covers a test JVM that dies
 * without closing.
 *
 * <p>Not thread-safe: drive one cluster from one test thread.
 */
public final class KafkaCluster implements AutoCloseable {

  private static final Logger LOG = LoggerFactory.getLogger(KafkaCluster.class);

  private final KafkaClusterConfig config;
  private final String clusterId;
  private final Path baseDir;
  private final Map<Integer, KafkaNode> nodes = new LinkedHashMap<>();
  private final Map<Integer, Map<String, String>> perBrokerListeners = new LinkedHashMap<>();
  private final Map<Integer, FaultProxy> proxies = new LinkedHashMap<>();
  private final Map<Integer, Map<String, String>> namedListenerAddresses = new LinkedHashMap<>();
  private final String classpath;
  private volatile int controllerPort = -1;

  private KafkaCluster(KafkaClusterConfig config) {
    this.config = config;
    this.clusterId = Uuid.randomUuid().toString();
    this.classpath = BrokerRuntime.classpath(config.kafkaVersion());
    try {
      Path root = config.workDir();
      Files.createDirectories(root);
      this.baseDir = Files.createTempDirectory(root, "kafka-" + config.name() + "-");
    } catch (IOException e) {
      throw new UncheckedIOException(
          "cannot create the work directory under " + config.workDir(), e);
    }
  }

  /**
   * Starts a cluster and waits, bounded by the config's start timeout, until every broker is
   * registered.
   */
  public static KafkaCluster start(KafkaClusterConfig config) {
    KafkaCluster cluster = new KafkaCluster(config);
    try {
      cluster.startAll();
      return cluster;
    } catch (RuntimeException e) {
      cluster.close();
      throw e;
    }
  }

  private void startAll() {
    long started = System.nanoTime();
    boolean combined = config.brokers() == 1 && config.combinedWhenSingleBroker();
    int controllerId = combined ? 1 : 0;
    int extraPerBroker =
        config.perBrokerListenerProperties().size()
            + (config.proxiedClientListener() ? 1 : 0)
            + config.namedListeners().size();
    // All ports at once, so that none is handed out twice.
    List<Integer> ports = FreePorts.pick(config.brokers() + 1 + config.brokers() * extraPerBroker);
    java.util.Iterator<Integer> extraPorts =
        ports.subList(config.brokers() + 1, ports.size()).iterator();
    int controllerPort = ports.get(0);
    this.controllerPort = controllerPort;
    if (combined) {
      nodes.put(1, newNode(1, KafkaNodeRole.COMBINED, ports.get(1), controllerPort));
    } else {
      nodes.put(0, newNode(0, KafkaNodeRole.CONTROLLER, -1, controllerPort));
      for (int id = 1; id <= config.brokers(); id++) {
        nodes.put(id, newNode(id, KafkaNodeRole.BROKER, ports.get(id), -1));
      }
    }
    String voters = controllerId + "@127.0.0.1:" + controllerPort;
    Map<String, String> defaults = defaultProperties();
    for (KafkaNode node : nodes.values()) {
      Map<String, String> props = new LinkedHashMap<>(defaults);
      if (node.role().isBroker()) {
        props.putAll(config.brokerProperties());
        Map<String, String> listeners = new LinkedHashMap<>();
        for (String key : config.perBrokerListenerProperties()) {
          listeners.put(key, config.listenerHost() + ":" + extraPorts.next());
        }
        perBrokerListeners.put(node.nodeId(), listeners);
        props.putAll(listeners);
        if (config.proxiedClientListener()) {
          props.putAll(proxiedListener(node, extraPorts.next(), controllerPort));
        }
        if (!config.namedListeners().isEmpty()) {
          props.putAll(namedListeners(node, extraPorts, controllerPort));
        }
      }
      if (node.role().isController()) {
        props.putAll(config.controllerProperties());
      }
      node.writeConfig(voters, props);
    }
    runInParallel(
        nodes.values(),
        n -> n.format(classpath, clusterId, config.features(), config.startTimeout()));
    nodes.values().forEach(n -> n.launch(classpath));
    runInParallel(nodes.values(), n -> n.awaitStarted(config.startTimeout()));
    awaitBrokersRegistered(brokerIds(), config.startTimeout());
    LOG.info(
        "cluster {} ({}) up in {} ms: bootstrap {}",
        config.name(),
        clusterId,
        TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started),
        bootstrapServers());
  }

  /**
   * The listener properties of a broker with an {@code EXTERNAL} listener on {@code externalPort}
   * that it advertises at a fault proxy in front of it.
   */
  private Map<String, String> proxiedListener(
      KafkaNode node, int externalPort, int controllerPort) {
    String direct = node.bootstrapAddress().orElseThrow();
    FaultProxy proxy =
        FaultProxy.start(config.name() + "-broker-" + node.nodeId(), "127.0.0.1:" + externalPort);
    proxies.put(node.nodeId(), proxy);
    Map<String, String> props = new LinkedHashMap<>();
    String listeners = "PLAINTEXT://" + direct + ",EXTERNAL://127.0.0.1:" + externalPort;
    if (node.role().isController()) {
      listeners += ",CONTROLLER://127.0.0.1:" + controllerPort;
    }
    props.put("listeners", listeners);
    props.put("advertised.listeners", "PLAINTEXT://" + direct + ",EXTERNAL://" + proxy.address());
    props.put(
        "listener.security.protocol.map",
        "PLAINTEXT:PLAINTEXT,EXTERNAL:PLAINTEXT,CONTROLLER:PLAINTEXT");
    return props;
  }

  /**
   * The listener properties of a broker with every {@link KafkaClusterConfig#namedListeners()}
   * beside {@code PLAINTEXT}, each on the next of {@code ports}, advertised where it binds.
   */
  private Map<String, String> namedListeners(
      KafkaNode node, java.util.Iterator<Integer> ports, int controllerPort) {
    String direct = node.bootstrapAddress().orElseThrow();
    StringBuilder listeners = new StringBuilder("PLAINTEXT://" + direct);
    StringBuilder advertised = new StringBuilder("PLAINTEXT://" + direct);
    StringBuilder protocols = new StringBuilder("PLAINTEXT:PLAINTEXT,CONTROLLER:PLAINTEXT");
    Map<String, String> addresses = new LinkedHashMap<>();
    config
        .namedListeners()
        .forEach(
            (name, protocol) -> {
              String address = config.listenerHost() + ":" + ports.next();
              addresses.put(name, address);
              listeners.append(',').append(name).append("://").append(address);
              advertised.append(',').append(name).append("://").append(address);
              protocols.append(',').append(name).append(':').append(protocol);
            });
    if (node.role().isController()) {
      listeners.append(",CONTROLLER://127.0.0.1:").append(controllerPort);
    }
    namedListenerAddresses.put(node.nodeId(), addresses);
    Map<String, String> props = new LinkedHashMap<>();
    props.put("listeners", listeners.toString());
    props.put("advertised.listeners", advertised.toString());
    props.put("listener.security.protocol.map", protocols.toString());
    return props;
  }

  /**
   * {@code host:port,...} of every broker's listener {@code name} (see {@link
   * KafkaClusterConfig.Builder#namedListener}).
   */
  public String bootstrapServers(String name) {
    if (!config.namedListeners().containsKey(name)) {
      throw new IllegalArgumentException(
          "cluster "
              + config.name()
              + " has no listener "
              + name
              + "; its named listeners are "
              + config.namedListeners().keySet()
              + " (build it with namedListener(name, protocol))");
    }
    return brokerIds().stream()
        .map(id -> namedListenerAddresses.get(id).get(name))
        .collect(Collectors.joining(","));
  }

  /**
   * The fault proxy in front of a broker's {@code EXTERNAL} listener (see {@link
   * KafkaClusterConfig.Builder#proxiedClientListener()}).
   */
  public FaultProxy proxy(int brokerId) {
    FaultProxy proxy = proxies.get(brokerId);
    if (proxy == null) {
      throw new IllegalArgumentException(
          "broker "
              + brokerId
              + " of cluster "
              + config.name()
              + " has no fault proxy; build the cluster with proxiedClientListener()");
    }
    return proxy;
  }

  /** Every broker's fault proxy, by broker id. */
  public Map<Integer, FaultProxy> proxies() {
    return Map.copyOf(proxies);
  }

  /**
   * {@code host:port,...} of every broker's fault proxy: clients that bootstrap here reach every
   * broker through its proxy.
   */
  public String proxiedBootstrapServers() {
    if (proxies.isEmpty()) {
      throw new IllegalStateException(
          "cluster "
              + config.name()
              + " has no fault proxies; build it with proxiedClientListener()");
    }
    return proxies.values().stream().map(FaultProxy::address).collect(Collectors.joining(","));
  }

  private KafkaNode newNode(int id, KafkaNodeRole role, int brokerPort, int controllerPort) {
    List<String> jvmArgs = new ArrayList<>(config.jvmArgs());
    config
        .agentJar()
        .ifPresent(
            jar ->
                jvmArgs.add(
                    "-javaagent:"
                        + jar.toAbsolutePath()
                        + config.agentOptions().map(o -> "=" + o).orElse("")));
    return new KafkaNode(
        config.name(),
        id,
        role,
        baseDir.resolve("node-" + id),
        brokerPort,
        controllerPort,
        jvmArgs,
        config.listenerHost());
  }

  private Map<String, String> defaultProperties() {
    int internalRf = Math.min(3, config.brokers());
    int internalMinIsr = internalRf >= 3 ? 2 : 1;
    Map<String, String> props = new LinkedHashMap<>();
    props.put("offsets.topic.replication.factor", Integer.toString(internalRf));
    props.put("offsets.topic.num.partitions", "5");
    props.put("transaction.state.log.replication.factor", Integer.toString(internalRf));
    props.put("transaction.state.log.min.isr", Integer.toString(internalMinIsr));
    props.put("transaction.state.log.num.partitions", "5");
    props.put("share.coordinator.state.topic.replication.factor", Integer.toString(internalRf));
    props.put("share.coordinator.state.topic.min.isr", Integer.toString(internalMinIsr));
    props.put("default.replication.factor", Integer.toString(internalRf));
    return props;
  }

  /** The name the test gave the cluster, such as "A". */
  public String name() {
    return config.name();
  }

  /** The KRaft cluster id this cluster was formatted with. */
  public String clusterId() {
    return clusterId;
  }

  /** {@code host:port,...} of every broker, running or not. */
  public String bootstrapServers() {
    return nodes.values().stream()
        .flatMap(n -> n.bootstrapAddress().stream())
        .collect(Collectors.joining(","));
  }

  /**
   * {@code host:port} of the controller's listener, for an Admin client that talks to the
   * controller directly ({@code bootstrap.controllers}) instead of through a broker.
   */
  public String controllerBootstrap() {
    if (controllerPort < 0) {
      throw new IllegalStateException("cluster " + config.name() + " has not started");
    }
    return "127.0.0.1:" + controllerPort;
  }

  /** The ids of the nodes that act as brokers, in ascending order. */
  public List<Integer> brokerIds() {
    return nodes.values().stream()
        .filter(n -> n.role().isBroker())
        .map(KafkaNode::nodeId)
        .sorted()
        .toList();
  }

  /** A node by id; brokers are 1..N, a dedicated controller is 0. */
  public KafkaNode node(int nodeId) {
    KafkaNode node = nodes.get(nodeId);
    if (node == null) {
      throw new IllegalArgumentException(
          "cluster " + config.name() + " has no node " + nodeId + "; nodes are " + nodes.keySet());
    }
    return node;
  }

  /** The broker's {@code log.dirs} directory. */
  public Path logDir(int brokerId) {
    return node(brokerId).logDir();
  }

  /** The directory holding one partition's segments on one broker. */
  public Path partitionDir(int brokerId, TopicPartition partition) {
    return logDir(brokerId).resolve(partition.topic() + "-" + partition.partition());
  }

  /** The {@code host:port} the harness chose for a per-broker listener property on one broker. */
  public String listenerOf(int brokerId, String key) {
    String value = perBrokerListeners.getOrDefault(brokerId, Map.of()).get(key);
    if (value == null) {
      throw new IllegalArgumentException(
          "broker "
              + brokerId
              + " of cluster "
              + config.name()
              + " has no per-broker listener "
              + key);
    }
    return value;
  }

  /** Kills a broker with SIGKILL; its data stays for {@link #restartBroker}. */
  public void killBroker(int brokerId) {
    node(brokerId).kill();
  }

  /**
   * Stops a broker with SIGTERM (controlled shutdown); its data stays for {@link #restartBroker}.
   */
  public void stopBroker(int brokerId) {
    node(brokerId).stop();
  }

  /**
   * Sets (or, with a null value, removes) a broker setting for the broker's next {@link
   * #restartBroker}.
   */
  public void setBrokerProperty(int brokerId, String key, String value) {
    node(brokerId).setProperty(key, value);
  }

  /** Starts a stopped or killed broker on its old data and waits until it is registered again. */
  public void restartBroker(int brokerId) {
    KafkaNode node = node(brokerId);
    if (node.isRunning()) {
      throw new IllegalStateException(node.describe() + " is still running; stop or kill it first");
    }
    node.launch(classpath);
    node.awaitStarted(config.startTimeout());
    awaitBrokersRegistered(List.of(brokerId), config.startTimeout());
  }

  /** An Admin client on this cluster; the caller closes it. */
  public Admin admin() {
    return Admin.create(clientProperties());
  }

  /** The properties every client of this cluster needs. */
  public Properties clientProperties() {
    Properties props = new Properties();
    props.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers());
    props.put(AdminClientConfig.REQUEST_TIMEOUT_MS_CONFIG, "15000");
    props.put(AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, "30000");
    props.putAll(config.clientProperties());
    return props;
  }

  /**
   * Creates {@code topic} (1 partition, replication factor 1) again as soon as its deletion has
   * completed: a create answered "topic exists" is tried again every 300 ms, for 60 s at most.
   */
  public void createTopicAgainWhenDeleted(String topic) {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
    try (Admin admin = admin()) {
      while (true) {
        try {
          CreateTopicsResult created =
              admin.createTopics(List.of(new NewTopic(topic, 1, (short) 1)));
          created.all().get(30, TimeUnit.SECONDS);
          // The brokers may still serve the deleted topic's metadata, or none: wait for the new id
          awaitEveryPartitionLedAndHosted(
              admin, topic, 1, created.topicId(topic).get(30, TimeUnit.SECONDS));
          return;
        } catch (ExecutionException e) {
          if (!(e.getCause() instanceof org.apache.kafka.common.errors.TopicExistsException)
              || System.nanoTime() > deadline) {
            throw new IllegalStateException(
                "cannot create " + topic + " again on " + bootstrapServers() + ": " + e.getCause(),
                e);
          }
          Thread.sleep(300);
        }
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while creating " + topic + " again", e);
    } catch (TimeoutException e) {
      throw new IllegalStateException("creating " + topic + " again timed out", e);
    } catch (IllegalStateException e) {
      throw e;
    } catch (Exception e) {
      throw new IllegalStateException(
          "cannot create " + topic + " again on " + bootstrapServers() + ": " + e, e);
    }
  }

  /** Creates a topic and waits until every partition has a leader. */
  public void createTopic(
      String topic, int partitions, int replicationFactor, Map<String, String> configs) {
    try (Admin admin = admin()) {
      admin
          .createTopics(
              List.of(new NewTopic(topic, partitions, (short) replicationFactor).configs(configs)))
          .all()
          .get(30, TimeUnit.SECONDS);
      awaitEveryPartitionLedAndHosted(admin, topic, partitions, null);
    } catch (Exception e) {
      throw new IllegalStateException(
          "cannot create topic " + topic + " on cluster " + config.name() + ": " + e.getMessage(),
          e);
    }
  }

  /**
   * Waits up to 30 s until {@code topic} has {@code partitions} partitions, each with a leader and
   * every in-sync replica's log on its broker: the controller's answer to a create does not mean
   * the brokers have applied the topic yet. When {@code topicId} is not null, a description with
   * another id (a deleted topic of the same name the answering broker still knows) does not count.
   */
  private void awaitEveryPartitionLedAndHosted(
      Admin admin, String topic, int partitions, Uuid topicId) throws Exception {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
    while (System.nanoTime() < deadline) {
      TopicDescription description;
      try {
        description =
            admin
                .describeTopics(List.of(topic))
                .allTopicNames()
                .get(30, TimeUnit.SECONDS)
                .get(topic);
      } catch (ExecutionException e) {
        if (e.getCause()
            instanceof org.apache.kafka.common.errors.UnknownTopicOrPartitionException) {
          // The broker answering has not seen the new topic's metadata yet.
          Thread.sleep(100);
          continue;
        }
        throw e;
      }
      boolean allLed =
          description.partitions().stream()
              .allMatch(p -> p.leader() != null && !p.leader().isEmpty());
      if (allLed
          && (topicId == null || topicId.equals(description.topicId()))
          && description.partitions().size() == partitions
          && everyInSyncReplicaHostsItsLog(admin, topic, description)) {
        return;
      }
      Thread.sleep(100);
    }
    throw new IllegalStateException(
        "topic "
            + topic
            + " on cluster "
            + config.name()
            + (topicId == null ? "" : " (topic id " + topicId + ")")
            + " has partitions without a leader after 30 s");
  }

  /**
   * Whether every in-sync replica of every partition already has its log on its broker. A leader in
   * the controller's metadata does not mean a follower broker has applied the topic yet; a call to
   * that broker right after creation (the plugin's start, for one) would find no replica.
   */
  private static boolean everyInSyncReplicaHostsItsLog(
      Admin admin, String topic, TopicDescription description) throws Exception {
    List<TopicPartitionReplica> replicas = new ArrayList<>();
    for (TopicPartitionInfo p : description.partitions()) {
      for (Node node : p.isr()) {
        replicas.add(new TopicPartitionReplica(topic, p.partition(), node.id()));
      }
    }
    try {
      return admin
          .describeReplicaLogDirs(replicas)
          .all()
          .get(30, TimeUnit.SECONDS)
          .values()
          .stream()
          .allMatch(info -> info.getCurrentReplicaLogDir() != null);
    } catch (ExecutionException e) {
      return false;
    }
  }

  /** The current leader of a partition, as the controller reports it. */
  public int leaderOf(TopicPartition partition) {
    TopicPartitionInfo info = describePartition(partition);
    if (info.leader() == null || info.leader().isEmpty()) {
      throw new IllegalStateException(
          "partition " + partition + " on cluster " + config.name() + " has no leader");
    }
    return info.leader().id();
  }

  /**
   * Elects {@code broker} leader of {@code partition} uncleanly (it may be out of the ISR), asking
   * again until the controller reports it as the leader.
   *
   * @throws IllegalStateException when it is not the leader within {@code within}
   */
  public void electUncleanly(TopicPartition partition, int broker, Duration within) {
    long deadline = System.nanoTime() + within.toNanos();
    try (Admin admin = admin()) {
      while (true) {
        try {
          admin
              .electLeaders(ElectionType.UNCLEAN, Set.of(partition))
              .all()
              .get(10, TimeUnit.SECONDS);
        } catch (ExecutionException | TimeoutException e) {
          // ELECTION_NOT_NEEDED once an earlier round elected it, or not possible yet: look.
        }
        try {
          if (leaderOf(partition) == broker) {
            return;
          }
        } catch (IllegalStateException e) {
          // no leader yet
        }
        if (System.nanoTime() > deadline) {
          throw new IllegalStateException(
              "broker "
                  + broker
                  + " did not become leader of "
                  + partition
                  + " on cluster "
                  + config.name()
                  + " by unclean election within "
                  + within);
        }
        Thread.sleep(100);
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while electing " + partition, e);
    }
  }

  /** The in-sync replicas of a partition, as the controller reports them. */
  public Set<Integer> isrOf(TopicPartition partition) {
    return describePartition(partition).isr().stream().map(Node::id).collect(Collectors.toSet());
  }

  private TopicPartitionInfo describePartition(TopicPartition partition) {
    try (Admin admin = admin()) {
      TopicDescription description =
          admin
              .describeTopics(List.of(partition.topic()))
              .allTopicNames()
              .get(30, TimeUnit.SECONDS)
              .get(partition.topic());
      return description.partitions().get(partition.partition());
    } catch (Exception e) {
      throw new IllegalStateException(
          "cannot describe " + partition + " on cluster " + config.name() + ": " + e.getMessage(),
          e);
    }
  }

  private void awaitBrokersRegistered(Collection<Integer> ids, Duration timeout) {
    long deadline = System.nanoTime() + timeout.toNanos();
    Exception last = null;
    try (Admin admin = admin()) {
      while (System.nanoTime() < deadline) {
        try {
          Set<Integer> registered =
              admin.describeCluster().nodes().get(10, TimeUnit.SECONDS).stream()
                  .map(Node::id)
                  .collect(Collectors.toSet());
          if (registered.containsAll(ids)) {
            return;
          }
        } catch (ExecutionException | java.util.concurrent.TimeoutException e) {
          last = e;
        }
        Thread.sleep(200);
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while waiting for brokers " + ids, e);
    }
    throw new IllegalStateException(
        "brokers " + ids + " of cluster " + config.name() + " not registered within " + timeout,
        last);
  }

  private static void runInParallel(
      Collection<KafkaNode> targets, java.util.function.Consumer<KafkaNode> action) {
    List<CompletableFuture<Void>> futures =
        targets.stream().map(n -> CompletableFuture.runAsync(() -> action.accept(n))).toList();
    try {
      CompletableFuture.allOf(futures.toArray(CompletableFuture[]::new)).join();
    } catch (java.util.concurrent.CompletionException e) {
      if (e.getCause() instanceof RuntimeException runtime) {
        throw runtime;
      }
      throw e;
    }
  }

  /** Stops every node: brokers first with a controlled shutdown, then the controller. */
  @Override
  public void close() {
    // A broker shutting down needs the controller, so stop brokers in parallel while it is still
    // up, then the controller.
    runInParallel(
        nodes.values().stream().filter(n -> n.role() == KafkaNodeRole.BROKER).toList(),
        KafkaNode::stop);
    nodes.values().stream().filter(n -> n.role() != KafkaNodeRole.BROKER).forEach(KafkaNode::stop);
    nodes.values().forEach(KafkaNode::kill);
    proxies.values().forEach(FaultProxy::close);
    if (config.deleteWorkOnClose()) {
      deleteWorkDir();
    }
  }

  /** The directory every node of this cluster keeps its data and logs in. */
  public Path workDir() {
    return baseDir;
  }

  /**
   * Deletes the work directory; called after every node is killed ({@link KafkaNode#kill} waits for
   * each process's exit, bounded). A node still running keeps the directory; a file that cannot be
   * deleted is logged and left, never thrown: closing must go on stopping the rest.
   */
  private void deleteWorkDir() {
    if (nodes.values().stream().anyMatch(KafkaNode::isRunning)) {
      LOG.warn("cluster {}: a node is still alive, its work directory {} is kept", name(), baseDir);
      return;
    }
    try (java.util.stream.Stream<Path> paths = Files.walk(baseDir)) {
      paths
          .sorted(java.util.Comparator.reverseOrder())
          .forEach(
              p -> {
                try {
                  Files.deleteIfExists(p);
                } catch (IOException e) {
                  LOG.warn("cluster {}: cannot delete {}: {}", name(), p, e.toString());
                }
              });
    } catch (IOException | UncheckedIOException e) {
      LOG.warn(
          "cluster {}: cannot delete its work directory {}: {}", name(), baseDir, e.toString());
    }
  }
}
