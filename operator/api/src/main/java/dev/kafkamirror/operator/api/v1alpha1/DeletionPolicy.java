package dev.kafkamirror.operator.api.v1alpha1;

/** What deleting a ClusterMirror does to its partitions. */
public enum DeletionPolicy {
  /** Nothing: mirrors stay read-only, stopped partitions stay writable. */
  Retain,
  /** Fail over first, exactly as {@code state: Stopped}, then let the resource go. */
  StopMirroring
}
