package dev.kafkamirror.broker.agent.control;

import dev.kafkamirror.contract.ControlCall;
import dev.kafkamirror.contract.ControlRequest;
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
   * Runs the plain starts of one call ({@code work}) so that the broker records them durably once,
   * before the call answers, instead of once per partition. The default runs {@code work} as it is.
   */
  default <T> T startsOfOneCall(java.util.function.Supplier<T> work) {
    return work.get();
  }

  /**
   * Registers the partition as a mirror of {@code source} and starts fetching (on the leader).
   * Idempotent.
   */
  Map<String, Object> startMirroring(
      PartitionRef partition, String mirrorName, ControlRequest.MirrorSource source)
      throws PartitionOperationException;

  /**
   * Registers the partition as a mirror of {@code source} after bringing a non-empty log in line
   * with it as {@code initialSync} says (null: as {@link #startMirroring(PartitionRef, String,
   * ControlRequest.MirrorSource)}); with {@code dryRun} only plans and reports. Idempotent.
   */
  default Map<String, Object> startMirroring(
      PartitionRef partition,
      String mirrorName,
      ControlRequest.MirrorSource source,
      dev.kafkamirror.contract.InitialSync initialSync,
      boolean dryRun)
      throws PartitionOperationException {
    if (initialSync == null) {
      return startMirroring(partition, mirrorName, source);
    }
    throw new PartitionOperationException(
        dev.kafkamirror.contract.PartitionError.Code.INVALID_STATE,
        partition.key() + ": this broker does not support initialSync " + initialSync);
  }

  /**
   * Moves a mirror partition between states: {@link ControlCall#PAUSE} (MIRRORING to PAUSED) or
   * {@link ControlCall#RESUME} (PAUSED to MIRRORING); the stop sequence moves it on through {@link
   * #stopStep}. Each is idempotent.
   */
  Map<String, Object> transition(PartitionRef partition, ControlCall action)
      throws PartitionOperationException;

  /** The batched steps of the stop sequence. */
  enum StopCall {
    REMOVE_FETCHERS(ControlCall.REMOVE_FETCHERS),
    TRUNCATE(ControlCall.TRUNCATE),
    PERSIST_OFFSETS(ControlCall.PERSIST_OFFSETS),
    BARRIER(ControlCall.BARRIER),
    MAKE_WRITABLE(ControlCall.MAKE_WRITABLE);

    private final ControlCall call;

    StopCall(ControlCall call) {
      this.call = call;
    }

    /** The contract's call of this step. */
    public ControlCall call() {
      return call;
    }

    /** The call's path, as in {@code /v1/stop/truncate}. */
    public String path() {
      return call.path();
    }

    /** Whether each partition of the call must name its source cluster id. */
    public boolean needsSourceClusterId() {
      return call.sourceClusterIdRequired();
    }
  }

  /**
   * One step of the stop sequence for a batch of partitions; each partition succeeds or fails
   * alone, and every step is idempotent.
   */
  List<StepOutcome> stopStep(StopCall step, List<PartitionRef> partitions, long timeoutMs);
}
