package dev.kafkamirror.broker.agent.kafka4_4;

import dev.kafkamirror.broker.agent.kafka4_4.mirror.MirrorEntry;
import dev.kafkamirror.broker.agent.kafka4_4.mirror.MirrorRegistry;
import dev.kafkamirror.broker.agent.kafka4_4.mirror.MirrorState;
import dev.kafkamirror.broker.agent.kafka4_4.stop.StopStateStore;
import dev.kafkamirror.broker.core.stop.StopState;
import dev.kafkamirror.broker.core.stop.StopStateKey;
import dev.kafkamirror.broker.core.stop.StopStep;
import java.util.Map;
import java.util.Optional;
import kafka.cluster.Partition;
import kafka.server.ReplicaManager;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.Uuid;
import scala.Option;

/**
 * Brings this broker's mirror registrations up to the durable stop state: a partition whose stop
 * has begun (on another broker, or before a restart) stops fetching here too, and one recorded
 * STOPPED becomes writable here too. It never moves a partition backwards, and it makes a partition
 * writable only from a recorded STOPPED, which the leader writes only once the barrier is on every
 * in-sync replica.
 *
 * <p>Runs on the stop-state reader thread after every round that caught up, and in the fetcher
 * before a leader's first append in each leader epoch.
 */
public final class StopStateAdoption {

  private StopStateAdoption() {}

  /** Adopts the durable state for every registered partition. */
  public static void adoptAll(StopStateStore store) {
    // One registry-file write for the whole round (adoptions, source topic ids, stop steps).
    MirrorRegistry.instance()
        .writingOnceAfter(
            () -> {
              adoptAllNow(store);
              return null;
            });
  }

  private static void adoptAllNow(StopStateStore store) {
    // Registrations of destination topics that were deleted go first: a membership of the topic
    // now under the name is then adopted afresh, tied to its id.
    dev.kafkamirror.broker.agent.kafka4_4.mirror.DeletedDestinationTopics.removeAll();
    // Registrations first, from the cluster's mirror membership, so that the stop state below
    // applies to adopted partitions too.
    dev.kafkamirror.broker.agent.kafka4_4.mirror.ClusterMembership.adoptAll(store);
    java.util.List<TopicPartition> toStopping = new java.util.ArrayList<>();
    java.util.List<TopicPartition> toStopped = new java.util.ArrayList<>();
    for (Map.Entry<TopicPartition, MirrorEntry> e : MirrorRegistry.instance().all().entrySet()) {
      if (e.getValue().state() == MirrorState.STOPPED) {
        continue;
      }
      durableStep(store, e.getKey(), e.getValue())
          .ifPresent(step -> (step == StopStep.STOPPED ? toStopped : toStopping).add(e.getKey()));
    }
    MirrorRegistry.instance().advanceAll(toStopping, MirrorState.STOPPING);
    MirrorRegistry.instance().advanceAll(toStopped, MirrorState.STOPPED);
  }

  /**
   * Adopts the durable state for one partition.
   *
   * @return true when a stop has begun for it (it must not be fetched)
   */
  public static boolean adopt(StopStateStore store, TopicPartition tp, MirrorEntry entry) {
    if (entry.state() == MirrorState.STOPPED) {
      return true;
    }
    Optional<StopStep> step = durableStep(store, tp, entry);
    if (step.isEmpty()) {
      return false;
    }
    MirrorRegistry.instance()
        .advanceTo(tp, step.get() == StopStep.STOPPED ? MirrorState.STOPPED : MirrorState.STOPPING);
    return true;
  }

  /**
   * The recorded stop step of a local mirror partition, if its stop has begun; a recorded STOPPED
   * counts only once this replica's reset is verified ({@link ResetCheck}), until then the replica
   * follows it as STOPPING and stays read-only.
   */
  private static Optional<StopStep> durableStep(
      StopStateStore store, TopicPartition tp, MirrorEntry entry) {
    Optional<ReplicaManager> rm = BrokerHandles.replicaManager();
    if (rm.isEmpty()) {
      return Optional.empty();
    }
    Option<Partition> partition = rm.get().onlinePartition(tp);
    if (partition.isEmpty() || partition.get().log().isEmpty()) {
      return Optional.empty();
    }
    Optional<Uuid> topicId = partition.get().log().get().topicId();
    if (topicId.isEmpty()) {
      return Optional.empty();
    }
    Optional<StopState> durable =
        store.get(new StopStateKey(entry.mirrorName(), topicId.get().toString(), tp.partition()));
    if (durable.isPresent()
        && durable.get().step() == StopStep.STOPPED
        && ResetCheck.refusal(tp, partition.get().log().get(), durable.get().barrierOffset(), false)
            .isPresent()) {
      return Optional.of(StopStep.BARRIER_WRITTEN);
    }
    return durable.map(StopState::step);
  }
}
