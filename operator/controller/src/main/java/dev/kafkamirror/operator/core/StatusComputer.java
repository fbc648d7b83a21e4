package dev.kafkamirror.operator.core;

import dev.kafkamirror.operator.api.v1alpha1.ClusterMirrorStatus;
import dev.kafkamirror.operator.api.v1alpha1.Condition;
import dev.kafkamirror.operator.api.v1alpha1.Conditions;
import dev.kafkamirror.operator.api.v1alpha1.MirrorPhase;
import dev.kafkamirror.operator.api.v1alpha1.PartitionCounts;
import dev.kafkamirror.operator.api.v1alpha1.PartitionStatus;
import java.time.Clock;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * Computes a ClusterMirror's status from one reconcile's observation and plan. Pure apart from the
 * injected {@link Clock}.
 *
 * <p>Invariants:
 *
 * <ul>
 *   <li>Stopped is True only when the spec asks for Stopped and every partition is STOPPED (stop
 *       step STOPPED, a barrier offset, the mirror STOPPED), and there is at least one partition.
 *   <li>Each condition carries the generation it was computed from; lastTransitionTime changes only
 *       when the condition's status changes.
 *   <li>stopStartedAt and stopFinishedAt, once set, never move.
 *   <li>An unknown lag never reads as zero: while any partition that is not STOPPED has no known
 *       lag (not described, or the plugin reports -1 because the mirror has not fetched from the
 *       source yet), maxLagRecords is absent and the Mirroring condition counts those partitions.
 *   <li>Source partitions the destination lacks (added on the source) keep Mirroring and Ready
 *       False (reason SourcePartitionsPending, naming topic and partitions) and maxLagRecords
 *       absent; a Stopped=True message names them, since the stop did not carry them over.
 *   <li>A STOPPING or STOPPED partition whose previous status message holds the {@link
 *       FailoverPlanner#HALTED_BEFORE_STOP} note keeps it: a partition stopped after its mirror
 *       halted says so, and why, for as long as it is listed.
 * </ul>
 */
public final class StatusComputer {

  /**
   * How long the source may leave a mirroring partition's leader without an answer before the
   * mirror is Degraded ({@link Reasons#SOURCE_NOT_ANSWERING}): longer than a source leader election
   * or a broker restart takes, short enough to page someone while the lag is still small.
   */
  public static final java.time.Duration SOURCE_SILENCE_DEGRADED = java.time.Duration.ofMinutes(2);

  private StatusComputer() {}

  public static ClusterMirrorStatus compute(StatusInputs in, Clock clock) {
    Instant now = clock.instant().truncatedTo(ChronoUnit.SECONDS);
    ClusterMirrorStatus previous =
        in.previous() == null ? new ClusterMirrorStatus() : in.previous();
    ClusterMirrorStatus status = new ClusterMirrorStatus();
    status.setObservedGeneration(in.generation());

    List<PartitionDecision> decisions = in.plan() == null ? List.of() : in.plan().decisions();
    Map<PartitionKey, PartitionObservation> byKey = new HashMap<>();
    for (PartitionObservation o : in.observations()) {
      byKey.put(o.key(), o);
    }
    EnumMap<PartitionPhase, Integer> counts = new EnumMap<>(PartitionPhase.class);
    long maxLag = 0;
    int lagUnknown = 0;
    // The first partition of unknown lag (in key order) for which the plugin reported why.
    PartitionDecision lagUnknownExplained = null;
    // Mirroring partitions whose source has not answered for longer than the bound, and the first.
    int silent = 0;
    PartitionObservation firstSilent = null;
    Instant silentBefore = now.minus(SOURCE_SILENCE_DEGRADED);
    String observedSource = null;
    for (PartitionDecision d : decisions) {
      counts.merge(d.phase(), 1, Integer::sum);
      PartitionObservation o = byKey.get(d.key());
      if (d.phase() == PartitionPhase.MIRRORING
          && o != null
          && o.described() != null
          && o.described().mirror() != null) {
        Instant since = o.described().mirror().sourceSilentSinceInstant();
        if (since != null && !since.isAfter(silentBefore)) {
          silent++;
          if (firstSilent == null || o.key().compareTo(firstSilent.key()) < 0) {
            firstSilent = o;
          }
        }
      }
      Long lag = o == null ? null : FailoverPlanner.lagOf(o);
      if (d.phase() != PartitionPhase.STOPPED) {
        if (lag == null) {
          lagUnknown++;
          if (d.message() != null
              && (lagUnknownExplained == null
                  || d.key().compareTo(lagUnknownExplained.key()) < 0)) {
            lagUnknownExplained = d;
          }
        } else {
          maxLag = Math.max(maxLag, lag);
        }
      }
      if (observedSource == null
          && o != null
          && o.described() != null
          && o.described().mirror() != null) {
        observedSource = o.described().mirror().sourceClusterId();
      }
    }
    int total = decisions.size();
    int stopped = counts.getOrDefault(PartitionPhase.STOPPED, 0);
    int failed = counts.getOrDefault(PartitionPhase.FAILED, 0);
    int unknown = counts.getOrDefault(PartitionPhase.UNKNOWN, 0);
    PartitionCounts pc = new PartitionCounts();
    pc.setTotal(total);
    pc.setMirroring(counts.getOrDefault(PartitionPhase.MIRRORING, 0));
    pc.setPaused(counts.getOrDefault(PartitionPhase.PAUSED, 0));
    pc.setStopping(counts.getOrDefault(PartitionPhase.STOPPING, 0));
    pc.setStopped(stopped);
    pc.setFailed(counts.getOrDefault(PartitionPhase.FAILED, 0));
    status.setPartitionCounts(pc);
    status.setStoppedOfTotal(stopped + "/" + total);
    // Source partitions the destination lacks have no lag to report: never a maxLag of 0.
    List<PartitionGrowthPlanner.Pending> pending = in.pendingPartitions();
    status.setMaxLagRecords(lagUnknown > 0 || !pending.isEmpty() ? null : maxLag);
    status.setSourceClusterId(
        observedSource != null ? observedSource : previous.getSourceClusterId());
    status.setPartitions(
        partitionList(decisions, byKey, previous.getPartitions(), in.maxPartitionsListed()));

    boolean allStopped = total > 0 && stopped == total;
    boolean stopWanted = in.target() == MirrorIntent.Target.STOPPED;
    // Stopped never steps back: once every partition was STOPPED under this generation, partitions
    // that cannot be observed right now (a leader moving, a broker down) do not undo it; nothing
    // un-stops a partition. A partition observed in an earlier phase is not hidden: it turns
    // Stopped False.
    boolean stoppedHeld =
        stopWanted
            && !allStopped
            && total > 0
            && stopped + unknown == total
            && wasStopped(previous, in.generation(), total);
    boolean stopBegun = in.plan() != null && (in.plan().stopBegun() || stopActing(in.plan()));
    status.setStopStartedAt(
        previous.getStopStartedAt() != null
            ? previous.getStopStartedAt()
            : stopWanted && stopBegun ? now.toString() : null);
    status.setStopFinishedAt(
        previous.getStopFinishedAt() != null
            ? previous.getStopFinishedAt()
            : stopWanted && allStopped ? now.toString() : null);
    FailoverPlan.CatchUp catchUp =
        in.plan() == null ? FailoverPlan.CatchUp.NOT_APPLICABLE : in.plan().catchUp();
    boolean waitingForCatchUp =
        catchUp == FailoverPlan.CatchUp.WAITING || catchUp == FailoverPlan.CatchUp.TIMED_OUT;
    status.setCatchUpStartedAt(
        previous.getCatchUpStartedAt() != null
            ? previous.getCatchUpStartedAt()
            : stopWanted && waitingForCatchUp ? now.toString() : null);

    // Degraded first: the other conditions refer to it.
    String degradedReason = null;
    String degradedMessage = null;
    // Whether the Degraded reason blocks progress until a human acts (Stalled), rather than one the
    // operator retries or works through (a destination that does not answer, a stop that takes
    // halted partitions forward).
    boolean needsHuman = true;
    if (in.specError() != null) {
      degradedReason = Reasons.INVALID_SPEC;
      degradedMessage = in.specError();
    } else if (in.destinationAuthenticationError() != null) {
      // Stalled, also during a stop (which needs the destination): retrying with the same
      // credentials cannot help.
      degradedReason = Reasons.DESTINATION_AUTHENTICATION_FAILED;
      degradedMessage = in.destinationAuthenticationError();
    } else if (in.destinationRefusal() != null) {
      // Stalled: the same call is refused again until a human changes the policy, the ACL or the
      // config (the operator still tries at every reconcile, so a fix clears it).
      degradedReason = Reasons.DESTINATION_REFUSED;
      degradedMessage = in.destinationRefusal();
    } else if (in.destinationError() != null) {
      degradedReason = Reasons.DESTINATION_UNREACHABLE;
      degradedMessage = in.destinationError();
      needsHuman = false;
    } else if (in.sourceAuthenticationError() != null && !stopWanted) {
      // Not during a stop: a stop never needs the source.
      degradedReason = Reasons.SOURCE_AUTHENTICATION_FAILED;
      degradedMessage = in.sourceAuthenticationError();
    } else if (in.plan() != null && !in.plan().refusals().isEmpty()) {
      degradedReason = Reasons.SOURCE_CLUSTER_MISMATCH;
      degradedMessage = summarize(in.plan().refusals());
    } else if (sourceMismatch(in.observations()) != null) {
      degradedReason = Reasons.SOURCE_CLUSTER_MISMATCH;
      degradedMessage = sourceMismatch(in.observations());
      // A stop takes such partitions forward (what they hold came from the verified source).
      needsHuman = !stopWanted;
    } else if (halted(in.observations()) != null) {
      needsHuman = !stopWanted;
      // The plugin's own reason (SourceTopicRecreated, SourceRetentionOverrun, ...).
      PartitionObservation first = halted(in.observations());
      degradedReason = FailoverPlanner.haltedReason(first);
      // Every reason with its count: partitions can halt for different reasons at once.
      Map<String, Integer> byReason = new java.util.LinkedHashMap<>();
      for (PartitionObservation o : in.observations()) {
        String reason = FailoverPlanner.haltedReason(o);
        if (reason != null) {
          byReason.merge(reason, 1, Integer::sum);
        }
      }
      StringBuilder reasons = new StringBuilder();
      byReason.forEach(
          (reason, n) ->
              reasons.append(reasons.length() == 0 ? "" : ", ").append(reason + ": " + n));
      int halted = byReason.values().stream().mapToInt(Integer::intValue).sum();
      degradedMessage =
          (halted == 1 ? "1 partition" : halted + " partitions")
              + " halted mirroring ("
              + reasons
              + "): "
              + FailoverPlanner.haltedMessage(first);
    } else if (in.plan() != null && !in.plan().stopHazards().isEmpty()) {
      degradedReason = Reasons.UNCLEAN_LEADER_ELECTION_ENABLED;
      degradedMessage = summarize(in.plan().stopHazards());
    } else if (catchUp == FailoverPlan.CatchUp.TIMED_OUT) {
      degradedReason = Reasons.CATCH_UP_TIMED_OUT;
      degradedMessage =
          "lag did not reach zero within the catch-up timeout; not stopped: "
              + firstMessage(decisions);
    } else if (failed > 0) {
      degradedReason = Reasons.PARTITIONS_FAILED;
      degradedMessage = failed + " of " + total + " partitions failed: " + firstMessage(decisions);
    } else if (unknown > 0) {
      degradedReason = Reasons.PARTITIONS_UNREACHABLE;
      degradedMessage =
          unknown
              + " of "
              + total
              + " partitions could not be observed: "
              + firstMessage(decisions);
      needsHuman = false;
    } else if (!stopWanted && firstSilent != null) {
      // Not Stalled: the plugin keeps asking and mirrors on as soon as the source answers. Not
      // during a stop, which never needs the source.
      PartitionObservation.Mirror m = firstSilent.described().mirror();
      degradedReason = Reasons.SOURCE_NOT_ANSWERING;
      degradedMessage =
          silent
              + " of "
              + total
              + " mirroring partitions have had no answer from the source for over "
              + SOURCE_SILENCE_DEGRADED.toMinutes()
              + " minutes; first "
              + firstSilent.key()
              + ", silent since "
              + m.sourceSilentSince()
              + (m.lastError() == null ? "" : ": " + m.lastError());
      needsHuman = false;
    }
    boolean degraded = degradedReason != null;
    boolean stalled = degraded && needsHuman;

    List<Condition> conditions = new ArrayList<>();
    // Stopped
    if (stoppedHeld) {
      conditions.add(
          condition(
              previous,
              in.generation(),
              now,
              Conditions.STOPPED,
              true,
              Reasons.ALL_PARTITIONS_STOPPED,
              "all "
                  + total
                  + " partitions were STOPPED behind a durable MIRROR_PID_RESET barrier; "
                  + unknown
                  + " cannot be observed now (see Degraded)"));
    } else if (stopWanted && allStopped) {
      conditions.add(
          condition(
              previous,
              in.generation(),
              now,
              Conditions.STOPPED,
              true,
              Reasons.ALL_PARTITIONS_STOPPED,
              "all "
                  + total
                  + " partitions are STOPPED behind a durable MIRROR_PID_RESET barrier"
                  + (pending.isEmpty()
                      ? ""
                      : "; source partitions never mirrored, not on the destination: "
                          + pendingSummary(pending))));
    } else if (stopWanted) {
      String reason =
          catchUp == FailoverPlan.CatchUp.WAITING
              ? Reasons.WAITING_FOR_CATCH_UP
              : catchUp == FailoverPlan.CatchUp.TIMED_OUT
                  ? Reasons.CATCH_UP_TIMED_OUT
                  : total == 0 ? Reasons.NO_PARTITIONS : Reasons.STOP_IN_PROGRESS;
      conditions.add(
          condition(
              previous,
              in.generation(),
              now,
              Conditions.STOPPED,
              false,
              reason,
              stopped + " of " + total + " partitions STOPPED"));
    } else {
      conditions.add(
          condition(
              previous,
              in.generation(),
              now,
              Conditions.STOPPED,
              false,
              Reasons.STOP_NOT_REQUESTED,
              "spec.state is " + targetName(in.target())));
    }
    // Mirroring: only once the plugin has verified the source's cluster id for every partition
    // (describe's sourceClusterId is set only then), so that a source that turns out to be another
    // cluster is never shown as Mirroring, not even for the moment before the plugin's first check.
    int mirroring = pc.getMirroring();
    int unverified = 0;
    for (PartitionDecision d : decisions) {
      PartitionObservation o = byKey.get(d.key());
      if (d.phase() == PartitionPhase.MIRRORING
          && (o == null
              || o.described() == null
              || o.described().mirror() == null
              || o.described().mirror().sourceClusterId() == null)) {
        unverified++;
      }
    }
    if (in.target() != MirrorIntent.Target.STOPPED && !pending.isEmpty()) {
      conditions.add(
          condition(
              previous,
              in.generation(),
              now,
              Conditions.MIRRORING,
              false,
              Reasons.SOURCE_PARTITIONS_PENDING,
              mirroring
                  + " of "
                  + total
                  + " destination partitions MIRRORING; source partitions not mirrored: "
                  + pendingSummary(pending)));
    } else if (in.target() == MirrorIntent.Target.MIRRORING
        && total > 0
        && mirroring == total
        && unverified > 0) {
      conditions.add(
          condition(
              previous,
              in.generation(),
              now,
              Conditions.MIRRORING,
              false,
              Reasons.STARTING_MIRRORS,
              mirroring
                  + " of "
                  + total
                  + " partitions MIRRORING; the source's cluster id is not verified yet on "
                  + unverified));
    } else if (in.target() == MirrorIntent.Target.MIRRORING && total > 0 && mirroring == total) {
      conditions.add(
          condition(
              previous,
              in.generation(),
              now,
              Conditions.MIRRORING,
              true,
              Reasons.ALL_PARTITIONS_MIRRORING,
              "all "
                  + total
                  + " partitions are MIRRORING"
                  + (lagUnknown > 0
                      ? "; lag unknown on "
                          + lagUnknown
                          + " (no answer from the source yet), so maxLagRecords is not set"
                          + (lagUnknownExplained == null
                              ? ""
                              : "; first with a reason: "
                                  + lagUnknownExplained.key()
                                  + ": "
                                  + lagUnknownExplained.message())
                      : "")));
    } else {
      String reason =
          switch (in.target()) {
            case MIRRORING -> total == 0 ? Reasons.NO_PARTITIONS : Reasons.STARTING_MIRRORS;
            case PAUSED -> Reasons.PAUSED;
            case STOPPED -> Reasons.STOPPING_OR_STOPPED;
          };
      conditions.add(
          condition(
              previous,
              in.generation(),
              now,
              Conditions.MIRRORING,
              false,
              reason,
              mirroring + " of " + total + " partitions MIRRORING"));
    }
    // Ready: the destination is where the spec wants it, and nothing is degraded.
    boolean atTarget =
        total > 0
            && (pending.isEmpty() || in.target() == MirrorIntent.Target.STOPPED)
            && switch (in.target()) {
              case MIRRORING -> mirroring == total && unverified == 0;
              case PAUSED -> pc.getPaused() == total;
              case STOPPED -> allStopped;
            };
    if (degraded) {
      conditions.add(
          condition(
              previous,
              in.generation(),
              now,
              Conditions.READY,
              false,
              degradedReason,
              degradedMessage));
    } else if (atTarget) {
      conditions.add(
          condition(
              previous,
              in.generation(),
              now,
              Conditions.READY,
              true,
              Reasons.RECONCILED,
              "every partition is " + targetName(in.target())));
    } else if (in.target() != MirrorIntent.Target.STOPPED && !pending.isEmpty()) {
      conditions.add(
          condition(
              previous,
              in.generation(),
              now,
              Conditions.READY,
              false,
              Reasons.SOURCE_PARTITIONS_PENDING,
              "source partitions not mirrored: " + pendingSummary(pending)));
    } else {
      conditions.add(
          condition(
              previous,
              in.generation(),
              now,
              Conditions.READY,
              false,
              Reasons.PROGRESSING,
              "moving " + total + " partitions to " + targetName(in.target())));
    }
    conditions.add(
        degraded
            ? condition(
                previous,
                in.generation(),
                now,
                Conditions.DEGRADED,
                true,
                degradedReason,
                degradedMessage)
            : condition(
                previous,
                in.generation(),
                now,
                Conditions.DEGRADED,
                false,
                Reasons.AS_EXPECTED,
                "no partition failed"));
    boolean ready = !degraded && atTarget;
    boolean aligning = counts.getOrDefault(PartitionPhase.ALIGNING, 0) > 0;
    String progressReason =
        degraded
            ? degradedReason
            : aligning
                ? Reasons.ALIGNING
                : !pending.isEmpty() && in.target() != MirrorIntent.Target.STOPPED
                    ? Reasons.SOURCE_PARTITIONS_PENDING
                    : switch (in.target()) {
                      case MIRRORING ->
                          total == 0 ? Reasons.NO_PARTITIONS : Reasons.STARTING_MIRRORS;
                      case PAUSED -> Reasons.PAUSING;
                      case STOPPED ->
                          catchUp == FailoverPlan.CatchUp.WAITING
                              ? Reasons.WAITING_FOR_CATCH_UP
                              : total == 0 ? Reasons.NO_PARTITIONS : Reasons.STOP_IN_PROGRESS;
                    };
    conditions.add(
        !ready && !stalled
            ? condition(
                previous,
                in.generation(),
                now,
                Conditions.RECONCILING,
                true,
                progressReason,
                progressMessage(in.target(), total, pc, degraded ? degradedMessage : null))
            : condition(
                previous,
                in.generation(),
                now,
                Conditions.RECONCILING,
                false,
                stalled ? Reasons.STALLED : Reasons.RECONCILED,
                stalled
                    ? "no progress until the cause in Stalled is fixed"
                    : "every partition is " + targetName(in.target())));
    conditions.add(
        stalled
            ? condition(
                previous,
                in.generation(),
                now,
                Conditions.STALLED,
                true,
                degradedReason,
                degradedMessage)
            : condition(
                previous,
                in.generation(),
                now,
                Conditions.STALLED,
                false,
                Reasons.AS_EXPECTED,
                degraded ? "the operator retries: " + degradedReason : "nothing blocks progress"));
    status.setConditions(conditions);
    status.setPhase(
        phase(in.target(), total, stalled, allStopped || stoppedHeld, atTarget, aligning));
    return status;
  }

  /**
   * The observed phase. {@code atTarget}: every partition is where a Mirroring or Paused spec wants
   * it; {@code stopped}: the Stopped condition is True.
   */
  static MirrorPhase phase(
      MirrorIntent.Target target,
      int total,
      boolean stalled,
      boolean stopped,
      boolean atTarget,
      boolean aligning) {
    if (stalled) {
      return MirrorPhase.Failed;
    }
    if (target == MirrorIntent.Target.STOPPED) {
      return stopped ? MirrorPhase.Stopped : aligning ? MirrorPhase.Aligning : MirrorPhase.Stopping;
    }
    if (total == 0) {
      return MirrorPhase.Pending;
    }
    if (aligning) {
      return MirrorPhase.Aligning;
    }
    return switch (target) {
      case MIRRORING -> atTarget ? MirrorPhase.Mirroring : MirrorPhase.Starting;
      case PAUSED -> atTarget ? MirrorPhase.Paused : MirrorPhase.Pausing;
      case STOPPED -> MirrorPhase.Stopping;
    };
  }

  /**
   * The status of the first visit, written before anything is observed: every condition Unknown
   * (Reconciling True, so that kstatus reads InProgress rather than Current), phase Pending, every
   * partition count 0 and {@code stoppedOfTotal} "0/0".
   */
  public static ClusterMirrorStatus seed(long generation, Clock clock) {
    Instant now = clock.instant().truncatedTo(ChronoUnit.SECONDS);
    ClusterMirrorStatus status = new ClusterMirrorStatus();
    status.setObservedGeneration(generation);
    status.setPhase(MirrorPhase.Pending);
    // The counts of "nothing observed yet", as for a mirror that selects no partition: every status
    // the operator writes has them, and clients read them without a null check (the ITs' waits
    // did).
    PartitionCounts pc = new PartitionCounts();
    pc.setTotal(0);
    pc.setMirroring(0);
    pc.setPaused(0);
    pc.setStopping(0);
    pc.setStopped(0);
    pc.setFailed(0);
    status.setPartitionCounts(pc);
    status.setStoppedOfTotal("0/0");
    ClusterMirrorStatus none = new ClusterMirrorStatus();
    List<Condition> conditions = new ArrayList<>();
    for (String type : Conditions.TYPES) {
      Condition c =
          condition(
              none,
              generation,
              now,
              type,
              Conditions.RECONCILING.equals(type),
              Reasons.FIRST_OBSERVATION,
              "the operator has not observed the destination's partitions yet");
      if (!Conditions.RECONCILING.equals(type)) {
        c.setStatus(Conditions.UNKNOWN);
      }
      conditions.add(c);
    }
    status.setConditions(conditions);
    return status;
  }

  private static String progressMessage(
      MirrorIntent.Target target, int total, PartitionCounts pc, String degradedMessage) {
    String where =
        switch (target) {
          case MIRRORING -> pc.getMirroring() + " of " + total + " partitions MIRRORING";
          case PAUSED -> pc.getPaused() + " of " + total + " partitions PAUSED";
          case STOPPED -> pc.getStopped() + " of " + total + " partitions STOPPED";
        };
    return "moving to "
        + targetName(target)
        + ": "
        + where
        + (degradedMessage == null ? "" : "; " + degradedMessage);
  }

  /** The first partition the plugin halted for good (describe state FAILED), or null. */
  private static PartitionObservation halted(List<PartitionObservation> observations) {
    return observations.stream()
        .filter(o -> FailoverPlanner.haltedReason(o) != null)
        .findFirst()
        .orElse(null);
  }

  /** How many partitions stopped fetching for a source cluster mismatch, and the first reason. */
  private static String sourceMismatch(List<PartitionObservation> observations) {
    List<PartitionObservation> halted =
        observations.stream().filter(FailoverPlanner::sourceMismatch).toList();
    if (halted.isEmpty()) {
      return null;
    }
    return halted.size()
        + " partitions stopped fetching because the source reports another cluster id: "
        + FailoverPlanner.sourceMismatchMessage(halted.get(0));
  }

  /** Every pending topic with its partitions, at most 3 named. */
  private static String pendingSummary(List<PartitionGrowthPlanner.Pending> pending) {
    return summarize(pending.stream().map(PartitionGrowthPlanner.Pending::describe).toList());
  }

  private static boolean stopActing(FailoverPlan plan) {
    return plan.decisions().stream().anyMatch(d -> d.action().isStopStep());
  }

  private static String targetName(MirrorIntent.Target target) {
    return switch (target) {
      case MIRRORING -> "Mirroring";
      case PAUSED -> "Paused";
      case STOPPED -> "Stopped";
    };
  }

  private static String firstMessage(List<PartitionDecision> decisions) {
    return decisions.stream()
        .map(PartitionDecision::message)
        .filter(Objects::nonNull)
        .findFirst()
        .orElse("");
  }

  private static String summarize(List<String> messages) {
    if (messages.size() <= 3) {
      return String.join("; ", messages);
    }
    return String.join("; ", messages.subList(0, 3)) + "; and " + (messages.size() - 3) + " more";
  }

  private static List<PartitionStatus> partitionList(
      List<PartitionDecision> decisions,
      Map<PartitionKey, PartitionObservation> byKey,
      List<PartitionStatus> previous,
      int max) {
    Map<PartitionKey, String> previousMessages = new HashMap<>();
    if (previous != null) {
      for (PartitionStatus p : previous) {
        if (p.getTopic() != null && p.getPartition() != null && p.getMessage() != null) {
          previousMessages.put(new PartitionKey(p.getTopic(), p.getPartition()), p.getMessage());
        }
      }
    }
    List<PartitionDecision> ordered = new ArrayList<>(decisions);
    ordered.sort(
        Comparator.comparingInt((PartitionDecision d) -> d.phase().advancement())
            .thenComparing(PartitionDecision::key));
    List<PartitionStatus> out = new ArrayList<>();
    for (PartitionDecision d : ordered.subList(0, Math.min(max, ordered.size()))) {
      PartitionStatus p = new PartitionStatus();
      p.setTopic(d.key().topic());
      p.setPartition(d.key().partition());
      p.setState(d.phase().name());
      p.setStep(d.step());
      p.setMessage(
          d.phase() == PartitionPhase.STOPPING || d.phase() == PartitionPhase.STOPPED
              ? FailoverPlanner.withHaltNote(d.message(), previousMessages.get(d.key()))
              : d.message());
      PartitionObservation o = byKey.get(d.key());
      if (o != null && o.described() != null) {
        PartitionObservation.Described desc = o.described();
        if (desc.mirror() != null) {
          p.setLastMirroredOffset(desc.mirror().lastMirroredOffset());
        }
        p.setLagRecords(FailoverPlanner.lagOf(o));
        if (desc.stop() != null) {
          PartitionObservation.Stop s = desc.stop();
          if (s.lastMirroredOffset() != null) {
            p.setLastMirroredOffset(s.lastMirroredOffset());
          }
          p.setTruncatedToOffset(s.truncatedToOffset());
          p.setBarrierOffset(s.barrierOffset());
        } else if (d.phase() == PartitionPhase.STOPPED && !desc.barrierResets().isEmpty()) {
          p.setBarrierOffset(
              desc.barrierResets().get(desc.barrierResets().size() - 1).barrierOffset());
        }
      }
      out.add(p);
    }
    return out;
  }

  /** Whether {@code previous} said Stopped=True for {@code generation} over {@code total}. */
  private static boolean wasStopped(ClusterMirrorStatus previous, long generation, int total) {
    if (previous.getConditions() == null
        || previous.getPartitionCounts() == null
        || !Integer.valueOf(total).equals(previous.getPartitionCounts().getTotal())) {
      return false;
    }
    return previous.getConditions().stream()
        .anyMatch(
            c ->
                Conditions.STOPPED.equals(c.getType())
                    && Conditions.TRUE.equals(c.getStatus())
                    && c.getObservedGeneration() != null
                    && c.getObservedGeneration() == generation);
  }

  private static Condition condition(
      ClusterMirrorStatus previous,
      long generation,
      Instant now,
      String type,
      boolean value,
      String reason,
      String message) {
    Condition c = new Condition();
    c.setType(type);
    c.setStatus(value ? Conditions.TRUE : Conditions.FALSE);
    c.setReason(reason);
    c.setMessage(message);
    c.setObservedGeneration(generation);
    Condition before =
        previous.getConditions() == null
            ? null
            : previous.getConditions().stream()
                .filter(p -> type.equals(p.getType()))
                .findFirst()
                .orElse(null);
    c.setLastTransitionTime(
        before != null
                && Objects.equals(before.getStatus(), c.getStatus())
                && before.getLastTransitionTime() != null
            ? before.getLastTransitionTime()
            : now.toString());
    return c;
  }
}
