package dev.kafkamirror.operator.core;

/**
 * The durable stop progress a destination leader reports in {@code describe.stop.step}, in order.
 * The broker writes each one to its stop-state topic when the step is done.
 */
public enum StopStep {
  FETCHERS_REMOVED,
  TRUNCATING,
  TRUNCATED,
  OFFSETS_PERSISTED,
  BARRIER_WRITTEN,
  STOPPED;

  /** The step named {@code name}, or null for null or a name this operator does not know. */
  public static StopStep parse(String name) {
    if (name == null) {
      return null;
    }
    for (StopStep step : values()) {
      if (step.name().equals(name)) {
        return step;
      }
    }
    return null;
  }
}
