package dev.kafkamirror.broker.core.stop;

import java.util.Objects;

/**
 * The durable stop progress of one destination partition, as one record of the stop-state topic.
 *
 * <p>{@code leaderEpoch} is the fencing token: the data partition's leader epoch of the broker that
 * wrote the record. Only the leader of that epoch writes under it, so records of one epoch are
 * totally ordered by their offsets, and a record of a higher epoch always wins over any record of a
 * lower one (see {@link StopStateTable}).
 *
 * <p>Offsets are -1 and {@code sourceClusterId} is null until the step that sets them.
 *
 * @param topic the topic name when the record was written (for people; the key uses the id)
 * @param writerBrokerId the broker that wrote the record
 * @param truncateTargetOffset the offset the leader truncates to (its last stable offset when the
 *     truncation was planned); fixed from {@link StopStep#TRUNCATING} on
 * @param truncatedToOffset the leader's log end offset after the truncation
 * @param lastMirroredOffset the exclusive end of the mirrored data: the offset the next mirrored
 *     record would have had, which is where a failback truncates to
 * @param lastMirroredEpoch the leader epoch of the last mirrored batch kept, -1 for an empty log
 * @param barrierOffset the offset of the MIRROR_PID_RESET barrier
 * @param sourceClusterId the cluster the partition mirrored and the barrier names
 * @param updatedAtMs wall-clock time of the write
 * @param lastMirroredSourceEpoch the <em>source's</em> leader epoch of the last mirrored batch kept
 *     (the one ending just below {@code lastMirroredOffset}), from the mirror's source epoch
 *     history; -1 when unknown (an empty log, records mirrored before epochs were recorded, or a
 *     record written by an older plugin). A failback truncates the old source to the end of this
 *     epoch.
 */
public record StopState(
    StopStateKey key,
    String topic,
    int leaderEpoch,
    int writerBrokerId,
    StopStep step,
    long truncateTargetOffset,
    long truncatedToOffset,
    long lastMirroredOffset,
    int lastMirroredEpoch,
    long barrierOffset,
    String sourceClusterId,
    long updatedAtMs,
    int lastMirroredSourceEpoch) {

  /** A state without the source epoch of the last mirrored batch (unknown, -1). */
  public StopState(
      StopStateKey key,
      String topic,
      int leaderEpoch,
      int writerBrokerId,
      StopStep step,
      long truncateTargetOffset,
      long truncatedToOffset,
      long lastMirroredOffset,
      int lastMirroredEpoch,
      long barrierOffset,
      String sourceClusterId,
      long updatedAtMs) {
    this(
        key,
        topic,
        leaderEpoch,
        writerBrokerId,
        step,
        truncateTargetOffset,
        truncatedToOffset,
        lastMirroredOffset,
        lastMirroredEpoch,
        barrierOffset,
        sourceClusterId,
        updatedAtMs,
        -1);
  }

  public StopState {
    Objects.requireNonNull(key, "key");
    Objects.requireNonNull(topic, "topic");
    Objects.requireNonNull(step, "step");
    if (leaderEpoch < 0) {
      throw new IllegalArgumentException(key + ": leaderEpoch must be >= 0, got " + leaderEpoch);
    }
    if (step.atLeast(StopStep.TRUNCATING) && truncateTargetOffset < 0) {
      throw new IllegalArgumentException(key + ": step " + step + " needs truncateTargetOffset");
    }
    if (step.atLeast(StopStep.TRUNCATED) && truncatedToOffset < 0) {
      throw new IllegalArgumentException(key + ": step " + step + " needs truncatedToOffset");
    }
    if (step.atLeast(StopStep.OFFSETS_PERSISTED)
        && (lastMirroredOffset < 0 || sourceClusterId == null || sourceClusterId.isEmpty())) {
      throw new IllegalArgumentException(
          key + ": step " + step + " needs lastMirroredOffset and sourceClusterId");
    }
    if (step.atLeast(StopStep.BARRIER_WRITTEN) && barrierOffset < 0) {
      throw new IllegalArgumentException(key + ": step " + step + " needs barrierOffset");
    }
  }

  /** The first record of a stop: fetchers removed. */
  public static StopState fetchersRemoved(
      StopStateKey key, String topic, int leaderEpoch, int brokerId, long nowMs) {
    return new StopState(
        key,
        topic,
        leaderEpoch,
        brokerId,
        StopStep.FETCHERS_REMOVED,
        -1L,
        -1L,
        -1L,
        -1,
        -1L,
        null,
        nowMs);
  }

  /** This state moved to {@code newStep}, written by {@code brokerId} at {@code leaderEpoch}. */
  public StopState advance(StopStep newStep, int newLeaderEpoch, int brokerId, long nowMs) {
    return new StopState(
        key,
        topic,
        newLeaderEpoch,
        brokerId,
        newStep,
        truncateTargetOffset,
        truncatedToOffset,
        lastMirroredOffset,
        lastMirroredEpoch,
        barrierOffset,
        sourceClusterId,
        nowMs,
        lastMirroredSourceEpoch);
  }

  public StopState withTruncateTarget(long offset) {
    return new StopState(
        key,
        topic,
        leaderEpoch,
        writerBrokerId,
        step,
        offset,
        truncatedToOffset,
        lastMirroredOffset,
        lastMirroredEpoch,
        barrierOffset,
        sourceClusterId,
        updatedAtMs,
        lastMirroredSourceEpoch);
  }

  public StopState withTruncatedTo(long offset, int lastBatchEpoch) {
    return new StopState(
        key,
        topic,
        leaderEpoch,
        writerBrokerId,
        step,
        truncateTargetOffset,
        offset,
        lastMirroredOffset,
        lastBatchEpoch,
        barrierOffset,
        sourceClusterId,
        updatedAtMs,
        lastMirroredSourceEpoch);
  }

  public StopState withMirroredEnd(long offset, String sourceCluster) {
    return new StopState(
        key,
        topic,
        leaderEpoch,
        writerBrokerId,
        step,
        truncateTargetOffset,
        truncatedToOffset,
        offset,
        lastMirroredEpoch,
        barrierOffset,
        sourceCluster,
        updatedAtMs,
        lastMirroredSourceEpoch);
  }

  /** This state with the source epoch of the last mirrored batch ({@code -1} when unknown). */
  public StopState withMirroredSourceEpoch(int sourceEpoch) {
    return new StopState(
        key,
        topic,
        leaderEpoch,
        writerBrokerId,
        step,
        truncateTargetOffset,
        truncatedToOffset,
        lastMirroredOffset,
        lastMirroredEpoch,
        barrierOffset,
        sourceClusterId,
        updatedAtMs,
        sourceEpoch);
  }

  public StopState withBarrier(long offset) {
    return new StopState(
        key,
        topic,
        leaderEpoch,
        writerBrokerId,
        step,
        truncateTargetOffset,
        truncatedToOffset,
        lastMirroredOffset,
        lastMirroredEpoch,
        offset,
        sourceClusterId,
        updatedAtMs,
        lastMirroredSourceEpoch);
  }
}
