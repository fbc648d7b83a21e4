package dev.kafkamirror.contract;

/** Where a destination partition stands as a mirror ({@code describe.mirror.state}). */
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
   * Describe only: fetching halted for good because the source reported another cluster id than the
   * one the mirror was registered with; {@code registeredState} holds the registration's state.
   */
  SOURCE_MISMATCH,
  /**
   * Describe only: fetching halted for good because mirroring on could no longer keep the partition
   * identical to its source; {@code failedReason} names why (a {@link MirrorFailure}), {@code
   * registeredState} holds the registration's state. The partition stays read-only; a stop
   * (failover) still works and keeps what was mirrored.
   */
  FAILED,
  /**
   * Registered for a failback ({@link InitialSync#TRUNCATE_AND_RESTORE}): read-only and not fetched
   * until the leader has truncated its log to the alignment offset; then MIRRORING.
   */
  ALIGNING;

  /** The state named {@code name}, or null for null or a name this contract does not know. */
  public static MirrorState parse(String name) {
    for (MirrorState s : values()) {
      if (s.name().equals(name)) {
        return s;
      }
    }
    return null;
  }
}
