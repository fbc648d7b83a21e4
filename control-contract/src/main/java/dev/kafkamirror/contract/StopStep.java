package dev.kafkamirror.contract;

/**
 * The durable stop progress a destination leader reports in {@code describe.stop.step}, in order.
 * The broker records each one in its stop-state topic when the step is done ({@link #TRUNCATING}
 * before the truncation it announces). A truncate call may answer {@link #OFFSETS_PERSISTED}: the
 * leader records the offsets with the truncation when it knows the partition's source.
 */
public enum StopStep {
  FETCHERS_REMOVED,
  TRUNCATING,
  TRUNCATED,
  OFFSETS_PERSISTED,
  BARRIER_WRITTEN,
  STOPPED;

  /** The step named {@code name}, or null for null or a name this contract does not know. */
  public static StopStep parse(String name) {
    for (StopStep step : values()) {
      if (step.name().equals(name)) {
        return step;
      }
    }
    return null;
  }
}
