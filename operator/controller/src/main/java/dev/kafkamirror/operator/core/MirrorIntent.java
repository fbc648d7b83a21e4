package dev.kafkamirror.operator.core;

/**
 * What the spec asks for, reduced to what planning needs.
 *
 * @param target the desired state: MIRRORING, PAUSED or STOPPED (a deletion with policy
 *     StopMirroring asks for STOPPED)
 * @param mirrorName the name the partitions are registered under on the destination
 * @param sourceClusterId the cluster id the spec expects of the source
 * @param afterCatchUp whether a stop waits for zero lag first
 */
public record MirrorIntent(
    Target target, String mirrorName, String sourceClusterId, boolean afterCatchUp) {

  /** The desired state. */
  public enum Target {
    MIRRORING,
    PAUSED,
    STOPPED
  }
}
