package dev.kafkamirror.broker.core.stop;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;

/**
 * The current stop state of every partition, folded from the stop-state topic in offset order.
 *
 * <p>Fencing rule: records are keyed by partition <em>and</em> leader epoch, and the record that
 * counts for a partition is the one of the highest leader epoch, the latest step within that epoch.
 * A broker that led an older epoch and writes late therefore never hides a newer leader's state:
 * neither when read nor after compaction, which keeps one record per (partition, epoch) and so
 * never lets an old epoch's record replace a newer epoch's. {@link #checkWrite} refuses such a
 * write before it is sent, and a step never goes backwards: not by a write, and not within an epoch
 * by a fold of a record that arrives late (see {@link #apply}).
 *
 * <p>Not thread-safe; the owner synchronises.
 */
public final class StopStateTable {

  private final Map<StopStateKey, StopState> current = new LinkedHashMap<>();

  /**
   * Folds one record: one read from the topic, or one of this broker's own writes once it is
   * acknowledged.
   *
   * <p>Within one leader epoch a record replaces the current one only if its step is the same or
   * later. Records of one epoch are written in step order by that epoch's only writer, but they
   * reach the table by two paths: the writer folds its own record when it is acknowledged, and the
   * reader thread folds every record when it reads it, possibly later. Without this rule the
   * reader, still behind, folded an <em>older</em> record of the same epoch after the writer's
   * newer one (TRUNCATED after OFFSETS_PERSISTED, BARRIER_WRITTEN after STOPPED), and the
   * partition's step went back: the next step was refused and describe reported an earlier step. A
   * reader that starts over and re-reads the topic from the beginning cannot move a step back
   * either.
   */
  public void apply(StopState record) {
    StopState existing = current.get(record.key());
    if (existing == null
        || record.leaderEpoch() > existing.leaderEpoch()
        || (record.leaderEpoch() == existing.leaderEpoch()
            && record.step().atLeast(existing.step()))) {
      current.put(record.key(), record);
    }
  }

  /**
   * Folds a tombstone of ({@code key}, {@code leaderEpoch}): it removes the partition's state only
   * when that epoch is the one that counts.
   */
  public void applyTombstone(StopStateKey key, int leaderEpoch) {
    StopState existing = current.get(key);
    if (existing != null && existing.leaderEpoch() == leaderEpoch) {
      current.remove(key);
    }
  }

  public Optional<StopState> get(StopStateKey key) {
    return Optional.ofNullable(current.get(key));
  }

  public int size() {
    return current.size();
  }

  /**
   * Refuses a write that a newer leader epoch has fenced, or that would move the stop backwards.
   *
   * @throws FencedStopStateException naming the partition, both epochs and both steps
   */
  public void checkWrite(StopState proposed) throws FencedStopStateException {
    StopState existing = current.get(proposed.key());
    if (existing == null) {
      return;
    }
    if (existing.leaderEpoch() > proposed.leaderEpoch()) {
      throw new FencedStopStateException(
          "stop state of "
              + proposed.topic()
              + "-"
              + proposed.key().partition()
              + " ("
              + proposed.key()
              + ") was written at leader epoch "
              + existing.leaderEpoch()
              + " by broker "
              + existing.writerBrokerId()
              + " (step "
              + existing.step()
              + "); broker "
              + proposed.writerBrokerId()
              + " writes at the older leader epoch "
              + proposed.leaderEpoch()
              + " and is fenced");
    }
    if (proposed.step().compareTo(existing.step()) < 0) {
      throw new FencedStopStateException(
          "stop state of "
              + proposed.topic()
              + "-"
              + proposed.key().partition()
              + " ("
              + proposed.key()
              + ") is at step "
              + existing.step()
              + "; broker "
              + proposed.writerBrokerId()
              + " cannot move it back to "
              + proposed.step());
    }
  }
}
