package dev.kafkamirror.broker.agent.control;

import java.util.List;
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

  /**
   * Registers the partition as a mirror of {@code source} and starts fetching (on the leader).
   * Idempotent.
   */
  Map<String, Object> startMirroring(
      PartitionRef partition, String mirrorName, ControlRequests.MirrorSource source)
      throws PartitionOperationException;

  /**
   * Moves a mirror partition between states: {@code pause} (MIRRORING to PAUSED), {@code resume}
   * (PAUSED to MIRRORING), {@code remove-fetchers} (MIRRORING or PAUSED to STOPPING: no append is
   * in flight when it returns), {@code make-writable} (STOPPING to STOPPED, only when a barrier
   * follows the last mirrored batch). Each is idempotent.
   */
  Map<String, Object> transition(PartitionRef partition, String action)
      throws PartitionOperationException;

  /** The batched steps of the stop sequence. */
  enum StopCall {
    REMOVE_FETCHERS("remove-fetchers"),
    TRUNCATE("truncate"),
    PERSIST_OFFSETS("persist-offsets"),
    BARRIER("barrier"),
    MAKE_WRITABLE("make-writable");

    private final String path;

    StopCall(String path) {
      this.path = path;
    }

    /** The last path segment of the call, as in {@code /v1/stop/truncate}. */
    public String path() {
      return path;
    }

    /** Whether each partition of the call must name its source cluster id. */
    public boolean needsSourceClusterId() {
      return this == PERSIST_OFFSETS || this == BARRIER;
    }
  }

  /**
   * One step of the stop sequence for a batch of partitions; each partition succeeds or fails
   * alone, and every step is idempotent.
   */
  List<StepOutcome> stopStep(StopCall step, List<PartitionRef> partitions, long timeoutMs);
}
