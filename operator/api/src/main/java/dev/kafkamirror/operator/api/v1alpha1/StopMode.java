package dev.kafkamirror.operator.api.v1alpha1;

/** How a stop proceeds. */
public enum StopMode {
  /** Stop now, whatever the lag: the disaster case, where the source may be gone. */
  Immediate,
  /**
   * A planned switchover: wait until the lag is zero, at most the timeout; past it, report and do
   * not stop.
   */
  AfterCatchUp
}
