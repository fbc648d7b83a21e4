package dev.kafkamirror.operator.core;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Where a failback ({@code spec.initialSync: TruncateAndRestore}) aligns each partition of the
 * destination (the former source, A), from the source's (B's) recorded stop of the earlier mirror
 * A→B. Pure: B's describe comes in as observations.
 *
 * <p>Rules (fail closed: a partition without a provable alignment is never started):
 *
 * <ul>
 *   <li>B must describe the partition, and its stop must be complete: step STOPPED, a barrier, the
 *       mirror STOPPED (a B still mirroring or stopping has no final last mirrored offset).
 *   <li>B's stop must name A as its source ({@code stop.sourceClusterId} equals A's cluster id):
 *       B's offsets are only comparable with A's log when B mirrored A.
 *   <li>B's stop must hold both its {@code lastMirroredOffset} and {@code lastMirroredSourceEpoch};
 *       a stop missing either (or recording -1) is refused here, never sent: without the epoch the
 *       point cannot be proven against A's history, and the operator never picks an offset.
 *   <li>B's leader must name the id of A's topic it mirrored ({@code mirror.sourceTopicId}), which
 *       the start sends ({@code alignTo.expectedTopicId}) so that A's leader refuses a topic
 *       deleted and created again since ({@code FailbackTopicReplaced}); a stop that does not name
 *       it is refused here unless B mirrored nothing (alignment at offset 0, where everything on A
 *       is reported and discarded, whichever topic it is).
 *   <li>The alignment sent is B's recorded pair as it is; the plugin on A checks the epoch against
 *       A's own leader-epoch history and refuses (INVALID_STATE, {@code
 *       FailbackEpochNotInLocalHistory}) what that history cannot prove, which the rounds show as a
 *       FAILED partition with the plugin's message.
 * </ul>
 */
public final class FailbackPlanner {

  private FailbackPlanner() {}

  /**
   * B's recorded stop of one partition: what A is aligned to.
   *
   * @param sourceTopicId the id of A's topic that B mirrored ({@code mirror.sourceTopicId}); A's
   *     leader refuses when its topic has another id. Null only when B mirrored nothing of the
   *     partition (alignment at offset 0: everything on A is reported and discarded, whichever
   *     topic it is)
   */
  public record AlignTo(
      long lastMirroredOffset, int lastMirroredSourceEpoch, String sourceTopicId) {

    /** Without a topic id. */
    public AlignTo(long lastMirroredOffset, int lastMirroredSourceEpoch) {
      this(lastMirroredOffset, lastMirroredSourceEpoch, null);
    }
  }

  /**
   * Per partition, either where A aligns to or why it cannot be known.
   *
   * @param alignTo partitions whose alignment is known
   * @param problems partitions whose alignment is not known, with why (naming the partition, both
   *     clusters and what to do)
   */
  public record Alignments(Map<PartitionKey, AlignTo> alignTo, Map<PartitionKey, String> problems) {
    public Alignments {
      alignTo = Map.copyOf(alignTo);
      problems = Map.copyOf(problems);
    }
  }

  /**
   * The alignment of each of {@code keys}.
   *
   * @param clusterMirror the ClusterMirror (namespace/name) of the failback, for the messages
   * @param sourceObservations B's describe of the partitions (missing ones count as unreadable)
   * @param sourceClusterId B's cluster id (spec.source.clusterId), for the messages
   * @param destinationClusterId A's cluster id as A reports it
   */
  public static Alignments alignments(
      String clusterMirror,
      List<PartitionKey> keys,
      Map<PartitionKey, PartitionObservation> sourceObservations,
      String sourceClusterId,
      String destinationClusterId) {
    Map<PartitionKey, AlignTo> alignTo = new LinkedHashMap<>();
    Map<PartitionKey, String> problems = new LinkedHashMap<>();
    for (PartitionKey key : keys) {
      PartitionObservation o = sourceObservations.get(key);
      String where = "partition " + key + " on the source cluster " + sourceClusterId;
      if (o == null || o.described() == null) {
        problems.put(
            key,
            "cannot read the recorded stop of "
                + where
                + (o == null || o.errorMessage() == null ? "" : " (" + o.errorMessage() + ")")
                + "; nothing is truncated until it can be read: check spec.source.control (port,"
                + " secretRef, brokerEndpoints) and that the source's brokers run the plugin");
        continue;
      }
      PartitionObservation.Stop stop = o.described().stop();
      if (stop == null || FailoverPlanner.phaseOf(o) != PartitionPhase.STOPPED) {
        problems.put(
            key,
            where
                + " has "
                + (stop == null ? "no recorded stop" : "a stop at step " + stop.step())
                + ", not a completed one (STOPPED behind its barrier): fail over the earlier"
                + " mirror onto the source first (its ClusterMirror state: Stopped); TruncateAndRestore"
                + " aligns only to a finished failover");
        continue;
      }
      if (stop.sourceClusterId() == null || !stop.sourceClusterId().equals(destinationClusterId)) {
        problems.put(
            key,
            where
                + " was mirrored from cluster "
                + stop.sourceClusterId()
                + ", not from this destination "
                + destinationClusterId
                + ": its offsets say nothing about this destination's log; TruncateAndRestore"
                + " fails back only to the cluster the source mirrored");
        continue;
      }
      if (stop.lastMirroredOffset() == null || stop.lastMirroredOffset() < 0) {
        problems.put(
            key,
            where
                + " has a completed stop without a last mirrored offset ("
                + stop.lastMirroredOffset()
                + "): the point where "
                + destinationClusterId
                + " and "
                + sourceClusterId
                + " agree is unknown, so nothing is truncated; the partition cannot be failed back"
                + " by TruncateAndRestore (copy its data by hand or recreate the topic)");
        continue;
      }
      if (stop.lastMirroredSourceEpoch() == null || stop.lastMirroredSourceEpoch() < 0) {
        problems.put(
            key,
            where
                + " recorded last mirrored offset "
                + stop.lastMirroredOffset()
                + " without the leader epoch of "
                + destinationClusterId
                + " its last mirrored batch had (a plugin before the source epoch history, or a"
                + " stop of records mirrored before it): whether "
                + destinationClusterId
                + "'s log still holds those batches cannot be proven against its epoch history,"
                + " so nothing is truncated (FailbackEpochUnknown)");
        continue;
      }
      // The id of A's topic that B mirrored: A's leader refuses a topic deleted and created again
      // (FailbackTopicReplaced). Every leader of B knows it (the plugin keeps it in the cluster's
      // membership record, which every broker that may lead the partition reads); a stop that
      // does not name it cannot prove which topic B copied, unless B copied nothing.
      PartitionObservation.Mirror mirrored = o.described().mirror();
      String topicId = mirrored == null ? null : mirrored.sourceTopicId();
      if (topicId == null && stop.lastMirroredOffset() > 0) {
        problems.put(
            key,
            "ClusterMirror "
                + clusterMirror
                + ": "
                + where
                + " (broker "
                + o.leaderId()
                + ", its leader) recorded last mirrored offset "
                + stop.lastMirroredOffset()
                + " but does not report the id of "
                + destinationClusterId
                + "'s topic "
                + key.topic()
                + " it mirrored (describe mirror.sourceTopicId: no mirror registration left on"
                + " that broker, or a plugin before source topic ids were recorded in the"
                + " cluster's membership): whether "
                + destinationClusterId
                + "'s topic is still the one it copied, and not one deleted and created again"
                + " under the same name, cannot be proven, so nothing is truncated"
                + " (FailbackTopicReplaced). Upgrade the plugin on every broker of "
                + sourceClusterId
                + " and check that this broker's describe reports mirror.sourceTopicId; otherwise"
                + " TruncateAndRestore cannot fail this partition back: copy its data by hand or"
                + " re-create the topic on "
                + destinationClusterId
                + " empty and mirror it from the start");
        continue;
      }
      alignTo.put(
          key, new AlignTo(stop.lastMirroredOffset(), stop.lastMirroredSourceEpoch(), topicId));
    }
    return new Alignments(alignTo, problems);
  }

  /**
   * {@code plan} with every start of a partition whose alignment is not known replaced by a wait
   * (phase FAILED, the reason as message; looked at again): a failback never starts a partition it
   * cannot align.
   */
  public static FailoverPlan withAlignments(FailoverPlan plan, Alignments alignments) {
    List<PartitionDecision> decisions = new ArrayList<>();
    for (PartitionDecision d : plan.decisions()) {
      String problem = alignments.problems().get(d.key());
      if (d.action() == Action.START_MIRRORING && !alignments.alignTo().containsKey(d.key())) {
        decisions.add(
            new PartitionDecision(
                d.key(),
                Action.WAIT,
                PartitionPhase.FAILED,
                d.step(),
                problem != null
                    ? problem
                    : "partition " + d.key() + ": no alignment known for the failback"));
      } else {
        decisions.add(d);
      }
    }
    return new FailoverPlan(decisions, plan.refusals(), plan.catchUp(), plan.stopHazards());
  }

  /**
   * {@code plan} with every start of a partition in {@code problems} replaced by a wait (phase
   * FAILED, the problem as message): a failback that cannot keep what it would discard (with
   * keepDiscarded) does not start, so does not truncate, that partition.
   */
  public static FailoverPlan withProblems(FailoverPlan plan, Map<PartitionKey, String> problems) {
    if (problems.isEmpty()) {
      return plan;
    }
    List<PartitionDecision> decisions = new ArrayList<>();
    for (PartitionDecision d : plan.decisions()) {
      String problem = problems.get(d.key());
      decisions.add(
          d.action() == Action.START_MIRRORING && problem != null
              ? new PartitionDecision(
                  d.key(), Action.WAIT, PartitionPhase.FAILED, d.step(), problem)
              : d);
    }
    return new FailoverPlan(decisions, plan.refusals(), plan.catchUp(), plan.stopHazards());
  }

  /** The partitions the plan starts, whose alignment must be known before the start is sent. */
  public static List<PartitionKey> starts(FailoverPlan plan) {
    return plan.decisions().stream()
        .filter(d -> d.action() == Action.START_MIRRORING)
        .map(PartitionDecision::key)
        .toList();
  }
}
