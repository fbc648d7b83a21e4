package dev.kafkamirror.broker.core.producerstate;

/**
 * The producer-state operations an in-order replay needs; the agent implements them on Kafka's
 * {@code ProducerStateManager}.
 *
 * @param <B> the batch type
 */
public interface ReplaySink<B> {

  /**
   * Collects the producer update of {@code batch} (Kafka's {@code updateProducers}), not yet
   * applied.
   */
  void collect(B batch);

  /** Applies every collected update and completed transaction, in order. */
  void flushCollected();

  /**
   * Resets producer state at a barrier found at {@code barrierOffset}; collected updates were
   * flushed.
   */
  void resetAtBarrier(long barrierOffset);
}
