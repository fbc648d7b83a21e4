package dev.kafkamirror.broker.core.stop;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class StopStateTableTest {

  private static final StopStateKey KEY = new StopStateKey("m1", "AAAAAAAAAAAAAAAAAAAAAA", 3);

  private static StopState at(int leaderEpoch, StopStep step) {
    StopState s = StopState.fetchersRemoved(KEY, "orders", leaderEpoch, 1, 0L);
    if (step.atLeast(StopStep.TRUNCATING)) {
      s = s.withTruncateTarget(10L);
    }
    if (step.atLeast(StopStep.TRUNCATED)) {
      s = s.withTruncatedTo(10L, leaderEpoch - 1);
    }
    if (step.atLeast(StopStep.OFFSETS_PERSISTED)) {
      s = s.withMirroredEnd(10L, "src-cluster");
    }
    if (step.atLeast(StopStep.BARRIER_WRITTEN)) {
      s = s.withBarrier(10L);
    }
    return s.advance(step, leaderEpoch, 1, 0L);
  }

  @Test
  void aLateWriteOfAnOlderLeaderEpochNeverHidesTheNewerState() {
    // Given a new leader (epoch 8) recorded TRUNCATED
    StopStateTable table = new StopStateTable();
    table.apply(at(8, StopStep.TRUNCATED));
    // When the old leader's FETCHERS_REMOVED record (epoch 7) is read after it
    table.apply(at(7, StopStep.FETCHERS_REMOVED));
    // Then the partition still stands at epoch 8, TRUNCATED
    assertThat(table.get(KEY)).get().extracting(StopState::leaderEpoch).isEqualTo(8);
    assertThat(table.get(KEY)).get().extracting(StopState::step).isEqualTo(StopStep.TRUNCATED);
  }

  @Test
  void aWriteFromAnOlderLeaderEpochIsRefusedNamingBothEpochs() {
    StopStateTable table = new StopStateTable();
    table.apply(at(8, StopStep.TRUNCATING));
    assertThatThrownBy(() -> table.checkWrite(at(7, StopStep.TRUNCATED)))
        .isInstanceOf(FencedStopStateException.class)
        .hasMessageContaining("orders-3")
        .hasMessageContaining("leader epoch 8")
        .hasMessageContaining("older leader epoch 7");
  }

  @Test
  void aStepNeverGoesBackwardsEvenUnderANewerEpoch() {
    StopStateTable table = new StopStateTable();
    table.apply(at(5, StopStep.BARRIER_WRITTEN));
    assertThatThrownBy(() -> table.checkWrite(at(6, StopStep.TRUNCATED)))
        .isInstanceOf(FencedStopStateException.class)
        .hasMessageContaining("BARRIER_WRITTEN")
        .hasMessageContaining("TRUNCATED");
  }

  @Test
  void theSameStepAgainUnderANewerEpochIsAllowedSoANewLeaderCanTakeOver() throws Exception {
    StopStateTable table = new StopStateTable();
    table.apply(at(5, StopStep.TRUNCATING));
    table.checkWrite(at(6, StopStep.TRUNCATING));
    table.apply(at(6, StopStep.TRUNCATING));
    assertThat(table.get(KEY)).get().extracting(StopState::leaderEpoch).isEqualTo(6);
  }

  @Test
  void aTombstoneOfAnOlderEpochLeavesTheNewerStateInPlace() {
    StopStateTable table = new StopStateTable();
    table.apply(at(4, StopStep.FETCHERS_REMOVED));
    table.apply(at(5, StopStep.TRUNCATED));
    table.applyTombstone(KEY, 4);
    assertThat(table.get(KEY)).isPresent();
    table.applyTombstone(KEY, 5);
    assertThat(table.get(KEY)).isEmpty();
  }

  @Test
  void aStateLackingTheFieldsOfItsStepCannotExist() {
    assertThatThrownBy(
            () ->
                StopState.fetchersRemoved(KEY, "orders", 1, 1, 0L)
                    .advance(StopStep.BARRIER_WRITTEN, 1, 1, 0L))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("BARRIER_WRITTEN");
  }

  @Test
  void anOlderRecordOfTheSameEpochReadAfterTheWritersOwnNewerOneNeverMovesTheStepBack()
      throws Exception {
    // Given the writer folded its acknowledged OFFSETS_PERSISTED (epoch 5) while the reader thread
    // had read only up to FETCHERS_REMOVED of that epoch
    StopStateTable table = new StopStateTable();
    table.apply(at(5, StopStep.FETCHERS_REMOVED));
    table.apply(at(5, StopStep.OFFSETS_PERSISTED));
    // When the reader catches up and folds the older TRUNCATING and TRUNCATED records of epoch 5
    table.apply(at(5, StopStep.TRUNCATING));
    table.apply(at(5, StopStep.TRUNCATED));
    // Then the partition still stands at OFFSETS_PERSISTED, and the barrier step may be recorded
    assertThat(table.get(KEY))
        .get()
        .extracting(StopState::step)
        .isEqualTo(StopStep.OFFSETS_PERSISTED);
    table.checkWrite(at(5, StopStep.BARRIER_WRITTEN));
  }

  @Test
  void aBarrierWrittenRecordReadAfterTheWritersOwnStoppedLeavesThePartitionStopped() {
    // Given the leader folded STOPPED (epoch 9) when it was acknowledged
    StopStateTable table = new StopStateTable();
    table.apply(at(9, StopStep.STOPPED));
    // When the reader thread folds the BARRIER_WRITTEN record of the same epoch it read late
    table.apply(at(9, StopStep.BARRIER_WRITTEN));
    // Then describe, which reads this table, still reports STOPPED
    assertThat(table.get(KEY)).get().extracting(StopState::step).isEqualTo(StopStep.STOPPED);
  }

  @Test
  void aReaderThatStartsOverAndReReadsTheTopicNeverShowsAnEarlierStep() {
    // Given a table that holds the newest state: epoch 4 TRUNCATED superseded by epoch 5 STOPPED
    StopStateTable table = new StopStateTable();
    table.apply(at(4, StopStep.TRUNCATED));
    table.apply(at(5, StopStep.BARRIER_WRITTEN));
    table.apply(at(5, StopStep.STOPPED));
    // When a restarted reader folds the whole topic again from the beginning
    for (StopState s :
        java.util.List.of(
            at(4, StopStep.FETCHERS_REMOVED),
            at(4, StopStep.TRUNCATED),
            at(5, StopStep.BARRIER_WRITTEN),
            at(5, StopStep.STOPPED))) {
      table.apply(s);
      // Then at no point does the partition stand anywhere but at epoch 5, STOPPED
      assertThat(table.get(KEY)).get().extracting(StopState::step).isEqualTo(StopStep.STOPPED);
      assertThat(table.get(KEY)).get().extracting(StopState::leaderEpoch).isEqualTo(5);
    }
  }

  @Test
  void aNewerEpochStillReplacesALaterStepOfAnOlderEpochSoFencingHolds() {
    // Given a stale leader's BARRIER_WRITTEN at epoch 6 and a newer leader's TRUNCATED at epoch 7
    StopStateTable table = new StopStateTable();
    table.apply(at(6, StopStep.BARRIER_WRITTEN));
    table.apply(at(7, StopStep.TRUNCATED));
    // Then the newer epoch counts (fencing by leader epoch is unchanged)
    assertThat(table.get(KEY)).get().extracting(StopState::leaderEpoch).isEqualTo(7);
    // And a tombstone of epoch 7 removes it only because epoch 7 is the one that counts
    table.applyTombstone(KEY, 6);
    assertThat(table.get(KEY)).isPresent();
  }
}
