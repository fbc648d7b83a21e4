package dev.kafkamirror.broker.core.record;

/**
 * A {@code MIRROR_PID_RESET} control record whose value cannot be decoded. The message names the
 * topic, partition and offset of the record and says what is wrong.
 *
 * <p>A malformed value never stops the barrier from resetting producer state: stale state is the
 * danger, and the key alone marks a barrier. This exception is for reporting.
 */
public final class MalformedBarrierException extends Exception {

  private static final long serialVersionUID = 1L;

  /** What is wrong with the value. */
  public enum Reason {
    /** The value is null (a tombstone-like control record). */
    MISSING_VALUE,
    /** The value ends before a field is complete. */
    TRUNCATED,
    /** The Version field names a version this plugin does not know. */
    UNSUPPORTED_VERSION,
    /** An unsigned varint is longer than 5 bytes or does not fit an int. */
    INVALID_VARINT,
    /** SourceClusterId is encoded as null, which the schema does not allow. */
    NULL_SOURCE_CLUSTER_ID,
    /** SourceClusterId is empty: a barrier must name its source. */
    EMPTY_SOURCE_CLUSTER_ID,
    /** SourceClusterId is not valid UTF-8. */
    INVALID_UTF8,
    /** Tagged fields are not in strictly increasing tag order, or a tag repeats. */
    INVALID_TAGGED_FIELDS,
    /** Bytes remain after the last field. */
    TRAILING_BYTES
  }

  private final transient RecordPosition position;
  private final Reason reason;

  public MalformedBarrierException(RecordPosition position, Reason reason, String detail) {
    super("malformed MIRROR_PID_RESET value at " + position + ": " + reason + ": " + detail);
    this.position = position;
    this.reason = reason;
  }

  public RecordPosition position() {
    return position;
  }

  public Reason reason() {
    return reason;
  }
}
