package dev.kafkamirror.broker.agent.stop;

import dev.kafkamirror.broker.agent.control.PartitionOperationException;
import dev.kafkamirror.broker.agent.control.PartitionRef;
import dev.kafkamirror.broker.core.stop.rules.LocalState;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** This broker's mirror partitions and their registry states, as the executor needs them. */
public interface StopPartitions {

  /**
   * Resolves {@code ref} to a mirror partition with a local log and a topic id.
   *
   * @param requireLeader refuse with NOT_LEADER when this broker does not lead it
   */
  StopTarget resolve(PartitionRef ref, boolean requireLeader) throws PartitionOperationException;

  /**
   * Waits, at most {@code timeoutMs}, until this broker has applied the leadership of each of
   * {@code refs} that its own metadata already gives it in a newer leader epoch than its replica
   * has (the window between the metadata image and the replica manager applying it, right after a
   * leader moved here). Returns at once when there is none; never fails: a partition still not led
   * here afterwards is refused by {@link #resolve} as before.
   */
  void awaitLeadership(List<PartitionRef> refs, long timeoutMs);

  /** Whether {@code ref} is a mirror partition in this broker's registry. */
  boolean isMirror(PartitionRef ref);

  /** Moves each target's registry state forward to {@code state} (never back), durably. */
  void advanceAll(List<StopTarget> targets, LocalState state);

  /**
   * Truncates each target's log to its offset, in as few requests to the broker as it allows (one
   * per call on Kafka: its recovery-point checkpoint is then written once, not once per partition).
   * The caller holds every target's {@link StopTarget#lock()} and has checked that each log ends
   * past its offset.
   *
   * @return each target whose truncation failed, with why; empty when every one was truncated
   */
  Map<StopTarget, Exception> truncateAll(Map<StopTarget, Long> offsets);

  /**
   * Truncates each target's log to its offset with one request per target ({@link
   * StopTarget#truncateTo}); a target whose truncation fails fails alone.
   *
   * @return each target whose truncation failed, with why, in the order of {@code offsets}
   */
  static Map<StopTarget, Exception> truncateEach(Map<StopTarget, Long> offsets) {
    Map<StopTarget, Exception> failed = new LinkedHashMap<>();
    offsets.forEach(
        (t, offset) -> {
          try {
            t.truncateTo(offset);
          } catch (Exception e) {
            failed.put(t, e);
          }
        });
    return failed;
  }
}
