package dev.kafkamirror.operator.reconciler;

import dev.kafkamirror.operator.api.v1alpha1.ClusterMirror;
import io.javaoperatorsdk.operator.api.reconciler.Context;

/** Adds and removes finalizers on the resource object itself, journaling each change. */
final class TestingFinalizers implements FinalizerWriter {

  private final Journal journal;

  TestingFinalizers(Journal journal) {
    this.journal = journal;
  }

  @Override
  public ClusterMirror add(Context<ClusterMirror> ctx, ClusterMirror cr, String finalizer) {
    journal.add("finalizer add " + finalizer);
    cr.addFinalizer(finalizer);
    return cr;
  }

  @Override
  public ClusterMirror remove(Context<ClusterMirror> ctx, ClusterMirror cr, String finalizer) {
    journal.add("finalizer remove " + finalizer);
    cr.removeFinalizer(finalizer);
    return cr;
  }
}
