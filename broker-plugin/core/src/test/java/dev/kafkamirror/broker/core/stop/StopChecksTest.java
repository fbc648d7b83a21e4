package dev.kafkamirror.broker.core.stop;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class StopChecksTest {

  @Test
  void noOpenTransactionLetsTheTruncationBeRecorded() {
    assertThat(StopChecks.openTransactionsAfterTruncation("orders-0", 0, 10L)).isEmpty();
  }

  @Test
  void anOpenTransactionRefusesTheTruncation() {
    assertThat(StopChecks.openTransactionsAfterTruncation("orders-0", 2, 10L))
        .get()
        .asString()
        .contains("orders-0")
        .contains("2 transaction(s) still open")
        .contains("offset 10");
  }

  @Test
  void anUnreadableCountIsNotZeroAndRefusesTheTruncation() {
    // Given the producer state could not be read (the count is -1)
    // Then the stop is refused rather than taken as "no open transaction"
    assertThat(StopChecks.openTransactionsAfterTruncation("orders-0", -1, 10L))
        .get()
        .asString()
        .contains("orders-0")
        .contains("cannot read the producer state")
        .contains("call truncate again");
  }
}
