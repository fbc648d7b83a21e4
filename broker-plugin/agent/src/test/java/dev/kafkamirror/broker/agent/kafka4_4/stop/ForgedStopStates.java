package dev.kafkamirror.broker.agent.kafka4_4.stop;

import dev.kafkamirror.broker.core.stop.StopState;
import dev.kafkamirror.broker.core.stop.StopStateKey;
import dev.kafkamirror.broker.core.stop.StopStep;

/**
 * Well-formed stop-state records built with the plugin's own codec, as an attacker who read the
 * source would write them: for the forgery ITs.
 */
public final class ForgedStopStates {

  private ForgedStopStates() {}

  /** A record of the state topic: the partition the plugin would write it to, key and value. */
  public record Forged(int statePartition, byte[] key, byte[] value) {}

  /** A STOPPED record for a data partition, at {@code leaderEpoch}. */
  public static Forged stopped(
      String mirrorName,
      String topicId,
      String topic,
      int partition,
      int leaderEpoch,
      long offset,
      String sourceClusterId,
      int statePartitions) {
    StopStateKey key = new StopStateKey(mirrorName, topicId, partition);
    StopState state =
        new StopState(
            key,
            topic,
            leaderEpoch,
            1,
            StopStep.STOPPED,
            offset,
            offset,
            offset,
            0,
            offset,
            sourceClusterId,
            System.currentTimeMillis());
    return new Forged(
        StopStateStore.partitionOf(key, statePartitions),
        StopStateCodec.encodeKey(key, leaderEpoch),
        StopStateCodec.encodeValue(state));
  }
}
