package dev.kafkamirror.broker.core.producerstate;

import java.util.List;

/**
 * Where to cut a multi-batch append so that a barrier is the last batch of the append that contains
 * it.
 *
 * <p>Why: Kafka's append path collects the producer updates of every batch of one append and
 * applies them all after the write. A barrier in the middle would be applied out of order:
 * producers of batches before it would be re-added after the reset. Cutting right after the first
 * barrier makes "clear after a successful append whose last batch is a barrier" exact, and the
 * replica fetcher simply fetches the remainder from the next offset.
 *
 * @param batchesToKeep how many leading batches to append now
 * @param bytesToKeep their size in bytes
 * @param cut whether anything was cut off
 */
public record BarrierSplit(int batchesToKeep, int bytesToKeep, boolean cut) {

  /** The split for {@code batches} in log order. */
  public static BarrierSplit of(List<BatchSummary> batches) {
    int bytes = 0;
    for (int i = 0; i < batches.size(); i++) {
      BatchSummary batch = batches.get(i);
      bytes += batch.sizeInBytes();
      if (batch.isBarrier()) {
        return new BarrierSplit(i + 1, bytes, i + 1 < batches.size());
      }
    }
    return new BarrierSplit(batches.size(), bytes, false);
  }
}
