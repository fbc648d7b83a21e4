package dev.kafkamirror.broker.agent.kafka4_4;

import java.util.Optional;
import java.util.concurrent.atomic.AtomicReference;
import kafka.server.ReplicaManager;

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

  /** The broker's ReplicaManager, once it exists. */
  public static Optional<ReplicaManager> replicaManager() {
    return Optional.ofNullable(REPLICA_MANAGER.get());
  }
}
