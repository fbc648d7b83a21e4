package dev.kafkamirror.operator.control;

import dev.kafkamirror.contract.ControlRequest;
import dev.kafkamirror.operator.core.Action;
import dev.kafkamirror.operator.core.PartitionKey;
import java.util.List;
import java.util.Map;

/**
 * The control endpoints of the destination's brokers, as the reconciler uses them: describe, and
 * one action for a batch of partitions on one broker. {@link ControlClient} is the real one (HTTP
 * or HTTPS, the contract's bodies); unit tests of the reconciler use a fake.
 *
 * <p>Never throws for a broker's failure: every partition of the call gets a {@link ControlResult},
 * an error code and a message naming the broker and the partition when it failed. Implementations
 * are thread-safe (one serves every reconcile, brokers are called in parallel).
 */
public interface BrokerControl {

  /** Describes {@code partitions} on broker {@code brokerId} at {@code address}. */
  List<ControlResult> describe(
      int brokerId, String address, ControlClient.Channel channel, List<PartitionKey> partitions);

  /**
   * Sends one action for {@code partitions} to one broker.
   *
   * @param sourceClusterId sent with every partition of the calls that require it
   * @param mirrorName and {@code source}: for START_MIRRORING only
   * @throws IllegalArgumentException for an action that makes no call (NONE, WAIT)
   */
  List<ControlResult> act(
      Action action,
      int brokerId,
      String address,
      ControlClient.Channel channel,
      List<PartitionKey> partitions,
      String sourceClusterId,
      String mirrorName,
      ControlRequest.MirrorSource source);

  /**
   * What turns a start into a failback start ({@code initialSync TRUNCATE_AND_RESTORE}).
   *
   * @param alignTo each partition's alignment (the new source's recorded stop); a start of a
   *     partition not in it is never sent
   * @param dryRun plan and report only
   */
  record Failback(Map<PartitionKey, ControlRequest.AlignTo> alignTo, boolean dryRun) {
    public Failback {
      alignTo = Map.copyOf(alignTo);
    }
  }

  /**
   * Sends a failback start ({@code /v1/mirror/start} with {@code initialSync TRUNCATE_AND_RESTORE}
   * and each partition's {@code alignTo}) to one broker; the answers carry {@code alignment}.
   * Abstract on purpose: a wrapper (metrics, tests) that did not pass it on would turn every
   * failback into an error at run time instead of a compile error.
   */
  List<ControlResult> startFailback(
      int brokerId,
      String address,
      ControlClient.Channel channel,
      List<PartitionKey> partitions,
      String sourceClusterId,
      String mirrorName,
      ControlRequest.MirrorSource source,
      Failback failback);
}
