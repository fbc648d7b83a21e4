package dev.kafkamirror.operator.core;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

/**
 * The pure decisions of the consumer group offset sync: for one group, which destination commits to
 * write so that the destination holds what the source committed.
 *
 * <p>Rules, each a guarantee the sync gives:
 *
 * <ul>
 *   <li><b>Active members win.</b> A group with members on the destination, or in any state but
 *       Empty or Dead (or absent), is not written at all: its consumers own their commits there. An
 *       unknown state counts as active (fail closed: never overwrite a live consumer's commit).
 *   <li><b>Clamp to what the destination holds.</b> Offsets are identical on both clusters, so a
 *       source commit is the destination commit, but it is committed within the destination
 *       partition's log range [log start, log end]: never beyond what the destination holds (a
 *       consumer would find its position out of range and reset), never below its log start. A
 *       partition whose range is unknown is not written.
 *   <li><b>No churn.</b> A partition whose destination commit already equals the target is not
 *       written.
 *   <li><b>Only eligible partitions.</b> Partitions not in {@code eligible} (writable ones, or ones
 *       outside the mirror) are never written.
 * </ul>
 */
public final class GroupOffsetPlanner {

  private GroupOffsetPlanner() {}

  /** A destination partition's offsets: the first offset held and the log end offset. */
  public record LogRange(long start, long end) {
    public LogRange {
      if (start < 0 || end < start) {
        throw new IllegalArgumentException("invalid log range [" + start + ", " + end + "]");
      }
    }

    /** {@code offset} moved into [start, end]. */
    public long clamp(long offset) {
      return Math.max(start, Math.min(end, offset));
    }
  }

  /**
   * A group as the destination's coordinator describes it.
   *
   * @param state the coordinator's state name (EMPTY, STABLE, ...), ABSENT when it has no group
   * @param members the number of members
   */
  public record DestinationGroup(String state, int members) {
    /** The group does not exist on the destination. */
    public static final DestinationGroup ABSENT = new DestinationGroup("ABSENT", 0);

    /** Whether the sync may write it: no member, and Empty, Dead or absent. */
    public boolean idle() {
      return members == 0 && Set.of("EMPTY", "DEAD", "ABSENT").contains(state);
    }
  }

  /** What to do with one group. */
  public enum Outcome {
    /** Commit {@link GroupDecision#writes}. */
    WRITE,
    /** The destination already holds every target: nothing to write. */
    UNCHANGED,
    /** Members on the destination: nothing is written. */
    SKIPPED_ACTIVE
  }

  /**
   * The decision for one group.
   *
   * @param writes the commits to write (partition to offset), sorted; empty unless WRITE
   * @param clamped the partitions whose target is not the source commit (clamped into the range)
   * @param noRange the eligible partitions with a source commit but no known destination range
   * @param partitionsBehind eligible partitions whose destination commit, once the writes are done,
   *     differs from the source's commit
   */
  public record GroupDecision(
      String group,
      Outcome outcome,
      Map<PartitionKey, Long> writes,
      List<PartitionKey> clamped,
      List<PartitionKey> noRange,
      int partitionsBehind,
      DestinationGroup destination) {}

  /**
   * Decides one group.
   *
   * @param sourceCommits the group's committed offsets on the source (or, when the source cannot be
   *     read, the last ones seen), per partition
   * @param destinationCommits the group's committed offsets on the destination
   * @param destination the group's state on the destination
   * @param ranges the destination's log range of each partition that is known
   * @param eligible the partitions the sync may write
   */
  public static GroupDecision decide(
      String group,
      Map<PartitionKey, Long> sourceCommits,
      Map<PartitionKey, Long> destinationCommits,
      DestinationGroup destination,
      Map<PartitionKey, LogRange> ranges,
      Set<PartitionKey> eligible) {
    Map<PartitionKey, Long> considered = new TreeMap<>();
    sourceCommits.forEach(
        (k, v) -> {
          if (eligible.contains(k) && v != null && v >= 0) {
            considered.put(k, v);
          }
        });
    if (!destination.idle()) {
      int behind = 0;
      for (Map.Entry<PartitionKey, Long> e : considered.entrySet()) {
        if (!e.getValue().equals(destinationCommits.get(e.getKey()))) {
          behind++;
        }
      }
      return new GroupDecision(
          group, Outcome.SKIPPED_ACTIVE, Map.of(), List.of(), List.of(), behind, destination);
    }
    Map<PartitionKey, Long> writes = new TreeMap<>();
    List<PartitionKey> clamped = new ArrayList<>();
    List<PartitionKey> noRange = new ArrayList<>();
    int behind = 0;
    for (Map.Entry<PartitionKey, Long> e : considered.entrySet()) {
      PartitionKey k = e.getKey();
      long source = e.getValue();
      LogRange range = ranges.get(k);
      if (range == null) {
        noRange.add(k);
        if (!Long.valueOf(source).equals(destinationCommits.get(k))) {
          behind++;
        }
        continue;
      }
      long target = range.clamp(source);
      if (target != source) {
        clamped.add(k);
        behind++;
      }
      if (!Long.valueOf(target).equals(destinationCommits.get(k))) {
        writes.put(k, target);
      }
    }
    return new GroupDecision(
        group,
        writes.isEmpty() ? Outcome.UNCHANGED : Outcome.WRITE,
        writes,
        clamped,
        noRange,
        behind,
        destination);
  }
}
