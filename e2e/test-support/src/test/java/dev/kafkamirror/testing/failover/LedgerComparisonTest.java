package dev.kafkamirror.testing.failover;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.kafkamirror.testing.failover.LedgerComparison.Isolation;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class LedgerComparisonTest {

  private static final String T = "orders";

  /** p0: a@0 b@1 (aborted x at 2-3, marker), p1: c@0; never committed n on p1. */
  private static WriteLedger ledger() {
    WriteLedger l = new WriteLedger();
    l.committed(T, 0, 0, "a");
    l.committed(T, 0, 1, "b");
    l.aborted(T, 0, "x");
    l.committed(T, 1, 0, "c");
    l.neverCommitted(T, 1, "n");
    return l;
  }

  private static List<ObservedRecord> exact() {
    return new ArrayList<>(
        List.of(
            new ObservedRecord(T, 0, 0, "a"),
            new ObservedRecord(T, 0, 1, "b"),
            new ObservedRecord(T, 1, 0, "c")));
  }

  @Test
  void everyCommittedRecordOnceAtItsOffsetIsOk() {
    assertThat(LedgerComparison.compare(ledger(), T, "java", Isolation.READ_COMMITTED, exact()))
        .isEmpty();
  }

  @Test
  void abortedRecordsMayShowUnderReadUncommittedButNotUnderReadCommitted() {
    // Given the aborted record is read at its offset
    List<ObservedRecord> read = exact();
    read.add(new ObservedRecord(T, 0, 2, "x"));

    // Then read_uncommitted accepts it and read_committed names it
    assertThat(LedgerComparison.compare(ledger(), T, "java", Isolation.READ_UNCOMMITTED, read))
        .isEmpty();
    assertThat(LedgerComparison.compare(ledger(), T, "kcat", Isolation.READ_COMMITTED, read))
        .containsExactly("kcat (read_committed): orders-0 offset 2: aborted record x is visible");
  }

  @Test
  void aNeverCommittedRecordIsAProblemAtBothIsolationLevels() {
    List<ObservedRecord> read = exact();
    read.add(new ObservedRecord(T, 1, 1, "n"));
    for (Isolation isolation : Isolation.values()) {
      assertThat(LedgerComparison.compare(ledger(), T, "java", isolation, read))
          .singleElement()
          .asString()
          .contains("orders-1 offset 1", "never-committed record n is visible");
    }
  }

  @Test
  void aMissingRecordNamesPartitionOffsetAndWhatWasExpected() {
    List<ObservedRecord> read = exact();
    read.remove(1);
    assertThat(LedgerComparison.compare(ledger(), T, "java", Isolation.READ_COMMITTED, read))
        .containsExactly(
            "java (read_committed): orders-0 offset 1: expected committed record b, found nothing");
  }

  @Test
  void aRecordAtAnotherOffsetIsNamedWithBothOffsets() {
    // Given b was read at offset 2 instead of 1 (offsets not preserved)
    List<ObservedRecord> read = exact();
    read.set(1, new ObservedRecord(T, 0, 2, "b"));
    assertThat(LedgerComparison.compare(ledger(), T, "java", Isolation.READ_COMMITTED, read))
        .containsExactlyInAnyOrder(
            "java (read_committed): orders-0 offset 2: committed record b expected at orders-0"
                + " offset 1",
            "java (read_committed): orders-0 offset 1: expected committed record b, found nothing");
  }

  @Test
  void aDuplicateAndAnUnknownRecordAreBothProblems() {
    List<ObservedRecord> read = exact();
    read.add(new ObservedRecord(T, 1, 1, "c"));
    read.add(new ObservedRecord(T, 1, 2, "stranger"));
    List<String> problems =
        LedgerComparison.compare(ledger(), T, "java", Isolation.READ_COMMITTED, read);
    assertThat(problems)
        .contains(
            "java (read_committed): c is there 2 times, at [orders-1@0, orders-1@1]",
            "java (read_committed): orders-1 offset 2: unexpected record stranger (not in the"
                + " ledger)");
  }

  @Test
  void readersThatAgreeHaveNoProblemAndThoseThatDoNotNameTheRecords() {
    assertThat(LedgerComparison.agree("java", exact(), "kcat", exact())).isEmpty();
    List<ObservedRecord> kcat = exact();
    kcat.remove(0);
    assertThat(LedgerComparison.agree("java", exact(), "kcat", kcat))
        .containsExactly("java read, kcat did not: [orders-0@0=a]");
  }

  @Test
  void theLedgerRefusesTwoValuesAtOneOffset() {
    WriteLedger l = ledger();
    assertThatThrownBy(() -> l.committed(T, 0, 1, "other"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("orders-0 offset 1");
  }

  @Test
  void kcatLinesAreParsedIntoRecords() {
    assertThat(FailoverChecker.parseKcat(T, "0 0 a\n1 5 with space\n\n"))
        .containsExactly(
            new ObservedRecord(T, 0, 0, "a"), new ObservedRecord(T, 1, 5, "with space"));
  }

  @Test
  void aReportThatFailsSaysEveryProblem() {
    FailoverReport report = new FailoverReport("c", "records of [orders]", List.of("p1", "p2"));
    assertThat(report.ok()).isFalse();
    assertThatThrownBy(report::assertOk)
        .isInstanceOf(AssertionError.class)
        .hasMessage("c: records of [orders]: 2 problem(s)\n  - p1\n  - p2");
  }
}
