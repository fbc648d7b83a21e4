package dev.kafkamirror.operator.reconciler;

import static org.assertj.core.api.Assertions.assertThat;

import dev.kafkamirror.operator.api.v1alpha1.ClusterMirror;
import dev.kafkamirror.operator.api.v1alpha1.DeletionPolicy;
import dev.kafkamirror.operator.api.v1alpha1.MirrorState;
import dev.kafkamirror.operator.reconciler.FinalizerPolicy.Step;
import org.junit.jupiter.api.Test;

/** The finalizer is held exactly while deletionPolicy is StopMirroring (docs/operator.md). */
class FinalizerPolicyTest {

  @Test
  void everyCombinationOfDeletingPolicyAndFinalizerHasItsStep() {
    // deleting, stopOnDelete, hasFinalizer -> step
    assertThat(FinalizerPolicy.decide(false, false, false)).isEqualTo(Step.NONE);
    assertThat(FinalizerPolicy.decide(false, false, true)).isEqualTo(Step.REMOVE);
    assertThat(FinalizerPolicy.decide(false, true, false)).isEqualTo(Step.ADD);
    assertThat(FinalizerPolicy.decide(false, true, true)).isEqualTo(Step.NONE);
    assertThat(FinalizerPolicy.decide(true, false, false)).isEqualTo(Step.RELEASE);
    assertThat(FinalizerPolicy.decide(true, false, true)).isEqualTo(Step.RELEASE);
    assertThat(FinalizerPolicy.decide(true, true, false)).isEqualTo(Step.GONE);
    assertThat(FinalizerPolicy.decide(true, true, true)).isEqualTo(Step.STOP_THEN_RELEASE);
  }

  @Test
  void aResourceIsReadForItsPolicyItsDeletionAndItsFinalizer() {
    // Given a Retain resource, Then nothing; with StopMirroring, Then add
    ClusterMirror cr = ReconcilerRig.clusterMirror(MirrorState.Mirroring, DeletionPolicy.Retain);
    assertThat(FinalizerPolicy.decide(cr)).isEqualTo(Step.NONE);
    cr.getSpec().setDeletionPolicy(DeletionPolicy.StopMirroring);
    assertThat(FinalizerPolicy.decide(cr)).isEqualTo(Step.ADD);
    // Given it carries the finalizer and is deleted, Then stop first
    cr.addFinalizer(FinalizerPolicy.FINALIZER);
    cr.getMetadata().setDeletionTimestamp("2026-12-01T05:00:00Z");
    assertThat(FinalizerPolicy.decide(cr)).isEqualTo(Step.STOP_THEN_RELEASE);
    // Given no spec at all (a broken resource), Then it holds no finalizer
    ClusterMirror bare = new ClusterMirror();
    bare.addFinalizer(FinalizerPolicy.FINALIZER);
    assertThat(FinalizerPolicy.decide(bare)).isEqualTo(Step.REMOVE);
  }
}
