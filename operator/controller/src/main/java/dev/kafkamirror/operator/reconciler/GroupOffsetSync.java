package dev.kafkamirror.operator.reconciler;

import dev.kafkamirror.operator.api.v1alpha1.ClusterMirror;
import dev.kafkamirror.operator.api.v1alpha1.ClusterMirrorStatus;
import dev.kafkamirror.operator.api.v1alpha1.ConsumerGroupSync;
import dev.kafkamirror.operator.api.v1alpha1.ConsumerGroupSyncStatus;
import dev.kafkamirror.operator.api.v1alpha1.GroupSyncStatus;
import dev.kafkamirror.operator.core.GroupOffsetPlanner;
import dev.kafkamirror.operator.core.GroupOffsetPlanner.DestinationGroup;
import dev.kafkamirror.operator.core.GroupOffsetPlanner.GroupDecision;
import dev.kafkamirror.operator.core.GroupOffsetPlanner.LogRange;
import dev.kafkamirror.operator.core.GroupSelector;
import dev.kafkamirror.operator.core.PartitionKey;
import dev.kafkamirror.operator.kafka.ClusterAdmin;
import dev.kafkamirror.operator.kafka.GroupOffsetsAdmin;
import java.time.Clock;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The consumer group offset sync of spec.consumerGroups: reads the selected groups' commits on the
 * source and commits them on the destination, deciding with {@link GroupOffsetPlanner} (active
 * groups skipped, offsets clamped to the destination's log range, nothing written when nothing
 * changed).
 *
 * <p>Two entry points:
 *
 * <ul>
 *   <li>{@link #periodic}: while Mirroring or Paused, at most once per {@code syncIntervalSeconds},
 *       for every partition that is not writable.
 *   <li>{@link #beforeMakeWritable}: during a stop, right before partitions are made writable
 *       (after their truncation and barrier), for exactly those partitions. When the source does
 *       not answer, the commits last seen on it stand (else the destination's own), clamped to the
 *       truncated log.
 * </ul>
 *
 * <p>Invariants: no method throws (a sync error is recorded in status, never blocks a reconcile, a
 * stop or a partition); a partition already writable is never written; a group with members on the
 * destination is never written; every source call is bounded by {@link #SOURCE_TIMEOUT_MS} and a
 * source that failed is not asked again by a stop's final sync for {@link #SOURCE_RETRY_MS}.
 *
 * <p>Thread-safe: reconciles of different resources run in parallel (state is per uid); JOSDK never
 * runs two of the same resource at once.
 */
public final class GroupOffsetSync implements AutoCloseable {

  private static final Logger LOG = LoggerFactory.getLogger(GroupOffsetSync.class);

  /** The bound of the source calls (the source may be dead during a failover). */
  static final long SOURCE_TIMEOUT_MS = 3_000L;

  /** How long a stop's final sync trusts the last seen commits after a source call failed. */
  static final long SOURCE_RETRY_MS = 30_000L;

  /** The bound of status.consumerGroupSync.groups. */
  static final int MAX_GROUPS_LISTED = 100;

  static final String SYNCED = "Synced";
  static final String SKIPPED_ACTIVE = "SkippedActive";
  static final String FAILED = "Failed";

  /** Creates a client; {@code KafkaGroupOffsetsAdmin::new} in production. */
  @FunctionalInterface
  public interface Factory {
    GroupOffsetsAdmin create(String clusterLabel, Properties properties, long timeoutMs);
  }

  /** A client and the settings it was made with; its string redacts the secret settings. */
  private record Cached(Properties properties, GroupOffsetsAdmin admin) {
    @Override
    public String toString() {
      return "Cached[properties=" + Redaction.of(properties) + "]";
    }
  }

  /** What the sync remembers of one ClusterMirror. */
  private static final class Memory {
    long lastAttemptNanos;
    boolean attempted;
    long sourceFailedNanos;
    boolean sourceFailed;
    ConsumerGroupSyncStatus status;
    final Map<String, Map<PartitionKey, Long>> lastSeen = new HashMap<>();
    final Map<String, String> groupSyncedAt = new HashMap<>();
  }

  private final Factory factory;
  private final Clock clock;
  private final LongSupplier nanoTime;
  private final Map<String, Cached> clients = new ConcurrentHashMap<>();
  private final Map<String, Memory> memory = new ConcurrentHashMap<>();
  private final long destinationTimeoutMs;

  /**
   * @param destinationTimeoutMs the bound of each destination call (the admin timeout)
   */
  public GroupOffsetSync(
      Factory factory, Clock clock, LongSupplier nanoTime, long destinationTimeoutMs) {
    this.factory = factory;
    this.destinationTimeoutMs = destinationTimeoutMs;
    this.clock = clock;
    this.nanoTime = nanoTime;
  }

  /** Whether {@code cr} asks for a sync at all (an include pattern). */
  public static boolean configured(ClusterMirror cr) {
    ConsumerGroupSync spec = cr.getSpec() == null ? null : cr.getSpec().getConsumerGroups();
    return spec != null && spec.getInclude() != null && !spec.getInclude().isEmpty();
  }

  private static long intervalMs(ClusterMirror cr) {
    Integer s = cr.getSpec().getConsumerGroups().getSyncIntervalSeconds();
    return TimeUnit.SECONDS.toMillis(s == null ? 30 : Math.max(1, s));
  }

  /**
   * How long until the next periodic sync of {@code cr} is due (0: now), or {@link Long#MAX_VALUE}
   * when no sync is configured.
   */
  public long dueInMs(ClusterMirror cr) {
    if (!configured(cr)) {
      return Long.MAX_VALUE;
    }
    Memory m = memory.get(cr.getMetadata().getUid());
    if (m == null || !m.attempted) {
      return 0;
    }
    long elapsed = TimeUnit.NANOSECONDS.toMillis(nanoTime.getAsLong() - m.lastAttemptNanos);
    return Math.max(0, intervalMs(cr) - elapsed);
  }

  /**
   * The sync's status of {@code cr} to record: this process's last, else the previous status's;
   * null when no sync is configured.
   */
  public ConsumerGroupSyncStatus status(ClusterMirror cr, ClusterMirrorStatus previous) {
    if (!configured(cr)) {
      return null;
    }
    Memory m = memory.get(cr.getMetadata().getUid());
    if (m != null && m.status != null) {
      return m.status;
    }
    return previous == null ? null : previous.getConsumerGroupSync();
  }

  /**
   * While Mirroring or Paused: syncs when due. {@code eligible} are the mirror's partitions that
   * are not writable.
   */
  public void periodic(
      String ref, ClusterMirror cr, ResolvedMirror mirror, Set<PartitionKey> eligible) {
    if (!configured(cr) || dueInMs(cr) > 0) {
      return;
    }
    Memory m = memory(cr);
    m.attempted = true;
    m.lastAttemptNanos = nanoTime.getAsLong();
    run(ref, cr, mirror, eligible, m, false);
  }

  /**
   * A stop's final sync of the partitions about to become writable ({@code keys}: truncated, behind
   * their barrier). Never throws: the stop goes on whatever happens here.
   */
  public void beforeMakeWritable(
      String ref, ClusterMirror cr, ResolvedMirror mirror, Collection<PartitionKey> keys) {
    if (!configured(cr) || keys.isEmpty()) {
      return;
    }
    run(ref, cr, mirror, new TreeSet<>(keys), memory(cr), true);
  }

  private Memory memory(ClusterMirror cr) {
    return memory.computeIfAbsent(
        cr.getMetadata().getUid(),
        uid -> {
          Memory m = new Memory();
          ClusterMirrorStatus previous = cr.getStatus();
          if (previous != null && previous.getConsumerGroupSync() != null) {
            m.status = previous.getConsumerGroupSync();
          }
          return m;
        });
  }

  private void run(
      String ref,
      ClusterMirror cr,
      ResolvedMirror mirror,
      Set<PartitionKey> eligible,
      Memory m,
      boolean finalSync) {
    String now = clock.instant().truncatedTo(ChronoUnit.SECONDS).toString();
    ConsumerGroupSyncStatus status = copy(m.status);
    status.setLastAttemptAt(now);
    if (finalSync) {
      status.setFinalSyncAt(now);
    }
    try {
      GroupSelector selector;
      try {
        ConsumerGroupSync spec = cr.getSpec().getConsumerGroups();
        selector = GroupSelector.of(spec.getInclude(), spec.getExclude());
      } catch (IllegalArgumentException e) {
        status.setLastError(e.getMessage() + "; no group offsets are synced until it is fixed");
        m.status = status;
        return;
      }
      Set<String> topics = new TreeSet<>();
      eligible.forEach(k -> topics.add(k.topic()));
      GroupOffsetsAdmin destination =
          client(ref + " destination", mirror.destinationProperties(), destinationTimeoutMs);
      // Read the source (bounded); a stop whose source failed recently uses what was last seen.
      Map<String, Map<PartitionKey, Long>> sourceCommits = null;
      String sourceError = null;
      boolean skipSource =
          finalSync
              && m.sourceFailed
              && TimeUnit.NANOSECONDS.toMillis(nanoTime.getAsLong() - m.sourceFailedNanos)
                  < SOURCE_RETRY_MS;
      if (skipSource) {
        sourceError = "the source did not answer at the last attempt";
      } else {
        try {
          sourceCommits = readSource(ref, mirror, selector, topics);
          m.sourceFailed = false;
          m.lastSeen.clear();
          m.lastSeen.putAll(sourceCommits);
        } catch (ClusterAdmin.KafkaCallException e) {
          m.sourceFailed = true;
          m.sourceFailedNanos = nanoTime.getAsLong();
          sourceError = e.getMessage();
        }
      }
      if (finalSync) {
        status.setFinalSyncReadSource(sourceCommits != null);
      }
      if (sourceCommits == null && !finalSync) {
        status.setLastError(
            "consumer group offsets not synced: "
                + sourceError
                + "; the commits of the sync at "
                + status.getLastSuccessfulSyncAt()
                + " stand on the destination");
        m.status = status;
        LOG.info("clusterMirror={} group offset sync: {}", ref, status.getLastError());
        return;
      }
      Map<String, Map<PartitionKey, Long>> wanted;
      if (sourceCommits != null) {
        wanted = sourceCommits;
      } else {
        // Final sync without the source: the last seen commits, else the destination's own,
        // re-clamped to the truncated logs.
        List<String> groups = new ArrayList<>(m.lastSeen.keySet());
        for (String g : selector.select(destination.consumerGroupIds())) {
          if (!groups.contains(g)) {
            groups.add(g);
          }
        }
        Map<String, Map<PartitionKey, Long>> own = destination.committedOffsets(groups, topics);
        wanted = new TreeMap<>();
        for (String g : groups) {
          Map<PartitionKey, Long> w = new TreeMap<>(own.getOrDefault(g, Map.of()));
          w.putAll(m.lastSeen.getOrDefault(g, Map.of()));
          wanted.put(g, w);
        }
      }
      List<String> groups = new ArrayList<>(wanted.keySet());
      Map<String, Map<PartitionKey, Long>> destinationCommits =
          destination.committedOffsets(groups, topics);
      Map<String, DestinationGroup> states = destination.describeGroups(groups);
      Set<PartitionKey> needed = new TreeSet<>();
      wanted
          .values()
          .forEach(c -> c.keySet().stream().filter(eligible::contains).forEach(needed::add));
      Map<PartitionKey, LogRange> ranges = destination.logRanges(needed);
      List<GroupSyncStatus> rows = new ArrayList<>();
      int synced = 0;
      int skipped = 0;
      long behind = 0;
      List<String> errors = new ArrayList<>();
      for (String g : groups) {
        GroupDecision d =
            GroupOffsetPlanner.decide(
                g,
                wanted.getOrDefault(g, Map.of()),
                destinationCommits.getOrDefault(g, Map.of()),
                states.getOrDefault(g, DestinationGroup.ABSENT),
                ranges,
                eligible);
        GroupSyncStatus row = new GroupSyncStatus();
        row.setGroup(g);
        row.setPartitionsBehind(d.partitionsBehind());
        row.setPartitionsClamped(d.clamped().size());
        behind += d.partitionsBehind();
        switch (d.outcome()) {
          case SKIPPED_ACTIVE -> {
            skipped++;
            row.setState(SKIPPED_ACTIVE);
            row.setMessage(
                "group "
                    + g
                    + " has "
                    + d.destination().members()
                    + " member(s) on the destination (state "
                    + d.destination().state()
                    + "): its commits there are its consumers' and are not overwritten");
          }
          case WRITE, UNCHANGED -> {
            String failure = null;
            if (d.outcome() == GroupOffsetPlanner.Outcome.WRITE) {
              try {
                destination.commit(g, d.writes());
                LOG.info(
                    "clusterMirror={} group {} offsets committed on the destination{}: {}",
                    ref,
                    g,
                    finalSync ? " (final sync of the stop)" : "",
                    d.writes());
              } catch (ClusterAdmin.KafkaCallException e) {
                failure = e.getMessage();
              }
            }
            if (failure != null) {
              row.setState(FAILED);
              row.setMessage(failure);
              errors.add(failure);
            } else {
              synced++;
              m.groupSyncedAt.put(g, now);
              row.setState(SYNCED);
              row.setMessage(describeClampAndRange(d));
            }
          }
        }
        row.setLastSyncedAt(m.groupSyncedAt.get(g));
        rows.add(row);
      }
      rows.sort(
          Comparator.comparingInt((GroupSyncStatus r) -> order(r.getState()))
              .thenComparing(r -> -r.getPartitionsBehind())
              .thenComparing(GroupSyncStatus::getGroup));
      status.setGroups(new ArrayList<>(rows.subList(0, Math.min(MAX_GROUPS_LISTED, rows.size()))));
      status.setGroupsSelected(groups.size());
      status.setGroupsSynced(synced);
      status.setGroupsSkippedActive(skipped);
      status.setPartitionsBehind(behind);
      if (!errors.isEmpty()) {
        status.setLastError(
            errors.get(0)
                + (errors.size() > 1 ? " (and " + (errors.size() - 1) + " more groups)" : ""));
      } else if (sourceCommits == null) {
        status.setLastError(
            "the stop's final sync could not read the source ("
                + sourceError
                + "): the commits last seen on it at "
                + status.getLastSuccessfulSyncAt()
                + " stand, clamped to the truncated logs");
      } else {
        status.setLastError(null);
        status.setLastSuccessfulSyncAt(now);
      }
    } catch (ClusterAdmin.KafkaCallException | RuntimeException e) {
      status.setLastError(
          "consumer group offsets not synced: " + e.getMessage() + "; retried at the next sync");
      LOG.info("clusterMirror={} group offset sync failed: {}", ref, e.toString());
    }
    m.status = status;
  }

  private Map<String, Map<PartitionKey, Long>> readSource(
      String ref, ResolvedMirror mirror, GroupSelector selector, Set<String> topics)
      throws ClusterAdmin.KafkaCallException {
    GroupOffsetsAdmin source =
        client(ref + " source", mirror.sourceProperties(), SOURCE_TIMEOUT_MS);
    String id = source.clusterId();
    if (mirror.sourceClusterId() != null && !mirror.sourceClusterId().equals(id)) {
      throw new ClusterAdmin.KafkaCallException(
          "the source of "
              + ref
              + " reports cluster id "
              + id
              + ", not spec.source.clusterId "
              + mirror.sourceClusterId()
              + ": its groups are not this mirror's; fix spec.source",
          null);
    }
    List<String> groups = selector.select(source.consumerGroupIds());
    return source.committedOffsets(groups, topics);
  }

  private static String describeClampAndRange(GroupDecision d) {
    List<String> parts = new ArrayList<>();
    if (!d.clamped().isEmpty()) {
      parts.add(
          "clamped to the destination's log range: "
              + d.clamped()
              + " (the source's commit lies outside what the destination holds)");
    }
    if (!d.noRange().isEmpty()) {
      parts.add("not written, the destination's log range is unknown: " + d.noRange());
    }
    return parts.isEmpty() ? null : String.join("; ", parts);
  }

  private static int order(String state) {
    return switch (state) {
      case FAILED -> 0;
      case SKIPPED_ACTIVE -> 1;
      default -> 2;
    };
  }

  private GroupOffsetsAdmin client(String label, Properties properties, long timeoutMs) {
    return clients
        .compute(
            label,
            (k, existing) -> {
              if (existing != null && existing.properties().equals(properties)) {
                return existing;
              }
              if (existing != null) {
                existing.admin().close();
              }
              return new Cached(properties, factory.create(label, properties, timeoutMs));
            })
        .admin();
  }

  private static ConsumerGroupSyncStatus copy(ConsumerGroupSyncStatus s) {
    ConsumerGroupSyncStatus c = new ConsumerGroupSyncStatus();
    if (s == null) {
      return c;
    }
    c.setLastAttemptAt(s.getLastAttemptAt());
    c.setLastSuccessfulSyncAt(s.getLastSuccessfulSyncAt());
    c.setLastError(s.getLastError());
    c.setGroupsSelected(s.getGroupsSelected());
    c.setGroupsSynced(s.getGroupsSynced());
    c.setGroupsSkippedActive(s.getGroupsSkippedActive());
    c.setPartitionsBehind(s.getPartitionsBehind());
    c.setFinalSyncAt(s.getFinalSyncAt());
    c.setFinalSyncReadSource(s.getFinalSyncReadSource());
    c.setGroups(s.getGroups());
    return c;
  }

  /** Forgets {@code cr}: its memory and its clients. */
  public void forget(String ref, String uid) {
    memory.remove(uid);
    for (String label : List.of(ref + " destination", ref + " source")) {
      Cached c = clients.remove(label);
      if (c != null) {
        c.admin().close();
      }
    }
  }

  @Override
  public void close() {
    clients.values().forEach(c -> c.admin().close());
    clients.clear();
  }
}
