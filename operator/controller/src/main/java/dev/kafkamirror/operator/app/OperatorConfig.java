package dev.kafkamirror.operator.app;

import dev.kafkamirror.operator.reconciler.ReconcilerSettings;
import java.util.Arrays;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;

/**
 * The operator's configuration, from environment variables (documented in docs/operator.md).
 *
 * @param watchNamespaces namespaces to watch (CMO_WATCH_NAMESPACES, comma-separated; empty: all)
 * @param leaseNamespace where the leader-election Lease lives (CMO_LEASE_NAMESPACE; unset: no
 *     leader election)
 * @param leaseName the Lease's name (CMO_LEASE_NAME)
 * @param identity this replica's identity in the Lease (CMO_POD_NAME, else the host name)
 * @param logLevel the root log level at start (CMO_LOG_LEVEL, lower case; {@link OperatorLogging}
 *     applies it, a levels file can change it at run time)
 * @param metricsPort Prometheus /metrics (CMO_METRICS_PORT; 0 picks a free port, -1 disables)
 * @param healthPort /healthz and /readyz (CMO_HEALTH_PORT; 0 picks a free port, -1 disables)
 * @param reconcileThreads reconciles that run at once (CMO_RECONCILE_THREADS, at least 1): the size
 *     of JOSDK's reconcile pool, whose threads are all started after as many reconciles and kept,
 *     idle or not (JOSDK's own default is 50)
 */
public record OperatorConfig(
    Set<String> watchNamespaces,
    String leaseNamespace,
    String leaseName,
    String identity,
    String logLevel,
    int metricsPort,
    int healthPort,
    long controlConnectTimeoutMs,
    long controlStepTimeoutMs,
    int reconcileThreads,
    ReconcilerSettings reconciler) {

  /**
   * Reconciles at once unless CMO_RECONCILE_THREADS says otherwise. The control calls to one broker
   * go at most 4 at a time whatever the number of reconciles (ControlClient), so more reconciles
   * mostly wait there: at 100 ClusterMirrors x 100 partitions, JOSDK's 50 reconciled 9 % more often
   * than 10 and cost 40 more threads, about 10 MiB of RSS (docs/benchmarks.md).
   */
  public static final int DEFAULT_RECONCILE_THREADS = 10;

  public static OperatorConfig fromEnvironment(Map<String, String> env) {
    ReconcilerSettings d = ReconcilerSettings.defaults();
    return new OperatorConfig(
        Arrays.stream(env.getOrDefault("CMO_WATCH_NAMESPACES", "").split(","))
            .map(String::trim)
            .filter(s -> !s.isEmpty())
            .collect(Collectors.toUnmodifiableSet()),
        blankToNull(env.get("CMO_LEASE_NAMESPACE")),
        env.getOrDefault("CMO_LEASE_NAME", "cluster-mirror-operator"),
        env.getOrDefault("CMO_POD_NAME", hostName()),
        OperatorLogging.level(env),
        intOf(env, "CMO_METRICS_PORT", 8080),
        intOf(env, "CMO_HEALTH_PORT", 8081),
        longOf(env, "CMO_CONTROL_CONNECT_TIMEOUT_MS", 5_000L),
        longOf(env, "CMO_CONTROL_STEP_TIMEOUT_MS", 30_000L),
        atLeastOne(env, "CMO_RECONCILE_THREADS", DEFAULT_RECONCILE_THREADS),
        new ReconcilerSettings(
            intOf(env, "CMO_ROUNDS_PER_RECONCILE", d.maxRoundsPerReconcile()),
            longOf(env, "CMO_REQUEUE_MS", d.requeueMs()),
            longOf(env, "CMO_RESYNC_MS", d.idleRequeueMs()),
            longOf(env, "CMO_ADMIN_TIMEOUT_MS", d.adminTimeoutMs()),
            d.maxPartitionsListed()));
  }

  private static String blankToNull(String s) {
    return s == null || s.isBlank() ? null : s.trim();
  }

  private static String hostName() {
    try {
      return java.net.InetAddress.getLocalHost().getHostName();
    } catch (java.net.UnknownHostException e) {
      return "cluster-mirror-operator-" + ProcessHandle.current().pid();
    }
  }

  private static int intOf(Map<String, String> env, String name, int fallback) {
    String v = env.get(name);
    if (v == null || v.isBlank()) {
      return fallback;
    }
    try {
      return Integer.parseInt(v.trim());
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException(name + " must be an integer, got '" + v + "'", e);
    }
  }

  private static int atLeastOne(Map<String, String> env, String name, int fallback) {
    int value = intOf(env, name, fallback);
    if (value < 1) {
      throw new IllegalArgumentException(
          name + " must be at least 1, got " + value + "; unset it for the default " + fallback);
    }
    return value;
  }

  private static long longOf(Map<String, String> env, String name, long fallback) {
    String v = env.get(name);
    if (v == null || v.isBlank()) {
      return fallback;
    }
    try {
      return Long.parseLong(v.trim());
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException(name + " must be an integer, got '" + v + "'", e);
    }
  }
}
