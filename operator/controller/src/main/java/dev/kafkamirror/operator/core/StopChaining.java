package dev.kafkamirror.operator.core;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Whether the next round of a stop may be planned from the answers of the round that just ran,
 * instead of observing the destination again (Kafka metadata plus one describe per leader). Pure:
 * no I/O, so that the rule is unit-tested.
 *
 * <p>Every stop step's answer carries what describe would say of the partition's stop (its durable
 * stop fields as the leader recorded them, read up to date in its leader epoch), its mirror state
 * and its leader epoch. When every call of a round succeeded as expected, the observation that
 * would follow is the last one with those fields replaced, so observing again only costs time.
 *
 * <p>The rule is strict; any doubt observes again:
 *
 * <ul>
 *   <li>only a stop (target STOPPED, not a failback), with no refusal and no stop hazard;
 *   <li>every partition of the plan either took a stop step this round or is already STOPPED with
 *       nothing to call (a partition that waits, failed, or whose describe failed observes again);
 *   <li>every call answered, leaders and followers alike, without an error (NOT_LEADER,
 *       LEADER_MOVED after a fence, TIMEOUT, UNREACHABLE, ...);
 *   <li>each stepped partition has exactly one answer from the leader of the last observation, in
 *       the observed leader epoch, or a newer one when it was described before it applied its
 *       leadership (role FOLLOWER; the chained observation takes the answer's epoch and the role
 *       LEADER, so a second epoch change later in the chain observes again), with a mirror
 *       registration known from that observation;
 *   <li>each such answer reports the stop step that its call records (remove-fetchers
 *       FETCHERS_REMOVED, or TRUNCATED or OFFSETS_PERSISTED on a leader with nothing to truncate;
 *       truncate TRUNCATED or OFFSETS_PERSISTED (the offsets recorded with it), persist-offsets
 *       OFFSETS_PERSISTED, barrier BARRIER_WRITTEN, make-writable STOPPED with a barrier offset)
 *       and the mirror state that goes with it (STOPPING, then STOPPED after make-writable), read
 *       up to date ({@code stateCurrent} not false); anything else (an earlier or later step, an
 *       unknown name, a missing field) is an unknown answer.
 * </ul>
 *
 * <p>A chained observation is used for planning only: the status of a reconcile is always computed
 * from a real observation (the rounds observe again before they end).
 *
 * <p>Safety does not rest on this rule: every step is checked by the leader's plugin against the
 * durable stop state (a step out of order is refused), and the plan is the same function of the
 * same fields a describe would give.
 */
public final class StopChaining {

  private StopChaining() {}

  /**
   * One partition's answer to a stop step call.
   *
   * @param brokerId the broker that answered
   * @param leader whether the call was the partition's leader call (false: a follower call)
   * @param errorCode the plugin's or the client's error code; null on success
   * @param leaderEpoch the answering broker's leader epoch of the partition; null when absent
   * @param logEndOffset the log end after the step; null when absent
   * @param state the mirror state after the step ({@code state}); null when absent
   * @param stop the durable stop fields ({@code stop}); null when absent or not readable
   * @param stateCurrent false when the answer says its stop state was not read up to date
   */
  public record Answer(
      PartitionKey key,
      int brokerId,
      boolean leader,
      String errorCode,
      Integer leaderEpoch,
      Long logEndOffset,
      String state,
      PartitionObservation.Stop stop,
      boolean stateCurrent) {

    /** A failed call's answer. */
    public static Answer failed(PartitionKey key, int brokerId, boolean leader, String errorCode) {
      return new Answer(key, brokerId, leader, errorCode, null, null, null, null, true);
    }

    public boolean ok() {
      return errorCode == null;
    }
  }

  /**
   * The rule's verdict.
   *
   * @param observations the observation to plan the next round from; null when the destination must
   *     be observed again
   * @param observeBecause why it must, naming the partition and broker; null when chained
   */
  public record Verdict(List<PartitionObservation> observations, String observeBecause) {

    public boolean chained() {
      return observations != null;
    }

    static Verdict observe(String because) {
      return new Verdict(null, because);
    }
  }

  /**
   * The observation after a round, from the round's answers, or why it must be observed.
   *
   * @param plan the plan the round carried out
   * @param observed the observation the plan was made from
   * @param answers every answer of the round's calls, leaders and followers
   */
  public static Verdict next(
      MirrorIntent intent,
      FailoverPlan plan,
      List<PartitionObservation> observed,
      List<Answer> answers) {
    if (intent.target() != MirrorIntent.Target.STOPPED || intent.failback()) {
      return Verdict.observe("not a stop");
    }
    if (!plan.refusals().isEmpty() || !plan.stopHazards().isEmpty()) {
      return Verdict.observe("the plan refuses or waits for a stop hazard");
    }
    Map<PartitionKey, PartitionObservation> byKey = new HashMap<>();
    for (PartitionObservation o : observed) {
      byKey.put(o.key(), o);
    }
    Map<PartitionKey, Action> stepped = new HashMap<>();
    for (PartitionDecision d : plan.decisions()) {
      if (d.action().isStopStep()) {
        stepped.put(d.key(), d.action());
      } else if (!(d.action() == Action.NONE && d.phase() == PartitionPhase.STOPPED)) {
        return Verdict.observe(
            "partition " + d.key() + " was " + d.action() + " in phase " + d.phase());
      }
    }
    if (stepped.isEmpty()) {
      return Verdict.observe("no stop step was taken");
    }
    Map<PartitionKey, Answer> fromLeaders = new HashMap<>();
    Set<PartitionKey> duplicated = new HashSet<>();
    for (Answer a : answers) {
      if (!a.ok()) {
        return Verdict.observe(
            "partition "
                + a.key()
                + " answered "
                + a.errorCode()
                + " from broker "
                + a.brokerId()
                + (a.leader() ? " (leader call)" : " (follower call)"));
      }
      if (!stepped.containsKey(a.key())) {
        return Verdict.observe(
            "partition " + a.key() + " answered from broker " + a.brokerId() + " unasked");
      }
      if (a.leader() && fromLeaders.put(a.key(), a) != null) {
        duplicated.add(a.key());
      }
    }
    if (!duplicated.isEmpty()) {
      return Verdict.observe("partitions " + duplicated + " answered twice as leader");
    }
    Map<PartitionKey, PartitionObservation> next = new HashMap<>();
    for (Map.Entry<PartitionKey, Action> e : stepped.entrySet()) {
      PartitionKey key = e.getKey();
      PartitionObservation before = byKey.get(key);
      Answer a = fromLeaders.get(key);
      String unknown = unknownAnswer(key, e.getValue(), before, a);
      if (unknown != null) {
        return Verdict.observe(unknown);
      }
      next.put(key, chained(before, a));
    }
    List<PartitionObservation> out = new ArrayList<>();
    for (PartitionObservation o : observed) {
      out.add(next.getOrDefault(o.key(), o));
    }
    return new Verdict(out, null);
  }

  /**
   * At most this many rounds of one reconcile may go on after a round that only fenced ({@link
   * #goOnAfterRound}). A partition is fenced once per stop (its new leader truncates in the new
   * epoch without moving leadership again); the second allows for a leadership that moved again in
   * between. More means something keeps moving leaderships: the reconcile ends and the requeue
   * looks again later.
   */
  public static final int MAX_FENCE_ONLY_ROUNDS = 2;

  /**
   * Whether the rounds of a reconcile go on after a round, and why.
   *
   * @param goOn the next round runs (from a new observation unless {@link #next} chained)
   * @param fenceOnly the round succeeded in no call but every failure was a fence ({@code
   *     LEADER_MOVED}): the next round must observe, since the leaders moved
   * @param because why the rounds end; null when they go on
   */
  public record AfterRound(boolean goOn, boolean fenceOnly, String because) {}

  /**
   * Whether the rounds go on after a round that made {@code calls} calls, {@code succeeded} of them
   * successful. A round with a success has made progress. A round with none ends the reconcile (the
   * requeue looks again after its delay), except a round of a stop whose every failure is {@code
   * LEADER_MOVED}: the truncate step fenced those partitions (their leadership moved to a new
   * epoch, which is the progress the step needed), and the rounds go on at the new leaders after a
   * new observation, at most {@link #MAX_FENCE_ONLY_ROUNDS} times per reconcile.
   *
   * <p>Pure; the caller never chains the round after a fence-only one ({@link #next} observes again
   * on any error).
   *
   * @param answers every answer of the round's calls, leaders and followers
   * @param leaderErrors each partition whose leader call failed (or that had no leader to call),
   *     with the error as the rounds keep it ({@code CODE: message})
   * @param fenceOnlyRoundsBefore fence-only rounds this reconcile already went on after
   */
  public static AfterRound goOnAfterRound(
      MirrorIntent intent,
      int calls,
      int succeeded,
      List<Answer> answers,
      Map<PartitionKey, String> leaderErrors,
      int fenceOnlyRoundsBefore) {
    if (succeeded > 0) {
      return new AfterRound(true, false, null);
    }
    String none = "no call of the round succeeded (" + calls + " calls)";
    if (intent.target() != MirrorIntent.Target.STOPPED || intent.failback()) {
      return new AfterRound(false, false, none);
    }
    if (answers.isEmpty() || leaderErrors.isEmpty()) {
      return new AfterRound(false, false, none);
    }
    Set<PartitionKey> fenced = new HashSet<>();
    for (Answer a : answers) {
      if (!LEADER_MOVED.equals(a.errorCode())) {
        return new AfterRound(
            false,
            false,
            none
                + "; partition "
                + a.key()
                + " answered "
                + (a.ok() ? "without an error" : a.errorCode())
                + " from broker "
                + a.brokerId());
      }
      if (a.leader()) {
        fenced.add(a.key());
      }
    }
    for (PartitionKey key : leaderErrors.keySet()) {
      if (!fenced.contains(key)) {
        return new AfterRound(
            false, false, none + "; partition " + key + " failed: " + leaderErrors.get(key));
      }
    }
    if (fenceOnlyRoundsBefore >= MAX_FENCE_ONLY_ROUNDS) {
      return new AfterRound(
          false,
          true,
          none
              + "; every failure was "
              + LEADER_MOVED
              + " but "
              + fenceOnlyRoundsBefore
              + " fence-only rounds already went on in this reconcile (at most "
              + MAX_FENCE_ONLY_ROUNDS
              + ")");
    }
    return new AfterRound(true, true, null);
  }

  /** The error code of a fence (the contract's {@code PartitionError.Code.LEADER_MOVED}). */
  public static final String LEADER_MOVED = "LEADER_MOVED";

  /** {@code describe.role} of a leader (the contract's {@code Role.LEADER}; core is JDK-only). */
  public static final String LEADER_ROLE = "LEADER";

  /** {@code describe.role} of a follower (the contract's {@code Role.FOLLOWER}). */
  public static final String FOLLOWER_ROLE = "FOLLOWER";

  /**
   * The partitions a round fenced, each with the broker that fenced it: every leader answer {@code
   * LEADER_MOVED}. That broker gave the partition's leadership away when it answered (the
   * controller had committed the election), so a metadata read that still names it as the leader is
   * older than the fence.
   */
  public static Map<PartitionKey, Integer> fencedBy(List<Answer> answers) {
    Map<PartitionKey, Integer> out = new HashMap<>();
    for (Answer a : answers) {
      if (a.leader() && LEADER_MOVED.equals(a.errorCode())) {
        out.put(a.key(), a.brokerId());
      }
    }
    return out;
  }

  /**
   * The fenced partitions whose leadership a metadata read does not show moved yet: it still names
   * the broker that fenced the partition as its leader, or no leader at all (the election is being
   * applied). A partition missing from {@code leaders} (its topic is gone) is not waited for.
   *
   * @param fencedBy {@link #fencedBy}
   * @param leaders each partition's leader in the metadata read, null when it has none
   */
  public static Set<PartitionKey> notMovedYet(
      Map<PartitionKey, Integer> fencedBy, Map<PartitionKey, Integer> leaders) {
    Set<PartitionKey> out = new HashSet<>();
    for (Map.Entry<PartitionKey, Integer> e : fencedBy.entrySet()) {
      if (!leaders.containsKey(e.getKey())) {
        continue;
      }
      Integer leader = leaders.get(e.getKey());
      if (leader == null || leader.equals(e.getValue())) {
        out.add(e.getKey());
      }
    }
    return out;
  }

  /** Why {@code a} is not the answer {@code action} gives when it did its work; null when it is. */
  private static String unknownAnswer(
      PartitionKey key, Action action, PartitionObservation before, Answer a) {
    if (a == null) {
      return "partition " + key + " has no answer from its leader to " + action;
    }
    String from = " from broker " + a.brokerId() + " to " + action;
    if (before == null || before.described() == null || before.described().mirror() == null) {
      return "partition " + key + " had no mirror registration in the last observation";
    }
    if (before.leaderId() == null || before.leaderId() != a.brokerId()) {
      return "partition " + key + " answered" + from + ", not from its observed leader";
    }
    Integer epoch = before.described().leaderEpoch();
    // A newer epoch is accepted only from a broker that was not yet leader when it was described:
    // right after a fence the metadata names the new leader before that broker has applied its
    // leadership, so its describe gave the old epoch and role. The answer's epoch and stop fields
    // are current. Described as leader, any other epoch means the leadership moved in between.
    boolean describedBeforeLeading = FOLLOWER_ROLE.equals(before.described().role());
    if (epoch == null
        || a.leaderEpoch() == null
        || (describedBeforeLeading ? a.leaderEpoch() < epoch : !epoch.equals(a.leaderEpoch()))) {
      return "partition "
          + key
          + " answered in leader epoch "
          + a.leaderEpoch()
          + from
          + ", observed in "
          + epoch;
    }
    if (!a.stateCurrent()) {
      return "partition " + key + " answered" + from + " from a stop state not read up to date";
    }
    ReportedStopStep expected = recordedBy(action);
    ReportedStopStep step = a.stop() == null ? null : ReportedStopStep.parse(a.stop().step());
    if (step != expected && !alsoRecordedBy(action, step)) {
      return "partition "
          + key
          + " answered step "
          + (a.stop() == null ? null : a.stop().step())
          + from
          + ", expected "
          + expected;
    }
    ReportedMirrorState state = ReportedMirrorState.parse(a.state());
    ReportedMirrorState expectedState =
        action == Action.MAKE_WRITABLE ? ReportedMirrorState.STOPPED : ReportedMirrorState.STOPPING;
    if (state != expectedState) {
      return "partition "
          + key
          + " answered mirror state "
          + a.state()
          + from
          + ", expected "
          + expectedState;
    }
    if (step == ReportedStopStep.STOPPED && a.stop().barrierOffset() == null) {
      return "partition " + key + " answered STOPPED without a barrier offset" + from;
    }
    return null;
  }

  /**
   * The step a truncate call records when the leader's registration knows its source: TRUNCATED and
   * the offsets in one write (a plugin from 2026-12-05 on), so that persist-offsets has nothing
   * left to do and the next round is the barrier. An older plugin answers TRUNCATED.
   */
  static final ReportedStopStep TRUNCATE_WITH_OFFSETS = ReportedStopStep.OFFSETS_PERSISTED;

  /**
   * Whether a successful call of {@code action} may also leave {@code step}, a later one than
   * {@link #recordedBy}: truncate {@link #TRUNCATE_WITH_OFFSETS}; remove-fetchers on a leader with
   * nothing to truncate what truncate would record next, TRUNCATED or OFFSETS_PERSISTED, in the
   * same call, after FETCHERS_REMOVED (a plugin from 2026-12-06 on).
   */
  static boolean alsoRecordedBy(Action action, ReportedStopStep step) {
    return switch (action) {
      case TRUNCATE -> step == TRUNCATE_WITH_OFFSETS;
      case REMOVE_FETCHERS ->
          step == ReportedStopStep.TRUNCATED || step == ReportedStopStep.OFFSETS_PERSISTED;
      default -> false;
    };
  }

  /**
   * The durable step a successful call of {@code action} leaves on the leader (some calls may also
   * leave a later one, {@link #alsoRecordedBy}).
   */
  static ReportedStopStep recordedBy(Action action) {
    return switch (action) {
      case REMOVE_FETCHERS -> ReportedStopStep.FETCHERS_REMOVED;
      case TRUNCATE -> ReportedStopStep.TRUNCATED;
      case PERSIST_OFFSETS -> ReportedStopStep.OFFSETS_PERSISTED;
      case WRITE_BARRIER -> ReportedStopStep.BARRIER_WRITTEN;
      case MAKE_WRITABLE -> ReportedStopStep.STOPPED;
      default -> throw new IllegalArgumentException(action + " is not a stop step");
    };
  }

  /** {@code before} as the leader's answer describes it now. */
  private static PartitionObservation chained(PartitionObservation before, Answer a) {
    PartitionObservation.Described d = before.described();
    PartitionObservation.Mirror m = d.mirror();
    PartitionObservation.Mirror mirror =
        new PartitionObservation.Mirror(
            m.mirrorName(),
            a.state(),
            m.sourceClusterId(),
            m.expectedSourceClusterId(),
            m.lastMirroredOffset(),
            m.lagRecords(),
            m.lastError(),
            m.failedReason(),
            m.sourceTopicId(),
            m.sourceSilentSince());
    return PartitionObservation.described(
        before.key(),
        before.leaderId(),
        before.replicas(),
        new PartitionObservation.Described(
            d.stopAware(),
            // A successful leader call proves leadership in the answer's epoch: any later epoch
            // change is then a move in between, which observes again.
            LEADER_ROLE,
            a.leaderEpoch(),
            a.logEndOffset() != null ? a.logEndOffset() : d.logEndOffset(),
            d.highWatermark(),
            d.lastStableOffset(),
            mirror,
            a.stop(),
            d.barrierResets()));
  }
}
