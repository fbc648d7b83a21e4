package dev.kafkamirror.operator.core;

import dev.kafkamirror.operator.api.v1alpha1.ClusterMirrorStatus;
import java.util.List;

/**
 * Everything a status is computed from.
 *
 * @param generation metadata.generation of the resource observed
 * @param target the desired state
 * @param plan the last plan of the reconcile (after its actions: the plan of the final observation)
 * @param observations the final observation, for offsets and lag
 * @param previous the status before this reconcile (null for a new resource)
 * @param specError why the spec cannot be acted on (a missing Secret, a bad pattern); null if none
 * @param destinationError why the destination could not be observed at all; null if it was
 * @param maxPartitionsListed bound of the per-partition list
 */
public record StatusInputs(
    long generation,
    MirrorIntent.Target target,
    FailoverPlan plan,
    List<PartitionObservation> observations,
    ClusterMirrorStatus previous,
    String specError,
    String destinationError,
    int maxPartitionsListed) {}
