package dev.kafkamirror.broker.agent.kafka4_4;

import java.util.Optional;
import java.util.concurrent.atomic.AtomicReference;
import kafka.server.ReplicaManager;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.server.purgatory.TopicPartitionOperationKey;

/**
 * The broker objects the control plane works through, captured when the broker creates them.
 * Thread-safe.
 */
public final class BrokerHandles {

  private static final AtomicReference<ReplicaManager> REPLICA_MANAGER = new AtomicReference<>();

  private BrokerHandles() {}

  public static void replicaManagerCreated(Object replicaManager) {
    REPLICA_MANAGER.set((ReplicaManager) replicaManager);
  }

  /**
   * Lets fetch requests parked on {@code tp} (followers waiting for data) answer now, as Kafka does
   * after its own appends; without it a follower sees an append the plugin made only when its fetch
   * wait ({@code replica.fetch.wait.max.ms}) runs out.
   */
  public static void completeDelayedFetches(TopicPartition tp) {
    ReplicaManager rm = REPLICA_MANAGER.get();
    if (rm != null) {
      rm.delayedFetchPurgatory().checkAndComplete(new TopicPartitionOperationKey(tp));
    }
  }

  /** The broker's ReplicaManager, once it exists. */
  public static Optional<ReplicaManager> replicaManager() {
    return Optional.ofNullable(REPLICA_MANAGER.get());
  }
}
