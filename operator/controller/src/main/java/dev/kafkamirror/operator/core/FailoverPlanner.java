package dev.kafkamirror.operator.core;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * Decides, from what the destination's plugin described and what the spec asks, the next call for
 * every partition. Pure: no I/O, no clock (elapsed times come in as arguments), so that every rule
 * is unit-tested.
 *
 * <p>Rules:
 *
 * <ul>
 *   <li>Partitions are independent: each gets the next step of its own stop, whatever the others'.
 *   <li>Nothing is touched when the destination's data names another source cluster, or the
 *       partition is registered under another mirror: those are refusals.
 *   <li>A stop follows the durable step the leader reports, so it resumes from any point after an
 *       operator crash, a broker restart or a leader move: FETCHERS_REMOVED → truncate, TRUNCATING
 *       → truncate again, TRUNCATED → persist offsets, OFFSETS_PERSISTED → barrier, BARRIER_WRITTEN
 *       → make writable; STOPPED with a barrier offset and a STOPPED mirror is done.
 *   <li>An Immediate stop never looks at the source (lag, reachability). An AfterCatchUp stop
 *       begins only when every partition's lag is zero, and past the timeout reports instead.
 *   <li>Stopped is final: a stopping or stopped partition is never started or resumed again.
 * </ul>
 */
public final class FailoverPlanner {

  /**
   * How the status message of a STOPPING or STOPPED partition begins when its mirror had halted
   * (describe state FAILED or SOURCE_MISMATCH) as its stop began; why it halted follows.
   */
  public static final String HALTED_BEFORE_STOP =
      "its mirror had halted before the stop, which keeps the destination's records as they were"
          + " (nothing the source wrote after the halt) and writes the barrier after them: ";

  /** The describe state of a mirror whose source reported another cluster id. */
  public static final String SOURCE_MISMATCH_STATE = ReportedMirrorState.SOURCE_MISMATCH.name();

  private FailoverPlanner() {}

  /**
   * Plans one round.
   *
   * @param catchUpElapsedMs for AfterCatchUp, how long the operator has waited for zero lag; null
   *     when it has not started waiting
   * @param catchUpTimeoutMs the AfterCatchUp limit
   */
  public static FailoverPlan plan(
      MirrorIntent intent,
      List<PartitionObservation> observations,
      Long catchUpElapsedMs,
      long catchUpTimeoutMs) {
    return plan(intent, observations, catchUpElapsedMs, catchUpTimeoutMs, Map.of(), false);
  }

  /**
   * Plans one round, knowing which mirror topics allow unclean leader election on the destination.
   *
   * <p>An unclean election makes an out-of-sync replica leader and truncates the others to it,
   * which can remove the MIRROR_PID_RESET barrier and bring mirrored producer state back. A stop on
   * such a topic waits (every partition of it not yet STOPPED gets WAIT, the plan names the topic
   * in {@code stopHazards}) unless {@code allowUncleanLeaderElection} (the spec's documented
   * override) is set.
   *
   * @param uncleanElectionTopics topic to where its unclean leader election is enabled ("topic
   *     config", "default of broker 2"), for the selected topics
   */
  public static FailoverPlan plan(
      MirrorIntent intent,
      List<PartitionObservation> observations,
      Long catchUpElapsedMs,
      long catchUpTimeoutMs,
      Map<String, String> uncleanElectionTopics,
      boolean allowUncleanLeaderElection) {
    FailoverPlan plan =
        planIgnoringSettings(intent, observations, catchUpElapsedMs, catchUpTimeoutMs);
    if (intent.target() != MirrorIntent.Target.STOPPED
        || allowUncleanLeaderElection
        || uncleanElectionTopics.isEmpty()
        || !plan.refusals().isEmpty()) {
      return plan;
    }
    List<PartitionDecision> decisions = new ArrayList<>();
    java.util.Set<String> hazardTopics = new java.util.TreeSet<>();
    for (PartitionDecision d : plan.decisions()) {
      String where = uncleanElectionTopics.get(d.key().topic());
      if (where == null || d.phase() == PartitionPhase.STOPPED) {
        decisions.add(d);
        continue;
      }
      hazardTopics.add(d.key().topic());
      decisions.add(
          new PartitionDecision(
              d.key(),
              Action.WAIT,
              d.phase(),
              d.step(),
              "not stopping "
                  + d.key()
                  + ": topic "
                  + d.key().topic()
                  + " allows unclean leader election ("
                  + where
                  + ")"));
    }
    List<String> hazards = new ArrayList<>();
    for (String topic : hazardTopics) {
      hazards.add(
          "topic "
              + topic
              + " allows unclean leader election ("
              + uncleanElectionTopics.get(topic)
              + "), which can truncate the MIRROR_PID_RESET barrier away; set"
              + " unclean.leader.election.enable=false on the topic and the brokers, or set"
              + " spec.stop.allowUncleanLeaderElection=true to stop anyway");
    }
    if (hazards.isEmpty()) {
      return plan;
    }
    return new FailoverPlan(decisions, plan.refusals(), plan.catchUp(), hazards);
  }

  private static FailoverPlan planIgnoringSettings(
      MirrorIntent intent,
      List<PartitionObservation> observations,
      Long catchUpElapsedMs,
      long catchUpTimeoutMs) {
    List<PartitionObservation> sorted =
        observations.stream().sorted((a, b) -> a.key().compareTo(b.key())).toList();
    List<String> refusals = refusals(intent, sorted);
    if (!refusals.isEmpty()) {
      List<PartitionDecision> none = new ArrayList<>();
      for (PartitionObservation o : sorted) {
        none.add(
            new PartitionDecision(
                o.key(), Action.NONE, phaseOf(o), stepOf(o), "refused: see Degraded condition"));
      }
      return new FailoverPlan(none, refusals, FailoverPlan.CatchUp.NOT_APPLICABLE, List.of());
    }
    FailoverPlan.CatchUp catchUp = FailoverPlan.CatchUp.NOT_APPLICABLE;
    if (intent.target() == MirrorIntent.Target.STOPPED
        && intent.afterCatchUp()
        && sorted.stream().noneMatch(FailoverPlanner::stopBegun)) {
      catchUp = catchUpState(sorted, catchUpElapsedMs, catchUpTimeoutMs);
      if (catchUp != FailoverPlan.CatchUp.CAUGHT_UP) {
        List<PartitionDecision> waiting = new ArrayList<>();
        for (PartitionObservation o : sorted) {
          Long lag = lagOf(o);
          String message =
              lag != null && lag == 0
                  ? null
                  : "lag "
                      + (lag == null ? "unknown" : lag + " records")
                      + (catchUp == FailoverPlan.CatchUp.TIMED_OUT
                          ? " after the catch-up timeout of "
                              + catchUpTimeoutMs
                              + " ms; not stopped"
                          : "; waiting for zero lag before stopping");
          waiting.add(
              new PartitionDecision(
                  o.key(),
                  catchUp == FailoverPlan.CatchUp.TIMED_OUT ? Action.NONE : Action.WAIT,
                  phaseOf(o),
                  stepOf(o),
                  message));
        }
        return new FailoverPlan(waiting, List.of(), catchUp, List.of());
      }
    }
    List<PartitionDecision> decisions = new ArrayList<>();
    for (PartitionObservation o : sorted) {
      decisions.add(decide(intent, o));
    }
    return new FailoverPlan(decisions, List.of(), catchUp, List.of());
  }

  /** The next step of one partition. */
  static PartitionDecision decide(MirrorIntent intent, PartitionObservation o) {
    PartitionKey key = o.key();
    if (o.described() == null) {
      String message =
          o.errorMessage() != null
              ? o.errorMessage()
              : "partition " + key + " has no leader in the destination's metadata";
      return new PartitionDecision(key, Action.WAIT, PartitionPhase.UNKNOWN, null, message);
    }
    PartitionPhase phase = phaseOf(o);
    String step = stepOf(o);
    if (sourceMismatch(o) && intent.target() == MirrorIntent.Target.MIRRORING) {
      // The plugin halted this mirror for good: the source at the address is another cluster. It
      // clears the halt only for a registration with another source (other client settings or
      // cluster id), so registering again is how a spec that now names the right address resumes
      // it; with the same settings the call changes nothing and the partition stays FAILED.
      return new PartitionDecision(
          key, Action.START_MIRRORING, phase, step, sourceMismatchMessage(o));
    }
    if (sourceMismatch(o) && intent.target() != MirrorIntent.Target.STOPPED) {
      return new PartitionDecision(key, Action.NONE, phase, step, sourceMismatchMessage(o));
    }
    if (haltedReason(o) != null && intent.target() != MirrorIntent.Target.STOPPED) {
      // The plugin halted this mirror for good (describe state FAILED, e.g.
      // SourceTopicRecreated); registering again does not resume it.
      return new PartitionDecision(key, Action.NONE, phase, step, haltedMessage(o));
    }
    if (takenOverByFailback(intent, o) && intent.target() != MirrorIntent.Target.STOPPED) {
      // A former destination whose earlier mirror completed its stop here: the failback starts it
      // (the rounds send it only with an alignment proven from the source's recorded stop).
      return new PartitionDecision(
          key,
          Action.START_MIRRORING,
          PartitionPhase.NOT_MIRRORED,
          null,
          "failback: partition "
              + key
              + " was stopped under mirror "
              + o.described().mirror().mirrorName()
              + "; it is aligned and mirrored again under "
              + intent.mirrorName());
    }
    return switch (intent.target()) {
      case MIRRORING ->
          switch (phase) {
            case NOT_MIRRORED ->
                new PartitionDecision(key, Action.START_MIRRORING, phase, null, null);
            case PAUSED -> new PartitionDecision(key, Action.RESUME, phase, null, null);
            case MIRRORING -> registerFollowers(o, phase);
            case ALIGNING -> aligning(key, phase, "mirrors");
            default -> finalState(key, step, phase, "Mirroring");
          };
      case PAUSED ->
          switch (phase) {
            case NOT_MIRRORED ->
                new PartitionDecision(key, Action.START_MIRRORING, phase, null, null);
            case MIRRORING -> new PartitionDecision(key, Action.PAUSE, phase, null, null);
            case PAUSED -> registerFollowers(o, phase);
            case ALIGNING -> aligning(key, phase, "can be paused");
            default -> finalState(key, step, phase, "Paused");
          };
      case STOPPED -> decideStop(o, phase, step);
    };
  }

  /**
   * The leader is where the spec wants it; followers without a registration get one (start is
   * idempotent on the replicas that have it), so that a follower that becomes leader stays
   * read-only.
   */
  private static PartitionDecision registerFollowers(PartitionObservation o, PartitionPhase phase) {
    // What the plugin last reported going wrong (cleared by the source's next answer without an
    // error): a partition that is not fetched says why in its own status entry, not only in the
    // broker's log.
    String pluginError = o.described().mirror() == null ? null : o.described().mirror().lastError();
    if (o.replicasWithoutMirror().isEmpty()) {
      return new PartitionDecision(o.key(), Action.NONE, phase, null, pluginError);
    }
    String missing =
        "brokers " + o.replicasWithoutMirror() + " hold no mirror registration of " + o.key();
    return new PartitionDecision(
        o.key(),
        Action.START_MIRRORING,
        phase,
        null,
        pluginError == null ? missing : missing + "; " + pluginError);
  }

  private static PartitionDecision finalState(
      PartitionKey key, String step, PartitionPhase phase, String target) {
    return new PartitionDecision(
        key,
        Action.NONE,
        PartitionPhase.FAILED,
        step,
        "partition "
            + key
            + " is "
            + phase
            + " on the destination; Stopped is final, it cannot become "
            + target
            + " again");
  }

  private static PartitionDecision decideStop(
      PartitionObservation o, PartitionPhase phase, String step) {
    PartitionKey key = o.key();
    PartitionObservation.Described d = o.described();
    PartitionObservation.Stop stop = d.stop();
    if (stop != null) {
      ReportedStopStep parsed = ReportedStopStep.parse(stop.step());
      if (parsed == null) {
        return new PartitionDecision(
            key,
            Action.WAIT,
            PartitionPhase.FAILED,
            step,
            "partition " + key + " reports an unknown stop step " + stop.step());
      }
      Action next =
          switch (parsed) {
            case FETCHERS_REMOVED, TRUNCATING -> Action.TRUNCATE;
            case TRUNCATED -> Action.PERSIST_OFFSETS;
            case OFFSETS_PERSISTED -> Action.WRITE_BARRIER;
            case BARRIER_WRITTEN -> Action.MAKE_WRITABLE;
            case STOPPED -> phase == PartitionPhase.STOPPED ? Action.NONE : Action.MAKE_WRITABLE;
          };
      return new PartitionDecision(key, next, phase, step, null);
    }
    return switch (phase) {
      case NOT_MIRRORED ->
          new PartitionDecision(
              key,
              Action.NONE,
              PartitionPhase.FAILED,
              null,
              "partition "
                  + key
                  + " is not a mirror on the destination (never started, or its registration was"
                  + " lost); there is nothing to stop");
      case MIRRORING, PAUSED ->
          new PartitionDecision(key, Action.REMOVE_FETCHERS, phase, null, null);
      // The plugin stopped fetching from a source that reported another cluster id; everything
      // it appended came from the verified source, so the stop may proceed.
      // Likewise a mirror the plugin halted (FAILED) holds only records that match its source.
      case FAILED ->
          sourceMismatch(o)
              ? new PartitionDecision(
                  key, Action.REMOVE_FETCHERS, phase, null, sourceMismatchMessage(o))
              : haltedReason(o) != null
                  ? new PartitionDecision(
                      key, Action.REMOVE_FETCHERS, phase, null, haltedMessage(o))
                  : new PartitionDecision(key, Action.NONE, phase, step, null);
      case STOPPING -> stoppingWithoutStep(o, phase);
      // Its log may still hold records the failback is about to discard: never made writable
      // half-aligned. The stop goes on once the plugin reports it MIRRORING.
      case ALIGNING -> aligning(key, phase, "can be stopped");
      default -> new PartitionDecision(key, Action.NONE, phase, step, null);
    };
  }

  /**
   * A partition the plugin is aligning for a failback (read-only, being truncated to the offset
   * both clusters agree on): nothing to call until it reports MIRRORING.
   */
  private static PartitionDecision aligning(PartitionKey key, PartitionPhase phase, String what) {
    return new PartitionDecision(
        key,
        Action.NONE,
        phase,
        null,
        "partition "
            + key
            + " is ALIGNING for a failback (read-only, truncating to the offset both clusters"
            + " agree on); it "
            + what
            + " once the plugin reports it MIRRORING");
  }

  /**
   * STOPPING without a recorded stop step. A plugin that records stop state but has not recorded
   * remove-fetchers yet (or lost the record) gets it again; a plugin without durable stop state
   * (older than the five-step sequence) cannot truncate to the LSO or persist offsets, so the
   * partition is FAILED and never made writable by this operator.
   */
  private static PartitionDecision stoppingWithoutStep(
      PartitionObservation o, PartitionPhase phase) {
    PartitionKey key = o.key();
    if (o.described().stopAware()) {
      return new PartitionDecision(key, Action.REMOVE_FETCHERS, phase, null, null);
    }
    return new PartitionDecision(
        key,
        Action.NONE,
        PartitionPhase.FAILED,
        null,
        "partition "
            + key
            + ": the destination's plugin reports no durable stop state, so it cannot truncate to"
            + " the LSO or persist offsets; upgrade the plugin on every destination broker");
  }

  /**
   * Whether a failback takes over {@code o}: registered under another mirror whose stop completed
   * on this destination (STOPPED behind its barrier). A registration of another mirror in any other
   * phase (still mirroring, stopping, failed) is never taken over.
   */
  static boolean takenOverByFailback(MirrorIntent intent, PartitionObservation o) {
    if (!intent.failback() || o.described() == null) {
      return false;
    }
    PartitionObservation.Mirror m = o.described().mirror();
    return m != null
        && m.mirrorName() != null
        && !m.mirrorName().equals(intent.mirrorName())
        && phaseOf(o) == PartitionPhase.STOPPED;
  }

  private static List<String> refusals(MirrorIntent intent, List<PartitionObservation> sorted) {
    List<String> refusals = new ArrayList<>();
    String expected = intent.sourceClusterId();
    for (PartitionObservation o : sorted) {
      if (o.described() == null) {
        continue;
      }
      PartitionObservation.Mirror m = o.described().mirror();
      PartitionObservation.Stop s = o.described().stop();
      if (m != null
          && m.mirrorName() != null
          && !m.mirrorName().equals(intent.mirrorName())
          && !takenOverByFailback(intent, o)) {
        refusals.add(
            "partition "
                + o.key()
                + " is registered under mirror "
                + m.mirrorName()
                + " on the destination, not "
                + intent.mirrorName());
        continue;
      }
      String named = null;
      if (m != null && m.sourceClusterId() != null && !m.sourceClusterId().equals(expected)) {
        named = m.sourceClusterId();
      } else if (m != null
          && m.expectedSourceClusterId() != null
          && !m.expectedSourceClusterId().equals(expected)) {
        named = m.expectedSourceClusterId();
      } else if (s != null
          && s.sourceClusterId() != null
          && !s.sourceClusterId().equals(expected)) {
        named = s.sourceClusterId();
      }
      if (named != null) {
        refusals.add(
            "partition "
                + o.key()
                + " holds data mirrored from source cluster "
                + named
                + ", but spec.source.clusterId is "
                + expected);
      }
    }
    return refusals;
  }

  private static FailoverPlan.CatchUp catchUpState(
      List<PartitionObservation> sorted, Long elapsedMs, long timeoutMs) {
    boolean allCaughtUp =
        !sorted.isEmpty()
            && sorted.stream()
                .allMatch(
                    o -> {
                      Long lag = lagOf(o);
                      return lag != null && lag == 0;
                    });
    if (allCaughtUp) {
      return FailoverPlan.CatchUp.CAUGHT_UP;
    }
    if (elapsedMs != null && elapsedMs > timeoutMs) {
      return FailoverPlan.CatchUp.TIMED_OUT;
    }
    return FailoverPlan.CatchUp.WAITING;
  }

  /** The partition's lag in records; null when unknown (not described, or -1 from the plugin). */
  static Long lagOf(PartitionObservation o) {
    if (o.described() == null || o.described().mirror() == null) {
      return null;
    }
    Long lag = o.described().mirror().lagRecords();
    return lag == null || lag < 0 ? null : lag;
  }

  private static boolean stopBegun(PartitionObservation o) {
    if (o.described() == null) {
      return false;
    }
    PartitionPhase phase = phaseOf(o);
    return o.described().stop() != null
        || phase == PartitionPhase.STOPPING
        || phase == PartitionPhase.STOPPED;
  }

  /** Where the partition stands, from the leader's describe alone. */
  public static PartitionPhase phaseOf(PartitionObservation o) {
    PartitionObservation.Described d = o.described();
    if (d == null) {
      return PartitionPhase.UNKNOWN;
    }
    PartitionObservation.Mirror m = d.mirror();
    PartitionObservation.Stop s = d.stop();
    if (s != null) {
      boolean done =
          ReportedStopStep.parse(s.step()) == ReportedStopStep.STOPPED
              && s.barrierOffset() != null
              && m != null
              && ReportedMirrorState.parse(m.state()) == ReportedMirrorState.STOPPED;
      return done ? PartitionPhase.STOPPED : PartitionPhase.STOPPING;
    }
    if (m == null || m.state() == null) {
      return PartitionPhase.NOT_MIRRORED;
    }
    ReportedMirrorState state = ReportedMirrorState.parse(m.state());
    if (state == null) {
      return PartitionPhase.UNKNOWN;
    }
    return switch (state) {
      case MIRRORING -> PartitionPhase.MIRRORING;
      // Read-only, truncating to the failback alignment point; the plugin moves on to MIRRORING.
      case ALIGNING -> PartitionPhase.ALIGNING;
      case PAUSED -> PartitionPhase.PAUSED;
      case STOPPING -> PartitionPhase.STOPPING;
      // Never MIRRORING: nothing is fetched from a source whose identity does not match.
      case SOURCE_MISMATCH -> PartitionPhase.FAILED;
      // Halted for good by the plugin; failedReason says why.
      case FAILED -> PartitionPhase.FAILED;
      // A stop-aware plugin reports STOPPED only with its stop state; without it, trust
      // make-writable.
      case STOPPED -> d.stopAware() ? PartitionPhase.STOPPING : PartitionPhase.STOPPED;
    };
  }

  /**
   * Whether the leader's plugin stopped fetching the partition because the source reported another
   * cluster id than the mirror's (describe state {@code SOURCE_MISMATCH}).
   */
  public static boolean sourceMismatch(PartitionObservation o) {
    return o.described() != null
        && o.described().mirror() != null
        && SOURCE_MISMATCH_STATE.equals(o.described().mirror().state());
  }

  /**
   * The reason the leader's plugin halted the partition for good (describe state {@code FAILED},
   * the contract's {@code MirrorFailure} name, such as {@code SourceTopicRecreated}), or null.
   */
  public static String haltedReason(PartitionObservation o) {
    if (o.described() == null
        || o.described().mirror() == null
        || ReportedMirrorState.parse(o.described().mirror().state())
            != ReportedMirrorState.FAILED) {
      return null;
    }
    String reason = o.described().mirror().failedReason();
    return reason == null ? Reasons.PARTITIONS_FAILED : reason;
  }

  /**
   * Why the mirror of a partition halted: {@link Reasons#SOURCE_CLUSTER_MISMATCH} or the plugin's
   * {@link #haltedReason}; null when it did not halt.
   */
  public static String haltReason(PartitionObservation o) {
    return sourceMismatch(o) ? Reasons.SOURCE_CLUSTER_MISMATCH : haltedReason(o);
  }

  /**
   * Whether {@code d} begins the stop of a partition whose mirror had halted: remove-fetchers on a
   * FAILED partition (the plugin halted it, or its source is another cluster).
   */
  public static boolean stopsHaltedMirror(PartitionDecision d) {
    return d.action() == Action.REMOVE_FETCHERS && d.phase() == PartitionPhase.FAILED;
  }

  /**
   * {@code message} followed by the {@link #HALTED_BEFORE_STOP} note taken from {@code noted} (a
   * message that holds one), or {@code message} as it is when {@code noted} holds none.
   */
  public static String withHaltNote(String message, String noted) {
    int at = noted == null ? -1 : noted.indexOf(HALTED_BEFORE_STOP);
    if (at < 0 || (message != null && message.contains(HALTED_BEFORE_STOP))) {
      return message;
    }
    String note = noted.substring(at);
    return message == null ? note : message + "; " + note;
  }

  /** The halt's reason and the plugin's message, for the partition's status and Events. */
  static String haltedMessage(PartitionObservation o) {
    String error = o.described().mirror().lastError();
    return haltedReason(o)
        + ": "
        + (error != null ? error : "partition " + o.key() + ": the plugin halted mirroring");
  }

  static String sourceMismatchMessage(PartitionObservation o) {
    String error = o.described().mirror().lastError();
    return error != null
        ? error
        : "partition " + o.key() + ": the source reports another cluster id; not fetching";
  }

  static String stepOf(PartitionObservation o) {
    if (o.described() == null || o.described().stop() == null) {
      return null;
    }
    return o.described().stop().step();
  }
}
