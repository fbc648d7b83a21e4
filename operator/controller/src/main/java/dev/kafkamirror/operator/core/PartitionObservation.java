package dev.kafkamirror.operator.core;

import java.util.List;

/**
 * What one observation round learnt about a partition: where Kafka's metadata puts it and what its
 * leader's plugin described. Plain data, so that planning and status are pure functions of it.
 *
 * @param leaderId the leader from the destination's metadata, null when it has none
 * @param replicas the replica broker ids from the destination's metadata
 * @param described the leader's describe result, null when it failed (see {@code errorCode})
 * @param errorCode the plugin's error code (NOT_LEADER, BROKER_NOT_READY, ...) or UNREACHABLE when
 *     the leader's control endpoint could not be reached; null when {@code described} is set
 * @param errorMessage the error's message, naming broker and partition
 * @param replicasWithoutMirror followers that were described and hold no mirror registration (only
 *     observed while mirroring: a follower without one would take writes if it became leader)
 */
public record PartitionObservation(
    PartitionKey key,
    Integer leaderId,
    List<Integer> replicas,
    Described described,
    String errorCode,
    String errorMessage,
    List<Integer> replicasWithoutMirror) {

  public PartitionObservation {
    replicas = replicas == null ? List.of() : List.copyOf(replicas);
    replicasWithoutMirror =
        replicasWithoutMirror == null ? List.of() : List.copyOf(replicasWithoutMirror);
  }

  /** A partition the leader described. */
  public static PartitionObservation described(
      PartitionKey key, Integer leaderId, List<Integer> replicas, Described described) {
    return new PartitionObservation(key, leaderId, replicas, described, null, null, List.of());
  }

  /** A partition that could not be described. */
  public static PartitionObservation failed(
      PartitionKey key, Integer leaderId, List<Integer> replicas, String code, String message) {
    return new PartitionObservation(key, leaderId, replicas, null, code, message, List.of());
  }

  /** This observation with the followers found without a mirror registration. */
  public PartitionObservation withReplicasWithoutMirror(List<Integer> brokers) {
    return new PartitionObservation(
        key, leaderId, replicas, described, errorCode, errorMessage, brokers);
  }

  /**
   * The leader's describe answer ({@code /v1/describe}).
   *
   * @param stopAware whether the plugin reports durable stop state (describe carries {@code
   *     leaderId} or {@code stop}); older plugins know only remove-fetchers, barrier, make-writable
   */
  public record Described(
      boolean stopAware,
      String role,
      Integer leaderEpoch,
      Long logEndOffset,
      Long highWatermark,
      Long lastStableOffset,
      Mirror mirror,
      Stop stop,
      List<BarrierReset> barrierResets) {

    public Described {
      barrierResets = barrierResets == null ? List.of() : List.copyOf(barrierResets);
    }
  }

  /**
   * {@code describe.mirror}: the partition's mirror registration.
   *
   * @param sourceTopicId the id of the source topic this partition mirrors, pinned before its first
   *     mirrored append; null before that (or from a plugin without it)
   * @param sourceSilentSince on a leader whose source has not answered for longer than the plugin's
   *     silence bound: since when (ISO-8601); null otherwise
   */
  public record Mirror(
      String mirrorName,
      String state,
      String sourceClusterId,
      String expectedSourceClusterId,
      Long lastMirroredOffset,
      Long lagRecords,
      String lastError,
      String failedReason,
      String sourceTopicId,
      String sourceSilentSince) {

    /** Without a silence (a source that answers, or a plugin without the field). */
    public Mirror(
        String mirrorName,
        String state,
        String sourceClusterId,
        String expectedSourceClusterId,
        Long lastMirroredOffset,
        Long lagRecords,
        String lastError,
        String failedReason,
        String sourceTopicId) {
      this(
          mirrorName,
          state,
          sourceClusterId,
          expectedSourceClusterId,
          lastMirroredOffset,
          lagRecords,
          lastError,
          failedReason,
          sourceTopicId,
          null);
    }

    /**
     * Since when the source has not answered the leader's fetches (longer than the plugin's silence
     * bound), or null: while it answers, or when the value is not an instant.
     */
    public java.time.Instant sourceSilentSinceInstant() {
      if (sourceSilentSince == null) {
        return null;
      }
      try {
        return java.time.Instant.parse(sourceSilentSince);
      } catch (java.time.format.DateTimeParseException e) {
        return null;
      }
    }
  }

  /**
   * {@code describe.stop}: the durable stop state, absent before a stop starts.
   *
   * @param lastMirroredSourceEpoch the source's leader epoch of the last mirrored batch kept, null
   *     or -1 when unknown (what a failback to that source aligns to, with {@code
   *     lastMirroredOffset})
   */
  public record Stop(
      String step,
      Integer stateLeaderEpoch,
      Long truncatedToOffset,
      Long lastMirroredOffset,
      Long barrierOffset,
      String sourceClusterId,
      Integer lastMirroredSourceEpoch) {

    /** Without a source epoch (a plugin older than the source epoch history). */
    public Stop(
        String step,
        Integer stateLeaderEpoch,
        Long truncatedToOffset,
        Long lastMirroredOffset,
        Long barrierOffset,
        String sourceClusterId) {
      this(
          step,
          stateLeaderEpoch,
          truncatedToOffset,
          lastMirroredOffset,
          barrierOffset,
          sourceClusterId,
          null);
    }
  }

  /** One entry of {@code describe.barrierResets}. */
  public record BarrierReset(String path, Long barrierOffset, String sourceClusterId) {}
}
