package dev.kafkamirror.broker.core.producerstate;

/**
 * What the barrier rule needs to know of one record batch, read by the agent from Kafka's {@code
 * RecordBatch}.
 *
 * @param baseOffset the first offset of the batch
 * @param lastOffset the last offset of the batch
 * @param sizeInBytes the batch's size in the log, header included
 * @param producerId the producer id, or -1
 * @param isControl whether the batch is a control batch
 * @param isBarrier whether the batch is a {@code MIRROR_PID_RESET} control batch
 */
public record BatchSummary(
    long baseOffset,
    long lastOffset,
    int sizeInBytes,
    long producerId,
    boolean isControl,
    boolean isBarrier) {

  public BatchSummary {
    if (isBarrier && !isControl) {
      throw new IllegalArgumentException(
          "a MIRROR_PID_RESET barrier is a control batch; batch at offset "
              + baseOffset
              + " is not");
    }
  }

  /** Whether the batch feeds producer state (Kafka skips batches without a producer id). */
  public boolean hasProducerId() {
    return producerId >= 0;
  }
}
