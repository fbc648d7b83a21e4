package dev.kafkamirror.operator.reconciler;

import static dev.kafkamirror.operator.reconciler.ReconcilerRig.TOPIC;
import static org.assertj.core.api.Assertions.assertThat;

import dev.kafkamirror.operator.api.v1alpha1.ClusterMirror;
import dev.kafkamirror.operator.api.v1alpha1.ClusterMirrorStatus;
import dev.kafkamirror.operator.api.v1alpha1.Conditions;
import dev.kafkamirror.operator.api.v1alpha1.MirrorState;
import io.javaoperatorsdk.operator.api.reconciler.UpdateControl;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The reconciler with spec.consumerGroups: the sync while mirroring, its final run inside a stop
 * (after truncation, before make-writable), and that no sync error holds the stop.
 */
class GroupSyncReconcileTest {

  private final ReconcilerRig rig = new ReconcilerRig();

  @AfterEach
  void close() {
    rig.close();
  }

  @Test
  void whileMirroringTheGroupsCommitsAreSyncedAndTheNextReconcileIsDueWithinTheInterval() {
    // Given two mirroring partitions and a group committed at 40 on the source
    rig.mirroring(2);
    rig.sourceGroups.commit("app", TOPIC, 0, 40);
    rig.destinationGroups.range(TOPIC, 0, 0, 100).range(TOPIC, 1, 0, 100);
    ClusterMirror cr = GroupOffsetSyncTest.mirror(List.of(".*"), null, 10);

    // When reconciled
    UpdateControl<ClusterMirror> control = rig.reconcile(cr);

    // Then the commit is on the destination, status says so, and the reconcile comes back within
    // the sync interval (10 s) rather than the idle resync (30 s)
    assertThat(rig.destinationGroups.committed("app", TOPIC, 0)).isEqualTo(40L);
    ClusterMirrorStatus s = rig.statusWriter.last();
    assertThat(s.getConsumerGroupSync().getGroupsSynced()).isEqualTo(1);
    assertThat(s.getConsumerGroupSync().getLastSuccessfulSyncAt()).isNotNull();
    assertThat(control.getScheduleDelay())
        .hasValueSatisfying(d -> assertThat(d).isLessThanOrEqualTo(10_000L));
  }

  @Test
  void aStopWithTheSourceDownSyncsBeforeMakeWritableFromTheLastSeenCommitsAndStillStops() {
    // Given a group synced at 40 while mirroring
    rig.mirroring(2);
    rig.sourceGroups.commit("app", TOPIC, 0, 40).commit("app", TOPIC, 1, 9);
    rig.destinationGroups.range(TOPIC, 0, 0, 100).range(TOPIC, 1, 0, 100);
    ClusterMirror cr = GroupOffsetSyncTest.mirror(List.of(".*"), null, 10);
    rig.reconcile(cr);
    assertThat(rig.destinationGroups.committed("app", TOPIC, 0)).isEqualTo(40L);

    // When the source is gone, the stop truncates partition 0 to 30 and the spec asks to stop
    rig.sourceGroups.unreachable = true;
    rig.source.failWith("source down");
    rig.destinationGroups.range(TOPIC, 0, 0, 30);
    rig.journal.clear();
    cr.getSpec().setState(MirrorState.Stopped);
    cr.getMetadata().setGeneration(2L);
    rig.reconcile(cr);

    // Then every partition is STOPPED, and before the first make-writable call the group's commit
    // was clamped to the truncated log end
    ClusterMirrorStatus s = rig.statusWriter.last();
    assertThat(Conditions.isStopped(s)).as(rig.journal.toString()).isTrue();
    assertThat(rig.destinationGroups.committed("app", TOPIC, 0)).isEqualTo(30L);
    assertThat(rig.destinationGroups.committed("app", TOPIC, 1)).isEqualTo(9L);
    int commit = rig.journal.first(l -> l.startsWith("groups commit destination app"));
    int writable = rig.journal.first(l -> l.startsWith("control MAKE_WRITABLE"));
    assertThat(commit).as(rig.journal.toString()).isGreaterThanOrEqualTo(0);
    assertThat(writable).as(rig.journal.toString()).isGreaterThan(commit);
    assertThat(s.getConsumerGroupSync().getFinalSyncReadSource()).isFalse();
    assertThat(s.getConsumerGroupSync().getFinalSyncAt()).isNotNull();
  }

  @Test
  void aDestinationThatRefusesEveryGroupCallDoesNotHoldTheStop() {
    rig.mirroring(2);
    ClusterMirror cr = GroupOffsetSyncTest.mirror(List.of(".*"), null, 10);
    cr.getSpec().setState(MirrorState.Stopped);
    rig.destinationGroups.unreachable = true;
    rig.sourceGroups.unreachable = true;

    rig.reconcile(cr);

    ClusterMirrorStatus s = rig.statusWriter.last();
    assertThat(Conditions.isStopped(s)).as(rig.journal.toString()).isTrue();
    assertThat(s.getConsumerGroupSync().getLastError()).contains("destination");
  }
}
