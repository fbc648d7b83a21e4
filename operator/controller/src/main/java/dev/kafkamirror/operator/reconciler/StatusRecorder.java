package dev.kafkamirror.operator.reconciler;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.kafkamirror.operator.api.v1alpha1.ClusterMirror;
import dev.kafkamirror.operator.api.v1alpha1.ClusterMirrorStatus;
import dev.kafkamirror.operator.api.v1alpha1.Condition;
import dev.kafkamirror.operator.api.v1alpha1.Conditions;
import dev.kafkamirror.operator.app.ClusterMirrorMetrics;
import dev.kafkamirror.operator.core.PartitionDecision;
import dev.kafkamirror.operator.core.PartitionKey;
import dev.kafkamirror.operator.core.PartitionPhase;
import dev.kafkamirror.operator.core.Reasons;
import dev.kafkamirror.operator.core.StatusComputer;
import dev.kafkamirror.operator.core.StatusInputs;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.time.temporal.ChronoUnit;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The reconciler's record step: computes the status ({@link StatusComputer}), announces each
 * condition transition (a log line and an Event; Degraded=True is a Warning), updates the metrics,
 * persists the status ({@link StatusWriter}) and remembers the write ({@link OwnWriteFilter}).
 *
 * <p>Invariants:
 *
 * <ul>
 *   <li>{@link #previous} answers the last status this process wrote, when there is one: the
 *       informer cache may lag behind it.
 *   <li>{@link #recordStopStarted} returns only once the status saying the stop began is persisted;
 *       it throws otherwise, so no destructive call follows an unrecorded stop.
 * </ul>
 *
 * <p>Thread-safe: reconciles of different resources run in parallel; JOSDK never runs two of the
 * same resource at once.
 */
public final class StatusRecorder {

  private static final Logger LOG = LoggerFactory.getLogger(StatusRecorder.class);

  /**
   * The longest an unchanged status's heartbeat timestamps ({@link #HEARTBEATS}) stay older than
   * the last check in the API server: an idle mirror's status is written once per this interval.
   */
  static final Duration HEARTBEAT = Duration.ofMinutes(5);

  /**
   * Per status section, the timestamps that change on every check although nothing else did ("when
   * was it last checked"); a change of these alone is written at most once per {@link #HEARTBEAT}.
   * The consumer group sync's times are not among them: a sync commits offsets, and its
   * lastSuccessfulSyncAt is its lag.
   */
  private static final Map<String, List<String>> HEARTBEATS =
      Map.of(
          "topicSync", List.of("lastCheckAt", "lastSuccessfulCheckAt"),
          "topicConfigSync", List.of("lastAttemptAt", "lastSuccessfulSyncAt"));

  /** Only to compare two statuses as the JSON the API server stores; never to write. */
  private static final ObjectMapper JSON =
      new ObjectMapper().setSerializationInclusion(JsonInclude.Include.NON_NULL);

  private final StatusWriter writer;
  private final EventRecorder events;
  private final ClusterMirrorMetrics metrics;
  private final OwnWriteFilter ownWrites;
  private final Clock clock;

  /** The last status this process wrote, per uid. */
  private final Map<String, ClusterMirrorStatus> written = new ConcurrentHashMap<>();

  public StatusRecorder(
      StatusWriter writer,
      EventRecorder events,
      ClusterMirrorMetrics metrics,
      OwnWriteFilter ownWrites,
      Clock clock) {
    this.writer = writer;
    this.events = events;
    this.metrics = metrics;
    this.ownWrites = ownWrites;
    this.clock = clock;
  }

  /** The status this reconcile starts from: this process's last write, else the resource's. */
  public ClusterMirrorStatus previous(ClusterMirror cr) {
    ClusterMirrorStatus mine = written.get(cr.getMetadata().getUid());
    if (mine != null) {
      return mine;
    }
    return cr.getStatus() == null ? new ClusterMirrorStatus() : cr.getStatus();
  }

  /** The last status this process wrote for {@code cr}, or null. */
  public ClusterMirrorStatus lastWritten(ClusterMirror cr) {
    return written.get(cr.getMetadata().getUid());
  }

  /**
   * Persists that the stop began ({@code stopStartedAt}, the generation) before the first
   * destructive call, and records a StopStarted Event.
   *
   * @return the status written, the new previous status of this reconcile
   * @throws IllegalStateException when the status could not be written (nothing may be called)
   */
  public ClusterMirrorStatus recordStopStarted(
      ClusterMirror cr, String ref, ClusterMirrorStatus previous, long generation) {
    ClusterMirrorStatus marked = copy(previous);
    marked.setStopStartedAt(clock.instant().truncatedTo(ChronoUnit.SECONDS).toString());
    marked.setObservedGeneration(generation);
    ownWrites.forget(cr.getMetadata().getUid());
    write(cr, marked);
    events.normal(
        cr,
        "StopStarted",
        "stopping every partition of "
            + ref
            + " (remove fetchers, truncate to the LSO, persist offsets, barrier, make writable)");
    LOG.info("clusterMirror={} stop started", ref);
    return marked;
  }

  /**
   * On the first visit (no status yet, neither in the resource nor written by this process), writes
   * the seed status: every condition Unknown, Reconciling True, phase Pending, so that kubectl and
   * GitOps tools see "being reconciled" instead of nothing (kstatus would otherwise read a status
   * without conditions as Current) while the first observation runs.
   *
   * @return the status written, the new previous status of this reconcile; {@code previous}
   *     unchanged when it already has conditions
   */
  public ClusterMirrorStatus seedOnFirstVisit(
      ClusterMirror cr, String ref, ClusterMirrorStatus previous, long generation) {
    // Only a status never written: one that records anything (stopStartedAt written before the
    // first destructive call, an observed generation, the partitions pending on the destination
    // that a restarted operator reads back, a group sync) is kept as it is, never replaced by a
    // seed.
    if (previous.getObservedGeneration() != null
        || previous.getStopStartedAt() != null
        || previous.getCatchUpStartedAt() != null
        || previous.getTopicSync() != null
        || previous.getConsumerGroupSync() != null
        || (previous.getPartitions() != null && !previous.getPartitions().isEmpty())
        || (previous.getConditions() != null && !previous.getConditions().isEmpty())) {
      return previous;
    }
    ClusterMirrorStatus seeded = StatusComputer.seed(generation, clock);
    ownWrites.forget(cr.getMetadata().getUid());
    write(cr, seeded);
    LOG.info("clusterMirror={} first visit: conditions seeded Unknown, phase Pending", ref);
    return seeded;
  }

  /**
   * Announces the stop of partitions whose mirror had halted (a Warning Event and a log line), so
   * that none becomes writable without a word: each keeps the records the destination holds, and
   * nothing the source wrote after the halt. Does nothing for none.
   */
  public void recordHaltedStops(
      ClusterMirror cr, String ref, Map<PartitionKey, FailoverRounds.HaltedStop> halted) {
    if (halted.isEmpty()) {
      return;
    }
    StringBuilder which = new StringBuilder();
    int listed = 0;
    for (Map.Entry<PartitionKey, FailoverRounds.HaltedStop> e : halted.entrySet()) {
      if (listed == 10) {
        which.append(", and ").append(halted.size() - listed).append(" more");
        break;
      }
      which.append(listed == 0 ? "" : ", ").append(e.getKey()).append(" (");
      which.append(e.getValue().reason()).append(')');
      listed++;
    }
    String message =
        "stopping "
            + (halted.size() == 1 ? "1 partition" : halted.size() + " partitions")
            + " of "
            + ref
            + " whose mirror had halted: "
            + which
            + ". Each becomes writable behind its MIRROR_PID_RESET barrier with the records the"
            + " destination holds, none the source wrote after the halt. First: "
            + halted.values().iterator().next().message();
    LOG.warn("clusterMirror={} {}", ref, message);
    events.warning(cr, Reasons.STOPPING_HALTED_PARTITIONS, message);
  }

  /**
   * Computes, announces and persists the status of this reconcile.
   *
   * @param workRemains whether the next reconcile is due soon ({@code requeueMs}) rather than at
   *     the idle resync
   * @return the delay until the next reconcile, in ms
   */
  public long record(
      ClusterMirror cr,
      String ref,
      ClusterMirrorStatus previous,
      StatusInputs inputs,
      boolean workRemains,
      ReconcilerSettings settings) {
    return record(cr, ref, previous, inputs, workRemains, settings, Extras.NONE);
  }

  /**
   * What the reconcile's other collaborators report beside the plan, each recorded as it is (null:
   * absent from the status).
   *
   * @param groupSync the consumer group offset sync ({@link GroupOffsetSync})
   * @param topicSync the source's partition growth ({@link TopicSync})
   * @param topicConfigSync the topic config sync ({@link TopicConfigSync})
   * @param failback a failback's discard rows
   */
  public record Extras(
      dev.kafkamirror.operator.api.v1alpha1.ConsumerGroupSyncStatus groupSync,
      dev.kafkamirror.operator.api.v1alpha1.TopicSyncStatus topicSync,
      dev.kafkamirror.operator.api.v1alpha1.TopicConfigSyncStatus topicConfigSync,
      java.util.List<dev.kafkamirror.operator.api.v1alpha1.FailbackDiscard> failback) {
    /** Nothing beside the plan. */
    public static final Extras NONE = new Extras(null, null, null, null);
  }

  /**
   * {@link #record(ClusterMirror, String, ClusterMirrorStatus, StatusInputs, boolean,
   * ReconcilerSettings)} with what the other collaborators report ({@link Extras}).
   */
  public long record(
      ClusterMirror cr,
      String ref,
      ClusterMirrorStatus previous,
      StatusInputs inputs,
      boolean workRemains,
      ReconcilerSettings settings,
      Extras extras) {
    ClusterMirrorStatus status = StatusComputer.compute(inputs, clock);
    status.setControlChannel(controlChannel(cr));
    status.setConsumerGroupSync(extras.groupSync());
    status.setTopicSync(extras.topicSync());
    status.setTopicConfigSync(extras.topicConfigSync());
    status.setFailback(extras.failback());
    long announceStarted = System.nanoTime();
    announceTransitions(cr, ref, previous, status);
    long announcedNanos = System.nanoTime() - announceStarted;
    if (previous.getStopFinishedAt() == null
        && status.getStopFinishedAt() != null
        && status.getStopStartedAt() != null) {
      metrics.stopFinished(
          Duration.between(
              Instant.parse(status.getStopStartedAt()), Instant.parse(status.getStopFinishedAt())));
    }
    Map<PartitionPhase, Long> counts = new EnumMap<>(PartitionPhase.class);
    if (inputs.plan() != null) {
      for (PartitionDecision d : inputs.plan().decisions()) {
        counts.merge(d.phase(), 1L, Long::sum);
      }
    }
    long sourcePartitionsPending =
        inputs.pendingPartitions().stream()
            .mapToLong(p -> p.sourcePartitions() - p.destinationPartitions())
            .sum();
    metrics.recorded(cr, status, counts, sourcePartitionsPending);
    long writeStarted = System.nanoTime();
    String resourceVersion = writeUnlessUnchanged(cr, status);
    LOG.debug(
        "clusterMirror={} status recorded: Events {} ms, status write {} ms",
        ref,
        TimeUnit.NANOSECONDS.toMillis(announcedNanos),
        TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - writeStarted));
    long delay = workRemains ? settings.requeueMs() : settings.idleRequeueMs();
    ownWrites.wrote(cr.getMetadata().getUid(), resourceVersion, inputs.generation(), delay);
    return delay;
  }

  /** Forgets everything about {@code uid} (deleted, or released). */
  public void forget(String uid) {
    written.remove(uid);
    ownWrites.forget(uid);
    metrics.forget(uid);
  }

  private String write(ClusterMirror cr, ClusterMirrorStatus status) {
    String resourceVersion = writer.write(cr, status);
    written.put(cr.getMetadata().getUid(), status);
    metrics.statusWrite(true);
    return resourceVersion;
  }

  /**
   * Writes {@code status} unless the API server already holds it: the resource this reconcile read
   * carries the same status and this process's last write (if any) was the same, apart from the
   * heartbeat timestamps ({@link #HEARTBEATS}), and those the server holds are younger than {@link
   * #HEARTBEAT}. An idle mirror then costs one status write per {@link #HEARTBEAT} instead of one
   * per resync, however many partitions it has. Any other difference, however small (a lag of one
   * record, a message, an error), is written at once; so is a status this process never wrote or
   * read. The comparison is of the JSON the API server stores (nulls left out), so a list in
   * another order is a difference: the safe direction.
   *
   * @return the resource version that holds the status recorded
   */
  private String writeUnlessUnchanged(ClusterMirror cr, ClusterMirrorStatus status) {
    ClusterMirrorStatus current = cr.getStatus();
    if (current == null || cr.getMetadata().getResourceVersion() == null) {
      return write(cr, status);
    }
    // Each status is turned into JSON once: with many partitions, that is the costly part.
    ObjectNode wanted = JSON.valueToTree(status);
    ObjectNode held = JSON.valueToTree(current);
    JsonNode wantedBeats = withoutHeartbeats(wanted);
    ClusterMirrorStatus mine = written.get(cr.getMetadata().getUid());
    if (withoutHeartbeats(held).equals(wantedBeats)
        && (mine == null || withoutHeartbeats(JSON.valueToTree(mine)).equals(wantedBeats))
        && heartbeatsFresh(held, wanted)) {
      // What the server holds (with its older heartbeats) is what later reconciles start from.
      written.put(cr.getMetadata().getUid(), JSON.convertValue(held, ClusterMirrorStatus.class));
      metrics.statusWrite(false);
      return cr.getMetadata().getResourceVersion();
    }
    return write(cr, status);
  }

  /** A copy of {@code status} without its {@link #HEARTBEATS}; {@code status} is left as it is. */
  private static JsonNode withoutHeartbeats(ObjectNode status) {
    ObjectNode tree = status.deepCopy();
    HEARTBEATS.forEach(
        (section, fields) -> {
          if (tree.get(section) instanceof ObjectNode node) {
            node.remove(fields);
          }
        });
    return tree;
  }

  /**
   * Whether every heartbeat {@code wanted} carries is also {@code held} (by the server) and younger
   * than {@link #HEARTBEAT}; a heartbeat the server lacks or cannot be read as a time is stale.
   */
  private boolean heartbeatsFresh(JsonNode held, JsonNode wanted) {
    Instant oldest = clock.instant().minus(HEARTBEAT);
    for (Map.Entry<String, List<String>> e : HEARTBEATS.entrySet()) {
      for (String field : e.getValue()) {
        if (wanted.path(e.getKey()).path(field).isMissingNode()) {
          continue;
        }
        JsonNode at = held.path(e.getKey()).path(field);
        try {
          if (!at.isTextual() || Instant.parse(at.asText()).isBefore(oldest)) {
            return false;
          }
        } catch (DateTimeParseException unreadable) {
          return false;
        }
      }
    }
    return true;
  }

  private void announceTransitions(
      ClusterMirror cr, String ref, ClusterMirrorStatus previous, ClusterMirrorStatus status) {
    for (Condition c : status.getConditions()) {
      Condition before = Conditions.find(previous, c.getType()).orElse(null);
      // The seeded Unknown of the first visit is no news: as with no condition, only True is.
      boolean changed =
          before == null || Conditions.UNKNOWN.equals(before.getStatus())
              ? Conditions.TRUE.equals(c.getStatus())
              : !Objects.equals(before.getStatus(), c.getStatus())
                  || !Objects.equals(before.getReason(), c.getReason());
      if (!changed) {
        continue;
      }
      String message =
          c.getType() + "=" + c.getStatus() + " (" + c.getReason() + "): " + c.getMessage();
      LOG.info("clusterMirror={} condition {}", ref, message);
      if (Conditions.RECONCILING.equals(c.getType()) || Conditions.STALLED.equals(c.getType())) {
        // kstatus' summary of the others: Stalled repeats Degraded's Warning, Reconciling the
        // progress the other conditions announce; no Event of their own.
        continue;
      }
      if (Conditions.DEGRADED.equals(c.getType()) && Conditions.TRUE.equals(c.getStatus())) {
        events.warning(cr, c.getReason(), message);
      } else if (!Conditions.READY.equals(c.getType()) || Conditions.TRUE.equals(c.getStatus())) {
        events.normal(cr, c.getReason(), message);
      }
    }
  }

  private static ClusterMirrorStatus copy(ClusterMirrorStatus s) {
    ClusterMirrorStatus c = new ClusterMirrorStatus();
    c.setObservedGeneration(s.getObservedGeneration());
    c.setPhase(s.getPhase());
    c.setConditions(s.getConditions());
    c.setSourceClusterId(s.getSourceClusterId());
    c.setPartitionCounts(s.getPartitionCounts());
    c.setStoppedOfTotal(s.getStoppedOfTotal());
    c.setMaxLagRecords(s.getMaxLagRecords());
    c.setPartitions(s.getPartitions());
    c.setCatchUpStartedAt(s.getCatchUpStartedAt());
    c.setStopStartedAt(s.getStopStartedAt());
    c.setStopFinishedAt(s.getStopFinishedAt());
    c.setControlChannel(s.getControlChannel());
    c.setConsumerGroupSync(s.getConsumerGroupSync());
    c.setTopicSync(s.getTopicSync());
    c.setTopicConfigSync(s.getTopicConfigSync());
    c.setFailback(s.getFailback());
    return c;
  }

  /** TLS, or InsecurePlaintext when the spec names no CA for the control endpoints. */
  static String controlChannel(ClusterMirror cr) {
    var spec = cr.getSpec();
    boolean tls =
        spec != null
            && spec.getDestination() != null
            && spec.getDestination().getControl() != null
            && spec.getDestination().getControl().getTlsTrustedCertificate() != null;
    return tls ? "TLS" : "InsecurePlaintext";
  }
}
