package dev.kafkamirror.operator.it;

import dev.kafkamirror.operator.app.OperatorConfig;
import dev.kafkamirror.operator.app.OperatorMain;
import dev.kafkamirror.testing.kafka.KafkaCluster;
import dev.kafkamirror.testing.kafka.KafkaClusterConfig;
import dev.kafkamirror.testing.kube.KubeApiServerHarness;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Clock;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * What an operator IT runs against: a real kube-apiserver, a Fabric8 client on it, Kafka clusters,
 * and the operator, in-JVM ({@link OperatorMain}) or as its own process ({@link OperatorProcess}).
 *
 * <p>It owns everything it starts and everything a test hands to {@link #register}: the API server
 * and the client from {@link #start()}, the clusters, the operators, and for instance a {@code
 * kubectl -w} process. {@link #close()} closes them in the reverse order of their registration, so
 * that typically the operator goes first, then the destination, the source, the client and last the
 * API server. It goes on past a failure, closes each thing once, then throws the first failure with
 * the others suppressed. A second {@code close()} does nothing, and {@code close()} after a setup
 * that failed halfway closes what had started.
 */
final class OperatorTestEnvironment implements AutoCloseable {

  /**
   * The in-JVM operator's settings that a test does not give: no health or metrics server, so that
   * nothing binds a port unless a test asks for one (with {@code "0"}, a free port).
   */
  static final Map<String, String> OPERATOR_DEFAULTS =
      Map.of("CMO_HEALTH_PORT", "-1", "CMO_METRICS_PORT", "-1");

  /** Last registered first. */
  private final Deque<AutoCloseable> owned = new ArrayDeque<>();

  private boolean closed;
  private KubeApiServerHarness apiServer;
  private KubernetesClient client;

  private OperatorTestEnvironment() {}

  /**
   * Starts the API server and a client on it; when the client cannot be made, stops the API server
   * before throwing.
   */
  static OperatorTestEnvironment start() {
    OperatorTestEnvironment environment = new OperatorTestEnvironment();
    try {
      environment.apiServer = environment.register(KubeApiServerHarness.start());
      environment.client = environment.register(environment.apiServer.newClient());
      return environment;
    } catch (RuntimeException | Error e) {
      environment.closeAfter(e);
      throw e;
    }
  }

  KubeApiServerHarness apiServer() {
    return apiServer;
  }

  /** The test's client; the operators have their own. */
  KubernetesClient client() {
    return client;
  }

  /** Installs the ClusterMirror CRD, then creates each namespace with the control Secret. */
  void installCrdAndNamespaces(String... namespaces) {
    MirrorFixtures.installCrd(client);
    for (String namespace : namespaces) {
      MirrorFixtures.namespaceWithSecret(client, namespace);
    }
  }

  /** Starts a cluster of any shape and owns it. */
  KafkaCluster startCluster(KafkaClusterConfig.Builder cluster) {
    checkOpen();
    return register(cluster.start());
  }

  /** A source: one combined broker+controller node, without the plugin. */
  KafkaCluster startSource(String name) {
    return startCluster(KafkaClusterConfig.builder(name).singleNode());
  }

  /** A destination of one combined broker+controller node whose broker runs the plugin. */
  KafkaCluster startDestination(String name) {
    return startCluster(MirrorFixtures.destination(name).singleNode());
  }

  /** A destination of one dedicated controller plus {@code brokers} brokers running the plugin. */
  KafkaCluster startDestination(String name, int brokers) {
    return startCluster(MirrorFixtures.destination(name).controllerPlusBrokers(brokers));
  }

  /**
   * Starts the operator in this JVM with its own client, on {@link #OPERATOR_DEFAULTS} overridden
   * by {@code environment}; closing it closes that client too.
   */
  OperatorMain startOperator(Map<String, String> environment) throws IOException {
    checkOpen();
    Map<String, String> merged = new HashMap<>(OPERATOR_DEFAULTS);
    merged.putAll(environment);
    OperatorConfig config = OperatorConfig.fromEnvironment(merged);
    KubernetesClient operatorClient = apiServer.newClient();
    OperatorMain operator;
    try {
      operator = OperatorMain.start(config, operatorClient, Clock.systemUTC());
    } catch (IOException | RuntimeException | Error e) {
      operatorClient.close();
      throw e;
    }
    return register(operator);
  }

  /**
   * An operator JVM on this API server, owned but not started; its log goes to a new directory
   * {@code <cmo.test.workdir>/<name>-<nanoTime>}.
   */
  OperatorProcess newOperatorProcess(String name, Map<String, String> environment) {
    return newOperatorProcess(name, environment, OperatorProcess.TEST_JVM_OPTIONS);
  }

  /** As {@link #newOperatorProcess(String, Map)}, with the JVM started on {@code jvmOptions}. */
  OperatorProcess newOperatorProcess(
      String name, Map<String, String> environment, List<String> jvmOptions) {
    checkOpen();
    Path workDir =
        Path.of(
            System.getProperty("cmo.test.workdir", "target/test-work"),
            name + "-" + System.nanoTime());
    return register(
        new OperatorProcess(workDir, apiServer.kubeconfigFile(), environment, jvmOptions));
  }

  /**
   * Owns {@code resource}: {@link #close()} closes it before everything registered earlier. After
   * {@code close()} it closes {@code resource} at once and throws.
   */
  <T extends AutoCloseable> T register(T resource) {
    if (closed) {
      IllegalStateException e = new IllegalStateException("the test environment is closed");
      try {
        resource.close();
      } catch (Exception | Error failure) {
        e.addSuppressed(failure);
      }
      throw e;
    }
    owned.push(resource);
    return resource;
  }

  /**
   * Closes everything owned, last registered first, each once. A checked exception from a
   * registered resource is thrown wrapped in an {@link IllegalStateException}.
   */
  @Override
  public void close() {
    closed = true;
    Throwable first = null;
    while (!owned.isEmpty()) {
      AutoCloseable next = owned.pop();
      try {
        next.close();
      } catch (Exception | Error e) {
        if (e instanceof InterruptedException) {
          Thread.currentThread().interrupt();
        }
        if (first == null) {
          first = e;
        } else {
          first.addSuppressed(e);
        }
      }
    }
    if (first instanceof RuntimeException e) {
      throw e;
    }
    if (first instanceof Error e) {
      throw e;
    }
    if (first != null) {
      throw new IllegalStateException("could not close the test environment", first);
    }
  }

  private void closeAfter(Throwable failure) {
    try {
      close();
    } catch (RuntimeException | Error e) {
      failure.addSuppressed(e);
    }
  }

  private void checkOpen() {
    if (closed) {
      throw new IllegalStateException("the test environment is closed");
    }
  }
}
