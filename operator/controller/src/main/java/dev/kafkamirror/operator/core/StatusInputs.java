package dev.kafkamirror.operator.core;

import dev.kafkamirror.operator.api.v1alpha1.ClusterMirrorStatus;
import java.util.List;

/**
 * Everything a status is computed from. Build it with {@link #builder}: the fields every status
 * needs are the builder's arguments, the rest are named.
 *
 * @param generation metadata.generation of the resource observed
 * @param target the desired state
 * @param plan the last plan of the reconcile (after its actions: the plan of the final observation)
 * @param observations the final observation, for offsets and lag
 * @param previous the status before this reconcile (null for a new resource)
 * @param specError why the spec cannot be acted on (a missing Secret, a bad pattern); null if none
 * @param destinationError why the destination could not be observed at all; null if it was
 * @param maxPartitionsListed bound of the per-partition list
 * @param pendingPartitions source partitions the destination lacks (not mirrored)
 * @param sourceAuthenticationError why the source refused the clients' credentials (names the
 *     cluster and what to check, never a secret); null if it did not
 * @param destinationAuthenticationError why the destination refused the operator's credentials
 *     (names the cluster and what to check, never a secret); null if it did not. When set, {@code
 *     destinationError} is null: the refusal is the reason the destination could not be observed
 * @param destinationRefusal why the destination refused a call of the operator that waiting does
 *     not make it accept (a topic policy, an ACL, a config it rejects); null if it did not. When
 *     set, {@code destinationError} is null
 */
public record StatusInputs(
    long generation,
    MirrorIntent.Target target,
    FailoverPlan plan,
    List<PartitionObservation> observations,
    ClusterMirrorStatus previous,
    String specError,
    String destinationError,
    int maxPartitionsListed,
    List<PartitionGrowthPlanner.Pending> pendingPartitions,
    String sourceAuthenticationError,
    String destinationAuthenticationError,
    String destinationRefusal) {

  public StatusInputs {
    pendingPartitions = pendingPartitions == null ? List.of() : List.copyOf(pendingPartitions);
  }

  /** Without pending partitions, an authentication error or a refusal. */
  public StatusInputs(
      long generation,
      MirrorIntent.Target target,
      FailoverPlan plan,
      List<PartitionObservation> observations,
      ClusterMirrorStatus previous,
      String specError,
      String destinationError,
      int maxPartitionsListed) {
    this(
        generation,
        target,
        plan,
        observations,
        previous,
        specError,
        destinationError,
        maxPartitionsListed,
        List.of(),
        null,
        null,
        null);
  }

  /** A builder with what every status needs; nothing planned or observed yet. */
  public static Builder builder(
      long generation,
      MirrorIntent.Target target,
      ClusterMirrorStatus previous,
      int maxPartitionsListed) {
    return new Builder(generation, target, previous, maxPartitionsListed);
  }

  /** Named construction of {@link StatusInputs}. Not thread-safe; use once. */
  public static final class Builder {
    private final long generation;
    private final MirrorIntent.Target target;
    private final ClusterMirrorStatus previous;
    private final int maxPartitionsListed;
    private FailoverPlan plan;
    private List<PartitionObservation> observations = List.of();
    private String specError;
    private String destinationError;
    private List<PartitionGrowthPlanner.Pending> pendingPartitions = List.of();
    private String sourceAuthenticationError;
    private String destinationAuthenticationError;
    private String destinationRefusal;

    private Builder(
        long generation,
        MirrorIntent.Target target,
        ClusterMirrorStatus previous,
        int maxPartitionsListed) {
      this.generation = generation;
      this.target = target;
      this.previous = previous;
      this.maxPartitionsListed = maxPartitionsListed;
    }

    /** The last plan of the reconcile; null when none was made. */
    public Builder plan(FailoverPlan plan) {
      this.plan = plan;
      return this;
    }

    /** The final observation; null is none. */
    public Builder observations(List<PartitionObservation> observations) {
      this.observations = observations == null ? List.of() : observations;
      return this;
    }

    /** Why the spec cannot be acted on. */
    public Builder specError(String specError) {
      this.specError = specError;
      return this;
    }

    /** Why the destination could not be observed. */
    public Builder destinationError(String destinationError) {
      this.destinationError = destinationError;
      return this;
    }

    /** Source partitions the destination lacks; null is none. */
    public Builder pendingPartitions(List<PartitionGrowthPlanner.Pending> pending) {
      this.pendingPartitions = pending == null ? List.of() : pending;
      return this;
    }

    /** Why the source refused the clients' credentials; null if it did not. */
    public Builder sourceAuthenticationError(String sourceAuthenticationError) {
      this.sourceAuthenticationError = sourceAuthenticationError;
      return this;
    }

    /** Why the destination refused the operator's credentials; null if it did not. */
    public Builder destinationAuthenticationError(String destinationAuthenticationError) {
      this.destinationAuthenticationError = destinationAuthenticationError;
      return this;
    }

    /** Why the destination refused a call that waiting does not help; null if it did not. */
    public Builder destinationRefusal(String destinationRefusal) {
      this.destinationRefusal = destinationRefusal;
      return this;
    }

    public StatusInputs build() {
      return new StatusInputs(
          generation,
          target,
          plan,
          observations,
          previous,
          specError,
          destinationError,
          maxPartitionsListed,
          pendingPartitions,
          sourceAuthenticationError,
          destinationAuthenticationError,
          destinationRefusal);
    }
  }
}
