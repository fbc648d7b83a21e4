package dev.kafkamirror.broker.agent.kafka4_4;

import dev.kafkamirror.broker.agent.control.PartitionOperationException;
import dev.kafkamirror.broker.agent.control.PartitionRef;
import dev.kafkamirror.broker.agent.kafka4_4.mirror.MirrorEntry;
import dev.kafkamirror.broker.agent.kafka4_4.mirror.MirrorRegistry;
import dev.kafkamirror.broker.agent.kafka4_4.mirror.MirrorState;
import dev.kafkamirror.broker.agent.stop.StopPartitions;
import dev.kafkamirror.broker.agent.stop.StopTarget;
import dev.kafkamirror.broker.core.stop.StopStateKey;
import dev.kafkamirror.broker.core.stop.rules.LocalState;
import dev.kafkamirror.contract.PartitionError.Code;
import java.util.List;
import kafka.cluster.Partition;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.storage.internals.log.UnifiedLog;

/** {@link StopPartitions} over this Kafka 4.4 broker's partitions and its mirror registry. */
final class KafkaStopPartitions implements StopPartitions {

  private final MirrorRegistry registry;

  KafkaStopPartitions(MirrorRegistry registry) {
    this.registry = registry;
  }

  @Override
  public StopTarget resolve(PartitionRef ref, boolean requireLeader)
      throws PartitionOperationException {
    TopicPartition tp = new TopicPartition(ref.topic(), ref.partition());
    Partition partition = KafkaPartitionControl.localPartition(tp);
    if (partition.log().isEmpty()) {
      throw new PartitionOperationException(
          Code.UNKNOWN_PARTITION, tp + " has no local log on this broker");
    }
    UnifiedLog log = partition.log().get();
    MirrorEntry entry =
        registry
            .entry(tp)
            .orElseThrow(
                () ->
                    new PartitionOperationException(
                        Code.INVALID_STATE,
                        tp
                            + " is not a mirror on this broker; the stop steps apply to mirror partitions"));
    Uuid topicId =
        log.topicId()
            .orElseThrow(
                () ->
                    new PartitionOperationException(
                        Code.BROKER_NOT_READY, tp + " has no topic id yet"));
    if (requireLeader && !partition.isLeader()) {
      throw new PartitionOperationException(
          Code.NOT_LEADER,
          "this broker is not the leader of "
              + tp
              + " (leader "
              + (partition.leaderReplicaIdOpt().isDefined()
                  ? partition.leaderReplicaIdOpt().get()
                  : "none")
              + "); call the leader");
    }
    return new KafkaStopTarget(
        ref,
        tp,
        partition,
        log,
        entry,
        new StopStateKey(entry.mirrorName(), topicId.toString(), tp.partition()));
  }

  @Override
  public boolean isMirror(PartitionRef ref) {
    return registry.entry(new TopicPartition(ref.topic(), ref.partition())).isPresent();
  }

  @Override
  public void advanceAll(List<StopTarget> targets, LocalState state) {
    registry.advanceAll(
        targets.stream().map(t -> ((KafkaStopTarget) t).tp()).toList(),
        MirrorState.valueOf(state.name()));
  }
}
