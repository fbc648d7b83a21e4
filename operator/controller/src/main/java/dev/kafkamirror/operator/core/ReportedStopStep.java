package dev.kafkamirror.operator.core;

/**
 * The durable stop step a destination leader reports in {@code describe.stop.step}, in order: the
 * core's reading of the wire value, so that planning depends on nothing but the JDK and the API.
 * The names are the control contract's {@code StopStep} names, in the same order (a unit test in
 * the control package holds them to it).
 */
public enum ReportedStopStep {
  FETCHERS_REMOVED,
  TRUNCATING,
  TRUNCATED,
  OFFSETS_PERSISTED,
  BARRIER_WRITTEN,
  STOPPED;

  /** The step named {@code name}, or null for null or a name the operator does not know. */
  public static ReportedStopStep parse(String name) {
    for (ReportedStopStep step : values()) {
      if (step.name().equals(name)) {
        return step;
      }
    }
    return null;
  }
}
