package dev.kafkamirror.broker.agent.kafka4_4.mirror;

/**
 * The plugin on this broker, over every mirror: {@code
 * kafka.server:type=ClusterMirror,name=Broker}.
 */
public interface ClusterMirrorBrokerMXBean {

  /** MIRROR_PID_RESET barriers this broker appended as a leader (stop steps and plain barriers). */
  long getBarrierWritesTotal();

  /**
   * Producer-state resets the barrier rule applied in this broker (leader appends, replication,
   * mirror appends, recovery and rebuilds).
   */
  long getProducerStateResetsTotal();

  /**
   * Verifications that found a replica's producer state not reset by its barrier (each new failure
   * once; the partition stays read-only on that replica).
   */
  long getProducerStateResetFailuresTotal();

  /** Barriers met whose value was malformed (reset anyway). */
  long getMalformedBarrierValuesTotal();

  /** Mirrors with at least one partition registered on this broker (one Mirror MBean each). */
  int getMirrors();

  /**
   * Whole writes of this broker's mirror registry file (each holds every registration, under the
   * registry's lock): one per start call, fetcher round or stop-state read round that changed a
   * registration. A rate that follows the partition count points at a per-partition write.
   */
  long getRegistryFileWritesTotal();

  /** Time spent writing the registry file, in milliseconds. */
  long getRegistryFileWriteMsTotal();
}
