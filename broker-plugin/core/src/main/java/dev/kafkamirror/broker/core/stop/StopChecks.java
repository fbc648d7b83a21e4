package dev.kafkamirror.broker.core.stop;

import java.util.Optional;

/**
 * Preconditions of stop steps that the agent reads from the broker and decides here. Pure and
 * thread-safe.
 */
public final class StopChecks {

  private StopChecks() {}

  /**
   * Why the truncate step must not record TRUNCATED: transactions are still open after the
   * truncation to {@code targetOffset}, or their number could not be read ({@code openTransactions}
   * negative: the producer state changed during every read). Unknown is not zero: a transaction
   * left open under the barrier would be force-aborted there and the partition could not prove that
   * the stop cut at a stable offset.
   */
  public static Optional<String> openTransactionsAfterTruncation(
      String partition, int openTransactions, long targetOffset) {
    if (openTransactions == 0) {
      return Optional.empty();
    }
    if (openTransactions < 0) {
      return Optional.of(
          partition
              + ": cannot read the producer state after truncating to offset "
              + targetOffset
              + " (it changed during every read), so the stop cannot prove that no transaction is"
              + " open; call truncate again");
    }
    return Optional.of(
        partition
            + ": "
            + openTransactions
            + " transaction(s) still open after truncating to offset "
            + targetOffset);
  }
}
