package dev.kafkamirror.operator.reconciler;

import dev.kafkamirror.operator.api.v1alpha1.ClusterMirror;
import dev.kafkamirror.operator.api.v1alpha1.ClusterMirrorStatus;
import dev.kafkamirror.operator.api.v1alpha1.TopicConfigDrift;
import dev.kafkamirror.operator.api.v1alpha1.TopicConfigSyncStatus;
import dev.kafkamirror.operator.core.TopicConfigPlanner;
import dev.kafkamirror.operator.kafka.ClusterAdmin;
import java.time.Clock;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Keeps mirror topics' configs in line with their source topics' (spec.topicConfigs; on unless
 * {@code enabled: false}): the configs a new destination topic is created with ({@link
 * #forCreation}), and every syncIntervalSeconds (default 30) while Mirroring or Paused a comparison
 * of the synced configs whose differences are set on the destination ({@link #periodic}), recorded
 * in status.topicConfigSync and announced by a Normal Event TopicConfigsCorrected.
 *
 * <p>What is synced and what never is: {@link TopicConfigPlanner}. Topics with a partition stopping
 * or stopped are never touched.
 *
 * <p>Never throws: a source that cannot be read (it may be the data centre that was lost) or a
 * refused change is recorded in status.topicConfigSync.lastError and never holds mirroring or a
 * stop. Source reads are bounded to {@link MissingTopics#SOURCE_TIMEOUT_MS}.
 *
 * <p>Thread-safe: state per ClusterMirror uid in concurrent maps; JOSDK reconciles one resource at
 * a time.
 */
public final class TopicConfigSync {

  private static final Logger LOG = LoggerFactory.getLogger(TopicConfigSync.class);

  /** How often the configs are compared while mirroring or paused, unless the spec says. */
  static final long INTERVAL_MS = 30_000L;

  /** Drift rows kept in status. */
  static final int MAX_DRIFT_ROWS = 100;

  /** The Event reason of corrected drift. */
  public static final String CORRECTED = "TopicConfigsCorrected";

  /** The Event reason of a correction the destination refused. */
  public static final String FAILED = "TopicConfigSyncFailed";

  private final AdminClients admins;
  private final EventRecorder events;
  private final Clock clock;
  private final LongSupplier nanoTime;
  private final Map<String, Memory> memory = new ConcurrentHashMap<>();
  private final long adminTimeoutMs;

  private static final class Memory {
    volatile long lastAttemptNanos;
    volatile TopicConfigSyncStatus status;
  }

  /**
   * @param adminTimeoutMs the admin timeout; source calls are bounded by the smaller of it and
   *     {@link MissingTopics#SOURCE_TIMEOUT_MS}
   */
  public TopicConfigSync(
      AdminClients admins,
      EventRecorder events,
      Clock clock,
      LongSupplier nanoTime,
      long adminTimeoutMs) {
    this.admins = admins;
    this.adminTimeoutMs = adminTimeoutMs;
    this.events = events;
    this.clock = clock;
    this.nanoTime = nanoTime;
  }

  /** Whether {@code cr} syncs topic configs (the default). */
  public static boolean enabled(ClusterMirror cr) {
    var spec = cr.getSpec() == null ? null : cr.getSpec().getTopicConfigs();
    return spec == null || !Boolean.FALSE.equals(spec.getEnabled());
  }

  private static long intervalMs(ClusterMirror cr) {
    var spec = cr.getSpec().getTopicConfigs();
    Integer seconds = spec == null ? null : spec.getSyncIntervalSeconds();
    return seconds == null ? INTERVAL_MS : TimeUnit.SECONDS.toMillis(Math.max(1, seconds));
  }

  /** The synced config names of {@code cr}. */
  public static Set<String> synced(ClusterMirror cr) {
    var spec = cr.getSpec() == null ? null : cr.getSpec().getTopicConfigs();
    return spec == null
        ? TopicConfigPlanner.synced(null, null)
        : TopicConfigPlanner.synced(spec.getInclude(), spec.getExclude());
  }

  /**
   * The configs to create {@code topics} with on the destination: the source's synced values, or
   * none when the sync is off or the source cannot tell (the periodic sync corrects them then).
   */
  public Map<String, Map<String, String>> forCreation(
      String ref, ClusterMirror cr, ClusterAdmin source, Collection<String> topics) {
    if (!enabled(cr) || topics.isEmpty()) {
      return Map.of();
    }
    Set<String> synced = synced(cr);
    try {
      Map<String, Map<String, String>> read = source.topicConfigs(topics, synced);
      Map<String, Map<String, String>> out = new java.util.TreeMap<>();
      read.forEach(
          (t, c) -> {
            Map<String, String> configs = TopicConfigPlanner.forCreation(c, synced);
            if (!configs.isEmpty()) {
              out.put(t, configs);
            }
          });
      return out;
    } catch (ClusterAdmin.KafkaCallException e) {
      LOG.info(
          "clusterMirror={} source topic configs unreadable, creating {} with the destination's"
              + " defaults until the next sync: {}",
          ref,
          topics,
          e.getMessage());
      return Map.of();
    }
  }

  /**
   * While Mirroring or Paused: compares and corrects when due.
   *
   * @param frozen mirror topics with a partition stopping or stopped: never touched
   */
  public void periodic(
      String ref,
      ClusterMirror cr,
      ResolvedMirror mirror,
      ClusterAdmin destination,
      Collection<String> frozen) {
    if (!enabled(cr)) {
      memory.remove(cr.getMetadata().getUid());
      return;
    }
    Memory m = memory.computeIfAbsent(cr.getMetadata().getUid(), u -> new Memory());
    long now = nanoTime.getAsLong();
    if (m.status != null && TimeUnit.NANOSECONDS.toMillis(now - m.lastAttemptNanos) < INTERVAL_MS) {
      return;
    }
    m.lastAttemptNanos = now;
    TopicConfigSyncStatus previous = m.status != null ? m.status : previousOf(cr);
    TopicConfigSyncStatus s = new TopicConfigSyncStatus();
    Set<String> synced = synced(cr);
    s.setConfigs(new ArrayList<>(synced));
    s.setLastAttemptAt(clock.instant().toString());
    if (previous != null) {
      s.setLastSuccessfulSyncAt(previous.getLastSuccessfulSyncAt());
      s.setLastDrift(previous.getLastDrift());
      s.setLastDriftAt(previous.getLastDriftAt());
    }
    m.status = s;
    TopicConfigPlanner.Plan plan;
    try {
      List<String> topics = mirror.topics().select(destination.topicNames());
      Map<String, Map<String, String>> dest = destination.topicConfigs(topics, synced);
      ClusterAdmin source =
          admins.source(
              ref,
              mirror.sourceProperties(),
              Math.min(MissingTopics.SOURCE_TIMEOUT_MS, adminTimeoutMs));
      Map<String, Map<String, String>> src;
      try {
        src = source.topicConfigs(dest.keySet(), synced);
      } catch (ClusterAdmin.KafkaCallException e) {
        s.setLastError(
            "the source's topic configs could not be read; the destination's stand: "
                + e.getMessage());
        return;
      }
      plan = TopicConfigPlanner.plan(src, dest, synced, Set.copyOf(frozen));
    } catch (ClusterAdmin.KafkaCallException e) {
      s.setLastError("the destination's topic configs could not be read: " + e.getMessage());
      return;
    } catch (RuntimeException e) {
      LOG.warn("clusterMirror={} topic config sync failed", ref, e);
      s.setLastError("topic config sync failed: " + e);
      return;
    }
    s.setTopicsChecked(plan.topicsChecked());
    s.setTopicsFrozen(plan.topicsFrozen());
    if (plan.changes().isEmpty()) {
      s.setTopicsInSync(plan.topicsChecked());
      s.setLastSuccessfulSyncAt(s.getLastAttemptAt());
      return;
    }
    String state;
    try {
      destination.alterTopicConfigs(plan.byTopic());
      state = "Corrected";
      s.setTopicsInSync(plan.topicsChecked());
      s.setLastSuccessfulSyncAt(s.getLastAttemptAt());
      events.normal(cr, CORRECTED, describe("set on the destination", plan.changes()));
      LOG.info("clusterMirror={} topic configs corrected: {}", ref, plan.changes());
    } catch (ClusterAdmin.KafkaCallException e) {
      state = "Failed";
      s.setTopicsInSync(plan.topicsInSync());
      s.setLastError(
          "the destination refused "
              + describe("the source's values", plan.changes())
              + ": "
              + e.getMessage());
      events.warning(cr, FAILED, s.getLastError());
    }
    List<TopicConfigDrift> rows = new ArrayList<>();
    for (TopicConfigPlanner.Change c : plan.changes()) {
      if (rows.size() == MAX_DRIFT_ROWS) {
        break;
      }
      rows.add(
          new TopicConfigDrift(
              c.topic(), c.config(), c.sourceValue(), c.destinationValue(), state));
    }
    s.setLastDrift(rows);
    s.setLastDriftAt(s.getLastAttemptAt());
  }

  /**
   * The status to record for {@code cr}: this process's last, else the previous status's; null when
   * the sync is off.
   */
  public TopicConfigSyncStatus status(ClusterMirror cr, ClusterMirrorStatus previous) {
    if (!enabled(cr)) {
      return null;
    }
    Memory m = memory.get(cr.getMetadata().getUid());
    if (m != null && m.status != null) {
      return m.status;
    }
    return previous == null ? null : previous.getTopicConfigSync();
  }

  /** Forgets {@code uid} (deleted or released). */
  public void forget(String uid) {
    memory.remove(uid);
  }

  private static TopicConfigSyncStatus previousOf(ClusterMirror cr) {
    return cr.getStatus() == null ? null : cr.getStatus().getTopicConfigSync();
  }

  private static String describe(String what, List<TopicConfigPlanner.Change> changes) {
    StringBuilder b = new StringBuilder(what).append(": ");
    int shown = 0;
    for (TopicConfigPlanner.Change c : changes) {
      if (shown == 20) {
        b.append(", and ").append(changes.size() - shown).append(" more");
        break;
      }
      if (shown > 0) {
        b.append(", ");
      }
      b.append(c.topic())
          .append(' ')
          .append(c.config())
          .append('=')
          .append(c.sourceValue())
          .append(" (was ")
          .append(c.destinationValue())
          .append(')');
      shown++;
    }
    return b.toString();
  }
}
