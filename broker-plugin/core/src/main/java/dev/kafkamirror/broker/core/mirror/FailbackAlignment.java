package dev.kafkamirror.broker.core.mirror;

import java.util.List;

/**
 * Failback by truncate-and-restore: where a cluster that was a mirror's <em>source</em> (A, in A→B)
 * must truncate its own log before it can become a read-only mirror of its former destination (B,
 * in B→A), decided the way a Kafka follower decides with OffsetsForLeaderEpoch.
 *
 * <p>B's stop recorded the last mirrored offset {@code lmo} (the exclusive end of what B copied
 * from A, where B then wrote its barrier) and the source epoch {@code e} of the last batch it kept:
 * a leader epoch of A's. Below {@code lmo}, B holds A's batches byte for byte. A's log may since
 * have grown (records written on A after B stopped mirroring, or never mirrored) or been cut by an
 * unclean election on A. A and B agree up to {@code min(lmo, end of epoch e in A's own epoch
 * history)}: Kafka's leader epochs are never reused, so the batches of epoch {@code e} that A still
 * holds are the ones B copied, and whatever precedes them is the prefix that epoch's leader had.
 *
 * <p>Fail closed: when {@code e} is unknown (records mirrored before the source epoch history
 * existed) or A's history does not hold epoch {@code e} at all (A's current log no longer descends
 * from the leader B copied), the point cannot be proven and the decision is {@link Refuse}; nothing
 * is truncated. The answer never guesses a point above the proven one; a lower point would only
 * copy identical records again.
 *
 * <p>Pure functions; thread-safe.
 */
public final class FailbackAlignment {

  private FailbackAlignment() {}

  /** The reason when the former destination recorded no source epoch. */
  public static final String EPOCH_UNKNOWN = "FailbackEpochUnknown";

  /** The reason when this log's epoch history does not hold the recorded source epoch. */
  public static final String EPOCH_NOT_IN_LOCAL_HISTORY = "FailbackEpochNotInLocalHistory";

  /** The reason when the caller's recorded stop state is not usable (no last mirrored offset). */
  public static final String NO_RECORDED_STOP = "FailbackNoRecordedStop";

  /**
   * The reason when a real start names the log end its report covered and the read-only log ends
   * elsewhere: records were written (or the log was cut) after the report, so truncating now would
   * discard records nobody reported or kept.
   */
  public static final String LOG_MOVED_AFTER_REPORT = "FailbackLogMovedAfterReport";

  /**
   * The reason when the former destination mirrored another incarnation of this topic (the topic
   * was deleted and created again since): its offsets and epochs say nothing about this log, and
   * epoch numbers restart with each incarnation, so the epoch check alone cannot tell.
   */
  public static final String TOPIC_REPLACED = "FailbackTopicReplaced";

  /** One entry of this log's own leader-epoch history (Kafka's epoch cache). */
  public record LocalEpoch(int epoch, long startOffset) {}

  /** The decision for one partition. */
  public sealed interface Decision permits Align, Refuse {}

  /**
   * Truncate the local log to {@code offset} (nothing when it already ends there or below) and
   * mirror the former destination from there.
   *
   * @param offset the alignment offset: the last offset both logs agree on, exclusive
   * @param discardFrom the first local offset that is discarded (equal to {@code discardTo} when
   *     nothing is)
   * @param discardTo the local log end: offsets {@code discardFrom..discardTo-1} are discarded
   * @param localEpochEnd where this log's copy of the recorded source epoch ends
   */
  public record Align(long offset, long discardFrom, long discardTo, long localEpochEnd)
      implements Decision {

    /** Whether anything local is discarded. */
    public boolean discards() {
      return discardTo > discardFrom;
    }
  }

  /** Refuse: nothing is truncated; {@code message} names every identifier and the way out. */
  public record Refuse(String reason, String message) implements Decision {}

  /**
   * Decides where to align one partition.
   *
   * @param partition names the partition in messages (topic-partition and mirror)
   * @param lastMirroredOffset the former destination's recorded last mirrored offset (exclusive)
   * @param lastMirroredSourceEpoch the source (this cluster's) leader epoch of the last batch the
   *     former destination kept, -1 when it was not recorded
   * @param localLogStart this log's start offset
   * @param localLogEnd this log's end offset
   * @param localEpochs this log's leader-epoch history, in increasing order
   */
  public static Decision decide(
      String partition,
      long lastMirroredOffset,
      int lastMirroredSourceEpoch,
      long localLogStart,
      long localLogEnd,
      List<LocalEpoch> localEpochs) {
    if (lastMirroredOffset < 0) {
      return new Refuse(
          NO_RECORDED_STOP,
          partition
              + ": the former destination's stop recorded no last mirrored offset ("
              + lastMirroredOffset
              + "); run its stop sequence to OFFSETS_PERSISTED or later first. Nothing was"
              + " truncated");
    }
    if (lastMirroredOffset == 0) {
      // Nothing of this log was ever copied: the former destination holds none of it.
      long from = Math.min(localLogStart, localLogEnd);
      return new Align(0L, localLogEnd > 0 ? Math.max(0L, from) : 0L, localLogEnd, 0L);
    }
    if (lastMirroredSourceEpoch < 0) {
      return new Refuse(
          EPOCH_UNKNOWN,
          partition
              + ": the former destination recorded last mirrored offset "
              + lastMirroredOffset
              + " without the source leader epoch of its last batch (records mirrored before the"
              + " source epoch history existed), so the last offset both clusters agree on cannot"
              + " be proven. Nothing was truncated. Way out: delete and re-create this topic empty"
              + " and mirror it from the start");
    }
    if (localLogEnd == localLogStart) {
      // An empty log holds nothing that could disagree.
      long offset = Math.min(lastMirroredOffset, localLogEnd);
      return new Align(offset, localLogEnd, localLogEnd, localLogEnd);
    }
    LocalEpoch found = null;
    LocalEpoch next = null;
    for (LocalEpoch e : localEpochs) {
      if (e.epoch() <= lastMirroredSourceEpoch) {
        found = e;
      } else {
        next = e;
        break;
      }
    }
    if (found == null || found.epoch() != lastMirroredSourceEpoch) {
      return new Refuse(
          EPOCH_NOT_IN_LOCAL_HISTORY,
          partition
              + ": the former destination's last mirrored batch (below offset "
              + lastMirroredOffset
              + ") was written by leader epoch "
              + lastMirroredSourceEpoch
              + " of this cluster, but this log's epoch history "
              + localEpochs
              + " (log "
              + localLogStart
              + ".."
              + localLogEnd
              + ") does not hold that epoch"
              + (found == null
                  ? ""
                  : " (the largest epoch at or below it is " + found.epoch() + ")")
              + ": an unclean leader election here, or a log that was replaced, so the last offset"
              + " both clusters agree on cannot be proven. Nothing was truncated. Way out: delete"
              + " and re-create this topic empty and mirror it from the start");
    }
    long epochEnd = next == null ? localLogEnd : Math.min(next.startOffset(), localLogEnd);
    long offset = Math.min(lastMirroredOffset, epochEnd);
    long discardFrom = Math.max(offset, localLogStart);
    return new Align(offset, Math.min(discardFrom, localLogEnd), localLogEnd, epochEnd);
  }

  /**
   * The message that accounts for what an alignment discards, before it is discarded.
   *
   * @param records the records (not offsets: a compacted log has gaps) in the discarded range
   * @param bytes their size on disk, batch headers included
   */
  public static String discardedMessage(
      String partition, Align align, long records, long bytes, boolean dryRun) {
    if (!align.discards()) {
      return partition
          + ": nothing to discard; the log ends at "
          + align.discardTo()
          + " and mirroring starts at offset "
          + align.offset();
    }
    return partition
        + (dryRun ? ": failback would discard " : ": failback discards ")
        + records
        + " records ("
        + bytes
        + " bytes) at offsets "
        + align.discardFrom()
        + ".."
        + (align.discardTo() - 1)
        + " that the former destination does not hold; mirroring starts at offset "
        + align.offset();
  }

  /**
   * Whether a real start may truncate a log that ends at {@code logEnd}, given the log end {@code
   * expectedLogEnd} that the caller's report of the discarded records (and any copy of them)
   * covered.
   *
   * <p>Invariant: the caller asks only once the partition is read-only and no client append that
   * passed the write guard before the registration is still in flight, so {@code logEnd} is final
   * until the truncation. Any difference fails closed: a log that grew holds records written after
   * the report (truncating would discard them unreported and, with a kept copy, uncopied); a log
   * that shrank was cut after the report (an unclean election or a replaced log), so the report no
   * longer describes what would go. Either way the caller reports again and sends the new end.
   *
   * @param partition names the partition in messages (topic-partition and mirror)
   * @param expectedLogEnd the covered log end, or null when the caller sent none (no check, as
   *     before the field existed)
   * @param logEnd this read-only log's end offset
   * @return null to go on, or the refusal (nothing truncated)
   */
  /**
   * Whether this partition's topic is the incarnation the former destination mirrored.
   *
   * <p>Invariant: a failback aligns only a log whose topic id is the one the former destination
   * recorded as its source topic id; epochs and offsets of another incarnation prove nothing (both
   * start again at 0). Checked before anything changes.
   *
   * @param partition names the partition in messages (topic-partition and mirror)
   * @param expectedTopicId the former destination's recorded source topic id, or null when the
   *     caller sent none (no check, as before the field existed)
   * @param topicId this partition's topic id
   * @return null to go on, or the refusal (nothing changed)
   */
  public static Refuse checkTopicId(String partition, String expectedTopicId, String topicId) {
    if (expectedTopicId == null || expectedTopicId.equals(topicId)) {
      return null;
    }
    return new Refuse(
        TOPIC_REPLACED,
        partition
            + ": the former destination mirrored topic id "
            + expectedTopicId
            + " of this cluster, but this partition's topic now has id "
            + topicId
            + ": the topic was deleted and created again since, so its log is not the one the"
            + " former destination copied, and its offsets and epochs (which start again with"
            + " each topic) prove nothing. Nothing was changed. Way out: delete and re-create this"
            + " topic empty and mirror it from the start, or fail back into another topic name");
  }

  public static Refuse checkReportedLogEnd(String partition, Long expectedLogEnd, long logEnd) {
    if (expectedLogEnd == null || expectedLogEnd == logEnd) {
      return null;
    }
    String what =
        logEnd > expectedLogEnd
            ? "offsets "
                + expectedLogEnd
                + ".."
                + (logEnd - 1)
                + " were written after the report and would be discarded without being reported"
                + " (or kept)"
            : "the log was cut below the reported end after the report (an unclean leader"
                + " election or a replaced log), so the report no longer says what would go";
    return new Refuse(
        LOG_MOVED_AFTER_REPORT,
        partition
            + ": the failback report covered the log up to offset "
            + expectedLogEnd
            + " (exclusive) but the read-only log now ends at "
            + logEnd
            + ": "
            + what
            + ". Nothing was truncated and the partition was left as it was before this start."
            + " Stop the producers that write to it on this cluster; the operator (or you) then"
            + " runs a new dry run, reports (and keeps) what it would discard and starts again"
            + " with the new log end");
  }
}
