package dev.kafkamirror.broker.agent.control;

import dev.kafkamirror.contract.PartitionError.Code;

/**
 * A per-partition failure of a control call, with the contract's {@link Code}; the other partitions
 * of the call are unaffected.
 */
public final class PartitionOperationException extends Exception {

  private static final long serialVersionUID = 1L;

  private final Code code;

  public PartitionOperationException(Code code, String message) {
    super(message);
    this.code = code;
  }

  public PartitionOperationException(Code code, String message, Throwable cause) {
    super(message, cause);
    this.code = code;
  }

  public Code code() {
    return code;
  }
}
