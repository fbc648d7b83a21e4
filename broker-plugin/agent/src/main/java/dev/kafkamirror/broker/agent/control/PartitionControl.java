package dev.kafkamirror.broker.agent.control;

import java.util.Map;

/**
 * The per-partition operations behind the control endpoint; implemented for each supported Kafka
 * version.
 */
public interface PartitionControl {

  /** Role, offsets and producer state of a local replica. */
  Map<String, Object> describe(PartitionRef partition) throws PartitionOperationException;

  /**
   * Appends a MIRROR_PID_RESET barrier naming {@code partition.sourceClusterId()} on the local
   * leader and waits, at most {@code timeoutMs}, until it is below the high watermark (on every
   * in-sync replica). Idempotent: when the log already ends with a barrier of the same source, its
   * offset is returned and nothing is written.
   */
  Map<String, Object> appendBarrier(PartitionRef partition, long timeoutMs)
      throws PartitionOperationException;
}
