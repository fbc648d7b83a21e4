package dev.kafkamirror.broker.core.mirror;

/**
 * Where a mirror's local log stands against its source's log, and what the mirror may do about it:
 * the decisions behind mirroring a source whose log starts above 0, a destination that fell behind
 * the source's retention, a compacted source (offset gaps), and a source topic created again.
 *
 * <p>Invariant kept by every answer: the destination never holds a record at an offset where the
 * source holds another one, and never skips a record the source still has. An answer that cannot
 * keep it halts the partition ({@link Halt}) with every offset in the message.
 *
 * <p>Pure functions; thread-safe.
 */
public final class SourceAlignment {

  private SourceAlignment() {}

  /** What to do after the source answered a fetch at the local log end with OFFSET_OUT_OF_RANGE. */
  public sealed interface OutOfRange permits StartAt, Halt, Retry {}

  /**
   * The local log is empty: restart it (truncate fully) at {@code offset}, the source's log start,
   * so that the first mirrored batch lands at its source offset.
   */
  public record StartAt(long offset) implements OutOfRange {}

  /** Halt the partition for good: mirroring on would skip records or hold foreign ones. */
  public record Halt(String reason, String message) implements OutOfRange {}

  /** Nothing to change locally; fetch again (the source's offsets moved while it was asked). */
  public record Retry(String message) implements OutOfRange {}

  /** The reason of a destination that fell behind the source's retention. */
  public static final String SOURCE_RETENTION_OVERRUN = "SourceRetentionOverrun";

  /** The reason of a source topic deleted and created again under the same name. */
  public static final String SOURCE_TOPIC_RECREATED = "SourceTopicRecreated";

  /**
   * Decides after OFFSET_OUT_OF_RANGE from the source.
   *
   * @param partition names the partition in messages (topic-partition and mirror)
   * @param localLogStart the local leader's log start offset
   * @param localLogEnd the local leader's log end offset (the fetch offset)
   * @param sourceLogStart the source partition's log start offset, as listed after the error
   * @param sourceLogEnd the source partition's high watermark, as listed after the error
   */
  public static OutOfRange outOfRange(
      String partition,
      long localLogStart,
      long localLogEnd,
      long sourceLogStart,
      long sourceLogEnd) {
    if (sourceLogStart > localLogEnd) {
      if (localLogStart == localLogEnd) {
        // Nothing mirrored yet (or nothing left): the log may start where the source's starts.
        return new StartAt(sourceLogStart);
      }
      return new Halt(
          SOURCE_RETENTION_OVERRUN,
          partition
              + ": the destination log ends at offset "
              + localLogEnd
              + " but the source's log now starts at offset "
              + sourceLogStart
              + " (source log end "
              + sourceLogEnd
              + "): records "
              + localLogEnd
              + ".."
              + (sourceLogStart - 1)
              + " were deleted on the source (retention or deleteRecords) before they were"
              + " mirrored. Nothing was skipped; mirroring halted and the partition stays"
              + " read-only. Way out: fail over with what the destination has (stop the mirror),"
              + " or delete the destination topic, create it again empty and start the mirror,"
              + " which then starts at the source's log start; raise the source's retention so"
              + " that the mirror keeps up");
    }
    if (localLogEnd > sourceLogEnd) {
      return new Retry(
          partition
              + ": the destination log ends at offset "
              + localLogEnd
              + ", beyond the source's log end "
              + sourceLogEnd
              + " (source log start "
              + sourceLogStart
              + "): the destination holds records the source does not have; not fetching until"
              + " the source reaches that offset");
    }
    return new Retry(
        partition
            + ": the source answered OFFSET_OUT_OF_RANGE at offset "
            + localLogEnd
            + " although its log now spans "
            + sourceLogStart
            + ".."
            + sourceLogEnd
            + "; fetching again");
  }

  /** How the first fetched batch that reaches the local log end may be appended. */
  public enum FirstBatch {
    /**
     * The batch starts at the local log end, or above it: the offsets in between are not on the
     * source any more (its cleaner removed them, as it removes whole batches of a compacted topic),
     * so the gap is the source's own. Appended as it is.
     */
    APPEND,
    /**
     * The local log is empty and the batch starts below its end (the source's log start lies inside
     * that batch): Kafka restarts the log at the batch's base offset, as a follower does.
     */
    APPEND_FROM_BATCH_BASE,
    /** The batch starts below the end of a non-empty local log: offsets would not be kept. */
    REFUSE
  }

  /**
   * Decides how the first batch of a fetch at {@code localLogEnd} lines up. A fetch at an offset
   * below the source's log start is answered OFFSET_OUT_OF_RANGE, never with data, so a batch that
   * starts above the fetch offset means the offsets in between were removed by the source.
   */
  public static FirstBatch firstBatch(
      long localLogStart, long localLogEnd, long batchBaseOffset, long batchLastOffset) {
    if (batchBaseOffset >= localLogEnd) {
      return FirstBatch.APPEND;
    }
    if (localLogStart == localLogEnd && batchLastOffset >= localLogEnd) {
      return FirstBatch.APPEND_FROM_BATCH_BASE;
    }
    return FirstBatch.REFUSE;
  }

  /**
   * The message when the source topic's id is not the one recorded when mirroring started, or null
   * when it is (or none was recorded yet).
   */
  public static String topicRecreated(
      String partition, String topic, String recordedTopicId, String currentTopicId) {
    if (recordedTopicId == null
        || currentTopicId == null
        || recordedTopicId.equals(currentTopicId)) {
      return null;
    }
    return partition
        + ": the source topic "
        + topic
        + " now has topic id "
        + currentTopicId
        + ", but this partition mirrors topic id "
        + recordedTopicId
        + ": the source topic was deleted and created again. Nothing of the new topic is"
        + " appended; mirroring halted and the partition stays read-only with what it mirrored"
        + " of the old one. Way out: fail over with what the destination has (stop the mirror),"
        + " or delete the destination topic, create it again empty and start the mirror to"
        + " mirror the new source topic from its start";
  }

  /** The reason of a destination partition that held records of its own before it was mirrored. */
  public static final String LOCAL_RECORDS_NOT_MIRRORED = "LocalRecordsNotMirrored";

  /**
   * Decides a plain start (no initialSync) of a partition that is no mirror yet: neither registered
   * on this broker nor recorded in the cluster's mirror membership, so nothing in its log was
   * mirrored. The mirror fetches at the local log end, so any offset the log already used (records
   * written while the partition was ordinary and writable, or deleted since) would keep records the
   * source did not give at offsets where the source holds others, and skip the source's records
   * below the log end.
   *
   * @param partition names the partition in messages (topic-partition)
   * @param mirrorName the mirror being started
   * @param localLogStart the local log start offset
   * @param localLogEnd the local log end offset
   * @return null when the log never held a record (log end 0), else the refusal, naming the offsets
   *     and what to do
   */
  public static String localRecordsBeforeMirror(
      String partition, String mirrorName, long localLogStart, long localLogEnd) {
    if (localLogEnd <= 0) {
      return null;
    }
    return partition
        + ": cannot start mirror "
        + mirrorName
        + ": the destination log already holds records that were not mirrored from the source"
        + " (log start "
        + localLogStart
        + ", log end "
        + localLogEnd
        + "; offsets 0.."
        + (localLogEnd - 1)
        + " were written to it, or deleted from it, while it was an ordinary writable partition)."
        + " Mirroring would fetch from offset "
        + localLogEnd
        + ", keeping those records where the source holds others and skipping the source's"
        + " records 0.."
        + (localLogEnd - 1)
        + ". Nothing was changed. Way out: delete the destination topic, create it again empty"
        + " and start the mirror; or, if this cluster was the mirror's earlier source (a"
        + " failback), start with initialSync TRUNCATE_AND_RESTORE";
  }
}
