package dev.kafkamirror.broker.agent.kafka4_4.mirror;

/** Where a destination partition stands as a mirror. */
public enum MirrorState {
  /** Fetchers copy the source partition as-is; client writes are refused. */
  MIRRORING,
  /** Fetchers removed, still read-only; resume adds them back. */
  PAUSED,
  /** Fetchers removed for a failover; still read-only until made writable. */
  STOPPING,
  /** Writable: the partition is no longer a mirror. */
  STOPPED,
  /**
   * Registered for a failback (initialSync TRUNCATE_AND_RESTORE): read-only and not fetched until
   * the leader has truncated to the alignment offset; then MIRRORING.
   */
  ALIGNING
}
