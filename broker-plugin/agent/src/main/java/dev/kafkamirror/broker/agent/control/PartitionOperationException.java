package dev.kafkamirror.broker.agent.control;

/** A per-partition failure of a control call; the other partitions of the call are unaffected. */
public final class PartitionOperationException extends Exception {

  private static final long serialVersionUID = 1L;

  /** Why the operation failed. */
  public enum Code {
    /** The broker has not finished starting. */
    BROKER_NOT_READY,
    /** This broker has no replica of the partition. */
    UNKNOWN_PARTITION,
    /** This broker's replica is not the leader; call the leader. */
    NOT_LEADER,
    /** The ISR is smaller than min.insync.replicas. */
    NOT_ENOUGH_REPLICAS,
    /** The operation did not complete in time; it may complete later. */
    TIMEOUT,
    /** The partition's state forbids the operation. */
    INVALID_STATE,
    /** Anything else; the message says what. */
    INTERNAL
  }

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
