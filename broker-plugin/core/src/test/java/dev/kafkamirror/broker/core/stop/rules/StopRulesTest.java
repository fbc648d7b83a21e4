package dev.kafkamirror.broker.core.stop.rules;

import static org.assertj.core.api.Assertions.assertThat;

import dev.kafkamirror.broker.core.stop.StopState;
import dev.kafkamirror.broker.core.stop.StopStep;
import dev.kafkamirror.broker.core.stop.rules.Decision.Act;
import dev.kafkamirror.broker.core.stop.rules.Decision.Done;
import dev.kafkamirror.broker.core.stop.rules.Decision.Record;
import dev.kafkamirror.broker.core.stop.rules.Decision.RefusalKind;
import dev.kafkamirror.broker.core.stop.rules.Decision.Refuse;
import dev.kafkamirror.broker.core.stop.rules.Decision.Retry;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** Deterministic cases of the stop rules, each one a fault the sequence has met or must refuse. */
class StopRulesTest {

  private static final StopState FETCHERS_REMOVED =
      StopState.fetchersRemoved(Views.KEY, "t", 4, 2, 500L);

  /** Broker 1 became leader at epoch 5 moments ago: it still has its follower high watermark. */
  private static PartitionView newLeaderWithStaleHighWatermark() {
    return Views.mirroringLeader()
        .withLocal(LocalState.STOPPING)
        .withDurable(FETCHERS_REMOVED)
        .withLog(16L, 0L, 0L, 4, -1L);
  }

  @Test
  void aNewLeaderWithAStaleHighWatermarkPlansNoTarget() {
    // Given a new leader whose high watermark (0) lags its log end (16): its LSO is 0 too
    PartitionView v = newLeaderWithStaleHighWatermark();
    // When truncate is asked
    Decision d = StopRules.truncate(v);
    // Then it refuses, waits for the HW, and records no target (a target of 0 would truncate the
    // 16 committed mirrored records every replica holds: commit 1b03e40)
    assertThat(d)
        .isEqualTo(
            new Refuse(
                RefusalKind.TIMEOUT,
                "t-0: the high watermark 0 of leader epoch 5 has not reached the log end 16 yet (a"
                    + " new leader, or an in-sync follower still catching up), so the last stable"
                    + " offset is not known and nothing is truncated; call truncate again",
                Retry.WHEN_HIGH_WATERMARK_ESTABLISHED));
  }

  @Test
  void onceTheHighWatermarkIsEstablishedTheTargetIsTheLastStableOffset() {
    // Given the same leader after its followers fetched again: HW 16, LSO 12 (a transaction open)
    PartitionView v = newLeaderWithStaleHighWatermark().withLog(16L, 16L, 12L, 4, -1L);
    // When truncate is asked
    Decision d = StopRules.truncate(v);
    // Then it records TRUNCATING with target 12 under its own epoch, before anything destructive
    assertThat(d).isInstanceOf(Record.class);
    StopState s = ((Record) d).state();
    assertThat(s.step()).isEqualTo(StopStep.TRUNCATING);
    assertThat(s.truncateTargetOffset()).isEqualTo(12L);
    assertThat(s.leaderEpoch()).isEqualTo(5);
    assertThat(s.writerBrokerId()).isEqualTo(1);
  }

  @Test
  void aNewLeaderPlansNoTargetUntilEveryInSyncFollowerHasFetchedItsLogEnd() {
    // Given a leader elected moments ago whose high watermark equals its log end (16, all stable)
    // but whose in-sync followers have not fetched from it in its epoch: one of them may still
    // hold records above 16 from the previous leader, which it would keep as leader after a crash
    // of this one (stop protocol explorer, depth 6)
    PartitionView v =
        newLeaderWithStaleHighWatermark()
            .withLog(16L, 16L, 16L, 4, -1L)
            .withIsrFetchedLogEnd(false);
    // When truncate, or remove-fetchers, is asked
    Decision truncate = StopRules.truncate(v);
    Decision removeFetchers =
        StopRules.removeFetchers(v.withDurable(null).withLocal(LocalState.STOPPING));
    // Then truncate waits and records no target, and remove-fetchers records FETCHERS_REMOVED only
    assertThat(truncate)
        .isEqualTo(
            new Refuse(
                RefusalKind.TIMEOUT,
                "t-0: not every in-sync follower has fetched from this leader (leader epoch 5) up to"
                    + " its log end 16 yet, so one may still hold records above it from an earlier"
                    + " leader and the last stable offset is not final; nothing is truncated;"
                    + " call truncate again",
                Retry.WHEN_HIGH_WATERMARK_ESTABLISHED));
    assertThat(((Record) removeFetchers).state().step()).isEqualTo(StopStep.FETCHERS_REMOVED);
    // And once they have fetched, the target is planned
    assertThat(StopRules.truncate(v.withIsrFetchedLogEnd(true))).isInstanceOf(Record.class);
  }

  @Test
  void removeFetchersRecordsTheStopFirstAndThenTheTruncationWhenThereIsNothingToTruncate() {
    // Given a leader that stopped its mirror appends, no stop recorded, 16 records all committed
    // and stable, every in-sync follower at the log end, the source known
    PartitionView v = Views.mirroringLeader().withLocal(LocalState.STOPPING);
    // When remove-fetchers is asked
    Decision first = StopRules.removeFetchers(v);
    // Then its first record is FETCHERS_REMOVED alone, never a target: until a stop is durable, a
    // replica that becomes leader without its own remove-fetchers call would still mirror, and a
    // target of this epoch landing late would end below records that leader committed
    assertThat(((Record) first).state().step()).isEqualTo(StopStep.FETCHERS_REMOVED);
    // When it is asked again once that is recorded (the executor's next round)
    PartitionView stopped = v.withDurable(((Record) first).state());
    Decision second = StopRules.removeFetchers(stopped);
    // Then it records what truncate would record next: truncated to 16 (nothing cut), the last
    // mirrored offset 16 and the source, under its own epoch
    assertThat(second).isEqualTo(StopRules.truncate(stopped));
    StopState s = ((Record) second).state();
    assertTruncatedWithTheOffsetsAt16(s);
    // And once it is recorded, no step has anything left to record
    PartitionView after = v.withDurable(s);
    assertThat(StopRules.removeFetchers(after)).isEqualTo(new Done());
    assertThat(StopRules.truncate(after)).isEqualTo(new Done());
    assertThat(StopRules.persistOffsets(after, Views.SOURCE)).isEqualTo(new Done());
  }

  @Test
  void removeFetchersLeavesATruncationToComeToTheTruncateCall() {
    // Given a leader at FETCHERS_REMOVED whose last stable offset (12) is below its log end: a
    // transaction is open, so the truncate step has records to cut and a fence to make
    PartitionView v =
        Views.mirroringLeader()
            .withLocal(LocalState.STOPPING)
            .withLog(16L, 16L, 12L, 4, -1L)
            .withDurable(FETCHERS_REMOVED);
    // When remove-fetchers is asked, Then it has nothing more to record
    assertThat(StopRules.removeFetchers(v)).isEqualTo(new Done());
    assertThat(((Record) StopRules.truncate(v)).state().step()).isEqualTo(StopStep.TRUNCATING);
  }

  @Test
  void removeFetchersDecidesNoTruncationWhileThisBrokersAppendsMayRun() {
    // Given a leader at FETCHERS_REMOVED (recorded by another broker) whose own registration is
    // still MIRRORING: its log may still grow here
    PartitionView v = Views.mirroringLeader().withDurable(FETCHERS_REMOVED);
    // When remove-fetchers is asked on it without stopping its appends, Then it records nothing
    assertThat(StopRules.removeFetchers(v)).isEqualTo(new Done());
  }

  @Test
  void anAlreadyRecordedTargetIsUsedEvenWithAStaleHighWatermark() {
    // Given TRUNCATING at 10 recorded by the old leader, and a new leader with a stale HW
    StopState truncating =
        FETCHERS_REMOVED.withTruncateTarget(10L).advance(StopStep.TRUNCATING, 4, 2, 600L);
    PartitionView v =
        newLeaderWithStaleHighWatermark().withDurable(truncating).withLog(16L, 0L, 0L, 4, -1L);
    // When truncate is asked
    // Then it truncates to the recorded 10 (its own epoch's batches are fenced already)
    assertThat(StopRules.truncate(v)).isEqualTo(new Act(new Decision.Truncate(10L)));
  }

  @Test
  void batchesOfTheCurrentEpochAreFencedByAHolderBeforeTheTruncation() {
    // Given TRUNCATING at 10 and a log whose last batch is of the current epoch 5
    StopState truncating =
        FETCHERS_REMOVED.withTruncateTarget(10L).advance(StopStep.TRUNCATING, 5, 1, 600L);
    PartitionView v =
        new PartitionView(
            Views.KEY,
            "t",
            truncating,
            LocalState.STOPPING,
            1,
            true,
            1,
            5,
            16L,
            16L,
            16L,
            5,
            -1L,
            0,
            List.of(1, 2, 3),
            Set.of(1, 3),
            Set.of(1, 2, 3),
            Views.SOURCE,
            null,
            true,
            1_000L,
            true);
    // Then leadership moves to broker 3: in sync and a holder (2 is out of sync)
    assertThat(StopRules.truncate(v)).isEqualTo(new Act(new Decision.MoveLeadership(3, 10L)));
    // And without an in-sync holder, it refuses and says why
    Decision d =
        StopRules.truncate(
            new PartitionView(
                Views.KEY,
                "t",
                truncating,
                LocalState.STOPPING,
                1,
                true,
                1,
                5,
                16L,
                16L,
                16L,
                5,
                -1L,
                0,
                List.of(1, 2, 3),
                Set.of(1, 3),
                Set.of(1, 2),
                Views.SOURCE,
                null,
                true,
                1_000L,
                true));
    assertThat(d).isInstanceOf(Refuse.class);
    assertThat(((Refuse) d).kind()).isEqualTo(RefusalKind.NOT_ENOUGH_REPLICAS);
    assertThat(((Refuse) d).retry()).isEqualTo(Retry.AFTER_MEMBERSHIP_SYNC);
    assertThat(((Refuse) d).message())
        .startsWith("t-0: cannot fence before truncating: no other in-sync replica")
        .contains("replicas [1, 2, 3], in-sync [1, 3], membership acknowledged by brokers [1, 2]");
  }

  @Test
  void aTruncationWithTheSourceKnownRecordsTheOffsetsInTheSameWrite() {
    // Given a leader whose fetchers are removed, nothing to truncate (LSO = HW = log end 16), and
    // a registration that knows its source
    PartitionView v = newLeaderWithStaleHighWatermark().withLog(16L, 16L, 16L, 4, -1L);
    // When truncate is asked
    Decision d = StopRules.truncate(v);
    // Then one record carries steps 2 and 3: truncated to 16, 16 the last mirrored offset, the
    // source the partition mirrored
    assertThat(d).isInstanceOf(Record.class);
    StopState s = ((Record) d).state();
    assertTruncatedWithTheOffsetsAt16(s);
  }

  @Test
  void aTruncationWithTheSourceUnknownRecordsTruncatedAlone() {
    // Given the same leader, but a registration that knows no source
    PartitionView base = newLeaderWithStaleHighWatermark().withLog(16L, 16L, 16L, 4, -1L);
    PartitionView v = withKnownSource(base, null);
    // When truncate is asked
    Decision d = StopRules.truncate(v);
    // Then it records TRUNCATED, and persist-offsets records the source the stop names
    assertThat(d).isInstanceOf(Record.class);
    StopState truncated = ((Record) d).state();
    assertThat(truncated.step()).isEqualTo(StopStep.TRUNCATED);
    assertThat(truncated.sourceClusterId()).isNull();
    Decision persisted =
        StopRules.persistOffsets(v.withDurable(truncated), "source-named-by-the-stop");
    assertThat(((Record) persisted).state().sourceClusterId())
        .isEqualTo("source-named-by-the-stop");
  }

  @Test
  void offsetsRecordedWithTheTruncationLeavePersistOffsetsDoneAndRefuseAnotherSource() {
    // Given OFFSETS_PERSISTED recorded by the truncate call
    PartitionView base = newLeaderWithStaleHighWatermark().withLog(16L, 16L, 16L, 4, -1L);
    StopState recorded = ((Record) StopRules.truncate(base)).state();
    PartitionView v = base.withDurable(recorded);
    // When persist-offsets and the barrier are asked with the recorded source, and with another
    // Then the recorded source goes on, and another is refused by name, with nothing recorded
    assertThat(StopRules.persistOffsets(v, Views.SOURCE)).isEqualTo(new Done());
    assertThat(StopRules.barrier(v, Views.SOURCE))
        .isEqualTo(new Act(new Decision.AppendBarrier(Views.SOURCE)));
    Decision other = StopRules.persistOffsets(v, "another-cluster");
    assertThat(other).isInstanceOf(Refuse.class);
    assertThat(((Refuse) other).kind()).isEqualTo(RefusalKind.INVALID_STATE);
    assertThat(((Refuse) other).message()).contains(Views.SOURCE).contains("another-cluster");
    Decision otherBarrier = StopRules.barrier(v, "another-cluster");
    assertThat(((Refuse) otherBarrier).message())
        .contains(Views.SOURCE)
        .contains("another-cluster");
  }

  /**
   * {@code s} is the one record of steps 2 and 3 for a log of 16 records with nothing cut: target,
   * truncation and last mirrored offset 16, the mirrored source, leader epoch 5.
   */
  private static void assertTruncatedWithTheOffsetsAt16(StopState s) {
    assertThat(s.step()).isEqualTo(StopStep.OFFSETS_PERSISTED);
    assertThat(s.truncateTargetOffset()).isEqualTo(16L);
    assertThat(s.truncatedToOffset()).isEqualTo(16L);
    assertThat(s.lastMirroredOffset()).isEqualTo(16L);
    assertThat(s.sourceClusterId()).isEqualTo(Views.SOURCE);
    assertThat(s.leaderEpoch()).isEqualTo(5);
  }

  /** {@code v} with the registration's known source replaced. */
  private static PartitionView withKnownSource(PartitionView v, String known) {
    return new PartitionView(
        v.key(),
        v.topic(),
        v.durable(),
        v.local(),
        v.brokerId(),
        v.leader(),
        v.leaderId(),
        v.leaderEpoch(),
        v.logEndOffset(),
        v.highWatermark(),
        v.lastStableOffset(),
        v.lastBatchEpoch(),
        v.barrierAtEnd(),
        v.openTransactions(),
        v.replicas(),
        v.isr(),
        v.membershipHolders(),
        known,
        v.resetRefusal(),
        v.barrierRuleEnabled(),
        v.nowMs(),
        v.isrFetchedLogEnd());
  }

  @Test
  void aMirroringPartitionWithoutAStopIsNotTruncated() {
    Decision d = StopRules.truncate(Views.mirroringLeader());
    assertThat(d)
        .isEqualTo(
            new Refuse(
                RefusalKind.INVALID_STATE,
                "t-0 is MIRRORING (mirror m1); remove the fetchers first",
                Retry.NONE));
  }

  @Test
  void openTransactionsAfterTheTruncationKeepTruncatedUnrecorded() {
    StopState truncating =
        FETCHERS_REMOVED.withTruncateTarget(10L).advance(StopStep.TRUNCATING, 5, 1, 600L);
    PartitionView base = newLeaderWithStaleHighWatermark().withDurable(truncating);
    PartitionView v =
        new PartitionView(
            Views.KEY,
            "t",
            truncating,
            LocalState.STOPPING,
            1,
            true,
            1,
            5,
            10L,
            10L,
            10L,
            4,
            -1L,
            1,
            base.replicas(),
            base.isr(),
            base.membershipHolders(),
            Views.SOURCE,
            null,
            true,
            1_000L,
            true);
    assertThat(StopRules.truncate(v))
        .isEqualTo(
            new Refuse(
                RefusalKind.INTERNAL,
                "t-0: 1 transaction(s) still open after truncating to offset 10",
                Retry.NONE));
  }

  @Test
  void theBarrierWaitsForALeaderThatHasNotTruncatedYet() {
    StopState persisted =
        FETCHERS_REMOVED
            .withTruncateTarget(10L)
            .withTruncatedTo(10L, 4)
            .withMirroredEnd(10L, Views.SOURCE)
            .advance(StopStep.OFFSETS_PERSISTED, 5, 1, 700L);
    PartitionView v =
        newLeaderWithStaleHighWatermark().withDurable(persisted).withLog(16L, 16L, 16L, 4, -1L);
    assertThat(StopRules.barrier(v, Views.SOURCE))
        .isEqualTo(
            new Refuse(
                RefusalKind.INVALID_STATE,
                "t-0: the log ends at offset 16, not at the recorded truncation offset 10 (a"
                    + " replica that became leader has not truncated yet); call truncate again",
                Retry.NONE));
    // And a barrier naming another source is refused
    Decision other = StopRules.barrier(v.withLog(10L, 10L, 10L, 4, -1L), "source-cluster-b");
    assertThat(((Refuse) other).message())
        .isEqualTo(
            "t-0: the recorded source cluster is source-cluster-a, not source-cluster-b; the"
                + " barrier must name the source the partition mirrored");
  }

  @Test
  void aBarrierAlreadyAtTheLogEndIsTakenNotAppendedAgain() {
    StopState persisted =
        FETCHERS_REMOVED
            .withTruncateTarget(10L)
            .withTruncatedTo(10L, 4)
            .withMirroredEnd(10L, Views.SOURCE)
            .advance(StopStep.OFFSETS_PERSISTED, 5, 1, 700L);
    // Given the leader crashed after appending the barrier at 10, not yet replicated
    PartitionView v =
        newLeaderWithStaleHighWatermark().withDurable(persisted).withLog(11L, 10L, 10L, 5, 10L);
    assertThat(StopRules.barrier(v, Views.SOURCE))
        .isEqualTo(new Act(new Decision.AwaitHighWatermark(10L)));
    Decision d = StopRules.barrier(v.withLog(11L, 11L, 11L, 5, 10L), Views.SOURCE);
    assertThat(((Record) d).state().barrierOffset()).isEqualTo(10L);
    assertThat(((Record) d).state().step()).isEqualTo(StopStep.BARRIER_WRITTEN);
  }

  @Test
  void aBarrierBelowTheHighWatermarkCountsOnlyOnceEveryInSyncFollowerFetchedIt() {
    StopState persisted =
        FETCHERS_REMOVED
            .withTruncateTarget(10L)
            .withTruncatedTo(10L, 4)
            .withMirroredEnd(10L, Views.SOURCE)
            .advance(StopStep.OFFSETS_PERSISTED, 5, 1, 700L);
    // Given the barrier at 10 below the high watermark, which counted follower log ends from
    // before the leader's truncation: a follower has not fetched since
    PartitionView v =
        newLeaderWithStaleHighWatermark()
            .withDurable(persisted)
            .withLog(11L, 11L, 11L, 5, 10L)
            .withIsrFetchedLogEnd(false);
    // Then the rule waits, and records BARRIER_WRITTEN only once every follower has fetched it
    assertThat(StopRules.barrier(v, Views.SOURCE))
        .isEqualTo(new Act(new Decision.AwaitHighWatermark(10L)));
    Decision d = StopRules.barrier(v.withIsrFetchedLogEnd(true), Views.SOURCE);
    assertThat(((Record) d).state().step()).isEqualTo(StopStep.BARRIER_WRITTEN);
    assertThat(((Record) d).state().barrierOffset()).isEqualTo(10L);
  }

  @Test
  void makeWritableBeforeTheBarrierNamesTheCallToMakeFirst() {
    PartitionView v = newLeaderWithStaleHighWatermark();
    assertThat(((Refuse) StopRules.makeWritable(v)).message())
        .isEqualTo(
            "t-0 (mirror m1) is at stop step FETCHERS_REMOVED; BARRIER_WRITTEN is needed: call"
                + " barrier first");
    PartitionView follower =
        new PartitionView(
            Views.KEY,
            "t",
            FETCHERS_REMOVED,
            LocalState.STOPPING,
            2,
            false,
            1,
            5,
            16L,
            16L,
            16L,
            4,
            -1L,
            0,
            List.of(1, 2),
            Set.of(1, 2),
            Set.of(1, 2),
            Views.SOURCE,
            null,
            true,
            1L,
            true);
    assertThat(((Refuse) StopRules.makeWritable(follower)).message())
        .isEqualTo(
            "t-0: this broker follows; the leader has not recorded STOPPED yet (stop step"
                + " FETCHERS_REMOVED)");
  }

  @Test
  void aFollowerOpensOnlyWhenItsResetIsVerified() {
    StopState stopped =
        FETCHERS_REMOVED
            .withTruncateTarget(10L)
            .withTruncatedTo(10L, 4)
            .withMirroredEnd(10L, Views.SOURCE)
            .withBarrier(10L)
            .advance(StopStep.STOPPED, 5, 1, 900L);
    PartitionView follower =
        new PartitionView(
            Views.KEY,
            "t",
            stopped,
            LocalState.STOPPING,
            2,
            false,
            1,
            5,
            11L,
            11L,
            11L,
            5,
            10L,
            0,
            List.of(1, 2),
            Set.of(1, 2),
            Set.of(1, 2),
            Views.SOURCE,
            "t-0: not reset",
            true,
            1L,
            true);
    assertThat(StopRules.makeWritable(follower))
        .isEqualTo(new Refuse(RefusalKind.INVALID_STATE, "t-0: not reset", Retry.NONE));
    PartitionView verified =
        new PartitionView(
            Views.KEY,
            "t",
            stopped,
            LocalState.STOPPING,
            2,
            false,
            1,
            5,
            11L,
            11L,
            11L,
            5,
            10L,
            0,
            List.of(1, 2),
            Set.of(1, 2),
            Set.of(1, 2),
            Views.SOURCE,
            null,
            true,
            1L,
            true);
    assertThat(StopRules.makeWritable(verified)).isEqualTo(new Act(new Decision.OpenForWrites()));
    assertThat(StopRules.makeWritable(verified.withLocal(LocalState.STOPPED)))
        .isEqualTo(new Done());
  }

  @Test
  void followersAreNotAskedToRecordAndCannotTruncate() {
    PartitionView follower =
        new PartitionView(
            Views.KEY,
            "t",
            null,
            LocalState.STOPPING,
            2,
            false,
            -1,
            5,
            16L,
            16L,
            16L,
            4,
            -1L,
            0,
            List.of(1, 2),
            Set.of(1, 2),
            Set.of(1, 2),
            Views.SOURCE,
            null,
            true,
            1L,
            true);
    assertThat(StopRules.removeFetchers(follower)).isEqualTo(new Done());
    assertThat(((Refuse) StopRules.truncate(follower)).message())
        .isEqualTo("this broker is not the leader of t-0 (leader none); call the leader");
  }
}
