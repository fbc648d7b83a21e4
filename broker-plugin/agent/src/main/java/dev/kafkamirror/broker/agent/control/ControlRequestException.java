package dev.kafkamirror.broker.agent.control;

/**
 * A control request the endpoint refuses as a whole, with the HTTP status to answer and a message.
 */
public final class ControlRequestException extends Exception {

  private static final long serialVersionUID = 1L;
  private final int status;

  public ControlRequestException(int status, String message) {
    super(message);
    this.status = status;
  }

  public int status() {
    return status;
  }
}
