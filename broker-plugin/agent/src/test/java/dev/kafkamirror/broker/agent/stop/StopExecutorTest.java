package dev.kafkamirror.broker.agent.stop;

import static org.assertj.core.api.Assertions.assertThat;

import dev.kafkamirror.broker.agent.control.PartitionRef;
import dev.kafkamirror.broker.agent.control.StepOutcome;
import dev.kafkamirror.broker.core.stop.StopState;
import dev.kafkamirror.broker.core.stop.StopStep;
import dev.kafkamirror.broker.core.stop.rules.LocalState;
import dev.kafkamirror.contract.Fields;
import dev.kafkamirror.contract.PartitionError.Code;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The executor's skeleton over in-memory fakes: order of effects, outcomes, partial failures. */
class StopExecutorTest {

  private static final String SOURCE = "source-cluster-a";

  private final List<String> events = new ArrayList<>();
  private final TestingStopStore store = new TestingStopStore(events);
  private final TestingStopPartitions partitions = new TestingStopPartitions(events);
  private final Map<StopTarget, Integer> fenced = new HashMap<>();
  private final StopFence fence =
      (moves, timeoutMs) -> {
        fenced.putAll(moves);
        Map<StopTarget, StopFence.Moved> out = new HashMap<>();
        moves.forEach((t, to) -> out.put(t, new StopFence.Moved(to, null)));
        return out;
      };
  private final StopExecutor executor =
      new StopExecutor(
          partitions, store, fence, Clock.fixed(Instant.ofEpochMilli(1_000L), ZoneOffset.UTC));

  private TestingStopTarget partition(int p) {
    return partitions.add(new TestingStopTarget(p, SOURCE, events));
  }

  private static List<PartitionRef> refs(TestingStopTarget... ts) {
    return java.util.Arrays.stream(ts).map(t -> t.ref).toList();
  }

  /**
   * Fetchers removed while a transaction was open above offset 10, so that remove-fetchers recorded
   * FETCHERS_REMOVED alone and the truncation is the truncate call's; the log fenced (its batches
   * are of an older epoch). Each test sets the last stable offset it needs.
   */
  private TestingStopTarget stoppingPartition(int p) throws Exception {
    TestingStopTarget t = partition(p);
    t.lastStable = 10;
    executor.removeFetchers(refs(t), 1_000L);
    assertThat(store.get(t.key).orElseThrow().step()).isEqualTo(StopStep.FETCHERS_REMOVED);
    t.lastStable = 16;
    events.clear();
    return t;
  }

  @Test
  void aLeaderWithNothingToTruncateRecordsTheTruncationAndOffsetsInItsRemoveFetchersCall()
      throws Exception {
    // Given a mirroring leader whose 16 records are all stable, on every in-sync replica
    TestingStopTarget t = partition(0);
    // When remove-fetchers runs
    assertThat(executor.removeFetchers(refs(t), 1_000L).get(0).error()).isNull();
    // Then it records FETCHERS_REMOVED, and in its next round the truncation to 16 (nothing cut)
    // with the offsets and the source's epoch of the last batch kept: the step truncate would
    // record next, planned only once the stop is durable
    assertThat(events)
        .containsExactly(
            "t-0 local STOPPING", "t-0 write FETCHERS_REMOVED", "t-0 write OFFSETS_PERSISTED");
    StopState durable = store.get(t.key).orElseThrow();
    assertThat(durable.truncatedToOffset()).isEqualTo(16L);
    assertThat(durable.lastMirroredOffset()).isEqualTo(16L);
    assertThat(durable.sourceClusterId()).isEqualTo(SOURCE);
    assertThat(durable.lastMirroredSourceEpoch()).isEqualTo(3);
    assertThat(store.batches).containsExactly(1, 1);
    // And truncate and persist-offsets, when called, find nothing left to do
    events.clear();
    assertThat(executor.truncate(refs(t), 1_000L).get(0).error()).isNull();
    assertThat(executor.persistOffsets(refs(t), 1_000L).get(0).error()).isNull();
    assertThat(events).isEmpty();
    // And the barrier goes at the log end
    assertThat(executor.barrier(refs(t), 1_000L, (r, ms) -> Map.of()).get(0).error()).isNull();
    assertThat(events).containsExactly("t-0 barrier 16", "t-0 write BARRIER_WRITTEN");
  }

  @Test
  void theTargetIsDurableBeforeTheTruncationAndTruncatedAfterIt() throws Exception {
    // Given a stopping leader with 16 records of which 10 are stable (a transaction is open)
    TestingStopTarget t = stoppingPartition(0);
    t.lastStable = 10;
    // When truncate runs
    List<StepOutcome> out = executor.truncate(refs(t), 1_000L);
    // Then TRUNCATING is written before the truncation, TRUNCATED after it (with the offsets:
    // the source is known)
    assertThat(out.get(0).error()).isNull();
    assertThat(events)
        .containsExactly("t-0 write TRUNCATING", "t-0 truncate 10", "t-0 write OFFSETS_PERSISTED");
    // And a repeated call does nothing more
    events.clear();
    assertThat(executor.truncate(refs(t), 1_000L).get(0).error()).isNull();
    assertThat(events).isEmpty();
  }

  @Test
  void theTruncationsOfOneCallAreOneRequestAfterEveryTargetIsDurable() throws Exception {
    // Given three stopping leaders, each with a transaction open above offset 10
    TestingStopTarget a = stoppingPartition(0);
    TestingStopTarget b = stoppingPartition(1);
    TestingStopTarget c = stoppingPartition(2);
    for (TestingStopTarget t : List.of(a, b, c)) {
      t.lastStable = 10;
    }
    // When one truncate call runs on the three
    List<StepOutcome> out = executor.truncate(refs(a, b, c), 1_000L);
    // Then every partition is truncated, by a single request to the broker
    assertThat(out).allSatisfy(o -> assertThat(o.error()).isNull());
    assertThat(partitions.truncationRequests).containsExactly(List.of("t-0", "t-1", "t-2"));
    assertThat(List.of(a.logEnd, b.logEnd, c.logEnd)).containsOnly(10L);
    // And every TRUNCATING was written before the first truncation, every TRUNCATED (with the
    // offsets) after the last
    int firstTruncation = events.indexOf("t-0 truncate 10");
    assertThat(events.subList(0, firstTruncation))
        .as(events.toString())
        .containsExactlyInAnyOrder(
            "t-0 write TRUNCATING", "t-1 write TRUNCATING", "t-2 write TRUNCATING");
    assertThat(events.subList(firstTruncation, firstTruncation + 3))
        .containsExactly("t-0 truncate 10", "t-1 truncate 10", "t-2 truncate 10");
    assertThat(events.subList(firstTruncation + 3, events.size()))
        .containsExactlyInAnyOrder(
            "t-0 write OFFSETS_PERSISTED",
            "t-1 write OFFSETS_PERSISTED",
            "t-2 write OFFSETS_PERSISTED");
  }

  @Test
  void aLeaderOnlyStepWaitsBoundedForALeadershipTheBrokersMetadataAlreadyGivesIt()
      throws Exception {
    // Given a partition the broker's metadata names this broker leader of (a fence moved it here)
    // while the broker has not applied that leadership yet
    TestingStopTarget t = stoppingPartition(0);
    t.lastStable = 10;
    t.leader = false;
    partitions.leadershipInFlight.add(t.ref());

    // When the truncate step (leader only) is called on it
    List<StepOutcome> out = executor.truncate(refs(t), 30_000L);

    // Then the step waited for that leadership, at most a second, and ran, instead of answering
    // NOT_LEADER and costing the operator another round
    assertThat(out.get(0).error()).isNull();
    assertThat(partitions.leadershipAwaits).containsExactly("[t-0] within 1000");
    assertThat(events).contains("t-0 truncate 10");
  }

  @Test
  void aPartitionLedElsewhereIsStillRefusedAfterTheWait() throws Exception {
    // Given a partition another broker leads, with no leadership in flight to this one
    TestingStopTarget t = stoppingPartition(0);
    t.leader = false;

    // When the persist-offsets step (leader only) is called on it with little time left
    List<StepOutcome> out = executor.persistOffsets(refs(t), 400L);

    // Then the wait was bounded by the call's own time, and the answer is NOT_LEADER
    assertThat(partitions.leadershipAwaits).containsExactly("[t-0] within 100");
    assertThat(out.get(0).error()).isNotNull();
    assertThat(out.get(0).error().code()).isEqualTo(Code.NOT_LEADER);
  }

  @Test
  void aStaleHighWatermarkIsWaitedForAndThenTheLastStableOffsetIsTheTarget() throws Exception {
    // Given a new leader whose high watermark reaches its log end only after a few reads
    TestingStopTarget t = stoppingPartition(0);
    t.highWatermark = 0;
    t.lastStable = 0;
    t.viewsUntilHighWatermark = 4;
    // When truncate runs
    List<StepOutcome> out = executor.truncate(refs(t), 5_000L);
    // Then nothing was truncated: the target is the established last stable offset, 16
    assertThat(out.get(0).error()).isNull();
    assertThat(events).containsExactly("t-0 write OFFSETS_PERSISTED");
    assertThat(store.get(t.key).orElseThrow().truncatedToOffset()).isEqualTo(16L);
  }

  @Test
  void aHighWatermarkThatStaysStaleIsATimeoutWithNothingRecorded() throws Exception {
    TestingStopTarget t = stoppingPartition(0);
    t.highWatermark = 0;
    t.lastStable = 0;
    List<StepOutcome> out = executor.truncate(refs(t), 100L);
    assertThat(out.get(0).error().code()).isEqualTo(Code.TIMEOUT);
    assertThat(out.get(0).error().getMessage())
        .contains("t-0: the high watermark 0 of leader epoch 5");
    assertThat(events).isEmpty();
    assertThat(store.get(t.key).orElseThrow().step()).isEqualTo(StopStep.FETCHERS_REMOVED);
  }

  @Test
  void batchesOfTheCurrentEpochAreFencedAndNotTruncatedHere() throws Exception {
    TestingStopTarget t = stoppingPartition(0);
    t.lastBatchEpoch = 5;
    t.lastStable = 12;
    List<StepOutcome> out = executor.truncate(refs(t), 1_000L);
    assertThat(out.get(0).error().code()).isEqualTo(Code.LEADER_MOVED);
    assertThat(out.get(0).error().getMessage())
        .isEqualTo(
            "t-0: leadership moved from broker 1 (leader epoch 5) to broker 2 to fence the"
                + " replicas before the truncation to offset 12; call truncate on broker 2");
    assertThat(events).containsExactly("t-0 write TRUNCATING");
    assertThat(fenced.values()).containsExactly(2);
  }

  @Test
  void aRefusalIsThePartitionsOutcomeWithTheRulesMessage() throws Exception {
    TestingStopTarget t = stoppingPartition(0);
    List<StepOutcome> out = executor.persistOffsets(refs(t), 1_000L);
    assertThat(out.get(0).error().code()).isEqualTo(Code.INVALID_STATE);
    assertThat(out.get(0).error().getMessage())
        .isEqualTo(
            "t-0 (mirror m1) is at stop step FETCHERS_REMOVED; TRUNCATED is needed: call truncate"
                + " first");
  }

  @Test
  void aFailedWriteFailsItsPartitionNotTheBatch() throws Exception {
    // Given two stopping partitions, and the store refusing every write of partition 1
    TestingStopTarget a = stoppingPartition(0);
    TestingStopTarget b = stoppingPartition(1);
    a.lastStable = 10;
    b.lastStable = 10;
    store.failWritesOf(1);
    // When truncate runs on both
    List<StepOutcome> out = executor.truncate(refs(a, b), 1_000L);
    // Then partition 0 is truncated, partition 1 is FENCED and untouched
    assertThat(out.get(0).error()).isNull();
    assertThat(out.get(1).error().code()).isEqualTo(Code.FENCED);
    assertThat(b.logEnd).isEqualTo(16L);
    assertThat(events)
        .containsExactly("t-0 write TRUNCATING", "t-0 truncate 10", "t-0 write OFFSETS_PERSISTED");
  }

  @Test
  void anUnavailableStoreFailsEveryPartitionAndTouchesNothing() throws Exception {
    TestingStopTarget a = stoppingPartition(0);
    TestingStopTarget b = stoppingPartition(1);
    store.unavailable = true;
    List<StepOutcome> out = executor.truncate(refs(a, b), 1_000L);
    assertThat(out)
        .allSatisfy(o -> assertThat(o.error().code()).isEqualTo(Code.STATE_STORE_UNAVAILABLE));
    assertThat(events).isEmpty();
  }

  @Test
  void theWholeSequenceOpensForWritesOnlyAfterStoppedIsWritten() throws Exception {
    // Given a mirroring leader
    TestingStopTarget t = partition(0);
    t.lastStable = 12;
    // When the five calls run (truncate records the offsets too: the source is known, so
    // persist-offsets finds them recorded)
    assertThat(executor.removeFetchers(refs(t), 1_000L).get(0).error()).isNull();
    assertThat(executor.truncate(refs(t), 1_000L).get(0).error()).isNull();
    assertThat(executor.persistOffsets(refs(t), 1_000L).get(0).error()).isNull();
    StepOutcome barrier = executor.barrier(refs(t), 1_000L, (r, ms) -> Map.of()).get(0);
    assertThat(executor.makeWritable(refs(t), 1_000L).get(0).error()).isNull();
    // Then every effect came in order, one barrier at the truncation offset
    assertThat(events)
        .containsExactly(
            "t-0 local STOPPING",
            "t-0 write FETCHERS_REMOVED",
            "t-0 write TRUNCATING",
            "t-0 truncate 12",
            "t-0 write OFFSETS_PERSISTED",
            "t-0 barrier 12",
            "t-0 write BARRIER_WRITTEN",
            "t-0 write STOPPED",
            "t-0 local STOPPED");
    // And truncate recorded the source's epoch of the last batch kept (the store's history)
    assertThat(store.get(t.key).orElseThrow().lastMirroredSourceEpoch()).isEqualTo(3);
    assertThat(barrier.result())
        .containsEntry(Fields.StepResult.BARRIER_OFFSET, 12L)
        .containsEntry(Fields.StepResult.APPENDED, true);
    // And the barrier call repeated appends nothing and says so
    events.clear();
    StepOutcome again = executor.barrier(refs(t), 1_000L, (r, ms) -> Map.of()).get(0);
    assertThat(again.result())
        .containsEntry(Fields.StepResult.BARRIER_OFFSET, 12L)
        .containsEntry(Fields.StepResult.APPENDED, false);
    assertThat(events).isEmpty();
    assertThat(t.local).isEqualTo(LocalState.STOPPED);
  }

  @Test
  void withoutAKnownSourceTruncateRecordsTruncatedAndPersistOffsetsTheNamedSourceAndItsEpoch()
      throws Exception {
    // Given a stopping leader whose registration knows no source
    TestingStopTarget t = stoppingPartition(0);
    t.knownSource = null;
    t.lastStable = 12;
    // When truncate and persist-offsets run
    assertThat(executor.truncate(refs(t), 1_000L).get(0).error()).isNull();
    assertThat(executor.persistOffsets(refs(t), 1_000L).get(0).error()).isNull();
    // Then each records its own step, and persist-offsets the source the call names with the
    // source's epoch of the last batch kept
    assertThat(events)
        .containsExactly(
            "t-0 write TRUNCATING",
            "t-0 truncate 12",
            "t-0 write TRUNCATED",
            "t-0 write OFFSETS_PERSISTED");
    StopState durable = store.get(t.key).orElseThrow();
    assertThat(durable.sourceClusterId()).isEqualTo(SOURCE);
    assertThat(durable.lastMirroredSourceEpoch()).isEqualTo(3);
  }

  @Test
  void aBarrierNotReplicatedInTimeIsATimeoutAndNotRecorded() throws Exception {
    TestingStopTarget t = partition(0);
    executor.removeFetchers(refs(t), 1_000L);
    executor.truncate(refs(t), 1_000L);
    executor.persistOffsets(refs(t), 1_000L);
    t.replicates = false;
    StepOutcome out = executor.barrier(refs(t), 100L, (r, ms) -> Map.of()).get(0);
    assertThat(out.error().code()).isEqualTo(Code.TIMEOUT);
    assertThat(out.error().getMessage())
        .isEqualTo(
            "t-0: the barrier at offset 16 is written but not yet below the high watermark 16"
                + " after 100 ms; repeat the call to wait again");
    StopState durable = store.get(t.key).orElseThrow();
    assertThat(durable.step()).isEqualTo(StopStep.OFFSETS_PERSISTED);
    // And make-writable refuses before the barrier is recorded
    assertThat(executor.makeWritable(refs(t), 1_000L).get(0).error().code())
        .isEqualTo(Code.INVALID_STATE);
    assertThat(t.local).isEqualTo(LocalState.STOPPING);
  }

  @Test
  void aTruncateRepeatedAfterTheBarrierAppendNeitherFencesNorTruncates() throws Exception {
    // Given the barrier appended at the truncation offset, BARRIER_WRITTEN not recorded yet
    TestingStopTarget t = partition(0);
    executor.removeFetchers(refs(t), 1_000L);
    executor.truncate(refs(t), 1_000L);
    executor.persistOffsets(refs(t), 1_000L);
    t.replicates = false;
    executor.barrier(refs(t), 100L, (r, ms) -> Map.of());
    events.clear();
    // When a second operator repeats truncate
    StepOutcome out = executor.truncate(refs(t), 1_000L).get(0);
    // Then the barrier stays: no fence, no truncation, nothing recorded
    assertThat(out.error()).isNull();
    assertThat(fenced).isEmpty();
    assertThat(events).isEmpty();
    assertThat(t.logEnd).isEqualTo(17L);
  }

  @Test
  void partitionsThatAreNotMirrorsGetThePlainBarrier() throws Exception {
    PartitionRef plain = new PartitionRef("plain", 0, SOURCE);
    List<StepOutcome> out =
        executor.barrier(List.of(plain), 1_000L, (r, ms) -> Map.of("barrierOffset", 3L));
    assertThat(out.get(0).result()).containsEntry("barrierOffset", 3L);
  }

  /** Fetchers removed, nothing to truncate (16 stable of 16), offsets persisted. */
  private TestingStopTarget persistedPartition(int p) {
    TestingStopTarget t = partition(p);
    executor.removeFetchers(refs(t), 1_000L);
    executor.truncate(refs(t), 1_000L);
    executor.persistOffsets(refs(t), 1_000L);
    events.clear();
    return t;
  }

  @Test
  void theBarrierIsNotRecordedWhileAnInSyncFollowerHasNotFetchedItSinceTheTruncation()
      throws Exception {
    // Given a follower that has not fetched since the leader's truncation: the high watermark
    // passes the barrier at once, on that follower's log end from before the truncation
    TestingStopTarget t = persistedPartition(0);
    t.followersBehind =
        List.of(
            "broker 3 (has not fetched since the leader's truncation at 900 ms; last fetch at"
                + " 850 ms, up to offset 20)");
    // When barrier runs
    StepOutcome out = executor.barrier(refs(t), 200L, (r, ms) -> Map.of()).get(0);
    // Then it is a timeout naming the follower, the barrier is appended once and not recorded
    assertThat(out.error().code()).isEqualTo(Code.TIMEOUT);
    assertThat(out.error().getMessage())
        .isEqualTo(
            "t-0: the barrier at offset 16 is written but not yet fetched since the leader's"
                + " truncation by every in-sync follower (the high watermark 17 counts follower"
                + " log ends from before it): broker 3 (has not fetched since the leader's"
                + " truncation at 900 ms; last fetch at 850 ms, up to offset 20) after 200 ms;"
                + " repeat the call to wait again");
    assertThat(events).containsExactly("t-0 barrier 16");
    assertThat(store.get(t.key).orElseThrow().step()).isEqualTo(StopStep.OFFSETS_PERSISTED);
    // When the follower has fetched it and the call is repeated
    t.followersBehind = List.of();
    events.clear();
    StepOutcome again = executor.barrier(refs(t), 1_000L, (r, ms) -> Map.of()).get(0);
    // Then the same barrier counts and is recorded
    assertThat(again.error()).isNull();
    assertThat(again.result()).containsEntry(Fields.StepResult.APPENDED, false);
    assertThat(events).containsExactly("t-0 write BARRIER_WRITTEN");
  }

  @Test
  void barriersReplicatedAtDifferentTimesAreRecordedInOneWrite() throws Exception {
    // Given two partitions whose barriers reach the high watermark at different times: t-0's at
    // once, t-1's only some reads of its high watermark after the append
    TestingStopTarget early = persistedPartition(0);
    TestingStopTarget late = persistedPartition(1);
    late.replicates = false;
    late.changeWhileWaiting = () -> late.highWatermark = late.logEnd;
    late.highWatermarkReadsUntilChange = 4;
    store.batches.clear();

    // When one barrier call stops both
    List<StepOutcome> out = executor.barrier(refs(early, late), 1_000L, (r, ms) -> Map.of());

    // Then both are recorded, in one write of the stop-state topic (each write is an acks=all
    // round trip to every replica of it: two writes were 100 to 400 ms more per broker at 1,000
    // partitions)
    assertThat(out).allSatisfy(o -> assertThat(o.error()).isNull());
    assertThat(store.get(early.key).orElseThrow().step()).isEqualTo(StopStep.BARRIER_WRITTEN);
    assertThat(store.get(late.key).orElseThrow().step()).isEqualTo(StopStep.BARRIER_WRITTEN);
    assertThat(store.batches).as(events.toString()).containsExactly(2);
    // And each barrier is recorded only once it is below the high watermark
    assertThat(events)
        .containsExactly(
            "t-0 barrier 16",
            "t-1 barrier 16",
            "t-0 write BARRIER_WRITTEN",
            "t-1 write BARRIER_WRITTEN");
  }

  @Test
  void aBarrierCallThatOutlivesTwoLeaderChangesReadsTheStopStateAgain() throws Exception {
    // Given a barrier call on broker 1 (epoch 5) that waits for its followers
    TestingStopTarget t = persistedPartition(0);
    store.tracksLeaderEpochs = true;
    t.replicates = false;
    StopState persisted = store.get(t.key).orElseThrow();
    // And, while it waits, leadership goes to broker 2 (epoch 6), which records BARRIER_WRITTEN and
    // STOPPED, crashes, and broker 1 leads again in epoch 7
    t.highWatermarkReadsUntilChange = 3;
    t.changeWhileWaiting =
        () -> {
          StopState written =
              persisted.withBarrier(16L).advance(StopStep.BARRIER_WRITTEN, 6, 2, 1_100L);
          store.writtenElsewhere(written);
          store.writtenElsewhere(written.advance(StopStep.STOPPED, 6, 2, 1_200L));
          t.epoch = 7;
          t.highWatermark = t.logEnd;
        };
    // When the call goes on
    StepOutcome out = executor.barrier(refs(t), 5_000L, (r, ms) -> Map.of()).get(0);
    // Then it read the topic again in epoch 7 and found the stop STOPPED: nothing recorded over it
    assertThat(out.error()).isNull();
    assertThat(events).containsExactly("t-0 barrier 16");
    assertThat(store.get(t.key).orElseThrow().step()).isEqualTo(StopStep.STOPPED);
  }
}
