package dev.kafkamirror.operator.core;

/**
 * The planner's verdict for one partition.
 *
 * @param action the next call, or NONE / WAIT
 * @param phase where the partition stands now
 * @param step the stop step reached (null before a stop)
 * @param message why the partition waits or failed; null when all is well
 */
public record PartitionDecision(
    PartitionKey key, Action action, PartitionPhase phase, String step, String message) {}
