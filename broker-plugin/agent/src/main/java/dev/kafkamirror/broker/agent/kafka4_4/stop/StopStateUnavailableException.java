package dev.kafkamirror.broker.agent.kafka4_4.stop;

/** The stop-state topic cannot be read or written now; the call may be repeated. */
public final class StopStateUnavailableException extends Exception {

  private static final long serialVersionUID = 1L;

  public StopStateUnavailableException(String message) {
    super(message);
  }
}
