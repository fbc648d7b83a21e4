package dev.kafkamirror.operator.reconciler;

import dev.kafkamirror.operator.api.v1alpha1.ClusterMirror;
import dev.kafkamirror.operator.api.v1alpha1.DeletionPolicy;

/**
 * When a ClusterMirror carries the {@link #FINALIZER}: exactly while its deletionPolicy is
 * StopMirroring (deleting it then stops every partition before the resource goes); with Retain
 * there is none, and deleting it changes nothing on the destination. A pure decision; the
 * reconciler applies it through a {@link FinalizerWriter}.
 */
public final class FinalizerPolicy {

  /** The finalizer that holds a StopMirroring resource until every partition is STOPPED. */
  public static final String FINALIZER = "kafkamirror.dev/stop-mirroring";

  /** What to do about the finalizer before anything else in a reconcile. */
  public enum Step {
    /** Nothing to change; reconcile on. */
    NONE,
    /** StopMirroring without the finalizer: add it, then reconcile on. */
    ADD,
    /** Retain (or no spec) with the finalizer: remove it, then reconcile on. */
    REMOVE,
    /**
     * Being deleted with Retain: remove the finalizer if present, forget the resource, act on
     * nothing.
     */
    RELEASE,
    /**
     * Being deleted under StopMirroring but the finalizer is already gone: nothing is left to do.
     */
    GONE,
    /**
     * Being deleted under StopMirroring with the finalizer: stop every partition, then remove it.
     */
    STOP_THEN_RELEASE
  }

  private FinalizerPolicy() {}

  /** The step for {@code cr} as it is now. */
  public static Step decide(ClusterMirror cr) {
    boolean stopOnDelete =
        cr.getSpec() != null && cr.getSpec().getDeletionPolicy() == DeletionPolicy.StopMirroring;
    return decide(cr.isMarkedForDeletion(), stopOnDelete, cr.hasFinalizer(FINALIZER));
  }

  /** The step from the three facts it depends on. */
  public static Step decide(boolean deleting, boolean stopOnDelete, boolean hasFinalizer) {
    if (deleting) {
      if (!stopOnDelete) {
        return Step.RELEASE;
      }
      return hasFinalizer ? Step.STOP_THEN_RELEASE : Step.GONE;
    }
    if (stopOnDelete && !hasFinalizer) {
      return Step.ADD;
    }
    if (!stopOnDelete && hasFinalizer) {
      return Step.REMOVE;
    }
    return Step.NONE;
  }
}
