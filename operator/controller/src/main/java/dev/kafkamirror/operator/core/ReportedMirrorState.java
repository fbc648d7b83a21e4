package dev.kafkamirror.operator.core;

/**
 * Where a destination partition stands as a mirror, as its leader reports it in {@code
 * describe.mirror.state}: the core's reading of the wire value, so that planning depends on nothing
 * but the JDK and the API. The names are the control contract's {@code MirrorState} names, in the
 * same order (a unit test in the control package holds them to it).
 */
public enum ReportedMirrorState {
  /** Fetchers copy the source partition as-is; client writes are refused. */
  MIRRORING,
  /** Fetchers removed, still read-only. */
  PAUSED,
  /** Fetchers removed for a failover; still read-only until made writable. */
  STOPPING,
  /** Writable: the partition is no longer a mirror. */
  STOPPED,
  /** Fetching halted for good: the source reported another cluster id than the registered one. */
  SOURCE_MISMATCH,
  /**
   * Fetching halted for good: mirroring on could no longer keep the partition identical to its
   * source; {@code describe.mirror.failedReason} says why (e.g. {@code SourceTopicRecreated}).
   */
  FAILED,
  /**
   * Registered for a failback (truncate-and-restore): read-only and not fetched until the leader
   * has truncated its log to the alignment offset; then MIRRORING.
   */
  ALIGNING;

  /** The state named {@code name}, or null for null or a name the operator does not know. */
  public static ReportedMirrorState parse(String name) {
    for (ReportedMirrorState s : values()) {
      if (s.name().equals(name)) {
        return s;
      }
    }
    return null;
  }
}
