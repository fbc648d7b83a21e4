package dev.kafkamirror.contract;

/**
 * The error of one partition of a call ({@code results[i].error}); the other partitions of the call
 * are unaffected.
 */
public record PartitionError(Code code, String message) {

  /** Why the operation failed for this partition. */
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
    /**
     * The truncate step moved the partition's leadership to fence its replicas (a new leader
     * epoch); describe it again and call the new leader.
     */
    LEADER_MOVED,
    /** A newer leader epoch owns the partition's stop state; this broker's write was refused. */
    FENCED,
    /** The durable stop-state topic cannot be read or written now; repeat the call. */
    STATE_STORE_UNAVAILABLE,
    /** Anything else; the message says what. */
    INTERNAL
  }
}
