package dev.kafkamirror.operator.reconciler;

import dev.kafkamirror.contract.ControlRequest;
import dev.kafkamirror.operator.control.BrokerControl;
import dev.kafkamirror.operator.core.Action;
import dev.kafkamirror.operator.core.DiscardKeeping;
import dev.kafkamirror.operator.core.FailbackPlanner;
import dev.kafkamirror.operator.core.FailoverPlan;
import dev.kafkamirror.operator.core.FailoverPlanner;
import dev.kafkamirror.operator.core.MirrorIntent;
import dev.kafkamirror.operator.core.PartitionDecision;
import dev.kafkamirror.operator.core.PartitionKey;
import dev.kafkamirror.operator.core.PartitionObservation;
import dev.kafkamirror.operator.core.PartitionPhase;
import dev.kafkamirror.operator.core.StopChaining;
import dev.kafkamirror.operator.kafka.ClusterAdmin;
import dev.kafkamirror.operator.kafka.DiscardKeeper;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import java.util.function.Consumer;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The reconciler's act step: rounds of observe ({@link MirrorDriver#observe}), plan ({@link
 * FailoverPlanner}), act ({@link MirrorDriver#execute}), up to {@link
 * ReconcilerSettings#maxRoundsPerReconcile}, then one last observation for the status.
 *
 * <p>Invariants:
 *
 * <ul>
 *   <li>Before the first plan with a stop step is executed, the {@link Request#beforeFirstStopStep}
 *       hook runs (the reconciler persists that the stop began); if it throws, nothing is called.
 *   <li>Rounds end early when the plan refuses (another source, another mirror), has no work, or a
 *       round succeeded in no call (the next reconcile looks again after the requeue delay), unless
 *       every failure of that round of a stop was a fence ({@code LEADER_MOVED}): the leaderships
 *       moved, which is the progress the truncate step needed, so the rounds observe again and go
 *       on at the new leaders, at most {@link StopChaining#MAX_FENCE_ONLY_ROUNDS} times per
 *       reconcile ({@link StopChaining#goOnAfterRound}).
 *   <li>After a round in which a leader answered {@code LEADER_MOVED} (a stop's truncate, or a
 *       failback start, fenced), the next observation waits until the metadata no longer names the
 *       fencing broker as those partitions' leader, so that the call goes to the new leaders at
 *       once; {@link #FENCE_METADATA_WAIT_MS} bounds these waits together per reconcile.
 *   <li>A round of a stop is planned from the previous round's answers instead of a new observation
 *       only when {@link StopChaining} says every call of that round succeeded as recorded; any
 *       error, moved leader or unknown answer observes again. The last observation (the status's)
 *       is always a real one.
 *   <li>{@link Progress} holds the last observation and plan even when a Kafka call fails midway,
 *       so that the status shows what was last known.
 *   <li>A partition whose mirror had halted and whose remove-fetchers call its leader accepted in
 *       these rounds is in {@link Progress#haltedStops}, with why it halted, and its message in
 *       {@link Progress#planWithErrors} says so once it is STOPPING or STOPPED.
 * </ul>
 */
public final class FailoverRounds {

  private static final Logger LOG = LoggerFactory.getLogger(FailoverRounds.class);

  /**
   * At most this long in all, per reconcile, the observations after rounds with fences wait for the
   * destination's metadata to show the fenced partitions' new leaders ({@link
   * MirrorDriver#observe(ResolvedMirror, ClusterAdmin, boolean, Map, long)}) before they describe.
   * Normally a wait ends within a second; past it the observation decides (a call still sent to an
   * old leader answers NOT_LEADER and is sent again).
   */
  static final long FENCE_METADATA_WAIT_MS = 5_000;

  private final MirrorDriver driver;

  public FailoverRounds(MirrorDriver driver) {
    this.driver = driver;
  }

  /**
   * What one reconcile asks of the rounds.
   *
   * @param catchUpElapsedMs how long an AfterCatchUp stop has waited for zero lag (null: not
   *     waiting), asked again for every plan
   * @param stopRecorded whether the status already says the stop began
   * @param beforeFirstStopStep persists that the stop began; runs at most once, before the first
   *     destructive call, and only when {@code stopRecorded} is false
   * @param beforeMakeWritable runs before each round that makes partitions writable, with those
   *     partitions (the consumer group offsets' final sync); must not throw, and whatever it does
   *     the round goes on
   * @param superseded true once the resource holds a newer spec than the one these rounds act on
   *     (another generation, or marked for deletion); asked before each round after the first.
   *     Rounds that are not a stop then end at once, without a last observation, so that the next
   *     reconcile acts on the new spec: a stop must not wait for the rest of a start. A stop's
   *     rounds never end for it.
   */
  public record Request(
      String ref,
      ResolvedMirror mirror,
      ClusterAdmin destination,
      MirrorIntent intent,
      long catchUpTimeoutMs,
      Map<String, String> uncleanElectionTopics,
      boolean allowUnclean,
      Supplier<Long> catchUpElapsedMs,
      boolean stopRecorded,
      Runnable beforeFirstStopStep,
      Consumer<List<PartitionKey>> beforeMakeWritable,
      FailbackSource failback,
      BooleanSupplier superseded) {}

  /**
   * A failback ({@code spec.initialSync: TruncateAndRestore}): where the source's recorded stops
   * are read before any partition is started.
   *
   * @param sourceControl the source's brokers' control endpoints, as a mirror whose "destination"
   *     is the source (its {@link ResolvedMirror#controlAddress} and channel)
   * @param source the source's metadata
   * @param planOnly only ever plan and report what would be discarded (dry runs), truncate nothing
   * @param reported the partitions whose planned discard report the status already holds, with the
   *     log end it accounted for: a start is sent for real only when every partition it starts has
   *     one and its log has not grown past it since; otherwise a dry run first, and the rounds end
   *     after it so that the (new) report is persisted (status, Event) before anything is truncated
   */
  public record FailbackSource(
      ResolvedMirror sourceControl,
      ClusterAdmin source,
      boolean planOnly,
      Map<PartitionKey, Long> reported,
      Keep keep) {}

  /**
   * {@code spec.failback.keepDiscarded}: before a truncation is sent, every partition with
   * something to discard must have a persisted copy reaching the end of its persisted report;
   * otherwise the rounds copy (through {@code keeper}) and end, so that the copy's progress is
   * persisted (status) before the next reconcile truncates.
   *
   * @param topicSuffix the side topic of T is T plus this
   * @param failbackId names this failback in the copied records' headers (resume key)
   * @param ranges each partition's discarded range as its persisted planned report accounts for it
   * @param copiedThrough each partition's persisted copy end
   */
  public record Keep(
      String topicSuffix,
      String failbackId,
      Map<PartitionKey, DiscardKeeping.Range> ranges,
      Map<PartitionKey, Long> copiedThrough,
      DiscardKeeper keeper) {}

  /** One partition's copy in these rounds: where to and how far. */
  public record Kept(
      String sideTopic, DiscardKeeping.Range range, DiscardKeeping.Outcome outcome) {}

  /** What the rounds learnt and did; filled as they go. Not thread-safe. */
  public static final class Progress {
    private MirrorDriver.Observation observation;
    private FailoverPlan plan;
    private final Map<PartitionKey, String> lastErrors = new HashMap<>();
    private final Map<Action, Long> callsByAction = new EnumMap<>(Action.class);
    private final Map<PartitionKey, HaltedStop> haltedStops = new LinkedHashMap<>();
    private final Map<PartitionKey, com.fasterxml.jackson.databind.JsonNode> alignments =
        new LinkedHashMap<>();
    private final java.util.Set<PartitionKey> failbackRefused = new java.util.HashSet<>();
    private final Map<PartitionKey, Kept> kept = new LinkedHashMap<>();

    /** The copies of discarded records made in these rounds (keepDiscarded), per partition. */
    public Map<PartitionKey, Kept> kept() {
      return kept;
    }

    /**
     * The {@code alignment} each failback start answered (what was, or in a dry run would be,
     * discarded), per partition, in these rounds.
     */
    public Map<PartitionKey, com.fasterxml.jackson.databind.JsonNode> alignments() {
      return alignments;
    }

    /** The last observation, or null before the first. */
    public MirrorDriver.Observation observation() {
      return observation;
    }

    /** The last plan, or null before the first. */
    public FailoverPlan plan() {
      return plan;
    }

    /**
     * The partitions whose mirror had halted (FAILED) and whose stop began in these rounds (their
     * leader accepted remove-fetchers), in the order they were stopped.
     */
    public Map<PartitionKey, HaltedStop> haltedStops() {
      return haltedStops;
    }

    /** The control calls made, per action. */
    public Map<Action, Long> callsByAction() {
      return callsByAction;
    }

    /** The last plan with each partition's last leader error as its message where it had none. */
    public FailoverPlan planWithErrors() {
      if (plan == null || (lastErrors.isEmpty() && haltedStops.isEmpty())) {
        return plan;
      }
      List<PartitionDecision> decisions = new ArrayList<>();
      for (PartitionDecision d : plan.decisions()) {
        String error = lastErrors.get(d.key());
        String message =
            d.message() == null && error != null && d.phase() != PartitionPhase.STOPPED
                ? error
                : d.message();
        HaltedStop halted = haltedStops.get(d.key());
        if (halted != null
            && (d.phase() == PartitionPhase.STOPPING || d.phase() == PartitionPhase.STOPPED)) {
          message = FailoverPlanner.withHaltNote(message, halted.note());
        }
        // A failback start the leader refused (it cannot prove the alignment): FAILED with the
        // plugin's reason, never started unaligned.
        PartitionPhase phase =
            failbackRefused.contains(d.key()) && d.action() == Action.START_MIRRORING
                ? PartitionPhase.FAILED
                : d.phase();
        decisions.add(
            java.util.Objects.equals(message, d.message()) && phase == d.phase()
                ? d
                : new PartitionDecision(d.key(), d.action(), phase, d.step(), message));
      }
      return new FailoverPlan(decisions, plan.refusals(), plan.catchUp(), plan.stopHazards());
    }
  }

  /**
   * Why the mirror of a partition whose stop began had halted.
   *
   * @param reason the plugin's {@code failedReason}, or {@code SourceClusterMismatch}
   * @param message the halt's message, starting with the reason
   */
  public record HaltedStop(String reason, String message) {

    /** The partition's status note once it is STOPPING or STOPPED. */
    public String note() {
      return FailoverPlanner.HALTED_BEFORE_STOP + message;
    }
  }

  /**
   * Runs the rounds.
   *
   * @param maxRounds rounds of calls at most
   * @throws ClusterAdmin.KafkaCallException when the destination's metadata cannot be read
   */
  public void run(Request request, int maxRounds, Progress progress)
      throws ClusterAdmin.KafkaCallException {
    boolean stopRecorded = request.stopRecorded();
    boolean followers = request.intent().target() != MirrorIntent.Target.STOPPED;
    boolean observeAgain = true;
    // The observation the previous round's answers describe (StopChaining), or null: observe.
    List<PartitionObservation> chained = null;
    // Rounds that succeeded in no call but only fenced (StopChaining.goOnAfterRound).
    int fenceOnlyRounds = 0;
    // What is left of this reconcile's time for waiting on fences to show in the metadata.
    long fenceWaitLeftNanos = TimeUnit.MILLISECONDS.toNanos(FENCE_METADATA_WAIT_MS);
    // The partitions the last round fenced, with the broker that fenced each: the next
    // observation's metadata must show them moved (MirrorDriver#observe).
    Map<PartitionKey, Integer> fencedLastRound = Map.of();
    for (int round = 0; round < maxRounds; round++) {
      if (round > 0 && followers && request.superseded().getAsBoolean()) {
        // The status keeps the last round's observation; the next reconcile observes anew.
        LOG.debug(
            "clusterMirror={} round={} rounds end: the spec changed during this reconcile, the"
                + " next reconcile acts on it",
            request.ref(),
            round);
        observeAgain = false;
        break;
      }
      long observeStarted = System.nanoTime();
      boolean fromAnswers = chained != null;
      progress.observation =
          fromAnswers
              ? new MirrorDriver.Observation(
                  chained, progress.observation.placements(), progress.observation.brokerHosts())
              : driver.observe(
                  request.mirror(),
                  request.destination(),
                  followers,
                  fencedLastRound,
                  TimeUnit.NANOSECONDS.toMillis(Math.max(0L, fenceWaitLeftNanos)));
      if (!fromAnswers) {
        fenceWaitLeftNanos -= progress.observation.fenceWaitNanos();
      }
      fencedLastRound = Map.of();
      chained = null;
      long observedNanos = System.nanoTime() - observeStarted;
      progress.plan = plan(request, progress.observation);
      BrokerControl.Failback failback = null;
      if (request.failback() != null) {
        FailbackPlanner.Alignments alignments = alignments(request, progress.plan);
        progress.plan = FailbackPlanner.withAlignments(progress.plan, alignments);
        boolean dryRun =
            request.failback().planOnly()
                || !FailbackReports.covers(
                    request.failback().reported(),
                    alignments.alignTo().keySet(),
                    logEnds(progress.observation));
        failback = failbackCall(alignments, dryRun, request.failback().reported());
      }
      FailoverPlan plan = progress.plan;
      if (!plan.refusals().isEmpty() || !plan.hasWork()) {
        // The status is computed from a real observation, never from the answers alone.
        observeAgain = fromAnswers;
        break;
      }
      if (failback != null && !failback.dryRun() && request.failback().keep() != null) {
        Keep keep = request.failback().keep();
        List<PartitionKey> toCopy =
            DiscardKeeping.toCopy(failback.alignTo().keySet(), keep.ranges(), keep.copiedThrough());
        if (!toCopy.isEmpty()) {
          // Copy first; the truncation waits for a reconcile that reads the copy's end from status.
          progress.plan = keepDiscarded(request.ref(), keep, toCopy, plan, progress);
          observeAgain = false;
          break;
        }
      }
      if (!stopRecorded && plan.decisions().stream().anyMatch(d -> d.action().isStopStep())) {
        // Record that the stop began before the first destructive call.
        request.beforeFirstStopStep().run();
        stopRecorded = true;
      }
      List<PartitionKey> toWritable =
          plan.decisions().stream()
              .filter(d -> d.action() == Action.MAKE_WRITABLE)
              .map(PartitionDecision::key)
              .toList();
      if (!toWritable.isEmpty() && request.beforeMakeWritable() != null) {
        try {
          request.beforeMakeWritable().accept(toWritable);
        } catch (RuntimeException e) {
          // Never blocks the stop: the hook records its own errors; this is the last guard.
          LOG.warn(
              "clusterMirror={} before make-writable of {} failed (the stop goes on): {}",
              request.ref(),
              toWritable,
              e.toString());
        }
      }
      long actStarted = System.nanoTime();
      MirrorDriver.RoundResult result =
          driver.execute(
              request.ref(),
              request.mirror(),
              plan,
              progress.observation,
              progress.callsByAction,
              failback);
      long actNanos = System.nanoTime() - actStarted;
      progress.lastErrors.clear();
      progress.lastErrors.putAll(result.leaderErrors());
      progress.alignments.putAll(result.alignments());
      progress.failbackRefused.clear();
      if (failback != null) {
        result.leaderErrors().entrySet().stream()
            .filter(e -> FailbackReports.refusedForGood(e.getValue()))
            .forEach(e -> progress.failbackRefused.add(e.getKey()));
      }
      recordHaltedStops(plan, progress, result.leaderErrors().keySet());
      StopChaining.Verdict verdict =
          failback != null
              ? null
              : StopChaining.next(
                  request.intent(), plan, progress.observation.partitions(), result.answers());
      if (verdict != null && verdict.chained()) {
        chained = verdict.observations();
      }
      LOG.debug(
          "clusterMirror={} round={} observeMs={} fromAnswers={} actMs={} actions={} calls={}"
              + " succeeded={} next={}",
          request.ref(),
          round,
          TimeUnit.NANOSECONDS.toMillis(observedNanos),
          fromAnswers,
          TimeUnit.NANOSECONDS.toMillis(actNanos),
          actionsOf(plan),
          result.calls(),
          result.succeeded(),
          verdict == null
              ? "observe (failback)"
              : verdict.chained() ? "from answers" : "observe: " + verdict.observeBecause());
      StopChaining.AfterRound after =
          StopChaining.goOnAfterRound(
              request.intent(),
              result.calls(),
              result.succeeded(),
              result.answers(),
              result.leaderErrors(),
              fenceOnlyRounds);
      if (!after.goOn()) {
        LOG.debug(
            "clusterMirror={} round={} rounds end: {}", request.ref(), round, after.because());
        break;
      }
      if (after.fenceOnly()) {
        // The leaders moved: the next round plans from a new observation, never from the answers.
        fenceOnlyRounds++;
        chained = null;
      }
      if (failback != null && failback.dryRun() && !failback.alignTo().isEmpty()) {
        // The report is persisted (status, Event) before the next reconcile truncates anything.
        break;
      }
      // The next observation must see the new leaders, or it sends the call to the old ones.
      fencedLastRound = StopChaining.fencedBy(result.answers());
    }
    if (observeAgain) {
      // After a last round that fenced, the status's observation waits for the moves too.
      progress.observation =
          driver.observe(
              request.mirror(),
              request.destination(),
              followers,
              fencedLastRound,
              TimeUnit.NANOSECONDS.toMillis(Math.max(0L, fenceWaitLeftNanos)));
      progress.plan = plan(request, progress.observation);
      if (request.failback() != null) {
        progress.plan =
            FailbackPlanner.withAlignments(progress.plan, alignments(request, progress.plan));
      }
    }
  }

  /**
   * Copies {@code toCopy}'s discarded records into their side topics; a partition whose copy cannot
   * be made is FAILED with the reason (never started, so never truncated).
   */
  private static FailoverPlan keepDiscarded(
      String ref, Keep keep, List<PartitionKey> toCopy, FailoverPlan plan, Progress progress) {
    Map<PartitionKey, String> problems = new LinkedHashMap<>();
    for (PartitionKey key : toCopy) {
      DiscardKeeping.Range range = keep.ranges().get(key);
      String side = DiscardKeeping.sideTopic(key.topic(), keep.topicSuffix());
      DiscardKeeping.Outcome outcome = keep.keeper().keep(keep.failbackId(), key, range, side);
      progress.kept.put(key, new Kept(side, range, outcome));
      if (outcome.problem() != null) {
        problems.put(key, outcome.problem());
        LOG.warn("clusterMirror={} {}", ref, outcome.problem());
      }
    }
    return FailbackPlanner.withProblems(plan, problems);
  }

  /**
   * Where each partition the plan starts aligns to, from the source's describe (only read when the
   * plan starts something: once A mirrors, the source's stop is not looked at again). A source that
   * cannot be read leaves every start without an alignment: nothing is started.
   */
  private FailbackPlanner.Alignments alignments(Request request, FailoverPlan plan) {
    List<PartitionKey> starts = FailbackPlanner.starts(plan);
    if (starts.isEmpty()) {
      return new FailbackPlanner.Alignments(Map.of(), Map.of());
    }
    String sourceId = request.mirror().sourceClusterId();
    Map<PartitionKey, PartitionObservation> onSource = new HashMap<>();
    String destinationId;
    try {
      destinationId = request.destination().clusterId();
      for (PartitionObservation o :
          driver
              .observe(request.failback().sourceControl(), request.failback().source(), false)
              .partitions()) {
        onSource.put(o.key(), o);
      }
    } catch (ClusterAdmin.KafkaCallException | RuntimeException e) {
      Map<PartitionKey, String> problems = new LinkedHashMap<>();
      for (PartitionKey key : starts) {
        problems.put(
            key,
            "cannot read the recorded stop of partition "
                + key
                + " on the source cluster "
                + sourceId
                + " ("
                + e.getMessage()
                + "); nothing is truncated until it can be read: check spec.source.bootstrapServers"
                + " and spec.source.control");
      }
      LOG.info("clusterMirror={} failback: source unreadable: {}", request.ref(), e.toString());
      return new FailbackPlanner.Alignments(Map.of(), problems);
    }
    return FailbackPlanner.alignments(request.ref(), starts, onSource, sourceId, destinationId);
  }

  /** Each partition's log end as its leader described it (absent when not described). */
  private static Map<PartitionKey, Long> logEnds(MirrorDriver.Observation observation) {
    Map<PartitionKey, Long> out = new HashMap<>();
    for (PartitionObservation o : observation.partitions()) {
      if (o.described() != null && o.described().logEndOffset() != null) {
        out.put(o.key(), o.described().logEndOffset());
      }
    }
    return out;
  }

  /**
   * The failback call of a round. A real start names, per partition, the log end its persisted
   * report (and copy) covered ({@code reported}, the same value {@link FailbackReports#covers}
   * compared), so that the leader refuses ({@code FailbackLogMovedAfterReport}) instead of
   * truncating records written after the report; a dry run names none.
   */
  static BrokerControl.Failback failbackCall(
      FailbackPlanner.Alignments alignments, boolean dryRun, Map<PartitionKey, Long> reported) {
    Map<PartitionKey, ControlRequest.AlignTo> alignTo = new HashMap<>();
    alignments
        .alignTo()
        .forEach(
            (k, a) ->
                alignTo.put(
                    k,
                    new ControlRequest.AlignTo(
                        a.lastMirroredOffset(),
                        a.lastMirroredSourceEpoch(),
                        dryRun ? null : reported.get(k),
                        a.sourceTopicId())));
    return new BrokerControl.Failback(alignTo, dryRun);
  }

  /** The halted partitions whose remove-fetchers their leader accepted in this round. */
  private static void recordHaltedStops(
      FailoverPlan plan, Progress progress, java.util.Set<PartitionKey> failedOnLeader) {
    for (PartitionDecision d : plan.decisions()) {
      if (!FailoverPlanner.stopsHaltedMirror(d)
          || failedOnLeader.contains(d.key())
          || progress.haltedStops.containsKey(d.key())) {
        continue;
      }
      String reason = null;
      for (var o : progress.observation.partitions()) {
        if (o.key().equals(d.key())) {
          reason = FailoverPlanner.haltReason(o);
        }
      }
      if (reason == null) {
        reason = dev.kafkamirror.operator.core.Reasons.PARTITIONS_FAILED;
      }
      String message = d.message() == null ? "partition " + d.key() + " halted" : d.message();
      progress.haltedStops.put(
          d.key(),
          new HaltedStop(
              reason, message.startsWith(reason + ":") ? message : reason + ": " + message));
    }
  }

  private static FailoverPlan plan(Request request, MirrorDriver.Observation observation) {
    return FailoverPlanner.plan(
        request.intent(),
        observation.partitions(),
        request.catchUpElapsedMs().get(),
        request.catchUpTimeoutMs(),
        request.uncleanElectionTopics(),
        request.allowUnclean());
  }

  private static Map<Action, Long> actionsOf(FailoverPlan plan) {
    Map<Action, Long> out = new EnumMap<>(Action.class);
    for (PartitionDecision d : plan.decisions()) {
      if (d.action().callsBroker()) {
        out.merge(d.action(), 1L, Long::sum);
      }
    }
    return out;
  }
}
