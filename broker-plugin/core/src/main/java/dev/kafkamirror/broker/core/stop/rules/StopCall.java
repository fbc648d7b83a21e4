package dev.kafkamirror.broker.core.stop.rules;

/** The five calls of the stop sequence, in their order; each has one rule in {@link StopRules}. */
public enum StopCall {
  REMOVE_FETCHERS("remove-fetchers"),
  TRUNCATE("truncate"),
  PERSIST_OFFSETS("persist-offsets"),
  BARRIER("barrier"),
  MAKE_WRITABLE("make-writable");

  private final String callName;

  StopCall(String callName) {
    this.callName = callName;
  }

  /** The call's name as the control endpoint and the error messages spell it. */
  public String callName() {
    return callName;
  }
}
