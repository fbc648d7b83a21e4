package dev.kafkamirror.operator.core;

/** Where a partition stands, as reported in status (partition counts and list). */
public enum PartitionPhase {
  /** Could not be observed (no leader, broker unreachable, plugin not ready). */
  UNKNOWN,
  /** Refused or broken: the message says why. */
  FAILED,
  /** Not (yet) registered as a mirror on the destination. */
  NOT_MIRRORED,
  /**
   * Registered for a failback: read-only, its log being truncated to the offset both clusters agree
   * on before it mirrors.
   */
  ALIGNING,
  MIRRORING,
  PAUSED,
  STOPPING,
  STOPPED;

  /** For ordering the bounded partition list: the least advanced come first. */
  public int advancement() {
    return ordinal();
  }
}
