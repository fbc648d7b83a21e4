package dev.kafkamirror.operator.reconciler;

import static org.assertj.core.api.Assertions.assertThat;

import dev.kafkamirror.operator.api.v1alpha1.FailbackDiscard;
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
}
