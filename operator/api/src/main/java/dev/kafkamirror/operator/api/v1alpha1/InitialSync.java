package dev.kafkamirror.operator.api.v1alpha1;

/** How a destination that already holds data is brought in line with the source first. */
public enum InitialSync {
  /**
   * Failback: the destination (the former source, A) is truncated, partition by partition, to the
   * last offset it and the source (the cluster it failed over to, B) agree on, read from B's
   * recorded stop of the earlier mirror and checked by the plugin against A's own leader-epoch
   * history; then A mirrors B read-only. Needs spec.source.control (B's plugin control endpoint).
   */
  TruncateAndRestore
}
