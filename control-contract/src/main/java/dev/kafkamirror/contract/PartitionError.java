package dev.kafkamirror.contract;

/**
 * The error of one partition of a call ({@code results[i].error}); the other partitions of the call
 * are unaffected.
 */
public record PartitionError(Code code, String message) {

  /**
   * The reason an {@link Code#INVALID_STATE} message of a failback's real start begins with when
   * the partition's read-only log does not end at its {@code alignTo.expectedLogEndOffset}: nothing
   * was truncated and the registration was rolled back; the caller reports again (a new dry run)
   * and starts with the new end. Not a refusal for good.
   */
  public static final String FAILBACK_LOG_MOVED_AFTER_REPORT = "FailbackLogMovedAfterReport";

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
