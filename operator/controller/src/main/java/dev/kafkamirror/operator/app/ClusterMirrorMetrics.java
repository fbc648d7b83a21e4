package dev.kafkamirror.operator.app;

import dev.kafkamirror.operator.core.Action;
import dev.kafkamirror.operator.core.PartitionPhase;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import java.time.Duration;
import java.util.EnumMap;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The operator's metrics, names in one place. Low cardinality: no tag names a resource or a
 * partition; tags are an outcome, an action or a partition state (a handful of values each).
 */
public final class ClusterMirrorMetrics {

  public static final String RECONCILES = "clustermirror.reconciles";
  public static final String RECONCILE_DURATION = "clustermirror.reconcile.duration";
  public static final String CONTROL_CALLS = "clustermirror.control.calls";
  public static final String STOP_DURATION = "clustermirror.stop.duration";
  public static final String PARTITIONS = "clustermirror.partitions";
  public static final String TAG_OUTCOME = "outcome";
  public static final String TAG_ACTION = "action";
  public static final String TAG_STATE = "state";

  private final MeterRegistry registry;
  private final Timer stopDuration;
  private final Timer reconcileDuration;
  private final Map<String, Map<PartitionPhase, Long>> countsByResource = new ConcurrentHashMap<>();
  private final Map<PartitionPhase, AtomicLong> totals = new EnumMap<>(PartitionPhase.class);

  public ClusterMirrorMetrics(MeterRegistry registry) {
    this.registry = registry;
    this.stopDuration =
        Timer.builder(STOP_DURATION)
            .description("From the first stop step to every partition STOPPED, per ClusterMirror")
            .publishPercentileHistogram()
            .minimumExpectedValue(Duration.ofMillis(100))
            .maximumExpectedValue(Duration.ofMinutes(10))
            .register(registry);
    this.reconcileDuration =
        Timer.builder(RECONCILE_DURATION).description("One reconcile").register(registry);
    for (PartitionPhase phase : PartitionPhase.values()) {
      AtomicLong value = new AtomicLong();
      totals.put(phase, value);
      registry.gauge(
          PARTITIONS,
          java.util.List.of(io.micrometer.core.instrument.Tag.of(TAG_STATE, phase.name())),
          value);
    }
  }

  public MeterRegistry registry() {
    return registry;
  }

  /** Counts a finished reconcile: outcome ok or error. */
  public void reconciled(boolean ok, Duration took) {
    Counter.builder(RECONCILES)
        .tag(TAG_OUTCOME, ok ? "ok" : "error")
        .register(registry)
        .increment();
    reconcileDuration.record(took);
  }

  public void controlCalls(Action action, long count) {
    Counter.builder(CONTROL_CALLS)
        .tag(TAG_ACTION, action.name())
        .register(registry)
        .increment(count);
  }

  public void stopFinished(Duration took) {
    stopDuration.record(took);
  }

  /** The partitions of one resource per state; the gauges sum over resources. */
  public synchronized void partitions(String resourceKey, Map<PartitionPhase, Long> counts) {
    if (counts == null) {
      countsByResource.remove(resourceKey);
    } else {
      countsByResource.put(resourceKey, Map.copyOf(counts));
    }
    for (PartitionPhase phase : PartitionPhase.values()) {
      long sum = 0;
      for (Map<PartitionPhase, Long> c : countsByResource.values()) {
        sum += c.getOrDefault(phase, 0L);
      }
      totals.get(phase).set(sum);
    }
  }
}
