package dev.kafkamirror.broker.core.mirror;

import java.util.ArrayList;
import java.util.List;

/**
 * The source's leader-epoch history of one mirrored partition, in destination offsets: which source
 * leader epoch wrote the batches from which destination offset on. Offsets are identical on both
 * sides, so this is the source's own epoch cache for the part of the log the destination holds; the
 * destination's log keeps its own epochs in the batches, so this history is kept beside it (in the
 * state topic), and a mirror fetch sends {@link #epochAt} of its fetch offset minus one as {@code
 * lastFetchedEpoch}, the way a Kafka follower does.
 *
 * <p>Invariants: epochs strictly increase, start offsets strictly increase, no epoch is negative.
 * Entries may start at or beyond the destination's log end (written before the append they
 * describe, which may then not have happened); {@link #truncatedTo} drops them.
 *
 * <p>Immutable and thread-safe.
 */
public final class SourceEpochHistory {

  /** Source leader epoch {@code sourceEpoch} wrote the batches from {@code startOffset} on. */
  public record Entry(int sourceEpoch, long startOffset) {
    public Entry {
      if (sourceEpoch < 0) {
        throw new IllegalArgumentException("source epoch must be >= 0, got " + sourceEpoch);
      }
      if (startOffset < 0) {
        throw new IllegalArgumentException("start offset must be >= 0, got " + startOffset);
      }
    }
  }

  private static final SourceEpochHistory EMPTY = new SourceEpochHistory(List.of());

  private final List<Entry> entries;

  private SourceEpochHistory(List<Entry> entries) {
    this.entries = entries;
  }

  public static SourceEpochHistory empty() {
    return EMPTY;
  }

  /**
   * The history of {@code entries}.
   *
   * @throws IllegalArgumentException when epochs or start offsets do not strictly increase
   */
  public static SourceEpochHistory of(List<Entry> entries) {
    for (int i = 1; i < entries.size(); i++) {
      Entry before = entries.get(i - 1);
      Entry e = entries.get(i);
      if (e.sourceEpoch() <= before.sourceEpoch() || e.startOffset() <= before.startOffset()) {
        throw new IllegalArgumentException(
            "source epoch history entries must strictly increase in epoch and offset: "
                + before
                + " then "
                + e);
      }
    }
    return new SourceEpochHistory(List.copyOf(entries));
  }

  public List<Entry> entries() {
    return entries;
  }

  public boolean isEmpty() {
    return entries.isEmpty();
  }

  /** The source epoch that wrote {@code offset}: of the last entry starting at or below it; -1. */
  public int epochAt(long offset) {
    Entry covering = coveringEntry(offset);
    return covering == null ? -1 : covering.sourceEpoch();
  }

  private Entry coveringEntry(long offset) {
    Entry covering = null;
    for (Entry e : entries) {
      if (e.startOffset() > offset) {
        break;
      }
      covering = e;
    }
    return covering;
  }

  /** The entries that start below {@code logEnd}: what the log holds after a truncation there. */
  public SourceEpochHistory truncatedTo(long logEnd) {
    int keep = 0;
    while (keep < entries.size() && entries.get(keep).startOffset() < logEnd) {
      keep++;
    }
    return keep == entries.size() ? this : new SourceEpochHistory(entries.subList(0, keep));
  }

  /**
   * This history followed by batches of source epoch {@code epoch} from {@code startOffset} on;
   * this history itself when its last entry already is {@code epoch} (or when the entry is already
   * there). Entries at or beyond {@code startOffset} are dropped first (they described an append
   * that did not happen).
   *
   * @throws EpochRegressionException when {@code epoch} is lower than the epoch that wrote the
   *     offsets just below {@code startOffset}: a source log never goes back in epochs
   */
  public SourceEpochHistory followedBy(int epoch, long startOffset)
      throws EpochRegressionException {
    SourceEpochHistory base = truncatedTo(startOffset);
    if (!base.entries.isEmpty()) {
      Entry last = base.entries.get(base.entries.size() - 1);
      if (last.sourceEpoch() == epoch) {
        return base.entries.size() == entries.size() ? this : base;
      }
      if (epoch < last.sourceEpoch()) {
        throw new EpochRegressionException(
            "a source batch of leader epoch "
                + epoch
                + " at offset "
                + startOffset
                + " follows batches of leader epoch "
                + last.sourceEpoch()
                + " (from offset "
                + last.startOffset()
                + "); a source log never goes back in epochs");
      }
    }
    List<Entry> next = new ArrayList<>(base.entries);
    next.add(new Entry(epoch, startOffset));
    return new SourceEpochHistory(List.copyOf(next));
  }

  /**
   * Where the destination's records stop matching the source's, from the source's answer to a fetch
   * at {@code logEnd} with {@code lastFetchedEpoch = epochAt(logEnd - 1)}: the source's epoch
   * {@code sourceEpoch} (the largest it knows at or below the fetched one) ends at {@code
   * sourceEndOffset}. As a Kafka follower computes its truncation offset: the smaller of the
   * source's end of that epoch and this history's end of it (the start of the next entry, or {@code
   * logEnd}). When this history does not hold {@code sourceEpoch} the point is only an upper bound
   * ({@link Divergence#exact()} false): the records from it on certainly differ.
   */
  public Divergence divergence(int sourceEpoch, long sourceEndOffset, long logEnd) {
    SourceEpochHistory held = truncatedTo(logEnd);
    int fetchedEpoch = held.epochAt(logEnd - 1);
    Entry at = null;
    long localEnd = logEnd;
    for (int i = 0; i < held.entries.size(); i++) {
      Entry e = held.entries.get(i);
      if (e.sourceEpoch() > sourceEpoch) {
        localEnd = e.startOffset();
        break;
      }
      at = e;
    }
    boolean exact = at != null && at.sourceEpoch() == sourceEpoch;
    long point = sourceEndOffset < 0 ? localEnd : Math.min(sourceEndOffset, localEnd);
    if (at == null) {
      // Not even the source's epoch or an older one is known here: nothing below the first entry
      // can be vouched for.
      point = held.entries.isEmpty() ? 0L : Math.min(point, held.entries.get(0).startOffset());
    }
    return new Divergence(
        Math.max(0L, Math.min(point, logEnd)),
        fetchedEpoch,
        sourceEpoch,
        sourceEndOffset,
        logEnd,
        exact);
  }

  /**
   * A source whose history no longer contains the destination's.
   *
   * @param offset the first destination offset whose record the source does not hold (an upper
   *     bound when not {@code exact})
   * @param fetchedEpoch the source epoch of the destination's last record
   * @param sourceEpoch the epoch the source answered with
   * @param sourceEndOffset where the source says that epoch ends
   * @param logEnd the destination's log end
   */
  public record Divergence(
      long offset,
      int fetchedEpoch,
      int sourceEpoch,
      long sourceEndOffset,
      long logEnd,
      boolean exact) {

    /** Names every offset and epoch, for describe and the broker log. */
    public String describe(String partition, String mirror) {
      return partition
          + " (mirror "
          + mirror
          + "): the source diverged from what was mirrored: the destination's last record, offset "
          + (logEnd - 1)
          + ", was written by source epoch "
          + fetchedEpoch
          + ", but on the source, epoch "
          + sourceEpoch
          + " ends at offset "
          + sourceEndOffset
          + " (an unclean leader election or a truncation on the source); destination records "
          + (exact ? "from offset " : "from at most offset ")
          + offset
          + " to log end "
          + logEnd
          + " are not on the source; nothing more is appended. Records below offset "
          + offset
          + " are the source's. To recover: fail over (stop) to keep the destination's records, or"
          + " delete and re-create the destination topic and mirror it again";
    }
  }

  /** A source batch of an older leader epoch than the batches before it. */
  public static final class EpochRegressionException extends Exception {
    private static final long serialVersionUID = 1L;

    public EpochRegressionException(String message) {
      super(message);
    }
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof SourceEpochHistory h && h.entries.equals(entries);
  }

  @Override
  public int hashCode() {
    return entries.hashCode();
  }

  @Override
  public String toString() {
    return "SourceEpochHistory" + entries;
  }
}
