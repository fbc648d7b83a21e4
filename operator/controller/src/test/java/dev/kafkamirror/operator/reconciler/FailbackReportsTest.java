package dev.kafkamirror.operator.reconciler;

import static org.assertj.core.api.Assertions.assertThat;

import dev.kafkamirror.contract.Fields;
import dev.kafkamirror.contract.PartitionError;
import dev.kafkamirror.operator.api.v1alpha1.FailbackDiscard;
import dev.kafkamirror.operator.control.BrokerControl;
import dev.kafkamirror.operator.core.DiscardKeeping;
import dev.kafkamirror.operator.core.FailbackPlanner;
import dev.kafkamirror.operator.core.PartitionKey;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * A failback truncates only what a persisted report accounted for: a planned row covers a partition
 * while its log has not grown past the row's end; anything else asks for another dry run.
 */
class FailbackReportsTest {

  private static final PartitionKey P0 = new PartitionKey("orders", 0);
  private static final PartitionKey P1 = new PartitionKey("orders", 1);

  private static FailbackDiscard row(int partition, Long alignment, Long to, boolean truncated) {
    FailbackDiscard r = new FailbackDiscard();
    r.setTopic("orders");
    r.setPartition(partition);
    r.setAlignmentOffset(alignment);
    r.setDiscardedFromOffset(to == null ? null : alignment);
    r.setDiscardedToOffset(to);
    r.setTruncated(truncated);
    return r;
  }

  @Test
  void aPlannedReportCoversTheLogItAccountedForAndNothingWrittenAfterIt() {
    // Given planned rows: partition 0 discards 20..22 (log end 23), partition 1 discards nothing
    Map<PartitionKey, Long> reported =
        FailbackReports.reported(List.of(row(0, 20L, 23L, false), row(1, 40L, null, false)));
    assertThat(reported).containsExactlyInAnyOrderEntriesOf(Map.of(P0, 23L, P1, 40L));

    // Then the logs as reported are covered
    assertThat(FailbackReports.covers(reported, Set.of(P0, P1), Map.of(P0, 23L, P1, 40L))).isTrue();
    // but a record written on partition 0 after the report is not (another dry run first)
    assertThat(FailbackReports.covers(reported, Set.of(P0, P1), Map.of(P0, 24L, P1, 40L)))
        .isFalse();
    // nor a partition whose log end is unknown, or that has no row
    assertThat(FailbackReports.covers(reported, Set.of(P0, P1), Map.of(P0, 23L))).isFalse();
    assertThat(FailbackReports.covers(Map.of(P0, 23L), Set.of(P0, P1), Map.of(P0, 23L, P1, 40L)))
        .isFalse();
  }

  @Test
  void aRowOfATruncationThatHappenedIsNoPlanForAnother() {
    // Given a row that says partition 0 was truncated already
    Map<PartitionKey, Long> reported = FailbackReports.reported(List.of(row(0, 20L, 23L, true)));

    // Then it covers no later truncation
    assertThat(reported).isEmpty();
    assertThat(FailbackReports.covers(reported, Set.of(P0), Map.of(P0, 20L))).isFalse();
  }

  @Test
  void theCopyOfTheDiscardedRecordsIsPersistedPerRowAndSurvivesANewReportAndTheTruncation() {
    // Given planned rows (partition 0 discards 20..22, partition 1 nothing) and a copy of
    // partition 0 completed in this reconcile
    List<FailbackDiscard> rows = List.of(row(0, 20L, 23L, false), row(1, 40L, null, false));
    assertThat(FailbackReports.ranges(rows))
        .containsExactlyInAnyOrderEntriesOf(
            Map.of(P0, new DiscardKeeping.Range(20, 23), P1, new DiscardKeeping.Range(40, 40)));
    assertThat(FailbackReports.copiedThrough(rows)).isEmpty();
    Map<PartitionKey, FailoverRounds.Kept> kept =
        Map.of(
            P0,
            new FailoverRounds.Kept(
                "orders.cmo-discarded",
                new DiscardKeeping.Range(20, 23),
                new DiscardKeeping.Outcome(23, 2, null)));

    // When it is merged into the rows
    FailbackReports.KeptMerge merged = FailbackReports.withKept("ns/b-to-a", rows, kept);

    // Then partition 0's row holds the side topic, the copy's end and its records; a Normal Event
    // says where they are
    assertThat(FailbackReports.copiedThrough(merged.rows())).containsExactly(Map.entry(P0, 23L));
    FailbackDiscard r0 = merged.rows().get(0);
    assertThat(r0.getKeptIn()).isEqualTo("orders.cmo-discarded");
    assertThat(r0.getCopiedRecords()).isEqualTo(2L);
    assertThat(merged.failed()).isEmpty();
    assertThat(merged.keptMessages())
        .singleElement()
        .asString()
        .contains("ns/b-to-a", "orders-0 offsets 20..22", "orders.cmo-discarded partition 0");

    // And the truncation's answer (a new row for partition 0) keeps the copy's fields, and its
    // Event says where the records were kept
    var answer = new com.fasterxml.jackson.databind.ObjectMapper().createObjectNode();
    answer.put(Fields.Alignment.OFFSET, 20).put(Fields.Alignment.DISCARDED_FROM, 20);
    answer.put(Fields.Alignment.DISCARDED_TO, 23).put(Fields.Alignment.DISCARDED_RECORDS, 3);
    answer.put(Fields.Alignment.DISCARDED_BYTES, 300).put(Fields.Alignment.TRUNCATED, true);
    FailbackReports.Merge truncated =
        FailbackReports.merge(merged.rows(), Map.of(P0, answer), "now");
    FailbackDiscard t0 = truncated.rows().get(0);
    assertThat(t0.getTruncated()).isTrue();
    assertThat(t0.getCopiedThrough()).isEqualTo(23L);
    assertThat(FailbackReports.eventMessage("ns/b-to-a", truncated.changed(), ".cmo-discarded"))
        .contains("orders-0 (truncated)", "kept in orders.cmo-discarded partition 0")
        .doesNotContain("without being kept");
  }

  @Test
  void aTruncationThatDiscardedMoreThanTheCopyKeptSaysWhichOffsetsAreLost() {
    // Given partition 0 copied through 23, and a truncation that discarded through 24 (a record
    // written between the copy and the read-only registration)
    FailbackDiscard r = row(0, 20L, 25L, true);
    r.setKeptIn("orders.cmo-discarded");
    r.setCopiedThrough(23L);
    r.setCopiedRecords(3L);

    // Then its Event names the offsets discarded without being kept
    assertThat(FailbackReports.eventMessage("ns/b-to-a", List.of(r), ".cmo-discarded"))
        .contains("offsets 23..24 were written after the copy to orders.cmo-discarded");
  }

  @Test
  void aFailedCopyIsAWarningNamingPartitionSideTopicAndWhatToDo() {
    List<FailbackDiscard> rows = List.of(row(0, 20L, 23L, false));
    FailbackReports.KeptMerge merged =
        FailbackReports.withKept(
            "ns/b-to-a",
            rows,
            Map.of(
                P0,
                new FailoverRounds.Kept(
                    "orders.cmo-discarded",
                    new DiscardKeeping.Range(20, 23),
                    new DiscardKeeping.Outcome(
                        20,
                        0,
                        "cannot keep ... orders-0 in side topic orders.cmo-discarded (ACL)"))));
    assertThat(merged.keptMessages()).isEmpty();
    assertThat(merged.failed())
        .singleElement()
        .asString()
        .contains("ns/b-to-a", "orders-0", "orders.cmo-discarded");
    assertThat(FailbackReports.copiedThrough(merged.rows())).containsExactly(Map.entry(P0, 20L));
    assertThat(FailbackReports.ranges(merged.rows()).get(P0).to())
        .as("a copy short of the range's end")
        .isGreaterThan(20L);
  }

  @Test
  void aStartTheLeaderRefusedBecauseTheLogMovedAfterTheReportIsReportedAgainNotFailed() {
    // Given a persisted report of partition 0 that covered its log up to 23, and partition 1's
    Map<PartitionKey, Long> reported =
        FailbackReports.reported(List.of(row(0, 20L, 23L, false), row(1, 40L, null, false)));
    FailbackPlanner.Alignments alignments =
        new FailbackPlanner.Alignments(
            Map.of(
                P0, new FailbackPlanner.AlignTo(20L, 3), P1, new FailbackPlanner.AlignTo(40L, 3)),
            Map.of());

    // When the real start is sent, it names the log end each report covered; a dry run names none
    BrokerControl.Failback real = FailoverRounds.failbackCall(alignments, false, reported);
    assertThat(real.alignTo().get(P0).expectedLogEndOffset()).isEqualTo(23L);
    assertThat(real.alignTo().get(P1).expectedLogEndOffset()).isEqualTo(40L);
    assertThat(real.alignTo().get(P0).lastMirroredOffset()).isEqualTo(20L);
    BrokerControl.Failback dry = FailoverRounds.failbackCall(alignments, true, reported);
    assertThat(dry.alignTo().get(P0).expectedLogEndOffset()).isNull();

    // When the leader refuses it because a client wrote offset 23 before the read-only registration
    String moved =
        "INVALID_STATE: "
            + PartitionError.FAILBACK_LOG_MOVED_AFTER_REPORT
            + ": orders-0 (mirror b-to-a): the failback report covered the log up to offset 23"
            + " (exclusive) but the read-only log now ends at 24";

    // Then the partition is not FAILED for good (unlike a refusal that cannot prove the alignment)
    assertThat(FailbackReports.refusedForGood(moved)).isFalse();
    assertThat(
            FailbackReports.refusedForGood(
                "INVALID_STATE: FailbackEpochNotInLocalHistory: orders-0 (mirror b-to-a): ..."))
        .isTrue();
    assertThat(FailbackReports.refusedForGood("TIMEOUT: orders-0")).isFalse();
    assertThat(FailbackReports.refusedForGood(null)).isFalse();
    // And the next reconcile sees the log beyond the report: a new dry run (and copy) first
    assertThat(FailbackReports.covers(reported, Set.of(P0, P1), Map.of(P0, 24L, P1, 40L)))
        .isFalse();
    // And a log cut below the reported end (which the plugin refuses too) is reported again
    assertThat(FailbackReports.covers(reported, Set.of(P0, P1), Map.of(P0, 22L, P1, 40L)))
        .isFalse();
  }
}
