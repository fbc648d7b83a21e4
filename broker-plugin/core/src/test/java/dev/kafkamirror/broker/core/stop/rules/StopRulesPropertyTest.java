package dev.kafkamirror.broker.core.stop.rules;

import static org.assertj.core.api.Assertions.assertThat;

import dev.kafkamirror.broker.core.stop.FencedStopStateException;
import dev.kafkamirror.broker.core.stop.StopState;
import dev.kafkamirror.broker.core.stop.StopStateTable;
import dev.kafkamirror.broker.core.stop.StopStep;
import dev.kafkamirror.broker.core.stop.rules.Decision.Act;
import dev.kafkamirror.broker.core.stop.rules.Decision.Done;
import dev.kafkamirror.broker.core.stop.rules.Decision.Record;
import dev.kafkamirror.broker.core.stop.rules.Decision.Refuse;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;

/**
 * Property tests of every stop rule over random, self-consistent partition views ({@link
 * Views#random}): what a rule records, when it does something destructive, and where.
 */
class StopRulesPropertyTest {

  private static final int TRIES = 3_000;

  private static Decision decide(StopCall call, PartitionView v) {
    return StopRules.decide(call, v, Views.SOURCE);
  }

  @Property(tries = TRIES)
  void noStepGoesBackAndOnlyTheLeaderRecordsAtItsEpoch(@ForAll long seed, @ForAll StopCall call)
      throws FencedStopStateException {
    // Given any view
    PartitionView v = Views.random(seed);
    // When the rule records a state
    Decision d = decide(call, v);
    if (!(d instanceof Record rec)) {
      return;
    }
    // Then this broker leads, writes under its own epoch, never moves the step back, and the
    // fenced table would accept the write
    StopState s = rec.state();
    assertThat(v.leader()).as("%s recorded on a follower: %s", call, v).isTrue();
    assertThat(s.leaderEpoch()).isEqualTo(v.leaderEpoch());
    assertThat(s.writerBrokerId()).isEqualTo(v.brokerId());
    assertThat(s.key()).isEqualTo(v.key());
    if (v.durable() != null) {
      assertThat(s.step()).as("%s from %s", call, v.durable()).isGreaterThan(v.durable().step());
      StopStateTable table = new StopStateTable();
      table.apply(v.durable());
      table.checkWrite(s);
    }
  }

  @Property(tries = TRIES)
  void nothingDestructiveBeforeTheTargetIsDurableAndOnlyToTheRecordedTarget(@ForAll long seed) {
    // Given any view
    PartitionView v = Views.random(seed);
    // When truncate asks for a truncation or a fence
    Decision d = decide(StopCall.TRUNCATE, v);
    if (!(d instanceof Act act)) {
      return;
    }
    long offset;
    if (act.action() instanceof Decision.Truncate t) {
      offset = t.offset();
    } else if (act.action() instanceof Decision.MoveLeadership m) {
      offset = m.truncateTarget();
    } else {
      throw new AssertionError("truncate asked for " + act);
    }
    // Then a target is durable, the action goes exactly to it, and it cuts something
    StopState durable = v.durable();
    assertThat(durable).as("destructive action without a durable target: %s", v).isNotNull();
    assertThat(durable.step()).isBetween(StopStep.TRUNCATING, StopStep.OFFSETS_PERSISTED);
    long recorded =
        durable.step() == StopStep.TRUNCATING
            ? durable.truncateTargetOffset()
            : durable.truncatedToOffset();
    assertThat(offset).isEqualTo(recorded);
    assertThat(v.logEndOffset()).isGreaterThan(offset);
  }

  @Property(tries = TRIES)
  void aPlannedTargetIsTheLastStableOffsetOfAnEstablishedHighWatermark(@ForAll long seed) {
    // Given a view with no truncation target recorded yet, the barrier rule on
    PartitionView v = Views.random(seed);
    if (!v.barrierRuleEnabled()
        || (v.durable() != null && v.durable().step().atLeast(StopStep.TRUNCATING))) {
      return;
    }
    // When truncate records a target
    Decision d = decide(StopCall.TRUNCATE, v);
    if (!(d instanceof Record rec)) {
      return;
    }
    // Then the high watermark was established, every in-sync follower had fetched this leader's
    // log end in its epoch, and the target is the last stable offset: nothing committed and
    // stable is below it, and no in-sync replica holds records above it that a later leader of
    // its own could make stable
    assertThat(v.highWatermarkEstablished()).as("planned on a stale HW: %s", v).isTrue();
    assertThat(v.isrFetchedLogEnd()).as("planned before the ISR fetched: %s", v).isTrue();
    assertThat(rec.state().truncateTargetOffset()).isEqualTo(v.lastStableOffset());
  }

  @Property(tries = TRIES)
  void aRecordedTargetIsNeverReplaced(@ForAll long seed, @ForAll StopCall call) {
    // Given a view with a recorded target
    PartitionView v = Views.random(seed);
    if (v.durable() == null || !v.durable().step().atLeast(StopStep.TRUNCATING)) {
      return;
    }
    // When any rule records a state
    if (!(decide(call, v) instanceof Record rec)) {
      return;
    }
    // Then the target, and a recorded truncation offset, stay as they were
    assertThat(rec.state().truncateTargetOffset()).isEqualTo(v.durable().truncateTargetOffset());
    if (v.durable().step().atLeast(StopStep.TRUNCATED)) {
      assertThat(rec.state().truncatedToOffset()).isEqualTo(v.durable().truncatedToOffset());
    }
  }

  @Property(tries = TRIES)
  void theBarrierGoesOnlyAtTheRecordedTruncationOffset(@ForAll long seed) {
    PartitionView v = Views.random(seed);
    Decision d = decide(StopCall.BARRIER, v);
    if (d instanceof Act act && act.action() instanceof Decision.AppendBarrier b) {
      // Then offsets are persisted, not yet a barrier, and the log ends at the recorded offset
      assertThat(v.durable().step()).isEqualTo(StopStep.OFFSETS_PERSISTED);
      assertThat(v.logEndOffset()).isEqualTo(v.durable().truncatedToOffset());
      assertThat(b.sourceClusterId()).isEqualTo(v.durable().sourceClusterId());
      assertThat(v.barrierAtEnd()).isLessThan(v.durable().truncatedToOffset());
    }
    if (d instanceof Record rec) {
      // Then BARRIER_WRITTEN names a barrier at or after the truncation, below the HW, fetched by
      // every in-sync follower since the truncation
      assertThat(rec.state().step()).isEqualTo(StopStep.BARRIER_WRITTEN);
      assertThat(v.isrFetchedLogEnd()).isTrue();
      assertThat(rec.state().barrierOffset())
          .isEqualTo(v.barrierAtEnd())
          .isGreaterThanOrEqualTo(v.durable().truncatedToOffset())
          .isLessThan(v.highWatermark());
    }
  }

  @Property(tries = TRIES)
  void clientsWriteOnlyAfterStoppedIsDurableAndTheResetVerified(@ForAll long seed) {
    PartitionView v = Views.random(seed);
    Decision d = decide(StopCall.MAKE_WRITABLE, v);
    if (d instanceof Act act) {
      assertThat(act.action()).isInstanceOf(Decision.OpenForWrites.class);
      assertThat(v.durable().step()).isEqualTo(StopStep.STOPPED);
      assertThat(v.resetRefusal()).isNull();
    }
    if (d instanceof Record rec) {
      assertThat(rec.state().step()).isEqualTo(StopStep.STOPPED);
      assertThat(v.durable().step()).isEqualTo(StopStep.BARRIER_WRITTEN);
      assertThat(v.highWatermark()).isGreaterThan(v.durable().barrierOffset());
      assertThat(v.resetRefusal()).isNull();
    }
    if (v.durable() == null || v.durable().step() != StopStep.STOPPED) {
      assertThat(d).isNotInstanceOf(Act.class);
    }
  }

  @Property(tries = TRIES)
  void everyRefusalNamesThePartition(@ForAll long seed, @ForAll StopCall call) {
    PartitionView v = Views.random(seed);
    if (decide(call, v) instanceof Refuse refuse) {
      assertThat(refuse.message()).contains(v.partitionName());
    }
  }

  @Property(tries = TRIES)
  void aCallRunToItsEndIsAlreadyDoneWhenRepeated(@ForAll long seed, @ForAll StopCall call) {
    // Given any view, and the call applied to a well-behaved broker until it is done
    PartitionView v = Views.random(seed);
    ModelBroker.Result first = ModelBroker.run(call, v, Views.SOURCE);
    if (!(first.last() instanceof Done)) {
      return;
    }
    // When the same call comes again (an operator's retry, a second operator)
    Decision again = decide(call, first.view());
    // Then it is already done: nothing recorded, nothing done twice
    assertThat(again).as("%s repeated after %s", call, first.view()).isInstanceOf(Done.class);
  }

  @Property(tries = TRIES)
  void recordingADecidedStateNeverAsksForTheSameRecordAgain(
      @ForAll long seed, @ForAll StopCall call) {
    PartitionView v = Views.random(seed);
    if (decide(call, v) instanceof Record rec) {
      Decision next = decide(call, v.withDurable(rec.state()));
      if (next instanceof Record again) {
        assertThat(again.state().step()).isGreaterThan(rec.state().step());
      }
    }
  }

  @Property(tries = 500)
  void theWholeSequenceFromAMirroringLeaderEndsStoppedWithTheBarrierAtTheLastStableOffset(
      @ForAll @IntRange(min = 0, max = 30) int logEnd,
      @ForAll @IntRange(min = 0, max = 30) int uncommittedTail) {
    // Given a mirroring leader whose followers are in sync, the last stable offset below the end
    long lso = Math.max(0, logEnd - uncommittedTail);
    PartitionView v =
        Views.mirroringLeader()
            .withLocal(LocalState.STOPPING)
            .withLog(logEnd, logEnd, lso, logEnd == 0 ? -1 : 4, -1L);
    // When the five calls run in order
    for (StopCall call : StopCall.values()) {
      ModelBroker.Result r = ModelBroker.run(call, v, Views.SOURCE);
      assertThat(r.last()).as("%s from %s", call, v).isInstanceOf(Done.class);
      v = r.view();
    }
    // Then the partition is STOPPED, writable, truncated to the LSO, with one barrier there
    assertThat(v.durable().step()).isEqualTo(StopStep.STOPPED);
    assertThat(v.local()).isEqualTo(LocalState.STOPPED);
    assertThat(v.durable().truncatedToOffset()).isEqualTo(lso);
    assertThat(v.durable().lastMirroredOffset()).isEqualTo(lso);
    assertThat(v.durable().barrierOffset()).isEqualTo(lso);
    assertThat(v.logEndOffset()).isEqualTo(lso + 1);
  }
}
