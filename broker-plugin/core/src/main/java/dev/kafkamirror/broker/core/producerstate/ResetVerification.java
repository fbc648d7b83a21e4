package dev.kafkamirror.broker.core.producerstate;

import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;

/**
 * Whether a replica's producer state really was reset by the {@code MIRROR_PID_RESET} barrier
 * before the partition turns writable on it.
 *
 * <p>The barrier rule (see {@link ProducerStateReset}) leaves no producer from any batch below the
 * barrier. A replica whose reset failed (it is only logged on the append path, which must never
 * throw into the broker) still holds the source's producers, and a destination client that draws a
 * colliding producer id would have its writes judged against the source's sequence numbers. So a
 * partition becomes writable on a replica only when this check finds nothing from before the
 * barrier:
 *
 * <ul>
 *   <li>no producer entry whose last data batch is below the barrier;
 *   <li>while no client can have written since the barrier ({@code noWritesSinceBarrier}: the
 *       leader before the partition turns writable), no producer entry at all, also none without a
 *       data batch (last data offset -1: a transactional producer of transaction version 2 whose
 *       commit or abort bumped its epoch, which clears its batches). Once clients may have written,
 *       such an entry cannot be placed before or after the barrier (a local transaction committed
 *       after it looks the same), so it is not counted;
 *   <li>no open transaction that began below the barrier.
 * </ul>
 *
 * <p>Entries of producers that wrote after the barrier (a partition already writable on its leader,
 * replicated here) are fine.
 *
 * <p>Pure and thread-safe.
 */
public final class ResetVerification {

  private ResetVerification() {}

  /**
   * One entry of a replica's producer state.
   *
   * @param producerId the producer
   * @param lastDataOffset the offset of its last data batch, -1 when it has none
   */
  public record ProducerEntry(long producerId, long lastDataOffset) {}

  /**
   * Why {@code partition} must not turn writable on {@code brokerId}; empty when its producer state
   * holds nothing from before the barrier at {@code barrierOffset}.
   */
  public static Optional<String> refusal(
      String partition,
      int brokerId,
      long barrierOffset,
      boolean noWritesSinceBarrier,
      Collection<ProducerEntry> producers,
      Collection<OpenTransaction> openTransactions) {
    List<ProducerEntry> stale = new ArrayList<>();
    for (ProducerEntry e : producers) {
      if (e.lastDataOffset() < barrierOffset && (e.lastDataOffset() >= 0 || noWritesSinceBarrier)) {
        stale.add(e);
      }
    }
    stale.sort(Comparator.comparingLong(ProducerEntry::producerId));
    List<OpenTransaction> open = new ArrayList<>();
    for (OpenTransaction t : openTransactions) {
      if (t.firstOffset() < barrierOffset) {
        open.add(t);
      }
    }
    open.sort(Comparator.comparingLong(OpenTransaction::producerId));
    if (stale.isEmpty() && open.isEmpty()) {
      return Optional.empty();
    }
    StringBuilder m = new StringBuilder();
    m.append(partition)
        .append(": the MIRROR_PID_RESET barrier at offset ")
        .append(barrierOffset)
        .append(" did not reset the producer state of the replica on broker ")
        .append(brokerId)
        .append(":");
    if (!stale.isEmpty()) {
      m.append(" producer ids ")
          .append(stale.stream().map(ProducerEntry::producerId).toList())
          .append(" with last data offsets ")
          .append(stale.stream().map(ProducerEntry::lastDataOffset).toList())
          .append(" from before the barrier remain");
    }
    if (!open.isEmpty()) {
      m.append(stale.isEmpty() ? "" : ";")
          .append(" transactions of producer ids ")
          .append(open.stream().map(OpenTransaction::producerId).toList())
          .append(" opened at offsets ")
          .append(open.stream().map(OpenTransaction::firstOffset).toList())
          .append(" are still open");
    }
    m.append(
        ". The partition stays read-only on this replica. The broker log says why the reset failed"
            + " ('could not reset producer state'); rebuild this replica's producer state (reassign"
            + " the replica away and back) or move leadership to a replica that passed this check,"
            + " then call make-writable again");
    return Optional.of(m.toString());
  }
}
