package dev.kafkamirror.broker.agent.control;

import dev.kafkamirror.contract.RequestError;

/**
 * A control request the endpoint refuses as a whole, with the contract's code (and so the HTTP
 * status) to answer and a message.
 */
public final class ControlRequestException extends Exception {

  private static final long serialVersionUID = 1L;
  private final RequestError.Code code;

  public ControlRequestException(RequestError.Code code, String message) {
    super(message);
    this.code = code;
  }

  public RequestError.Code code() {
    return code;
  }

  /** The HTTP status of the answer. */
  public int status() {
    return code.httpStatus();
  }
}
