package dev.kafkamirror.operator.core;

/**
 * What the spec asks for, reduced to what planning needs.
 *
 * @param target the desired state: MIRRORING, PAUSED or STOPPED (a deletion with policy
 *     StopMirroring asks for STOPPED)
 * @param mirrorName the name the partitions are registered under on the destination
 * @param sourceClusterId the cluster id the spec expects of the source
 * @param afterCatchUp whether a stop waits for zero lag first
 * @param failback spec.initialSync TruncateAndRestore: a partition whose earlier mirror (another
 *     name) completed its stop on this destination is started again (as a failback start, only with
 *     a proven alignment) instead of refused
 */
public record MirrorIntent(
    Target target,
    String mirrorName,
    String sourceClusterId,
    boolean afterCatchUp,
    boolean failback) {

  /** Not a failback. */
  public MirrorIntent(
      Target target, String mirrorName, String sourceClusterId, boolean afterCatchUp) {
    this(target, mirrorName, sourceClusterId, afterCatchUp, false);
  }

  /** The desired state. */
  public enum Target {
    MIRRORING,
    PAUSED,
    STOPPED
  }
}
