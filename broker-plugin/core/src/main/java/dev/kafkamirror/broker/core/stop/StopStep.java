package dev.kafkamirror.broker.core.stop;

/**
 * The steps of a partition's stop sequence, in the only order they may be reached. A step is
 * recorded durably when it is complete, except {@link #TRUNCATING}, which is recorded
 * <em>before</em> the truncation it announces, so that a resumed stop truncates to the same offset.
 */
public enum StopStep {
  /** No mirror append is in flight and none will start: the partition is STOPPING. */
  FETCHERS_REMOVED,
  /** The truncation target (the last stable offset) is fixed; the truncation may be under way. */
  TRUNCATING,
  /** The leader's log ends at the truncation target; no transaction is open. */
  TRUNCATED,
  /** The last mirrored offset, its leader epoch and the source cluster id are recorded. */
  OFFSETS_PERSISTED,
  /** The MIRROR_PID_RESET barrier is on every in-sync replica. */
  BARRIER_WRITTEN,
  /** The partition is writable. */
  STOPPED;

  /** Whether this step is {@code other} or later. */
  public boolean atLeast(StopStep other) {
    return compareTo(other) >= 0;
  }

  /** The step as a number from 1, for people ("STOPPING at step 3"). */
  public int number() {
    return ordinal() + 1;
  }
}
