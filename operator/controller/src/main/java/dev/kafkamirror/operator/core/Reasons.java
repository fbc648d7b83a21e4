package dev.kafkamirror.operator.core;

/**
 * Condition reasons (CamelCase), in one place for status, Events, tests and docs/operator.md. The
 * condition types are the API's: {@link dev.kafkamirror.operator.api.v1alpha1.Conditions}.
 * Reconciling=True carries a progress reason (StartingMirrors, Pausing, Aligning,
 * WaitingForCatchUp, StopInProgress, NoPartitions) or a transient Degraded reason
 * (DestinationUnreachable, PartitionsUnreachable); Stalled=True carries the Degraded reason that
 * needs a human.
 */
public final class Reasons {

  public static final String ALL_PARTITIONS_MIRRORING = "AllPartitionsMirroring";
  public static final String ALL_PARTITIONS_PAUSED = "AllPartitionsPaused";
  public static final String ALL_PARTITIONS_STOPPED = "AllPartitionsStopped";
  public static final String STARTING_MIRRORS = "StartingMirrors";
  public static final String PAUSING = "Pausing";
  public static final String PAUSED = "Paused";
  public static final String STOP_NOT_REQUESTED = "StopNotRequested";
  public static final String STOP_IN_PROGRESS = "StopInProgress";
  public static final String STOPPING_OR_STOPPED = "StoppingOrStopped";
  public static final String WAITING_FOR_CATCH_UP = "WaitingForCatchUp";
  public static final String CATCH_UP_TIMED_OUT = "CatchUpTimedOut";
  public static final String NO_PARTITIONS = "NoPartitions";
  public static final String SOURCE_CLUSTER_MISMATCH = "SourceClusterMismatch";
  public static final String UNCLEAN_LEADER_ELECTION_ENABLED = "UncleanLeaderElectionEnabled";
  public static final String PARTITIONS_FAILED = "PartitionsFailed";
  public static final String PARTITIONS_UNREACHABLE = "PartitionsUnreachable";

  /**
   * Degraded=True (the plugin keeps asking; not Stalled): mirroring partitions whose source has not
   * answered their leader's fetches for longer than {@link StatusComputer#SOURCE_SILENCE_DEGRADED}.
   */
  public static final String SOURCE_NOT_ANSWERING = "SourceNotAnswering";

  /**
   * Mirroring and Ready are not True: the source has partitions the destination lacks (added on the
   * source; being added on the destination, or held by a stop).
   */
  public static final String SOURCE_PARTITIONS_PENDING = "SourcePartitionsPending";

  /**
   * A Warning Event: the stop of partitions whose mirror had halted (describe state FAILED or
   * SOURCE_MISMATCH) began; they become writable with what the destination holds.
   */
  public static final String STOPPING_HALTED_PARTITIONS = "StoppingHaltedPartitions";

  public static final String INVALID_SPEC = "InvalidSpec";
  public static final String DESTINATION_UNREACHABLE = "DestinationUnreachable";

  /**
   * Degraded=True (and Stalled): the destination refused the credentials of
   * spec.destination.security (SASL authentication or the TLS handshake failed); no Admin call of
   * the operator gets through, so nothing is created, mirrored or stopped until a human fixes them.
   * Unlike {@link #DESTINATION_UNREACHABLE}, waiting does not help.
   */
  public static final String DESTINATION_AUTHENTICATION_FAILED = "DestinationAuthenticationFailed";

  /**
   * Degraded=True (and Stalled): the destination answered a call the reconcile needs (observing the
   * mirror topics, creating them, adding the partitions a source gained) with a refusal that
   * waiting does not change: a CreateTopicPolicy, an ACL the operator's principal lacks, a topic
   * config or name it rejects. The message names the call, the cluster and what to change. Unlike
   * {@link #DESTINATION_UNREACHABLE}, the destination answered. A refused config sync is not this
   * reason: it stays in status.topicConfigSync.
   */
  public static final String DESTINATION_REFUSED = "DestinationRefused";

  /**
   * Degraded=True (and Stalled): the source refused the credentials of spec.source.security (SASL
   * authentication or the TLS handshake failed); nothing is mirrored until a human fixes them.
   */
  public static final String SOURCE_AUTHENTICATION_FAILED = "SourceAuthenticationFailed";

  public static final String AS_EXPECTED = "AsExpected";
  public static final String RECONCILED = "Reconciled";
  public static final String PROGRESSING = "Progressing";

  /** Reconciling=True: a partition is aligning for a failback; the rest waits for it. */
  public static final String ALIGNING = "Aligning";

  /** Reconciling=False while Stalled is True: nothing moves until a human acts. */
  public static final String STALLED = "Stalled";

  /** Every condition of the first visit (Unknown; Reconciling True), before any observation. */
  public static final String FIRST_OBSERVATION = "FirstObservation";

  private Reasons() {}
}
