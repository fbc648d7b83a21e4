package dev.kafkamirror.broker.core.producerstate;

import java.util.List;

/**
 * The barrier rule: once a {@code MIRROR_PID_RESET} barrier is in a partition's log at offset
 * {@code b}, the partition's producer state holds no producer from any batch below {@code b}.
 *
 * <p>Invariants the callers keep:
 *
 * <ul>
 *   <li>The reset runs only after the barrier batch is really in the log (after a successful
 *       append, or when a recovery or rebuild reads it from a segment), never before: a failed
 *       append must leave state untouched.
 *   <li>Updates of batches before the barrier are applied before the reset, updates of batches
 *       after it after the reset (see {@link InOrderReplay} and {@link BarrierSplit}).
 *   <li>The reset is idempotent: a second barrier on an already empty state changes nothing but is
 *       harmless.
 * </ul>
 *
 * <p>Open transactions. The stop sequence truncates to the last stable offset before it writes a
 * barrier, so a barrier written by this plugin never meets an open transaction, and replicas and
 * mirrors of that log do not either. A barrier written by anything else may. Such transactions can
 * never be completed any more (their producer is gone with the reset), so leaving them open would
 * pin the last stable offset forever, and dropping them silently would expose never-committed
 * records to read_committed consumers. They are therefore recorded as aborted at the barrier's
 * offset in the transaction index, exactly as an ABORT marker would, before the reset; the outcome
 * lists them so that the broker reports them.
 *
 * <p>Stateless and thread-safe; the caller holds whatever lock guards the partition's producer
 * state.
 */
public final class ProducerStateReset {

  private ProducerStateReset() {}

  /** Applies the barrier rule for a barrier at {@code barrierOffset}. */
  public static ResetOutcome apply(ProducerStateTarget target, long barrierOffset) {
    List<OpenTransaction> open = List.copyOf(target.openTransactions());
    for (OpenTransaction transaction : open) {
      if (transaction.firstOffset() >= barrierOffset) {
        throw new IllegalStateException(
            "open transaction of producerId "
                + transaction.producerId()
                + " starts at offset "
                + transaction.firstOffset()
                + ", not below the barrier at offset "
                + barrierOffset
                + ": producer state is ahead of the barrier");
      }
      target.abortInTransactionIndex(transaction, barrierOffset);
    }
    int before = target.producerCount();
    target.clearProducers();
    return new ResetOutcome(barrierOffset, before, open);
  }
}
