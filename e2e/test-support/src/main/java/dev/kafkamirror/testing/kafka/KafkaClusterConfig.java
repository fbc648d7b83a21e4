package dev.kafkamirror.testing.kafka;

import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/**
 * What a test cluster looks like: its name, how many brokers, an optional Java agent attached to
 * every broker with {@code -javaagent}, extra broker properties, and the JVM sizing.
 *
 * <p>The default JVM sizing (256 MiB initial, 512 MiB max heap, G1) lets a 2-core, 24 GiB machine
 * run three clusters of a controller plus three brokers side by side.
 */
public record KafkaClusterConfig(
    String name,
    String kafkaVersion,
    int brokers,
    boolean combinedWhenSingleBroker,
    Optional<Path> agentJar,
    Optional<String> agentOptions,
    Map<String, String> brokerProperties,
    List<String> perBrokerListenerProperties,
    Map<String, Short> features,
    Map<String, String> clientProperties,
    List<String> jvmArgs,
    Path workDir,
    Duration startTimeout,
    boolean proxiedClientListener,
    Map<String, String> controllerProperties,
    String listenerHost,
    Map<String, String> namedListeners,
    boolean deleteWorkOnClose) {

  /**
   * The system property that sets {@link Builder#deleteWorkOnClose}'s default: {@code true} makes
   * every cluster delete its data when it closes. Tests leave it unset (their data stays under the
   * build's {@code target/} for a post-mortem and goes with {@code mvn clean}); the benchmarks,
   * which run outside Maven under {@code java.io.tmpdir} and write gigabytes per run, set it unless
   * the caller did ({@link #deleteWorkOnCloseUnlessSet}).
   */
  public static final String DELETE_WORK_ON_CLOSE_PROPERTY = "cmo.test.deleteWorkOnClose";

  /**
   * Makes clusters built from now on delete their data when they close, unless {@value
   * #DELETE_WORK_ON_CLOSE_PROPERTY} was given (for example {@code -D...=false} to keep a
   * benchmark's brokers' logs).
   */
  public static void deleteWorkOnCloseUnlessSet() {
    if (System.getProperty(DELETE_WORK_ON_CLOSE_PROPERTY) == null) {
      System.setProperty(DELETE_WORK_ON_CLOSE_PROPERTY, "true");
    }
  }

  public KafkaClusterConfig {
    Objects.requireNonNull(name, "name");
    if (brokers < 1) {
      throw new IllegalArgumentException("a cluster needs at least one broker, got " + brokers);
    }
    brokerProperties = Map.copyOf(brokerProperties);
    perBrokerListenerProperties = List.copyOf(perBrokerListenerProperties);
    features = Map.copyOf(features);
    clientProperties = Map.copyOf(clientProperties);
    jvmArgs = List.copyOf(jvmArgs);
    controllerProperties = Map.copyOf(controllerProperties);
    Objects.requireNonNull(listenerHost, "listenerHost");
    namedListeners = Map.copyOf(namedListeners);
    if (proxiedClientListener && !namedListeners.isEmpty()) {
      throw new IllegalArgumentException(
          "cluster "
              + name
              + ": proxiedClientListener() and namedListener() both write the brokers' listeners;"
              + " use one of them");
    }
  }

  /** A builder for cluster {@code name} with one combined node and no agent. */
  public static Builder builder(String name) {
    return new Builder(name);
  }

  /** Builds {@link KafkaClusterConfig}. */
  public static final class Builder {
    private final String name;
    private String kafkaVersion = BrokerRuntime.DEFAULT_KAFKA_VERSION;
    private int brokers = 1;
    private boolean combinedWhenSingleBroker = true;
    private Path agentJar;
    private String agentOptions;
    private final Map<String, String> brokerProperties = new LinkedHashMap<>();
    private final List<String> perBrokerListenerProperties = new java.util.ArrayList<>();
    private final Map<String, Short> features = new LinkedHashMap<>();
    private final Map<String, String> clientProperties = new LinkedHashMap<>();
    private List<String> jvmArgs =
        List.of(
            "-Xms256m",
            "-Xmx512m",
            "-XX:+UseG1GC",
            "-XX:MaxGCPauseMillis=20",
            "-Djava.awt.headless=true",
            "-XX:+ExitOnOutOfMemoryError");
    private Path workDir =
        Path.of(
            System.getProperty(
                "cmo.test.workdir", System.getProperty("java.io.tmpdir") + "/cmo-test-work"));
    private Duration startTimeout = Duration.ofSeconds(300);
    private boolean proxiedClientListener;
    private final Map<String, String> controllerProperties = new LinkedHashMap<>();
    private String listenerHost = "127.0.0.1";
    private final Map<String, String> namedListeners = new LinkedHashMap<>();
    private boolean deleteWorkOnClose = Boolean.getBoolean(DELETE_WORK_ON_CLOSE_PROPERTY);

    private Builder(String name) {
      this.name = name;
    }

    /** Runs brokers of another Kafka version (its runtime module must be on the test classpath). */
    public Builder kafkaVersion(String version) {
      this.kafkaVersion = version;
      return this;
    }

    /** One combined broker+controller node (the default). */
    public Builder singleNode() {
      this.brokers = 1;
      this.combinedWhenSingleBroker = true;
      return this;
    }

    /** One dedicated controller plus {@code count} brokers with ids 1..count. */
    public Builder controllerPlusBrokers(int count) {
      this.brokers = count;
      this.combinedWhenSingleBroker = false;
      return this;
    }

    /** Attaches {@code jar} to every broker JVM with {@code -javaagent:jar[=options]}. */
    public Builder javaAgent(Path jar, String options) {
      this.agentJar = jar;
      this.agentOptions = options;
      return this;
    }

    /** A property added to every broker's server.properties (wins over the harness defaults). */
    public Builder brokerProperty(String key, String value) {
      brokerProperties.put(key, value);
      return this;
    }

    /**
     * A property added to the dedicated controller's server.properties (wins over the harness
     * defaults), such as {@code broker.session.timeout.ms} for a test that pauses a broker.
     */
    public Builder controllerProperty(String key, String value) {
      controllerProperties.put(key, value);
      return this;
    }

    /**
     * A broker property whose value is a listener of its own on each broker: the harness picks a
     * free loopback port per broker and sets {@code key=127.0.0.1:port} (see {@link
     * KafkaCluster#listenerOf}).
     */
    public Builder perBrokerListener(String key) {
      perBrokerListenerProperties.add(key);
      return this;
    }

    /** A feature level set when the storage is formatted ({@code --feature name=level}). */
    public Builder feature(String name, int level) {
      features.put(name, (short) level);
      return this;
    }

    /**
     * A property every client of the harness (its Admin, {@link KafkaCluster#clientProperties()})
     * needs, such as SASL settings when the brokers' listener requires them.
     */
    public Builder clientProperty(String key, String value) {
      clientProperties.put(key, value);
      return this;
    }

    /** Adds one JVM argument (a test-only system property, say) to the defaults of every node. */
    public Builder jvmArg(String arg) {
      List<String> args = new java.util.ArrayList<>(jvmArgs);
      args.add(arg);
      this.jvmArgs = List.copyOf(args);
      return this;
    }

    public Builder jvmArgs(List<String> args) {
      this.jvmArgs = List.copyOf(args);
      return this;
    }

    public Builder workDir(Path dir) {
      this.workDir = dir;
      return this;
    }

    public Builder startTimeout(Duration timeout) {
      this.startTimeout = timeout;
      return this;
    }

    /**
     * Gives every broker a second client listener, {@code EXTERNAL}, that it advertises at a {@link
     * dev.kafkamirror.testing.net.FaultProxy} the harness starts in front of it: clients that
     * bootstrap from {@link KafkaCluster#proxiedBootstrapServers()} learn the proxies' addresses
     * from metadata and so reach every broker through its proxy, while the harness, other test
     * clients and replication use the direct {@code PLAINTEXT} listener. {@link
     * KafkaCluster#proxy(int)} switches the faults.
     */
    public Builder proxiedClientListener() {
      this.proxiedClientListener = true;
      return this;
    }

    /**
     * The address the brokers' client listeners (PLAINTEXT and each {@link #perBrokerListener})
     * bind and advertise, instead of 127.0.0.1: an address of this machine that something outside
     * it must reach, such as the Docker bridge gateway a k3s container sees the host at. The
     * controller listener stays on loopback.
     */
    public Builder listenerHost(String host) {
      this.listenerHost = Objects.requireNonNull(host, "host");
      return this;
    }

    /**
     * Gives every broker one more client listener, {@code name} (upper case, such as {@code
     * SCRAM}), with {@code securityProtocol} ({@code SSL}, {@code SASL_SSL}, ...) on a free port of
     * its own, advertised at that port: a client that bootstraps from {@link
     * KafkaCluster#bootstrapServers(String)} reaches every broker through it, while replication,
     * the harness's own clients and the plugin keep the {@code PLAINTEXT} listener. Its settings go
     * in with {@link #brokerProperty} under Kafka's per-listener prefix {@code listener.name.<name
     * lower case>.}.
     */
    public Builder namedListener(String name, String securityProtocol) {
      if (!name.matches("[A-Z][A-Z0-9_]*")
          || name.equals("PLAINTEXT")
          || name.equals("CONTROLLER")
          || name.equals("EXTERNAL")) {
        throw new IllegalArgumentException(
            "listener name "
                + name
                + " of cluster "
                + this.name
                + ": give an upper-case name other than PLAINTEXT, CONTROLLER and EXTERNAL");
      }
      namedListeners.put(name, Objects.requireNonNull(securityProtocol, "securityProtocol"));
      return this;
    }

    /**
     * Whether {@link KafkaCluster#close} deletes the cluster's work directory (every node's data
     * and logs) once every node is stopped; default from {@value #DELETE_WORK_ON_CLOSE_PROPERTY}.
     */
    public Builder deleteWorkOnClose(boolean delete) {
      this.deleteWorkOnClose = delete;
      return this;
    }

    public KafkaClusterConfig build() {
      return new KafkaClusterConfig(
          name,
          kafkaVersion,
          brokers,
          combinedWhenSingleBroker,
          Optional.ofNullable(agentJar),
          Optional.ofNullable(agentOptions),
          brokerProperties,
          perBrokerListenerProperties,
          features,
          clientProperties,
          jvmArgs,
          workDir,
          startTimeout,
          proxiedClientListener,
          controllerProperties,
          listenerHost,
          namedListeners,
          deleteWorkOnClose);
    }

    /** Builds the config and starts the cluster. */
    public KafkaCluster start() {
      return KafkaCluster.start(build());
    }
  }
}
