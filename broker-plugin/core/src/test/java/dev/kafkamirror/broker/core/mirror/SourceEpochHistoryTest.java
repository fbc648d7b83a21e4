package dev.kafkamirror.broker.core.mirror;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.kafkamirror.broker.core.mirror.SourceEpochHistory.Entry;
import java.util.List;
import org.junit.jupiter.api.Test;

class SourceEpochHistoryTest {

  private static SourceEpochHistory history(long... epochThenOffset) {
    List<Entry> entries = new java.util.ArrayList<>();
    for (int i = 0; i < epochThenOffset.length; i += 2) {
      entries.add(new Entry((int) epochThenOffset[i], epochThenOffset[i + 1]));
    }
    return SourceEpochHistory.of(entries);
  }

  @Test
  void theEpochAtAnOffsetIsTheLastEntryStartingAtOrBelowIt() {
    SourceEpochHistory h = history(0, 0, 3, 100, 7, 180);
    assertThat(h.epochAt(0)).isZero();
    assertThat(h.epochAt(99)).isZero();
    assertThat(h.epochAt(100)).isEqualTo(3);
    assertThat(h.epochAt(500)).isEqualTo(7);
    assertThat(history(2, 50).epochAt(49)).isEqualTo(-1);
    assertThat(SourceEpochHistory.empty().epochAt(10)).isEqualTo(-1);
  }

  @Test
  void aNewEpochIsAddedOnceAndTheSameEpochChangesNothing() throws Exception {
    // Given epoch 0 from offset 0
    SourceEpochHistory h = history(0, 0);
    // When more batches of epoch 0 follow, then epoch 2
    assertThat(h.followedBy(0, 40)).isSameAs(h);
    SourceEpochHistory next = h.followedBy(2, 100);
    // Then epoch 2 starts at 100, and adding it again changes nothing
    assertThat(next.entries()).containsExactly(new Entry(0, 0), new Entry(2, 100));
    assertThat(next.followedBy(2, 120)).isSameAs(next);
  }

  @Test
  void entriesBeyondTheAppendPointDescribedAnAppendThatDidNotHappenAndAreReplaced()
      throws Exception {
    // Given epoch 5 recorded from 100, but the log still ends at 100 (the append failed)
    SourceEpochHistory h = history(0, 0, 5, 100);
    // When epoch 6 is appended at 100 instead
    SourceEpochHistory next = h.followedBy(6, 100);
    // Then epoch 5 is gone
    assertThat(next.entries()).containsExactly(new Entry(0, 0), new Entry(6, 100));
    assertThat(h.truncatedTo(100).entries()).containsExactly(new Entry(0, 0));
  }

  @Test
  void anOlderEpochAfterANewerOneIsRefused() {
    SourceEpochHistory h = history(0, 0, 4, 100);
    assertThatThrownBy(() -> h.followedBy(3, 150))
        .isInstanceOf(SourceEpochHistory.EpochRegressionException.class)
        .hasMessageContaining("epoch 3 at offset 150")
        .hasMessageContaining("leader epoch 4 (from offset 100)");
  }

  @Test
  void entriesThatDoNotIncreaseAreInvalid() {
    assertThatThrownBy(() -> history(3, 0, 3, 10)).isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> history(3, 10, 4, 10)).isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> history(-1, 0)).isInstanceOf(IllegalArgumentException.class);
  }

  @Test
  void anUncleanElectionDivergesWhereTheSourcesEpochEnded() {
    // Given the destination holds 0..149 of source epoch 0
    SourceEpochHistory h = history(0, 0);
    // When the source answers that its epoch 0 ends at 100 (the new leader started epoch 1 there)
    SourceEpochHistory.Divergence d = h.divergence(0, 100, 150);
    // Then records from 100 on are not the source's, exactly
    assertThat(d.offset()).isEqualTo(100);
    assertThat(d.exact()).isTrue();
    assertThat(d.fetchedEpoch()).isZero();
    assertThat(d.describe("t-0", "m"))
        .contains("t-0 (mirror m)")
        .contains("source epoch 0")
        .contains("ends at offset 100")
        .contains("from offset 100 to log end 150");
  }

  @Test
  void theDivergencePointIsNeverBeyondTheLocalEndOfTheSourcesEpoch() {
    // Given epochs 1 (0..79) and 3 (80..119) here
    SourceEpochHistory h = history(1, 0, 3, 80);
    // When the source does not know epoch 3: its epoch 1 ends at 90
    SourceEpochHistory.Divergence d = h.divergence(1, 90, 120);
    // Then the records of epoch 3 already differ: the point is 80
    assertThat(d.offset()).isEqualTo(80);
    assertThat(d.exact()).isTrue();
    assertThat(d.fetchedEpoch()).isEqualTo(3);
  }

  @Test
  void anEpochUnknownHereGivesAnUpperBound() {
    // Given epochs 1 and 5; the source answers with its epoch 3, which was never mirrored
    SourceEpochHistory h = history(1, 0, 5, 80);
    SourceEpochHistory.Divergence d = h.divergence(3, 95, 120);
    // Then the records of epoch 5 are not the source's; where exactly it parted is unknown
    assertThat(d.offset()).isEqualTo(80);
    assertThat(d.exact()).isFalse();
    assertThat(d.describe("t-0", "m")).contains("from at most offset 80");
  }

  @Test
  void withoutAHistoryBelowTheSourcesEpochNothingIsVouchedFor() {
    // Given a history that starts at 60 (records before it were mirrored without epochs)
    SourceEpochHistory h = history(4, 60);
    SourceEpochHistory.Divergence d = h.divergence(2, 30, 100);
    assertThat(d.offset()).isEqualTo(30);
    assertThat(d.exact()).isFalse();
  }
}
