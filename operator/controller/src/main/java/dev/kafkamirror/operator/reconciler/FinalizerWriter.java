package dev.kafkamirror.operator.reconciler;

import dev.kafkamirror.operator.api.v1alpha1.ClusterMirror;
import io.javaoperatorsdk.operator.api.reconciler.Context;
import io.javaoperatorsdk.operator.api.reconciler.PrimaryUpdateAndCacheUtils;

/**
 * Adds and removes a finalizer on the primary resource. {@link #JOSDK} uses JOSDK's
 * primary-update-and-cache utilities, so the next reconcile sees the change even before the
 * informer does; unit tests use a fake.
 */
public interface FinalizerWriter {

  /** The resource with {@code finalizer} added, as the API server stored it. */
  ClusterMirror add(Context<ClusterMirror> ctx, ClusterMirror cr, String finalizer);

  /** The resource with {@code finalizer} removed, as the API server stored it. */
  ClusterMirror remove(Context<ClusterMirror> ctx, ClusterMirror cr, String finalizer);

  /** Through JOSDK's {@link PrimaryUpdateAndCacheUtils}. */
  FinalizerWriter JOSDK =
      new FinalizerWriter() {
        @Override
        public ClusterMirror add(Context<ClusterMirror> ctx, ClusterMirror cr, String finalizer) {
          return PrimaryUpdateAndCacheUtils.addFinalizer(ctx, finalizer);
        }

        @Override
        public ClusterMirror remove(
            Context<ClusterMirror> ctx, ClusterMirror cr, String finalizer) {
          return PrimaryUpdateAndCacheUtils.removeFinalizer(ctx, finalizer);
        }
      };
}
