package dev.kafkamirror.operator.app;

import dev.kafkamirror.operator.api.v1alpha1.ClusterMirror;
import dev.kafkamirror.operator.api.v1alpha1.ClusterMirrorStatus;
import dev.kafkamirror.operator.api.v1alpha1.Condition;
import dev.kafkamirror.operator.core.PartitionPhase;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.Timer;
import java.io.IOException;
import java.io.InputStream;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * The operator's own metrics, names in one place (Prometheus names in docs/operator.md
 * "Observability"; Micrometer adds {@code _total}, {@code _seconds} and the like on export).
 *
 * <p>Cardinality: the per-mirror series carry {@code namespace} and {@code name} of a ClusterMirror
 * and at most a partition phase or a condition type and status (a handful of values each); they are
 * registered when a ClusterMirror's status is first recorded and removed when it is deleted or
 * released ({@link #forget}), so their number is bounded by the number of ClusterMirrors. No series
 * names a topic or a partition. Control-call counters carry the call and an error code (bounded
 * enums). Reconcile counts and durations come from the Java Operator SDK's Micrometer support
 * ({@code operator_sdk_*}), not from here.
 *
 * <p>Thread-safe: reconciles of different resources record in parallel.
 */
public final class ClusterMirrorMetrics {

  public static final String BUILD_INFO = "cmo.build.info";
  public static final String MAX_LAG = "cmo.mirror.max.lag.records";
  public static final String PARTITIONS = "cmo.mirror.partitions";
  public static final String CONDITION = "cmo.mirror.condition";
  public static final String LAST_SUCCESS =
      "cmo.mirror.last.successful.reconcile.timestamp.seconds";
  public static final String SINCE_SUCCESS = "cmo.mirror.seconds.since.last.successful.reconcile";
  public static final String SOURCE_PARTITIONS_PENDING = "cmo.mirror.source.partitions.pending";
  public static final String GROUP_PARTITIONS_BEHIND =
      "cmo.mirror.consumer.group.sync.partitions.behind";
  public static final String STOP_DURATION = "cmo.stop.duration";
  public static final String CONTROL_CALLS = "cmo.control.calls";
  public static final String STATUS_WRITES = "cmo.status.writes";
  public static final String TAG_RESULT = "result";
  public static final String CONTROL_CALL_ERRORS = "cmo.control.call.errors";
  public static final String TAG_NAMESPACE = "namespace";
  public static final String TAG_NAME = "name";
  public static final String TAG_PHASE = "phase";
  public static final String TAG_TYPE = "type";
  public static final String TAG_STATUS = "status";
  public static final String TAG_CALL = "call";
  public static final String TAG_CODE = "code";
  private static final List<String> CONDITION_STATUSES = List.of("True", "False", "Unknown");

  private final MeterRegistry registry;
  private final Clock clock;
  private final Timer stopDuration;
  private final Map<String, Mirror> mirrors = new ConcurrentHashMap<>();

  public ClusterMirrorMetrics(MeterRegistry registry) {
    this(registry, Clock.systemUTC(), BuildInfo.fromClasspath());
  }

  /**
   * @param clock the time of a successful reconcile and the "seconds since" gauge
   * @param build the version and git commit exported as {@code cmo_build_info}
   */
  public ClusterMirrorMetrics(MeterRegistry registry, Clock clock, BuildInfo build) {
    this.registry = registry;
    this.clock = clock;
    this.stopDuration =
        Timer.builder(STOP_DURATION)
            .description("From the first stop step to every partition STOPPED, per ClusterMirror")
            .publishPercentileHistogram()
            .minimumExpectedValue(Duration.ofMillis(100))
            .maximumExpectedValue(Duration.ofMinutes(10))
            .register(registry);
    Gauge.builder(BUILD_INFO, () -> 1)
        .description("Always 1; the labels say which build of the operator runs")
        .tags("version", build.version(), "git_commit", build.gitCommit())
        .register(registry);
  }

  public MeterRegistry registry() {
    return registry;
  }

  /**
   * Counts one control call to a broker ({@code call}: DESCRIBE or an action) and, when it failed,
   * its error code (the plugin's or the client's: UNREACHABLE, HTTP_ERROR, ...).
   */
  public void controlCall(String call, String errorCode) {
    Counter.builder(CONTROL_CALLS)
        .description("Per-partition results of control calls to the brokers' plugin")
        .tag(TAG_CALL, call)
        .register(registry)
        .increment();
    if (errorCode != null) {
      Counter.builder(CONTROL_CALL_ERRORS)
          .description("Per-partition control call results that carried an error code")
          .tag(TAG_CALL, call)
          .tag(TAG_CODE, errorCode)
          .register(registry)
          .increment();
    }
  }

  /**
   * Counts one status the reconciler recorded: {@code sent} to the API server, or left out because
   * the server already held exactly it ({@code result="unchanged"}).
   */
  public void statusWrite(boolean sent) {
    Counter.builder(STATUS_WRITES)
        .description(
            "ClusterMirror statuses recorded: sent to the API server, or unchanged and not sent")
        .tag(TAG_RESULT, sent ? "sent" : "unchanged")
        .register(registry)
        .increment();
  }

  public void stopFinished(Duration took) {
    stopDuration.record(took);
  }

  /**
   * {@link #recorded(ClusterMirror, ClusterMirrorStatus, Map, long)} with no source partition
   * pending.
   */
  public void recorded(
      ClusterMirror cr, ClusterMirrorStatus status, Map<PartitionPhase, Long> partitions) {
    recorded(cr, status, partitions, 0L);
  }

  /**
   * Records what this reconcile computed for {@code cr}: max lag, partitions per phase (every
   * phase, 0 when none), each condition, the consumer group sync's partitions behind, and the
   * number of source partitions the destination lacks ({@code sourcePartitionsPending}: added on
   * the source, not mirrored yet). Registers the mirror's series on its first record.
   */
  public void recorded(
      ClusterMirror cr,
      ClusterMirrorStatus status,
      Map<PartitionPhase, Long> partitions,
      long sourcePartitionsPending) {
    Mirror m = mirror(cr);
    if (m == null) {
      return;
    }
    Long lag = status.getMaxLagRecords();
    m.maxLag = lag == null ? Double.NaN : lag;
    m.sourcePartitionsPending = sourcePartitionsPending;
    for (PartitionPhase phase : PartitionPhase.values()) {
      m.partitions.put(phase, partitions.getOrDefault(phase, 0L));
    }
    for (Condition c : status.getConditions()) {
      if (c.getType() == null) {
        continue;
      }
      Map<String, Double> byStatus =
          m.conditions.computeIfAbsent(
              c.getType(),
              type -> {
                Map<String, Double> values = new ConcurrentHashMap<>();
                for (String s : CONDITION_STATUSES) {
                  values.put(s, 0.0);
                  m.meters.add(
                      Gauge.builder(CONDITION, values, v -> v.getOrDefault(s, 0.0))
                          .description(
                              "1 when the ClusterMirror's condition of this type has this status")
                          .tags(m.tags)
                          .tag(TAG_TYPE, type)
                          .tag(TAG_STATUS, s)
                          .register(registry));
                }
                return values;
              });
      for (String s : CONDITION_STATUSES) {
        byStatus.put(s, s.equals(c.getStatus()) ? 1.0 : 0.0);
      }
    }
    var sync = status.getConsumerGroupSync();
    m.groupPartitionsBehind =
        sync == null || sync.getPartitionsBehind() == null
            ? Double.NaN
            : sync.getPartitionsBehind();
  }

  /**
   * Marks a reconcile of {@code cr} finished; a successful one sets the time of the last success.
   * Does nothing for a ClusterMirror whose status was never recorded or that was forgotten.
   */
  public void reconciled(String uid, boolean ok) {
    Mirror m = uid == null ? null : mirrors.get(uid);
    if (m != null && ok) {
      m.lastSuccessMillis = clock.millis();
    }
  }

  /** Removes every series of the ClusterMirror {@code uid} (deleted, or released). */
  public void forget(String uid) {
    Mirror m = uid == null ? null : mirrors.remove(uid);
    if (m != null) {
      for (Meter meter : m.meters) {
        registry.remove(meter);
      }
    }
  }

  private Mirror mirror(ClusterMirror cr) {
    String uid = cr.getMetadata().getUid();
    if (uid == null) {
      return null;
    }
    return mirrors.computeIfAbsent(
        uid, u -> new Mirror(cr.getMetadata().getNamespace(), cr.getMetadata().getName()));
  }

  /** One ClusterMirror's values and the meters that read them. */
  private final class Mirror {
    final Tags tags;
    final List<Meter> meters = new CopyOnWriteArrayList<>();
    final Map<PartitionPhase, Long> partitions = new ConcurrentHashMap<>();
    final Map<String, Map<String, Double>> conditions = new ConcurrentHashMap<>();
    volatile double maxLag = Double.NaN;
    volatile double groupPartitionsBehind = Double.NaN;
    volatile long sourcePartitionsPending;
    volatile long lastSuccessMillis = -1;

    Mirror(String namespace, String name) {
      tags =
          Tags.of(
              TAG_NAMESPACE,
              namespace == null ? "" : namespace,
              TAG_NAME,
              name == null ? "" : name);
      for (PartitionPhase phase : PartitionPhase.values()) {
        partitions.put(phase, 0L);
      }
      meters.add(
          Gauge.builder(MAX_LAG, this, m -> m.maxLag)
              .description(
                  "The largest lag in records of the ClusterMirror's partitions (source high"
                      + " watermark minus mirrored end); NaN while unknown")
              .tags(tags)
              .register(registry));
      for (PartitionPhase phase : PartitionPhase.values()) {
        meters.add(
            Gauge.builder(PARTITIONS, this, m -> m.partitions.getOrDefault(phase, 0L))
                .description("The ClusterMirror's partitions in this observed phase")
                .tags(tags)
                .tag(TAG_PHASE, phase.name())
                .register(registry));
      }
      meters.add(
          Gauge.builder(SOURCE_PARTITIONS_PENDING, this, m -> m.sourcePartitionsPending)
              .description(
                  "Source partitions the ClusterMirror's destination topics lack (added on the"
                      + " source, not mirrored yet), as of the last read of the source")
              .tags(tags)
              .register(registry));
      meters.add(
          Gauge.builder(
                  LAST_SUCCESS,
                  this,
                  m -> m.lastSuccessMillis < 0 ? Double.NaN : m.lastSuccessMillis / 1000.0)
              .description("Unix time of the last reconcile of the ClusterMirror that succeeded")
              .tags(tags)
              .register(registry));
      meters.add(
          Gauge.builder(
                  SINCE_SUCCESS,
                  this,
                  m ->
                      m.lastSuccessMillis < 0
                          ? Double.NaN
                          : (clock.millis() - m.lastSuccessMillis) / 1000.0)
              .description("Seconds since the last reconcile of the ClusterMirror that succeeded")
              .tags(tags)
              .register(registry));
      meters.add(
          Gauge.builder(GROUP_PARTITIONS_BEHIND, this, m -> m.groupPartitionsBehind)
              .description(
                  "Group partitions whose destination commit is behind the source's at the last"
                      + " consumer group sync; NaN when the ClusterMirror syncs no groups")
              .tags(tags)
              .register(registry));
    }
  }

  /**
   * The build exported as {@code cmo_build_info}: read from {@code META-INF/cmo/build.properties}
   * (written by the build: {@code version}, {@code git.commit}), "unknown" for what it lacks.
   */
  public record BuildInfo(String version, String gitCommit) {

    public static BuildInfo fromClasspath() {
      Properties p = new Properties();
      try (InputStream in =
          ClusterMirrorMetrics.class.getResourceAsStream("/META-INF/cmo/build.properties")) {
        if (in != null) {
          p.load(in);
        }
      } catch (IOException e) {
        // unknown, below
      }
      return new BuildInfo(known(p.getProperty("version")), known(p.getProperty("git.commit")));
    }

    private static String known(String value) {
      return value == null || value.isBlank() || value.startsWith("${") ? "unknown" : value.trim();
    }
  }
}
