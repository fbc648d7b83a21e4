package dev.kafkamirror.operator.app;

import dev.kafkamirror.operator.api.v1alpha1.ClusterMirror;
import dev.kafkamirror.operator.control.ControlClient;
import dev.kafkamirror.operator.reconciler.ClusterMirrorReconciler;
import dev.kafkamirror.operator.reconciler.KubernetesEventRecorder;
import dev.kafkamirror.operator.reconciler.MirrorDriver;
import dev.kafkamirror.operator.reconciler.ReconcilerCollaborators;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.javaoperatorsdk.operator.Operator;
import io.javaoperatorsdk.operator.api.config.LeaderElectionConfiguration;
import io.javaoperatorsdk.operator.monitoring.micrometer.MicrometerMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmMemoryMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmThreadMetrics;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.io.IOException;
import java.time.Clock;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The operator process: reads its configuration from the environment, starts the JOSDK operator
 * (with Lease leader election when CMO_LEASE_NAMESPACE is set), the health and metrics endpoints,
 * and stops everything on SIGTERM.
 *
 * <p>Lifecycle: {@link #start} returns a running instance; {@link #close} stops it. {@link #main}
 * runs one until the JVM exits.
 */
public final class OperatorMain implements AutoCloseable {

  private final Operator operator;
  private final ClusterMirrorReconciler reconciler;
  private final HttpEndpoints endpoints;
  private final ExecutorService executor;

  private OperatorMain(
      Operator operator,
      ClusterMirrorReconciler reconciler,
      HttpEndpoints endpoints,
      ExecutorService executor) {
    this.operator = operator;
    this.reconciler = reconciler;
    this.endpoints = endpoints;
    this.executor = executor;
  }

  public static void main(String[] args) throws Exception {
    Map<String, String> env = System.getenv();
    // Log4j reads its configuration once, when the first logger is made: format, start level and
    // the re-read levels file must be in place before that (OperatorLogging).
    OperatorLogging.configure(env);
    OperatorConfig config = OperatorConfig.fromEnvironment(env);
    KubernetesClient client = new KubernetesClientBuilder().build();
    OperatorMain main = start(config, client, Clock.systemUTC());
    Runtime.getRuntime()
        .addShutdownHook(new Thread(() -> closeWithin(main, STOP_BOUND), "cmo-shutdown"));
    Thread.currentThread().join();
  }

  /** How long a SIGTERM waits for {@link #close} before the JVM halts anyway. */
  static final Duration STOP_BOUND = Duration.ofSeconds(10);

  /**
   * Closes {@code main} on a thread of its own and waits for it at most {@code bound}. With leader
   * election, JOSDK 5.2.3's {@code Operator.stop()} ends leadership through {@code
   * LeaderElectionManager.stopLeading}, which calls {@code System.exit(1)}: inside a shutdown hook
   * that call blocks forever, so a hook that closed the operator itself would never return and a
   * SIGTERM would never stop the JVM (the kubelet would SIGKILL it after its grace period). By then
   * the reconciles have stopped; the hook returns and the JVM halts.
   */
  static void closeWithin(OperatorMain main, Duration bound) {
    Thread closer = new Thread(main::close, "cmo-stop");
    closer.setDaemon(true);
    closer.start();
    try {
      closer.join(bound.toMillis());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  /** Starts an operator on {@code client}; the caller closes the returned instance. */
  public static OperatorMain start(OperatorConfig config, KubernetesClient client, Clock clock)
      throws IOException {
    Logger log = LoggerFactory.getLogger(OperatorMain.class);
    PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
    new JvmMemoryMetrics().bindTo(registry);
    new JvmThreadMetrics().bindTo(registry);
    ClusterMirrorMetrics metrics = new ClusterMirrorMetrics(registry);
    ExecutorService executor = Executors.newFixedThreadPool(16, daemonThreads());
    ClusterMirrorReconciler reconciler =
        new ClusterMirrorReconciler(
            ReconcilerCollaborators.production(
                client,
                new MirrorDriver(
                    new MeteredBrokerControl(
                        new ControlClient(
                            config.controlConnectTimeoutMs(), config.controlStepTimeoutMs()),
                        metrics),
                    executor),
                new KubernetesEventRecorder(client, clock, config.identity()),
                metrics,
                clock,
                config.reconciler()));
    Operator operator = newOperator(config, client, registry);
    operator.register(
        reconciler,
        o -> {
          if (config.watchNamespaces().isEmpty()) {
            o.watchingAllNamespaces();
          } else {
            o.settingNamespaces(config.watchNamespaces());
          }
        });
    HttpEndpoints endpoints =
        new HttpEndpoints(
            config.healthPort(),
            config.metricsPort(),
            () -> operator.getRuntimeInfo().isStarted(),
            () ->
                operator.getRuntimeInfo().isStarted()
                    && operator.getRuntimeInfo().allEventSourcesAreHealthy(),
            registry);
    try {
      operator.start();
    } catch (RuntimeException e) {
      endpoints.close();
      reconciler.close();
      executor.shutdownNow();
      throw e;
    }
    log.info(
        "cluster-mirror-operator started: identity={} watchNamespaces={} leaseNamespace={}"
            + " healthPort={} metricsPort={} kind={}",
        config.identity(),
        config.watchNamespaces().isEmpty() ? "all" : config.watchNamespaces(),
        config.leaseNamespace(),
        endpoints.healthPort(),
        endpoints.metricsPort(),
        ClusterMirror.class.getSimpleName());
    return new OperatorMain(operator, reconciler, endpoints, executor);
  }

  /**
   * The JOSDK operator, not started: on {@code client}, its reconcile metrics on {@code registry},
   * {@code config}'s reconcile pool size and leader election.
   */
  static Operator newOperator(
      OperatorConfig config, KubernetesClient client, PrometheusMeterRegistry registry) {
    return new Operator(
        o -> {
          o.withKubernetesClient(client)
              .withCloseClientOnStop(true)
              // JOSDK's fixed pool starts every one of its threads and keeps them.
              .withConcurrentReconciliationThreads(config.reconcileThreads())
              // JOSDK's reconcile metrics (operator_sdk_*), per ClusterMirror; a deleted
              // one's series are removed after the delay.
              .withMetrics(
                  MicrometerMetrics.newPerResourceCollectingMicrometerMetricsBuilder(registry)
                      .withCleanUpDelayInSeconds(60)
                      .withCleaningThreadNumber(1)
                      .build());
          if (config.leaseNamespace() != null) {
            o.withLeaderElectionConfiguration(
                new LeaderElectionConfiguration(
                    config.leaseName(), config.leaseNamespace(), config.identity()));
          }
        });
  }

  public int healthPort() {
    return endpoints.healthPort();
  }

  public int metricsPort() {
    return endpoints.metricsPort();
  }

  private static java.util.concurrent.ThreadFactory daemonThreads() {
    return r -> {
      Thread t = new Thread(r, "cmo-control");
      t.setDaemon(true);
      return t;
    };
  }

  @Override
  public void close() {
    try {
      operator.stop();
    } finally {
      reconciler.close();
      endpoints.close();
      executor.shutdownNow();
      try {
        executor.awaitTermination(
            Duration.ofSeconds(5).toMillis(), java.util.concurrent.TimeUnit.MILLISECONDS);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
  }
}
