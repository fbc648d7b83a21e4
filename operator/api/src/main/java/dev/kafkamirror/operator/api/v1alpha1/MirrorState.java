package dev.kafkamirror.operator.api.v1alpha1;

/** The desired state of a ClusterMirror. */
public enum MirrorState {
  Mirroring,
  Paused,
  Stopped
}
