package dev.kafkamirror.operator.api.v1alpha1;

/**
 * The observed phase of a ClusterMirror ({@code status.phase}): where its partitions are, as one
 * word for {@code kubectl get} and dashboards. The conditions say the same in detail; the phase is
 * derived from them and never disagrees (Failed exactly when Stalled is True, Stopped exactly when
 * Stopped is True).
 */
public enum MirrorPhase {
  /** Nothing observed yet (first visit), or no partition selected. */
  Pending,
  /** Mirrors are being started or resumed; not every partition is MIRRORING yet. */
  Starting,
  /** Every partition is MIRRORING, the source's cluster id verified. */
  Mirroring,
  /** Partitions are being paused. */
  Pausing,
  /** Every partition is PAUSED. */
  Paused,
  /** A partition is aligning for a failback (read-only, truncating); the rest waits for it. */
  Aligning,
  /** The stop (failover) runs: catch-up, fetcher removal, truncation, barrier, writable. */
  Stopping,
  /** Every partition is STOPPED: writable behind its MIRROR_PID_RESET barrier. */
  Stopped,
  /** Progress needs a human (the Stalled condition is True; its reason and message say why). */
  Failed
}
