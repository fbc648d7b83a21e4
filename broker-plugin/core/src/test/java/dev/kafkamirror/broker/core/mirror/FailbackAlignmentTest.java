package dev.kafkamirror.broker.core.mirror;

import static org.assertj.core.api.Assertions.assertThat;

import dev.kafkamirror.broker.core.mirror.FailbackAlignment.Align;
import dev.kafkamirror.broker.core.mirror.FailbackAlignment.LocalEpoch;
import dev.kafkamirror.broker.core.mirror.FailbackAlignment.Refuse;
import java.util.List;
import org.junit.jupiter.api.Test;

class FailbackAlignmentTest {

  private static final String TP = "orders-0 of mirror b-to-a";

  @Test
  void recordsWrittenHereAfterTheFormerDestinationStoppedAreDiscardedFromItsLastMirroredOffset() {
    // Given A wrote 0..99 in epoch 0 and B copied 0..79 (last mirrored offset 80, source epoch 0)
    // When A aligns
    var decision = FailbackAlignment.decide(TP, 80, 0, 0, 100, List.of(new LocalEpoch(0, 0)));

    // Then A truncates to 80 and discards 80..99
    assertThat(decision).isEqualTo(new Align(80, 80, 100, 100));
    assertThat(((Align) decision).discards()).isTrue();
  }

  @Test
  void anUncleanElectionHereThatCutTheEpochShortAlignsToTheEpochsLocalEnd() {
    // Given B copied 0..79 of epoch 3, but A's new leader holds epoch 3 only up to 70, then epoch 4
    var decision =
        FailbackAlignment.decide(
            TP,
            80,
            3,
            0,
            120,
            List.of(new LocalEpoch(0, 0), new LocalEpoch(3, 40), new LocalEpoch(4, 70)));

    // Then A aligns to 70 (everything after is epoch 4's, which B never saw)
    assertThat(decision).isEqualTo(new Align(70, 70, 120, 70));
  }

  @Test
  void aLogBehindTheFormerDestinationDiscardsNothing() {
    // Given A lost its tail and ends at 60 inside epoch 2, while B copied up to 80 of epoch 2
    var decision =
        FailbackAlignment.decide(
            TP, 80, 2, 0, 60, List.of(new LocalEpoch(1, 0), new LocalEpoch(2, 30)));

    // Then nothing is discarded; mirroring resumes at A's end
    assertThat(decision).isEqualTo(new Align(60, 60, 60, 60));
    assertThat(((Align) decision).discards()).isFalse();
  }

  @Test
  void aLaterEpochHereAfterTheMirroredOneEndsThatEpoch() {
    // Given A's leader moved (epoch 5 from 80) after B stopped at 80 of epoch 4, and A wrote on
    var decision =
        FailbackAlignment.decide(
            TP, 80, 4, 0, 95, List.of(new LocalEpoch(4, 0), new LocalEpoch(5, 80)));

    assertThat(decision).isEqualTo(new Align(80, 80, 95, 80));
  }

  @Test
  void anUnknownSourceEpochIsRefusedNamingTheOffsetAndTheWayOut() {
    var decision = FailbackAlignment.decide(TP, 80, -1, 0, 100, List.of(new LocalEpoch(0, 0)));

    assertThat(decision).isInstanceOf(Refuse.class);
    Refuse refuse = (Refuse) decision;
    assertThat(refuse.reason()).isEqualTo(FailbackAlignment.EPOCH_UNKNOWN);
    assertThat(refuse.message()).contains(TP, "80", "Nothing was truncated", "Way out");
  }

  @Test
  void anEpochThisLogDoesNotHoldIsRefusedNeverGuessed() {
    // Given B's last batch was of A's epoch 3, but A's log (after an unclean election) jumps 2 -> 4
    var decision =
        FailbackAlignment.decide(
            TP, 80, 3, 0, 100, List.of(new LocalEpoch(2, 0), new LocalEpoch(4, 50)));

    assertThat(decision).isInstanceOf(Refuse.class);
    Refuse refuse = (Refuse) decision;
    assertThat(refuse.reason()).isEqualTo(FailbackAlignment.EPOCH_NOT_IN_LOCAL_HISTORY);
    assertThat(refuse.message())
        .contains(TP, "leader epoch 3", "largest epoch at or below it is 2");
  }

  @Test
  void aNonEmptyLogWithoutAnyEpochHistoryIsRefused() {
    var decision = FailbackAlignment.decide(TP, 80, 0, 0, 100, List.of());

    assertThat(decision).isInstanceOf(Refuse.class);
  }

  @Test
  void noRecordedStopIsRefused() {
    var decision = FailbackAlignment.decide(TP, -1, 0, 0, 100, List.of(new LocalEpoch(0, 0)));

    assertThat(decision).isInstanceOf(Refuse.class);
    assertThat(((Refuse) decision).reason()).isEqualTo(FailbackAlignment.NO_RECORDED_STOP);
  }

  @Test
  void nothingMirroredMeansEverythingHereIsDiscarded() {
    var decision = FailbackAlignment.decide(TP, 0, -1, 0, 30, List.of(new LocalEpoch(0, 0)));

    assertThat(decision).isEqualTo(new Align(0, 0, 30, 0));
  }

  @Test
  void anEmptyLogAlignsAtItsEnd() {
    assertThat(FailbackAlignment.decide(TP, 80, 0, 100, 100, List.of()))
        .isEqualTo(new Align(80, 100, 100, 100));
    assertThat(FailbackAlignment.decide(TP, 80, 0, 50, 50, List.of()))
        .isEqualTo(new Align(50, 50, 50, 50));
  }

  @Test
  void aLogStartAboveTheAlignmentDiscardsFromTheLogStart() {
    // Given A's log starts at 90 (retention) and B copied up to 80
    var decision = FailbackAlignment.decide(TP, 80, 0, 90, 100, List.of(new LocalEpoch(0, 0)));

    assertThat(decision).isEqualTo(new Align(80, 90, 100, 100));
  }

  @Test
  void theAccountingMessageNamesRangeCountAndBytes() {
    Align align = new Align(80, 80, 100, 100);
    assertThat(FailbackAlignment.discardedMessage(TP, align, 20, 1234, true))
        .contains(TP, "would discard 20 records (1234 bytes) at offsets 80..99");
    assertThat(FailbackAlignment.discardedMessage(TP, new Align(60, 60, 60, 60), 0, 0, false))
        .contains("nothing to discard");
  }

  @Test
  void aRealStartWhoseReportCoveredTheLogEndGoesOnAndOneWithoutAnExpectedEndIsNotChecked() {
    // Given the report covered A's log up to 100 and the read-only log ends at 100
    assertThat(FailbackAlignment.checkReportedLogEnd(TP, 100L, 100)).isNull();
    // And a start that names no expected end (an older caller) is not checked
    assertThat(FailbackAlignment.checkReportedLogEnd(TP, null, 120)).isNull();
  }

  @Test
  void recordsWrittenAfterTheReportRefuseTheTruncationNamingPartitionBothEndsAndTheWayOut() {
    // Given the report covered A's log up to 100 but a client wrote 100..104 before read-only
    Refuse refuse = FailbackAlignment.checkReportedLogEnd(TP, 100L, 105);

    // Then nothing is truncated: the start is refused with the reason and every identifier
    assertThat(refuse).isNotNull();
    assertThat(refuse.reason())
        .isEqualTo(FailbackAlignment.LOG_MOVED_AFTER_REPORT)
        .isEqualTo("FailbackLogMovedAfterReport");
    assertThat(refuse.message())
        .contains(
            TP, "up to offset 100", "ends at 105", "offsets 100..104", "Nothing was truncated")
        .contains("Stop the producers", "dry run");
  }

  @Test
  void aTopicDeletedAndCreatedAgainIsRefusedBeforeAnythingChangesAndTheSameOneGoesOn() {
    // Given the former destination mirrored topic id T1 of this cluster
    String mirrored = "T1T1T1T1T1T1T1T1T1T1T1";

    // When this partition's topic still has that id, or the caller named none (an older caller)
    // Then the start goes on
    assertThat(FailbackAlignment.checkTopicId(TP, mirrored, mirrored)).isNull();
    assertThat(FailbackAlignment.checkTopicId(TP, null, "T2T2T2T2T2T2T2T2T2T2T2")).isNull();

    // When the topic was deleted and created again under its name (id T2)
    Refuse refuse = FailbackAlignment.checkTopicId(TP, mirrored, "T2T2T2T2T2T2T2T2T2T2T2");

    // Then it is refused, naming the partition, both ids and the way out
    assertThat(refuse).isNotNull();
    assertThat(refuse.reason())
        .isEqualTo(FailbackAlignment.TOPIC_REPLACED)
        .isEqualTo("FailbackTopicReplaced");
    assertThat(refuse.message())
        .contains(TP, mirrored, "T2T2T2T2T2T2T2T2T2T2T2", "Nothing was changed", "re-create");
  }

  @Test
  void aLogCutBelowTheReportedEndIsRefusedToo() {
    // Given the report covered 0..99 but the log now ends at 90 (an unclean election cut it)
    Refuse refuse = FailbackAlignment.checkReportedLogEnd(TP, 100L, 90);

    // Then the report no longer says what would go: refused, fail closed
    assertThat(refuse).isNotNull();
    assertThat(refuse.reason()).isEqualTo(FailbackAlignment.LOG_MOVED_AFTER_REPORT);
    assertThat(refuse.message()).contains(TP, "up to offset 100", "ends at 90", "cut");
  }
}
