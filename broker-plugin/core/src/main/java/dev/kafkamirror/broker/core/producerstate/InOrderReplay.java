package dev.kafkamirror.broker.core.producerstate;

import java.util.function.Function;

/**
 * Replays batches into producer state in log order, resetting at every barrier.
 *
 * <p>Kafka rebuilds producer state from a whole segment at once ({@code loadProducersFromRecords}):
 * it collects the updates of every batch and applies them at the end. With a barrier inside, that
 * would resurrect the producers of batches before the barrier. This replay flushes what it
 * collected before each barrier, then resets, then goes on, so that:
 *
 * <ul>
 *   <li>no producer of a batch before a barrier survives it;
 *   <li>every producer of a batch after the last barrier is present.
 * </ul>
 *
 * <p>Batches without a producer id are skipped, as Kafka skips them. Stateless.
 */
public final class InOrderReplay {

  private InOrderReplay() {}

  /**
   * Replays {@code batches} into {@code sink}.
   *
   * @return the number of barriers met
   */
  public static <B> int replay(
      Iterable<B> batches, Function<B, BatchSummary> summarize, ReplaySink<B> sink) {
    int barriers = 0;
    for (B batch : batches) {
      BatchSummary summary = summarize.apply(batch);
      if (summary.isBarrier()) {
        sink.flushCollected();
        sink.resetAtBarrier(summary.baseOffset());
        barriers++;
      } else if (summary.hasProducerId()) {
        sink.collect(batch);
      }
    }
    sink.flushCollected();
    return barriers;
  }
}
