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
}
