package dev.kafkamirror.operator.core;

import java.util.List;

/**
 * The planner's verdict for a whole ClusterMirror.
 *
 * @param decisions one per observed partition, in partition order
 * @param refusals why the operator must not touch any partition (another source cluster, another
 *     mirror); non-empty means every decision is NONE
 * @param catchUp where an AfterCatchUp stop stands
 * @param stopHazards why a stop waits for the user although it could proceed (a mirror topic that
 *     allows unclean leader election); the affected partitions' decisions are WAIT
 */
public record FailoverPlan(
    List<PartitionDecision> decisions,
    List<String> refusals,
    CatchUp catchUp,
    List<String> stopHazards) {

  public FailoverPlan {
    decisions = List.copyOf(decisions);
    refusals = List.copyOf(refusals);
    stopHazards = List.copyOf(stopHazards);
  }

  /** AfterCatchUp progress. */
  public enum CatchUp {
    /** Not an AfterCatchUp stop, or the stop has begun. */
    NOT_APPLICABLE,
    /** Some partition still lags (or its lag is unknown); the stop has not begun. */
    WAITING,
    /** Waited longer than catchUpTimeoutSeconds: reported, not stopped. */
    TIMED_OUT,
    /** Every partition is at zero lag: the stop begins now. */
    CAUGHT_UP
  }

  /** Whether any partition has a call to make. */
  public boolean hasWork() {
    return decisions.stream().anyMatch(d -> d.action().callsBroker());
  }

  /** Whether the destination already carries stop progress for some partition. */
  public boolean stopBegun() {
    return decisions.stream()
        .anyMatch(
            d ->
                d.step() != null
                    || d.phase() == PartitionPhase.STOPPING
                    || d.phase() == PartitionPhase.STOPPED);
  }
}
