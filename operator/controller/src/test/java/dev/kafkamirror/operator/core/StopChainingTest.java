package dev.kafkamirror.operator.core;

import static dev.kafkamirror.operator.core.Observations.described;
import static dev.kafkamirror.operator.core.Observations.intent;
import static dev.kafkamirror.operator.core.Observations.key;
import static dev.kafkamirror.operator.core.Observations.mirror;
import static dev.kafkamirror.operator.core.Observations.stop;
import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.function.UnaryOperator;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

class StopChainingTest {

  private static final MirrorIntent STOP = intent(MirrorIntent.Target.STOPPED);

  /** Observations' leader is broker 1 in epoch 5, followers 2 and 3. */
  private static final int LEADER = 1;

  private static final int EPOCH = 5;

  @Test
  void aStopWhoseCallsAllSucceededPlansEachNextStepFromTheAnswersUntilStopped() {
    // Given two mirroring partitions observed once, and leaders that answer each step as recorded
    // When every round is planned from the previous round's answers
    List<Action> actions = chainToTheEnd(null, null);

    // Then the five steps follow one another without an observation, and both end STOPPED
    assertThat(actions)
        .containsExactly(
            Action.REMOVE_FETCHERS,
            Action.TRUNCATE,
            Action.PERSIST_OFFSETS,
            Action.WRITE_BARRIER,
            Action.MAKE_WRITABLE);
  }

  @Test
  void aTruncateThatRecordedTheOffsetsTooChainsStraightToTheBarrier() {
    // Given two mirroring partitions whose leaders record TRUNCATED and the offsets in one write
    // (their registrations know the source), and answer every other step as recorded
    // When every round is planned from the previous round's answers
    List<Action> actions = chainToTheEnd(Action.TRUNCATE, "OFFSETS_PERSISTED");

    // Then no persist-offsets round runs and nothing is observed again: four rounds to STOPPED
    assertThat(actions)
        .containsExactly(
            Action.REMOVE_FETCHERS, Action.TRUNCATE, Action.WRITE_BARRIER, Action.MAKE_WRITABLE);
  }

  @Test
  void aRemoveFetchersThatRecordedTheTruncationAndOffsetsChainsStraightToTheBarrier() {
    // Given two mirroring partitions whose leaders had nothing to truncate: remove-fetchers
    // recorded the truncation and the offsets in one write (a plugin from 2026-12-06 on)
    // When every round is planned from the previous round's answers
    List<Action> actions = chainToTheEnd(Action.REMOVE_FETCHERS, "OFFSETS_PERSISTED");

    // Then neither truncate nor persist-offsets runs, and nothing is observed again: three rounds
    assertThat(actions)
        .containsExactly(Action.REMOVE_FETCHERS, Action.WRITE_BARRIER, Action.MAKE_WRITABLE);
    // And with the truncation alone recorded (a registration that knows no source), persist-offsets
    // follows remove-fetchers
    assertThat(chainToTheEnd(Action.REMOVE_FETCHERS, "TRUNCATED"))
        .containsExactly(
            Action.REMOVE_FETCHERS,
            Action.PERSIST_OFFSETS,
            Action.WRITE_BARRIER,
            Action.MAKE_WRITABLE);
  }

  /**
   * Plans every round of a stop of two mirroring partitions from the previous round's answers, each
   * leader answering the step its call records, except {@code overridden}, whose leaders answer
   * step {@code overriddenAnswers} (when not null); asserts that no round observes again and that
   * both partitions end STOPPED.
   *
   * @return the action of each round
   */
  private static List<Action> chainToTheEnd(Action overridden, String overriddenAnswers) {
    List<PartitionObservation> observed =
        List.of(
            described(0, mirror("MIRRORING", 0), null), described(1, mirror("MIRRORING", 0), null));
    List<Action> actions = new ArrayList<>();
    for (int round = 0; round < 6; round++) {
      FailoverPlan plan = FailoverPlanner.plan(STOP, observed, null, 1_000);
      if (!plan.hasWork()) {
        break;
      }
      Action action = plan.decisions().get(0).action();
      actions.add(action);
      List<StopChaining.Answer> answers = new ArrayList<>();
      for (StopChaining.Answer a : answersOf(plan, action)) {
        answers.add(
            overriddenAnswers != null && action == overridden && a.leader()
                ? new StopChaining.Answer(
                    a.key(),
                    a.brokerId(),
                    true,
                    null,
                    a.leaderEpoch(),
                    a.logEndOffset(),
                    a.state(),
                    stop(overriddenAnswers, null),
                    true)
                : a);
      }
      StopChaining.Verdict verdict = StopChaining.next(STOP, plan, observed, answers);
      assertThat(verdict.observeBecause()).isNull();
      observed = verdict.observations();
    }
    assertThat(FailoverPlanner.plan(STOP, observed, null, 1_000).decisions())
        .extracting(PartitionDecision::phase)
        .containsOnly(PartitionPhase.STOPPED);
    return actions;
  }

  static Stream<Arguments> answersThatObserveAgain() {
    return Stream.of(
        Arguments.of(
            "a leader answered LEADER_MOVED (truncate fenced)",
            Action.TRUNCATE,
            (UnaryOperator<StopChaining.Answer>)
                a -> StopChaining.Answer.failed(a.key(), a.brokerId(), true, "LEADER_MOVED")),
        Arguments.of(
            "a leader answered NOT_LEADER",
            Action.PERSIST_OFFSETS,
            (UnaryOperator<StopChaining.Answer>)
                a -> StopChaining.Answer.failed(a.key(), a.brokerId(), true, "NOT_LEADER")),
        Arguments.of(
            "a leader timed out",
            Action.WRITE_BARRIER,
            (UnaryOperator<StopChaining.Answer>)
                a -> StopChaining.Answer.failed(a.key(), a.brokerId(), true, "TIMEOUT")),
        Arguments.of(
            "another broker answered as leader",
            Action.TRUNCATE,
            (UnaryOperator<StopChaining.Answer>)
                a ->
                    new StopChaining.Answer(
                        a.key(), 2, true, null, EPOCH, 10L, a.state(), a.stop(), true)),
        Arguments.of(
            "the leader epoch moved",
            Action.TRUNCATE,
            (UnaryOperator<StopChaining.Answer>)
                a ->
                    new StopChaining.Answer(
                        a.key(), LEADER, true, null, EPOCH + 1, 10L, a.state(), a.stop(), true)),
        Arguments.of(
            "truncate answered TRUNCATING",
            Action.TRUNCATE,
            (UnaryOperator<StopChaining.Answer>)
                a ->
                    new StopChaining.Answer(
                        a.key(),
                        LEADER,
                        true,
                        null,
                        EPOCH,
                        10L,
                        "STOPPING",
                        stop("TRUNCATING", null),
                        true)),
        Arguments.of(
            "the answer names a later step than the call records",
            Action.PERSIST_OFFSETS,
            (UnaryOperator<StopChaining.Answer>)
                a ->
                    new StopChaining.Answer(
                        a.key(),
                        LEADER,
                        true,
                        null,
                        EPOCH,
                        10L,
                        "STOPPING",
                        stop("BARRIER_WRITTEN", 100L),
                        true)),
        Arguments.of(
            "the answer carries no stop fields",
            Action.WRITE_BARRIER,
            (UnaryOperator<StopChaining.Answer>)
                a ->
                    new StopChaining.Answer(
                        a.key(), LEADER, true, null, EPOCH, 10L, "STOPPING", null, true)),
        Arguments.of(
            "the answer names an unknown step",
            Action.WRITE_BARRIER,
            (UnaryOperator<StopChaining.Answer>)
                a ->
                    new StopChaining.Answer(
                        a.key(),
                        LEADER,
                        true,
                        null,
                        EPOCH,
                        10L,
                        "STOPPING",
                        stop("BARRIER_WRITTEN_TWICE", 100L),
                        true)),
        Arguments.of(
            "the answer carries no leader epoch",
            Action.PERSIST_OFFSETS,
            (UnaryOperator<StopChaining.Answer>)
                a ->
                    new StopChaining.Answer(
                        a.key(), LEADER, true, null, null, 10L, a.state(), a.stop(), true)),
        Arguments.of(
            "the stop state was not read up to date",
            Action.PERSIST_OFFSETS,
            (UnaryOperator<StopChaining.Answer>)
                a ->
                    new StopChaining.Answer(
                        a.key(), LEADER, true, null, EPOCH, 10L, a.state(), a.stop(), false)),
        Arguments.of(
            "make-writable left the mirror STOPPING",
            Action.MAKE_WRITABLE,
            (UnaryOperator<StopChaining.Answer>)
                a ->
                    new StopChaining.Answer(
                        a.key(), LEADER, true, null, EPOCH, 10L, "STOPPING", a.stop(), true)),
        Arguments.of(
            "make-writable answered STOPPED without a barrier offset",
            Action.MAKE_WRITABLE,
            (UnaryOperator<StopChaining.Answer>)
                a ->
                    new StopChaining.Answer(
                        a.key(),
                        LEADER,
                        true,
                        null,
                        EPOCH,
                        10L,
                        "STOPPED",
                        stop("STOPPED", null),
                        true)),
        Arguments.of(
            "an unknown mirror state",
            Action.TRUNCATE,
            (UnaryOperator<StopChaining.Answer>)
                a ->
                    new StopChaining.Answer(
                        a.key(), LEADER, true, null, EPOCH, 10L, "HALTING", a.stop(), true)));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("answersThatObserveAgain")
  void anyErrorMovedLeaderOrUnknownAnswerObservesAgain(
      String why, Action action, UnaryOperator<StopChaining.Answer> spoil) {
    // Given two partitions that took the same stop step, and one of them answered otherwise
    List<PartitionObservation> observed = observedBefore(action);
    FailoverPlan plan = FailoverPlanner.plan(STOP, observed, null, 1_000);
    assertThat(plan.decisions()).extracting(PartitionDecision::action).containsOnly(action);
    List<StopChaining.Answer> answers = new ArrayList<>(answersOf(plan, action));
    answers.set(1, spoil.apply(answers.get(1)));

    // When the next round is decided
    StopChaining.Verdict verdict = StopChaining.next(STOP, plan, observed, answers);

    // Then the destination is observed again, and the reason names the partition
    assertThat(verdict.chained()).as(why).isFalse();
    assertThat(verdict.observations()).isNull();
    assertThat(verdict.observeBecause()).contains(key(1).toString());
  }

  @Test
  void aFollowerCallThatFailedObservesAgain() {
    // Given remove-fetchers answered by both leaders, and one follower that did not answer
    List<PartitionObservation> observed = observedBefore(Action.REMOVE_FETCHERS);
    FailoverPlan plan = FailoverPlanner.plan(STOP, observed, null, 1_000);
    List<StopChaining.Answer> answers = new ArrayList<>(answersOf(plan, Action.REMOVE_FETCHERS));
    answers.add(StopChaining.Answer.failed(key(0), 3, false, "UNREACHABLE"));

    // When the next round is decided
    StopChaining.Verdict verdict = StopChaining.next(STOP, plan, observed, answers);

    // Then it observes again, naming the follower's broker
    assertThat(verdict.chained()).isFalse();
    assertThat(verdict.observeBecause()).contains("UNREACHABLE").contains("broker 3");
  }

  @Test
  void aPartitionWithoutAnAnswerFromItsLeaderObservesAgain() {
    // Given two partitions planned for truncate and only one answer
    List<PartitionObservation> observed = observedBefore(Action.TRUNCATE);
    FailoverPlan plan = FailoverPlanner.plan(STOP, observed, null, 1_000);
    List<StopChaining.Answer> answers = answersOf(plan, Action.TRUNCATE).subList(0, 1);

    // When the next round is decided
    StopChaining.Verdict verdict = StopChaining.next(STOP, plan, observed, answers);

    // Then it observes again
    assertThat(verdict.chained()).isFalse();
    assertThat(verdict.observeBecause()).contains(key(1).toString());
  }

  @Test
  void aPartitionThatWaitsInThePlanObservesAgainEvenWhenTheOthersSucceeded() {
    // Given one partition with its stop going and one without a leader (WAIT)
    List<PartitionObservation> observed =
        List.of(
            described(0, mirror("STOPPING", 0), stop("TRUNCATED", null)),
            PartitionObservation.failed(key(1), null, List.of(1, 2, 3), "NO_LEADER", "no leader"));
    FailoverPlan plan = FailoverPlanner.plan(STOP, observed, null, 1_000);
    List<StopChaining.Answer> answers = List.of(answer(key(0), Action.PERSIST_OFFSETS));

    // When the next round is decided
    StopChaining.Verdict verdict = StopChaining.next(STOP, plan, observed, answers);

    // Then it observes again: only a fresh look can tell when the waiting partition has a leader
    assertThat(verdict.chained()).isFalse();
    assertThat(verdict.observeBecause()).contains(key(1).toString()).contains("WAIT");
  }

  @Test
  void onlyAStopIsChained() {
    // Given a round of mirroring starts and a failback stop, each with every call answered
    List<PartitionObservation> observed = List.of(described(0, mirror("MIRRORING", 0), null));
    FailoverPlan plan = FailoverPlanner.plan(STOP, observed, null, 1_000);
    List<StopChaining.Answer> answers = answersOf(plan, Action.REMOVE_FETCHERS);
    MirrorIntent mirroring = intent(MirrorIntent.Target.MIRRORING);
    MirrorIntent failbackStop =
        new MirrorIntent(
            MirrorIntent.Target.STOPPED, Observations.MIRROR, Observations.SOURCE, false, true);

    // When the next round is decided
    StopChaining.Verdict forMirroring = StopChaining.next(mirroring, plan, observed, answers);
    StopChaining.Verdict forFailback = StopChaining.next(failbackStop, plan, observed, answers);

    // Then both observe again
    assertThat(forMirroring.chained()).isFalse();
    assertThat(forFailback.chained()).isFalse();
  }

  @Test
  void aStoppedPartitionWithNothingToCallDoesNotPreventChaining() {
    // Given one partition already STOPPED and one whose barrier is written
    List<PartitionObservation> observed =
        List.of(
            described(0, mirror("STOPPED", 0), stop("STOPPED", 100L)),
            described(1, mirror("STOPPING", 0), stop("BARRIER_WRITTEN", 100L)));
    FailoverPlan plan = FailoverPlanner.plan(STOP, observed, null, 1_000);
    List<StopChaining.Answer> answers = List.of(answer(key(1), Action.MAKE_WRITABLE));

    // When make-writable answered as recorded
    StopChaining.Verdict verdict = StopChaining.next(STOP, plan, observed, answers);

    // Then the next plan comes from the answers: both STOPPED, nothing more to call
    assertThat(verdict.observeBecause()).isNull();
    FailoverPlan next = FailoverPlanner.plan(STOP, verdict.observations(), null, 1_000);
    assertThat(next.hasWork()).isFalse();
    assertThat(next.decisions())
        .extracting(PartitionDecision::phase)
        .containsOnly(PartitionPhase.STOPPED);
  }

  @Test
  void aNewLeaderDescribedBeforeItAppliedItsLeadershipIsChainedInTheEpochItAnsweredIn() {
    // Given two partitions right after a fence: the metadata already named broker 1 as their
    // leader, but broker 1 described them still as a follower in the old epoch
    List<PartitionObservation> observed = withRole(observedBefore(Action.TRUNCATE), "FOLLOWER");
    FailoverPlan plan = FailoverPlanner.plan(STOP, observed, null, 1_000);
    // When broker 1 truncated as the leader of the new epoch
    List<StopChaining.Answer> answers = inEpoch(answersOf(plan, Action.TRUNCATE), k -> EPOCH + 1);
    StopChaining.Verdict verdict = StopChaining.next(STOP, plan, observed, answers);

    // Then the next step is planned from the answers, in the epoch the leader answered in
    assertThat(verdict.observeBecause()).isNull();
    assertThat(verdict.observations())
        .extracting(o -> o.described().leaderEpoch())
        .containsOnly(EPOCH + 1);
    assertThat(FailoverPlanner.plan(STOP, verdict.observations(), null, 1_000).decisions())
        .extracting(PartitionDecision::action)
        .containsOnly(Action.PERSIST_OFFSETS);
  }

  @Test
  void aBrokerDescribedAsFollowerThatAnswersInAnOlderEpochObservesAgain() {
    // Given a partition described by its metadata leader as a follower in epoch 5
    List<PartitionObservation> observed = withRole(observedBefore(Action.TRUNCATE), "FOLLOWER");
    FailoverPlan plan = FailoverPlanner.plan(STOP, observed, null, 1_000);
    List<StopChaining.Answer> answers = new ArrayList<>(answersOf(plan, Action.TRUNCATE));
    StopChaining.Answer a = answers.get(1);

    // When its answer comes in an older epoch
    answers.set(
        1,
        new StopChaining.Answer(
            a.key(), LEADER, true, null, EPOCH - 1, 10L, a.state(), a.stop(), true));
    StopChaining.Verdict verdict = StopChaining.next(STOP, plan, observed, answers);

    // Then it observes again
    assertThat(verdict.chained()).isFalse();
    assertThat(verdict.observeBecause()).contains(key(1).toString()).contains("leader epoch 4");
  }

  @Test
  void theFencedPartitionsAreTheLeaderAnswersOfLeaderMovedWithTheirBroker() {
    // Given a round whose answers mix fences, a success, a NOT_LEADER and a follower's fence
    List<StopChaining.Answer> answers =
        List.of(
            StopChaining.Answer.failed(key(0), 1, true, "LEADER_MOVED"),
            StopChaining.Answer.failed(key(1), 2, true, "LEADER_MOVED"),
            answer(key(2), Action.TRUNCATE),
            StopChaining.Answer.failed(key(3), 3, true, "NOT_LEADER"),
            StopChaining.Answer.failed(key(4), 3, false, "LEADER_MOVED"));

    // When the fences are read, Then they are the two leader answers of LEADER_MOVED
    assertThat(StopChaining.fencedBy(answers))
        .containsExactlyInAnyOrderEntriesOf(java.util.Map.of(key(0), 1, key(1), 2));
  }

  @Test
  void aFenceIsShownInTheMetadataOnlyOnceAnotherBrokerLeadsThePartition() {
    // Given partitions 0 to 3 fenced by broker 1
    java.util.Map<PartitionKey, Integer> fenced =
        java.util.Map.of(key(0), 1, key(1), 1, key(2), 1, key(3), 1);
    // When the metadata names broker 1 for partition 0, no leader for 1, broker 2 for 2, and
    // has no partition 3 (its topic is gone)
    java.util.Map<PartitionKey, Integer> leaders = new java.util.HashMap<>();
    leaders.put(key(0), 1);
    leaders.put(key(1), null);
    leaders.put(key(2), 2);

    // Then partitions 0 and 1 are not shown moved yet; 2 is, and 3 is not waited for
    assertThat(StopChaining.notMovedYet(fenced, leaders)).containsExactlyInAnyOrder(key(0), key(1));
  }

  @Test
  void aNewerEpochFromABrokerDescribedWithoutARoleObservesAgain() {
    // Given partitions whose describe carried no role at all
    List<PartitionObservation> observed = withRole(observedBefore(Action.TRUNCATE), null);
    FailoverPlan plan = FailoverPlanner.plan(STOP, observed, null, 1_000);
    List<StopChaining.Answer> answers = new ArrayList<>(answersOf(plan, Action.TRUNCATE));
    StopChaining.Answer a = answers.get(1);

    // When one answers in a newer epoch
    answers.set(
        1,
        new StopChaining.Answer(
            a.key(), LEADER, true, null, EPOCH + 1, 10L, a.state(), a.stop(), true));
    StopChaining.Verdict verdict = StopChaining.next(STOP, plan, observed, answers);

    // Then it observes again: only a broker known to have described as a follower is let through
    assertThat(verdict.chained()).isFalse();
    assertThat(verdict.observeBecause()).contains(key(1).toString()).contains("leader epoch 6");
  }

  @Test
  void aSecondEpochChangeLaterInTheChainObservesAgain() {
    // Given a new leader described as a follower, whose truncate answered in the next epoch and
    // was chained
    List<PartitionObservation> observed = withRole(observedBefore(Action.TRUNCATE), "FOLLOWER");
    FailoverPlan plan = FailoverPlanner.plan(STOP, observed, null, 1_000);
    List<StopChaining.Answer> answers = inEpoch(answersOf(plan, Action.TRUNCATE), k -> EPOCH + 1);
    List<PartitionObservation> chained =
        StopChaining.next(STOP, plan, observed, answers).observations();
    assertThat(chained).isNotNull();
    FailoverPlan persist = FailoverPlanner.plan(STOP, chained, null, 1_000);
    // When persist-offsets answers for partition 0 in that epoch, and for partition 1 in yet
    // another (its leadership moved away and back in between)
    List<StopChaining.Answer> persisted =
        inEpoch(
            answersOf(persist, Action.PERSIST_OFFSETS),
            k -> k.equals(key(1)) ? EPOCH + 2 : EPOCH + 1);
    StopChaining.Verdict verdict = StopChaining.next(STOP, persist, chained, persisted);

    // Then it observes again: the chained observation holds the answer as a leader's
    assertThat(chained).extracting(o -> o.described().role()).containsOnly("LEADER");
    assertThat(verdict.chained()).isFalse();
    assertThat(verdict.observeBecause()).contains(key(1).toString()).contains("leader epoch 7");
  }

  /** Each answer as its broker gives it in the epoch {@code epoch} names for its partition. */
  private static List<StopChaining.Answer> inEpoch(
      List<StopChaining.Answer> answers, java.util.function.ToIntFunction<PartitionKey> epoch) {
    return answers.stream()
        .map(
            a ->
                new StopChaining.Answer(
                    a.key(),
                    a.brokerId(),
                    a.leader(),
                    a.errorCode(),
                    epoch.applyAsInt(a.key()),
                    a.logEndOffset(),
                    a.state(),
                    a.stop(),
                    a.stateCurrent()))
        .toList();
  }

  /** {@code observed} as described with {@code role}. */
  private static List<PartitionObservation> withRole(
      List<PartitionObservation> observed, String role) {
    return observed.stream().map(o -> withRole(o, role)).toList();
  }

  private static PartitionObservation withRole(PartitionObservation o, String role) {
    PartitionObservation.Described d = o.described();
    return PartitionObservation.described(
        o.key(),
        o.leaderId(),
        o.replicas(),
        new PartitionObservation.Described(
            d.stopAware(),
            role,
            d.leaderEpoch(),
            d.logEndOffset(),
            d.highWatermark(),
            d.lastStableOffset(),
            d.mirror(),
            d.stop(),
            d.barrierResets()));
  }

  /** Two partitions whose next planned step is {@code action}. */
  private static List<PartitionObservation> observedBefore(Action action) {
    return switch (action) {
      case REMOVE_FETCHERS ->
          List.of(
              described(0, mirror("MIRRORING", 0), null),
              described(1, mirror("MIRRORING", 0), null));
      case TRUNCATE -> twoStopping("FETCHERS_REMOVED", null);
      case PERSIST_OFFSETS -> twoStopping("TRUNCATED", null);
      case WRITE_BARRIER -> twoStopping("OFFSETS_PERSISTED", null);
      case MAKE_WRITABLE -> twoStopping("BARRIER_WRITTEN", 100L);
      default -> throw new IllegalArgumentException(action.name());
    };
  }

  private static List<PartitionObservation> twoStopping(String step, Long barrier) {
    return List.of(
        described(0, mirror("STOPPING", 0), stop(step, barrier)),
        described(1, mirror("STOPPING", 0), stop(step, barrier)));
  }

  /** Each planned partition's leader answer as the plugin gives it when the step did its work. */
  private static List<StopChaining.Answer> answersOf(FailoverPlan plan, Action action) {
    List<StopChaining.Answer> out = new ArrayList<>();
    for (PartitionDecision d : plan.decisions()) {
      if (d.action() != action) {
        continue;
      }
      out.add(answer(d.key(), action));
      if (action == Action.REMOVE_FETCHERS) {
        out.add(
            new StopChaining.Answer(d.key(), 2, false, null, EPOCH, 10L, "STOPPING", null, true));
      }
    }
    return out;
  }

  private static StopChaining.Answer moved(int partition) {
    return StopChaining.Answer.failed(key(partition), LEADER, true, "LEADER_MOVED");
  }

  private static java.util.Map<PartitionKey, String> leaderErrors(String code, int... partitions) {
    java.util.Map<PartitionKey, String> out = new java.util.HashMap<>();
    for (int p : partitions) {
      out.put(key(p), code + ": injected");
    }
    return out;
  }

  @Test
  void aRoundWhoseOnlyFailuresAreFencesGoesOnAndMustObserve() {
    // Given a stop's truncate round in which every leader fenced its partition
    List<StopChaining.Answer> answers = List.of(moved(0), moved(1));

    // When the rounds ask whether to go on
    StopChaining.AfterRound after =
        StopChaining.goOnAfterRound(STOP, 2, 0, answers, leaderErrors("LEADER_MOVED", 0, 1), 0);

    // Then they go on, from a new observation
    assertThat(after.goOn()).isTrue();
    assertThat(after.fenceOnly()).isTrue();
    assertThat(after.because()).isNull();
  }

  @Test
  void aRoundWithASuccessGoesOnAsBefore() {
    // Given a round in which one call succeeded and another fenced
    List<StopChaining.Answer> answers = List.of(answer(key(0), Action.TRUNCATE), moved(1));

    // When the rounds ask whether to go on
    StopChaining.AfterRound after =
        StopChaining.goOnAfterRound(STOP, 2, 1, answers, leaderErrors("LEADER_MOVED", 1), 0);

    // Then they go on, and it is not a fence-only round
    assertThat(after.goOn()).isTrue();
    assertThat(after.fenceOnly()).isFalse();
  }

  static Stream<Arguments> roundsThatEndTheReconcile() {
    return Stream.of(
        Arguments.of(
            "one fence and one NOT_LEADER",
            STOP,
            List.of(moved(0), StopChaining.Answer.failed(key(1), LEADER, true, "NOT_LEADER")),
            leaderErrors("LEADER_MOVED", 0, 1),
            0),
        Arguments.of(
            "every call timed out",
            STOP,
            List.of(
                StopChaining.Answer.failed(key(0), LEADER, true, "TIMEOUT"),
                StopChaining.Answer.failed(key(1), LEADER, true, "TIMEOUT")),
            leaderErrors("TIMEOUT", 0, 1),
            0),
        Arguments.of(
            "a fence and a partition without a leader (no call)",
            STOP,
            List.of(moved(0)),
            leaderErrors("LEADER_MOVED", 0, 1),
            0),
        Arguments.of(
            "fences again after the bound of fence-only rounds",
            STOP,
            List.of(moved(0), moved(1)),
            leaderErrors("LEADER_MOVED", 0, 1),
            StopChaining.MAX_FENCE_ONLY_ROUNDS),
        Arguments.of(
            "not a stop",
            intent(MirrorIntent.Target.MIRRORING),
            List.of(moved(0), moved(1)),
            leaderErrors("LEADER_MOVED", 0, 1),
            0),
        Arguments.of("no call at all", STOP, List.of(), java.util.Map.of(), 0));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("roundsThatEndTheReconcile")
  void aRoundWithoutSuccessThatDidNotOnlyFenceEndsTheRounds(
      String why,
      MirrorIntent intent,
      List<StopChaining.Answer> answers,
      java.util.Map<PartitionKey, String> leaderErrors,
      int fenceOnlyRoundsBefore) {
    // Given a round in which no call succeeded (see the name)

    // When the rounds ask whether to go on
    StopChaining.AfterRound after =
        StopChaining.goOnAfterRound(
            intent, answers.size(), 0, answers, leaderErrors, fenceOnlyRoundsBefore);

    // Then they end, and say why
    assertThat(after.goOn()).as(why).isFalse();
    assertThat(after.because()).as(why).isNotBlank().contains("no call of the round succeeded");
  }

  private static StopChaining.Answer answer(PartitionKey key, Action action) {
    String step = StopChaining.recordedBy(action).name();
    boolean writable = action == Action.MAKE_WRITABLE;
    Long barrier = action == Action.WRITE_BARRIER || action == Action.MAKE_WRITABLE ? 100L : null;
    return new StopChaining.Answer(
        key,
        LEADER,
        true,
        null,
        EPOCH,
        10L,
        writable ? "STOPPED" : "STOPPING",
        stop(step, barrier),
        true);
  }
}
