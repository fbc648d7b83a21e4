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
    ReconcilerSettings reconciler) {

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
