package dev.kafkamirror.broker.core.mirror;

import static org.assertj.core.api.Assertions.assertThat;

import dev.kafkamirror.broker.core.mirror.SourceAlignment.FirstBatch;
import dev.kafkamirror.broker.core.mirror.SourceAlignment.Halt;
import dev.kafkamirror.broker.core.mirror.SourceAlignment.Retry;
import dev.kafkamirror.broker.core.mirror.SourceAlignment.StartAt;
import org.junit.jupiter.api.Test;

class SourceAlignmentTest {

  private static final String TP = "orders-0 of mirror m";

  @Test
  void anEmptyLogBelowTheSourcesLogStartStartsThere() {
    // Given an empty destination log at 0 and a source whose log spans 60..100
    // When the source answers OFFSET_OUT_OF_RANGE
    // Then the log restarts at 60
    assertThat(SourceAlignment.outOfRange(TP, 0, 0, 60, 100)).isEqualTo(new StartAt(60));
    // And an empty log at 20 (all of it deleted) restarts too
    assertThat(SourceAlignment.outOfRange(TP, 20, 20, 60, 100)).isEqualTo(new StartAt(60));
  }

  @Test
  void aNonEmptyLogBelowTheSourcesLogStartHaltsWithRetentionOverrunAndEveryOffset() {
    // Given a destination holding 0..49 and a source whose log now starts at 80
    SourceAlignment.OutOfRange decision = SourceAlignment.outOfRange(TP, 0, 50, 80, 100);

    // Then the partition halts with SourceRetentionOverrun, offsets and the way out in the message
    assertThat(decision).isInstanceOf(Halt.class);
    Halt halt = (Halt) decision;
    assertThat(halt.reason()).isEqualTo("SourceRetentionOverrun");
    assertThat(halt.message())
        .contains(TP, "ends at offset 50", "starts at offset 80", "50..79", "Way out");
  }

  @Test
  void aLogBeyondTheSourcesEndOrARaceIsRetriedAndSaysWhy() {
    assertThat(SourceAlignment.outOfRange(TP, 0, 120, 0, 100))
        .isInstanceOf(Retry.class)
        .extracting(r -> ((Retry) r).message())
        .asString()
        .contains("beyond the source's log end 100");
    assertThat(SourceAlignment.outOfRange(TP, 0, 50, 50, 100)).isInstanceOf(Retry.class);
    assertThat(SourceAlignment.outOfRange(TP, 10, 50, 60, 100)).isInstanceOf(Halt.class);
  }

  @Test
  void aBatchAtOrAboveTheLogEndIsAppendedAsItIs() {
    // a compacted source: whole batches below 70 were removed
    assertThat(SourceAlignment.firstBatch(0, 50, 50, 59)).isEqualTo(FirstBatch.APPEND);
    assertThat(SourceAlignment.firstBatch(0, 50, 70, 79)).isEqualTo(FirstBatch.APPEND);
  }

  @Test
  void aBatchAcrossTheEndOfAnEmptyLogStartsTheLogAtItsBaseAndOfANonEmptyLogIsRefused() {
    assertThat(SourceAlignment.firstBatch(65, 65, 60, 69))
        .isEqualTo(FirstBatch.APPEND_FROM_BATCH_BASE);
    assertThat(SourceAlignment.firstBatch(0, 65, 60, 69)).isEqualTo(FirstBatch.REFUSE);
    assertThat(SourceAlignment.firstBatch(65, 65, 50, 59)).isEqualTo(FirstBatch.REFUSE);
  }

  @Test
  void aSourceTopicIdOtherThanTheRecordedOneNamesBothIds() {
    assertThat(SourceAlignment.topicRecreated(TP, "orders", "AAA", "AAA")).isNull();
    assertThat(SourceAlignment.topicRecreated(TP, "orders", null, "BBB")).isNull();
    assertThat(SourceAlignment.topicRecreated(TP, "orders", "AAA", "BBB"))
        .contains(TP, "orders", "AAA", "BBB", "created again", "Way out");
  }

  @Test
  void aPlainStartOfANeverWrittenLogIsAllowed() {
    // Given a destination log that never held a record (log start and end 0)
    // Then a plain start is allowed
    assertThat(SourceAlignment.localRecordsBeforeMirror("orders-0", "m", 0, 0)).isNull();
  }

  @Test
  void aPlainStartOfALogHoldingLocalRecordsIsRefusedNamingEverything() {
    // Given a destination log holding 0..2, written while it was an ordinary partition
    String why = SourceAlignment.localRecordsBeforeMirror("orders-0", "a-to-b", 0, 3);

    // Then the start is refused, naming the partition, the mirror, the offsets and the way out
    assertThat(why)
        .contains("orders-0", "a-to-b", "log start 0", "log end 3", "not mirrored")
        .contains("offsets 0..2", "fetch from offset 3")
        .contains("delete the destination topic", "TRUNCATE_AND_RESTORE");
  }

  @Test
  void aPlainStartOfALogWhoseLocalRecordsWereDeletedIsRefusedToo() {
    // Given a destination log whose local records 0..4 were deleted (log start = log end = 5):
    // mirroring from 5 would skip the source's 0..4
    String why = SourceAlignment.localRecordsBeforeMirror("orders-0", "m", 5, 5);

    // Then it is refused as well
    assertThat(why).contains("log start 5", "log end 5", "records 0..4");
  }
}
