package dev.kafkamirror.operator.reconciler;

import static dev.kafkamirror.operator.reconciler.ReconcilerRig.NAME;
import static dev.kafkamirror.operator.reconciler.ReconcilerRig.NS;
import static dev.kafkamirror.operator.reconciler.ReconcilerRig.TOPIC;
import static dev.kafkamirror.operator.reconciler.ReconcilerRig.clusterMirror;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.kafkamirror.operator.api.v1alpha1.ClusterMirror;
import dev.kafkamirror.operator.api.v1alpha1.ClusterMirrorStatus;
import dev.kafkamirror.operator.api.v1alpha1.Condition;
import dev.kafkamirror.operator.api.v1alpha1.Conditions;
import dev.kafkamirror.operator.api.v1alpha1.DeletionPolicy;
import dev.kafkamirror.operator.api.v1alpha1.MirrorState;
import dev.kafkamirror.operator.api.v1alpha1.PartitionStatus;
import dev.kafkamirror.operator.api.v1alpha1.PendingPartitions;
import dev.kafkamirror.operator.api.v1alpha1.TopicSyncStatus;
import dev.kafkamirror.operator.app.ClusterMirrorMetrics;
import dev.kafkamirror.operator.core.Action;
import dev.kafkamirror.operator.core.PartitionKey;
import dev.kafkamirror.operator.core.Reasons;
import io.javaoperatorsdk.operator.api.reconciler.UpdateControl;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The reconciler's decisions, against fakes of every collaborator that talks to the outside (the
 * API server, the Kafka admin, the brokers' control endpoints): the order of status writes and
 * control calls, the finalizer policy, and how errors become conditions.
 */
class ClusterMirrorReconcilerTest {

  private final ReconcilerRig rig = new ReconcilerRig();

  @AfterEach
  void close() {
    rig.close();
  }

  private static boolean stopStepCall(String line) {
    for (Action a : Action.values()) {
      if (a.isStopStep() && line.startsWith("control " + a + " ")) {
        return true;
      }
    }
    return false;
  }

  @Test
  void aStopIsPersistedInTheStatusBeforeTheFirstDestructiveControlCall() {
    // Given three mirroring partitions and a ClusterMirror asking for Stopped
    rig.mirroring(3);
    ClusterMirror cr = clusterMirror(MirrorState.Stopped, DeletionPolicy.Retain);

    // When it is reconciled
    rig.reconcile(cr);

    // Then the first status write says the stop began, and it precedes every stop step's call
    int recorded =
        rig.journal.first(l -> l.startsWith("status stopStartedAt=2026-12-01T05:00:00Z"));
    int firstStep = rig.journal.first(ClusterMirrorReconcilerTest::stopStepCall);
    assertThat(recorded).as(rig.journal.toString()).isGreaterThanOrEqualTo(0);
    assertThat(firstStep).as(rig.journal.toString()).isGreaterThan(recorded);
    assertThat(rig.journal.lines().get(firstStep)).startsWith("control REMOVE_FETCHERS");
    assertThat(rig.events.events()).anyMatch(e -> e.startsWith("Normal StopStarted: "));
    // And the stop ran to its end within the reconcile: every partition STOPPED, Stopped=True
    ClusterMirrorStatus last = rig.statusWriter.last();
    assertThat(Conditions.isStopped(last)).as(rig.journal.toString()).isTrue();
    assertThat(last.getStopStartedAt()).isEqualTo("2026-12-01T05:00:00Z");
    for (int p = 0; p < 3; p++) {
      assertThat(rig.control.partition(TOPIC, p).stopStep).isEqualTo("STOPPED");
    }
  }

  @Test
  void aStopWhoseStepsAllSucceedGoesFromStepToStepWithoutDescribingTheDestinationInBetween() {
    // Given three mirroring partitions whose leaders answer each step with the recorded step
    rig.mirroring(3);
    rig.control.answersWithStopState();
    ClusterMirror cr = clusterMirror(MirrorState.Stopped, DeletionPolicy.Retain);

    // When it is reconciled
    rig.reconcile(cr);

    // Then the five steps follow one another with no describe between them
    List<TestingBrokerControl.Call> made = rig.control.calls();
    List<String> calls = made.stream().map(TestingBrokerControl.Call::what).toList();
    int firstStep = calls.indexOf("REMOVE_FETCHERS");
    // The last step is the leaders' make-writable: the followers' half is sent without waiting
    // and may land after the describe that follows
    Map<PartitionKey, Integer> leaders = new HashMap<>();
    made.stream()
        .filter(c -> c.what().equals("WRITE_BARRIER"))
        .forEach(c -> c.keys().forEach(k -> leaders.put(k, c.brokerId())));
    int lastStep = -1;
    for (int i = 0; i < made.size(); i++) {
      TestingBrokerControl.Call c = made.get(i);
      if (c.what().equals("MAKE_WRITABLE")
          && c.keys().stream()
              .allMatch(k -> Integer.valueOf(c.brokerId()).equals(leaders.get(k)))) {
        lastStep = i;
      }
    }
    assertThat(firstStep).as(calls.toString()).isGreaterThan(0);
    assertThat(lastStep).as(calls.toString()).isGreaterThan(firstStep);
    assertThat(calls.subList(0, firstStep)).as(calls.toString()).contains("DESCRIBE");
    assertThat(calls.subList(firstStep, lastStep + 1))
        .as(calls.toString())
        .doesNotContain("DESCRIBE")
        .containsSubsequence(
            "REMOVE_FETCHERS", "TRUNCATE", "PERSIST_OFFSETS", "WRITE_BARRIER", "MAKE_WRITABLE");
    // And the status comes from a describe after the last step: Stopped=True
    assertThat(calls.subList(lastStep, calls.size())).as(calls.toString()).contains("DESCRIBE");
    assertThat(Conditions.isStopped(rig.statusWriter.last())).isTrue();
  }

  @Test
  void aTruncateThatRecordsTheOffsetsTooIsFollowedByTheBarrierWithNoPersistOffsetsOrDescribe() {
    // Given three mirroring partitions whose leaders answer each step with the recorded step, and
    // whose truncate records OFFSETS_PERSISTED with the truncation (the registration knows its
    // source: steps 2 and 3 in one durable write)
    rig.mirroring(3);
    rig.control.answersWithStopState();
    rig.control.truncateRecordsOffsets();
    ClusterMirror cr = clusterMirror(MirrorState.Stopped, DeletionPolicy.Retain);

    // When it is reconciled
    rig.reconcile(cr);

    // Then truncate is followed by the barrier: no persist-offsets call at all, and no describe
    // between remove-fetchers and the barrier
    List<String> calls = rig.control.calls().stream().map(TestingBrokerControl.Call::what).toList();
    int removed = calls.indexOf("REMOVE_FETCHERS");
    int barrier = calls.indexOf("WRITE_BARRIER");
    assertThat(removed).as(calls.toString()).isGreaterThan(0);
    assertThat(barrier).as(calls.toString()).isGreaterThan(removed);
    assertThat(calls).as(calls.toString()).doesNotContain("PERSIST_OFFSETS");
    assertThat(calls.subList(removed, barrier + 1))
        .as(calls.toString())
        .doesNotContain("DESCRIBE")
        .containsSubsequence("REMOVE_FETCHERS", "TRUNCATE", "WRITE_BARRIER");
    // And the stop ended: every partition STOPPED, Stopped=True
    assertThat(Conditions.isStopped(rig.statusWriter.last())).as(calls.toString()).isTrue();
    for (int p = 0; p < 3; p++) {
      assertThat(rig.control.partition(TOPIC, p).stopStep).isEqualTo("STOPPED");
    }
  }

  @Test
  void aStepAnsweredWithAnErrorForOnePartitionIsFollowedByADescribeBeforeTheNextStep() {
    // Given two mirroring partitions; partition 1's leader answers its first truncate with
    // LEADER_MOVED (a fence), partition 0's truncates
    rig.mirroring(2);
    rig.control.answersWithStopState();
    rig.control.failOnce(Action.TRUNCATE, new PartitionKey(TOPIC, 1), "LEADER_MOVED");
    ClusterMirror cr = clusterMirror(MirrorState.Stopped, DeletionPolicy.Retain);

    // When it is reconciled
    rig.reconcile(cr);

    // Then remove-fetchers went straight on to truncate, the destination was described before
    // the step after the failed truncate, and the stop still ended: Stopped=True
    List<String> calls = rig.control.calls().stream().map(TestingBrokerControl.Call::what).toList();
    int removed = calls.indexOf("REMOVE_FETCHERS");
    int truncated = calls.indexOf("TRUNCATE");
    assertThat(calls.subList(removed, truncated)).as(calls.toString()).doesNotContain("DESCRIBE");
    assertThat(calls.get(truncated + 1)).as(calls.toString()).isEqualTo("DESCRIBE");
    assertThat(Conditions.isStopped(rig.statusWriter.last())).as(calls.toString()).isTrue();
  }

  @Test
  void aTruncateThatFencedEveryPartitionIsFollowedByADescribeAndTheStopEndsInTheSameReconcile() {
    // Given two mirroring partitions whose leaders both answer their first truncate with
    // LEADER_MOVED (each fenced its partition: the round succeeded in no call)
    rig.mirroring(2);
    rig.control.answersWithStopState();
    rig.control.failOnce(Action.TRUNCATE, new PartitionKey(TOPIC, 0), "LEADER_MOVED");
    rig.control.failOnce(Action.TRUNCATE, new PartitionKey(TOPIC, 1), "LEADER_MOVED");
    ClusterMirror cr = clusterMirror(MirrorState.Stopped, DeletionPolicy.Retain);

    // When it is reconciled once
    rig.reconcile(cr);

    // Then the destination was described right after the fenced truncate, truncate was called
    // again at the leaders of that observation, and the stop ended without waiting for a requeue
    List<String> calls = rig.control.calls().stream().map(TestingBrokerControl.Call::what).toList();
    int fenced = calls.indexOf("TRUNCATE");
    assertThat(calls.get(fenced + 1)).as(calls.toString()).isEqualTo("DESCRIBE");
    assertThat(calls.subList(fenced + 1, calls.size()))
        .as(calls.toString())
        .containsSubsequence("DESCRIBE", "TRUNCATE", "PERSIST_OFFSETS", "MAKE_WRITABLE");
    assertThat(Conditions.isStopped(rig.statusWriter.last())).as(calls.toString()).isTrue();
  }

  @Test
  void afterAFenceTheTruncateGoesToTheNewLeaderOnceTheMetadataShowsIt() {
    // Given two mirroring partitions led by broker 1, whose first truncate fences them (their
    // leadership moves to broker 2), and metadata that shows the move only from the third read on
    twoMirroringPartitionsWhoseFirstTruncateFences();
    rig.fenceStaleReads = 2;
    ClusterMirror cr = clusterMirror(MirrorState.Stopped, DeletionPolicy.Retain);

    // When it is reconciled once
    int readsBefore = rig.destination.placementReads();
    rig.reconcile(cr);

    // Then the fencing truncate went to broker 1 and every later one to broker 2 alone (never
    // again to the old leader, which would answer NOT_LEADER), and the stop ended
    assertTheTruncateAfterTheFenceWentToTheNewLeaderAloneAndTheStopEnded();
    // And the wait ended as soon as the metadata showed the move, not at its bound (which would
    // have read it some 100 times): a handful of reads in all
    assertThat(rig.destination.placementReads() - readsBefore).isLessThan(15);
  }

  @Test
  void afterAFenceTheObservationThatPlansTheTruncateIsTheOneWhoseMetadataShowsTheMove() {
    // Given two mirroring partitions led by broker 1, whose first truncate fences them to broker
    // 2, and metadata whose first read after the fence shows the move but whose next two reads,
    // every other one, come from a broker that has not applied it (as seen at 1,000 partitions)
    twoMirroringPartitionsWhoseFirstTruncateFences();
    rig.fenceLaggingReads = 2;
    ClusterMirror cr = clusterMirror(MirrorState.Stopped, DeletionPolicy.Retain);

    // When it is reconciled once
    rig.reconcile(cr);

    // Then every truncate after the fencing one went to broker 2 alone: the observation that
    // planned it is the one whose read showed the move, not a later read from the lagging broker
    assertTheTruncateAfterTheFenceWentToTheNewLeaderAloneAndTheStopEnded();
  }

  /** Two mirroring partitions led by broker 1, whose first truncate fences them to broker 2. */
  private void twoMirroringPartitionsWhoseFirstTruncateFences() {
    rig.mirroring(2);
    rig.control.answersWithStopState();
    rig.control.failOnce(Action.TRUNCATE, new PartitionKey(TOPIC, 0), "LEADER_MOVED");
    rig.control.failOnce(Action.TRUNCATE, new PartitionKey(TOPIC, 1), "LEADER_MOVED");
  }

  /** Two truncates: the fencing one to broker 1, then one for both partitions to broker 2. */
  private void assertTheTruncateAfterTheFenceWentToTheNewLeaderAloneAndTheStopEnded() {
    List<TestingBrokerControl.Call> truncates =
        rig.control.calls().stream().filter(c -> c.what().equals("TRUNCATE")).toList();
    assertThat(truncates).as(truncates.toString()).hasSize(2);
    assertThat(truncates.get(0).brokerId()).isEqualTo(1);
    assertThat(truncates.get(1).brokerId()).as(truncates.toString()).isEqualTo(2);
    assertThat(truncates.get(1).keys())
        .containsExactlyInAnyOrder(new PartitionKey(TOPIC, 0), new PartitionKey(TOPIC, 1));
    assertThat(Conditions.isStopped(rig.statusWriter.last())).isTrue();
  }

  @Test
  void truncatesThatFenceOverAndOverEndTheReconcileAfterABoundedNumberOfRounds() {
    // Given two mirroring partitions whose leaders answer every truncate with LEADER_MOVED
    rig.mirroring(2);
    rig.control.answersWithStopState();
    rig.control.fail(Action.TRUNCATE, "LEADER_MOVED");
    ClusterMirror cr = clusterMirror(MirrorState.Stopped, DeletionPolicy.Retain);

    // When it is reconciled once
    rig.reconcile(cr);

    // Then truncate was sent in the first round and in at most MAX_FENCE_ONLY_ROUNDS more, each
    // after a describe, and the reconcile ended with the stop not done (the requeue goes on)
    List<String> calls = rig.control.calls().stream().map(TestingBrokerControl.Call::what).toList();
    List<Integer> truncateRounds = new java.util.ArrayList<>();
    for (int i = 0; i < calls.size(); i++) {
      if (calls.get(i).equals("TRUNCATE") && (i == 0 || !calls.get(i - 1).equals("TRUNCATE"))) {
        truncateRounds.add(i);
      }
    }
    assertThat(truncateRounds)
        .as(calls.toString())
        .hasSize(1 + dev.kafkamirror.operator.core.StopChaining.MAX_FENCE_ONLY_ROUNDS);
    for (int i = 1; i < truncateRounds.size(); i++) {
      assertThat(calls.get(truncateRounds.get(i) - 1)).as(calls.toString()).isEqualTo("DESCRIBE");
    }
    assertThat(calls).as(calls.toString()).doesNotContain("PERSIST_OFFSETS");
    assertThat(Conditions.isStopped(rig.statusWriter.last())).as(calls.toString()).isFalse();
  }

  @Test
  void aStopThatCannotBeRecordedMakesNoDestructiveCallAndFailsTheReconcile() {
    // Given mirroring partitions, a Stopped ClusterMirror, and a status that cannot be written
    rig.mirroring(2);
    ClusterMirror cr = clusterMirror(MirrorState.Stopped, DeletionPolicy.Retain);
    rig.statusWriter.failWith("the API server is unreachable");

    // When it is reconciled, Then the reconcile fails naming the resource
    assertThatThrownBy(() -> rig.reconcile(cr))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining(NS + "/" + NAME)
        .hasMessageContaining("the API server is unreachable");
    // And no stop step was called: the partitions still mirror
    assertThat(rig.control.calls())
        .noneMatch(c -> !c.what().equals("DESCRIBE") && Action.valueOf(c.what()).isStopStep());
    assertThat(rig.control.partition(TOPIC, 0).mirrorState).isEqualTo("MIRRORING");
    assertThat(rig.control.partition(TOPIC, 1).stopStep).isNull();
  }

  @Test
  void aStopAlreadyRecordedResumesWithoutRecordingItsStartAgain() {
    // Given a stop that began in an earlier reconcile (status says so), partition 0 truncated
    rig.mirroring(1);
    ClusterMirror cr = clusterMirror(MirrorState.Stopped, DeletionPolicy.Retain);
    ClusterMirrorStatus earlier = new ClusterMirrorStatus();
    earlier.setStopStartedAt("2026-12-01T04:00:00Z");
    cr.setStatus(earlier);
    rig.control.partition(TOPIC, 0).mirrorState = "STOPPING";
    rig.control.partition(TOPIC, 0).stopStep = "TRUNCATED";

    // When it is reconciled
    rig.reconcile(cr);

    // Then it resumes at persist-offsets (nothing before it again) and keeps the original start
    assertThat(rig.control.calls())
        .filteredOn(c -> !c.what().equals("DESCRIBE"))
        .extracting(TestingBrokerControl.Call::what)
        .startsWith("PERSIST_OFFSETS")
        .doesNotContain("REMOVE_FETCHERS", "TRUNCATE");
    assertThat(rig.statusWriter.writes())
        .allSatisfy(s -> assertThat(s.getStopStartedAt()).isEqualTo("2026-12-01T04:00:00Z"));
    assertThat(rig.events.events()).noneMatch(e -> e.startsWith("Normal StopStarted"));
  }

  @Test
  void theFinalizerIsAddedOnlyUnderStopMirroringAndRemovedWhenThePolicyBecomesRetain() {
    // Given a mirroring ClusterMirror with deletionPolicy Retain
    rig.mirroring(1);
    ClusterMirror retain = clusterMirror(MirrorState.Mirroring, DeletionPolicy.Retain);
    // When it is reconciled, Then it gets no finalizer
    rig.reconcile(retain);
    assertThat(retain.getMetadata().getFinalizers()).isEmpty();
    assertThat(rig.journal.lines()).noneMatch(l -> l.startsWith("finalizer"));

    // Given one with StopMirroring, When it is reconciled, Then it carries the finalizer
    ClusterMirror stopping = clusterMirror(MirrorState.Mirroring, DeletionPolicy.StopMirroring);
    stopping.getMetadata().setUid("uid-other");
    rig.reconcile(stopping);
    assertThat(stopping.getMetadata().getFinalizers())
        .containsExactly(ClusterMirrorReconciler.FINALIZER);

    // When its policy becomes Retain (a new generation), Then the finalizer goes
    stopping.getSpec().setDeletionPolicy(DeletionPolicy.Retain);
    stopping.getMetadata().setGeneration(2L);
    rig.reconcile(stopping);
    assertThat(stopping.getMetadata().getFinalizers()).isEmpty();
    assertThat(rig.journal.lines())
        .filteredOn(l -> l.startsWith("finalizer"))
        .containsExactly(
            "finalizer add " + ClusterMirrorReconciler.FINALIZER,
            "finalizer remove " + ClusterMirrorReconciler.FINALIZER);
  }

  @Test
  void deletingUnderStopMirroringStopsEveryPartitionBeforeTheFinalizerGoes() {
    // Given a mirroring ClusterMirror with StopMirroring and its finalizer, being deleted
    rig.mirroring(2);
    ClusterMirror cr = clusterMirror(MirrorState.Mirroring, DeletionPolicy.StopMirroring);
    cr.addFinalizer(ClusterMirrorReconciler.FINALIZER);
    cr.getMetadata().setDeletionTimestamp("2026-12-01T05:00:00Z");

    // When it is reconciled
    UpdateControl<ClusterMirror> control = rig.reconcile(cr);

    // Then every partition was stopped, Stopped=True was written, and only then the finalizer went
    assertThat(rig.control.partition(TOPIC, 0).stopStep).isEqualTo("STOPPED");
    assertThat(rig.control.partition(TOPIC, 1).stopStep).isEqualTo("STOPPED");
    int stopped = rig.journal.first(l -> l.startsWith("status ") && l.contains("Stopped=True"));
    int released = rig.journal.first(l -> l.startsWith("finalizer remove"));
    int lastLeaderCall = rig.journal.first(l -> l.startsWith("control MAKE_WRITABLE broker=1 "));
    assertThat(stopped).as(rig.journal.toString()).isGreaterThan(lastLeaderCall);
    assertThat(released).as(rig.journal.toString()).isGreaterThan(stopped);
    assertThat(cr.getMetadata().getFinalizers()).isEmpty();
    assertThat(control.getScheduleDelay()).isEmpty();
  }

  @Test
  void deletingUnderStopMirroringKeepsTheFinalizerWhileAPartitionIsNotStopped() {
    // Given a ClusterMirror being deleted under StopMirroring, whose barrier cannot be written
    rig.mirroring(1);
    ClusterMirror cr = clusterMirror(MirrorState.Mirroring, DeletionPolicy.StopMirroring);
    cr.addFinalizer(ClusterMirrorReconciler.FINALIZER);
    cr.getMetadata().setDeletionTimestamp("2026-12-01T05:00:00Z");
    rig.control.fail(Action.WRITE_BARRIER, "NOT_ENOUGH_REPLICAS");

    // When it is reconciled
    rig.reconcile(cr);

    // Then the finalizer stays, and the status says why the stop is not done
    assertThat(cr.getMetadata().getFinalizers()).containsExactly(ClusterMirrorReconciler.FINALIZER);
    assertThat(Conditions.isStopped(rig.statusWriter.last())).isFalse();
    assertThat(rig.statusWriter.last().getPartitions())
        .extracting(PartitionStatus::getMessage)
        .anySatisfy(m -> assertThat(m).contains("NOT_ENOUGH_REPLICAS"));
  }

  @Test
  void deletingUnderRetainTouchesNoPartitionAndReleasesAnyFinalizer() {
    // Given a mirroring ClusterMirror with Retain, still carrying a finalizer, being deleted
    rig.mirroring(2);
    ClusterMirror cr = clusterMirror(MirrorState.Mirroring, DeletionPolicy.Retain);
    cr.addFinalizer(ClusterMirrorReconciler.FINALIZER);
    cr.getMetadata().setDeletionTimestamp("2026-12-01T05:00:00Z");

    // When it is reconciled
    UpdateControl<ClusterMirror> control = rig.reconcile(cr);

    // Then no broker was called, no status written, and the finalizer is gone
    assertThat(rig.control.calls()).isEmpty();
    assertThat(rig.statusWriter.writes()).isEmpty();
    assertThat(cr.getMetadata().getFinalizers()).isEmpty();
    assertThat(control.getScheduleDelay()).isEmpty();
    assertThat(rig.destination.closed()).isFalse(); // never opened for this resource
  }

  @Test
  void anInvalidSpecIsDegradedInvalidSpecNamingTheSecretAndCallsNothing() {
    // Given a ClusterMirror whose control Secret does not exist
    rig.mirroring(1);
    rig.secrets.clear();
    ClusterMirror cr = clusterMirror(MirrorState.Stopped, DeletionPolicy.Retain);

    // When it is reconciled
    UpdateControl<ClusterMirror> control = rig.reconcile(cr);

    // Then Degraded=True InvalidSpec names the field and the Secret, and nothing was called
    Condition degraded =
        Conditions.find(rig.statusWriter.last(), Conditions.DEGRADED).orElseThrow();
    assertThat(degraded.getStatus()).isEqualTo(Conditions.TRUE);
    assertThat(degraded.getReason()).isEqualTo(Reasons.INVALID_SPEC);
    assertThat(degraded.getMessage())
        .contains("spec.destination.control.secretRef")
        .contains(NS + "/" + ReconcilerRig.CONTROL_SECRET)
        .contains("does not exist");
    assertThat(Conditions.isReady(rig.statusWriter.last())).isFalse();
    assertThat(rig.control.calls()).isEmpty();
    assertThat(rig.events.events()).anyMatch(e -> e.startsWith("Warning InvalidSpec: "));
    assertThat(control.getScheduleDelay()).contains(rig.settings.requeueMs());
  }

  @Test
  void anUnreadableDestinationIsDegradedDestinationUnreachableAndCallsNothing() {
    // Given a destination whose metadata cannot be read
    rig.mirroring(1);
    rig.destination.failWith("connection refused");
    ClusterMirror cr = clusterMirror(MirrorState.Stopped, DeletionPolicy.Retain);

    // When it is reconciled
    rig.reconcile(cr);

    // Then Degraded=True DestinationUnreachable carries the admin's message; no call was made
    Condition degraded =
        Conditions.find(rig.statusWriter.last(), Conditions.DEGRADED).orElseThrow();
    assertThat(degraded.getStatus()).isEqualTo(Conditions.TRUE);
    assertThat(degraded.getReason()).isEqualTo(Reasons.DESTINATION_UNREACHABLE);
    assertThat(degraded.getMessage()).contains("destination").contains("connection refused");
    assertThat(rig.control.calls()).isEmpty();
    assertThat(Conditions.isStopped(rig.statusWriter.last())).isFalse();
  }

  @Test
  void
      aDestinationThatRefusesTheCredentialsIsStalledDestinationAuthenticationFailedAndCallsNothing() {
    // Given a destination that refuses the operator's SASL credentials
    rig.mirroring(1);
    rig.destination.failWith(
        "SaslAuthenticationException: invalid credentials",
        new org.apache.kafka.common.errors.SaslAuthenticationException(
            "Authentication failed during authentication due to invalid credentials with SASL"
                + " mechanism SCRAM-SHA-512"));
    ClusterMirror cr = clusterMirror(MirrorState.Stopped, DeletionPolicy.Retain);

    // When it is reconciled
    rig.reconcile(cr);

    // Then Degraded and Stalled name the refusal, the ClusterMirror, the destination and what to
    // check; no control call was made and nothing is stopped
    Condition degraded =
        Conditions.find(rig.statusWriter.last(), Conditions.DEGRADED).orElseThrow();
    assertThat(degraded.getStatus()).isEqualTo(Conditions.TRUE);
    assertThat(degraded.getReason()).isEqualTo(Reasons.DESTINATION_AUTHENTICATION_FAILED);
    assertThat(degraded.getMessage())
        .startsWith("ClusterMirror " + NS + "/" + cr.getMetadata().getName() + ": ")
        .contains("the destination cluster " + cr.getSpec().getDestination().getBootstrapServers())
        .contains("SaslAuthenticationException")
        .contains("spec.destination.security")
        .contains("saslUser");
    assertThat(
            Conditions.find(rig.statusWriter.last(), Conditions.STALLED).orElseThrow().getStatus())
        .isEqualTo(Conditions.TRUE);
    assertThat(rig.control.calls()).isEmpty();
    assertThat(Conditions.isStopped(rig.statusWriter.last())).isFalse();
  }

  @Test
  void anUnreachableLeaderLeavesItsPartitionsUnstoppedAndSaysWhichBroker() {
    // Given the leader's control endpoint is unreachable
    rig.mirroring(1);
    rig.control.unreachable(1);
    ClusterMirror cr = clusterMirror(MirrorState.Stopped, DeletionPolicy.Retain);

    // When it is reconciled
    rig.reconcile(cr);

    // Then nothing was acted on, Stopped is not True, and the partition's message names broker 1
    assertThat(rig.control.calls()).allMatch(c -> c.what().equals("DESCRIBE"));
    ClusterMirrorStatus last = rig.statusWriter.last();
    assertThat(Conditions.isStopped(last)).isFalse();
    assertThat(last.getPartitions())
        .singleElement()
        .satisfies(p -> assertThat(p.getMessage()).contains("broker 1").contains("unreachable"));
  }

  @Test
  void theEchoOfItsOwnStatusWriteIsSkippedUntilTheRequeueIsDueButASpecChangeIsNot() {
    // Given a mirroring ClusterMirror reconciled once
    rig.mirroring(1);
    ClusterMirror cr = clusterMirror(MirrorState.Mirroring, DeletionPolicy.Retain);
    rig.reconcile(cr);
    int calls = rig.control.calls().size();
    int writes = rig.statusWriter.writes().size();

    // When the event of its own status write arrives (same version and generation)
    UpdateControl<ClusterMirror> echo = rig.reconcile(cr);

    // Then nothing is observed or written, and the next reconcile stays at the idle resync
    assertThat(rig.control.calls()).hasSize(calls);
    assertThat(rig.statusWriter.writes()).hasSize(writes);
    assertThat(echo.getScheduleDelay().orElseThrow())
        .isPositive()
        .isLessThanOrEqualTo(rig.settings.idleRequeueMs());

    // When the spec changes (a new generation inside the same resource version)
    cr.getMetadata().setGeneration(2L);
    rig.reconcile(cr);

    // Then it is reconciled at once
    assertThat(rig.control.calls().size()).isGreaterThan(calls);
    assertThat(rig.statusWriter.writes().size()).isGreaterThan(writes);
  }

  @Test
  void anIdleMirrorsUnchangedStatusIsNotWrittenAgainButAnyChangeIs() {
    // Given a mirroring ClusterMirror of two partitions reconciled once, its status written
    rig.mirroring(2);
    ClusterMirror cr = clusterMirror(MirrorState.Mirroring, DeletionPolicy.Retain);
    rig.reconcile(cr);
    int writes = rig.statusWriter.writes().size();
    int calls = rig.control.calls().size();

    // When it is reconciled again with nothing changed on the brokers (a new resource version,
    // say a label, so that it is not the echo of its own write)
    cr.getMetadata().setResourceVersion("900");
    rig.reconcile(cr);

    // Then the brokers were observed but no status was sent, and the metric says so
    assertThat(rig.control.calls().size()).isGreaterThan(calls);
    assertThat(rig.statusWriter.writes()).hasSize(writes);
    assertThat(statusWrites("unchanged")).isEqualTo(1.0);

    // When one partition falls 5 records behind and it is reconciled again
    rig.control.partition(TOPIC, 1).lagRecords = 5L;
    cr.getMetadata().setResourceVersion("901");
    rig.reconcile(cr);

    // Then the new status is written
    assertThat(rig.statusWriter.writes()).hasSize(writes + 1);
    assertThat(rig.statusWriter.last().getMaxLagRecords()).isEqualTo(5L);
    assertThat(statusWrites("sent")).isEqualTo(writes + 1.0);
  }

  @Test
  void anIdleMirrorsCheckTimesAloneAreWrittenOncePerHeartbeatNotOnEveryResync() {
    // Given a mirroring ClusterMirror reconciled once (its topic sync's check times written)
    rig.mirroring(1);
    ClusterMirror cr = clusterMirror(MirrorState.Mirroring, DeletionPolicy.Retain);
    rig.reconcile(cr);
    int writes = rig.statusWriter.writes().size();
    String checkedAt = rig.statusWriter.last().getTopicSync().getLastCheckAt();
    assertThat(checkedAt).isEqualTo(ReconcilerRig.NOW.toString());

    // When it is reconciled a minute later with nothing changed but the time of the check
    rig.advanceWallClockMs(60_000);
    cr.getMetadata().setResourceVersion("900");
    rig.reconcile(cr);

    // Then nothing is sent: the status the server holds still says the first check
    assertThat(rig.statusWriter.writes()).hasSize(writes);
    assertThat(cr.getStatus().getTopicSync().getLastCheckAt()).isEqualTo(checkedAt);

    // When it is reconciled once the heartbeat interval has passed since that check
    rig.advanceWallClockMs(StatusRecorder.HEARTBEAT.toMillis());
    cr.getMetadata().setResourceVersion("901");
    rig.reconcile(cr);

    // Then the new check time is written
    assertThat(rig.statusWriter.writes()).hasSize(writes + 1);
    assertThat(rig.statusWriter.last().getTopicSync().getLastCheckAt())
        .isEqualTo(
            ReconcilerRig.NOW.plusMillis(60_000 + StatusRecorder.HEARTBEAT.toMillis()).toString());
  }

  private double statusWrites(String result) {
    var counter =
        rig.registry
            .find(ClusterMirrorMetrics.STATUS_WRITES)
            .tag(ClusterMirrorMetrics.TAG_RESULT, result)
            .counter();
    return counter == null ? 0.0 : counter.count();
  }

  @Test
  void aDeletedPrimaryIsForgottenAndItsAdminClientsClosed() {
    // Given a reconciled ClusterMirror
    rig.mirroring(1);
    ClusterMirror cr = clusterMirror(MirrorState.Mirroring, DeletionPolicy.Retain);
    rig.reconcile(cr);
    int calls = rig.control.calls().size();

    // When JOSDK reports it deleted
    UpdateControl<ClusterMirror> control = rig.reconciler.reconcile(cr, TestingContext.of(true));

    // Then nothing is called and the destination's admin client is closed
    assertThat(control.getScheduleDelay()).isEmpty();
    assertThat(rig.control.calls()).hasSize(calls);
    assertThat(rig.destination.closed()).isTrue();
  }

  @Test
  void aReconciledMirrorExportsItsLagAndPartitionsByPhaseUntilItIsDeleted() {
    // Given a ClusterMirror of three mirroring partitions, one 42 records behind
    rig.mirroring(3);
    rig.control.partition(TOPIC, 1).lagRecords = 42L;
    ClusterMirror cr = clusterMirror(MirrorState.Mirroring, DeletionPolicy.Retain);

    // When it is reconciled
    rig.reconcile(cr);

    // Then its series carry its namespace and name: the max lag, the partitions per phase (0 for
    // the phases none is in) and the time of this successful reconcile
    var mirror = rig.registry.find(ClusterMirrorMetrics.MAX_LAG).tag("namespace", NS);
    assertThat(mirror.tag("name", NAME).gauge().value()).isEqualTo(42.0);
    assertThat(partitions("MIRRORING")).isEqualTo(3.0);
    assertThat(partitions("STOPPED")).isEqualTo(0.0);
    assertThat(
            rig.registry.find(ClusterMirrorMetrics.LAST_SUCCESS).tag("name", NAME).gauge().value())
        .isEqualTo(ReconcilerRig.NOW.getEpochSecond());
    assertThat(
            rig.registry
                .find(ClusterMirrorMetrics.CONDITION)
                .tags("name", NAME, "type", Conditions.READY, "status", "True")
                .gauge()
                .value())
        .isEqualTo(1.0);

    // When JOSDK reports it deleted
    rig.reconciler.reconcile(cr, TestingContext.of(true));

    // Then no series names it any more
    assertThat(rig.registry.find(ClusterMirrorMetrics.MAX_LAG).tag("name", NAME).gauges())
        .isEmpty();
    assertThat(rig.registry.find(ClusterMirrorMetrics.PARTITIONS).tag("name", NAME).gauges())
        .isEmpty();
    assertThat(rig.registry.find(ClusterMirrorMetrics.LAST_SUCCESS).tag("name", NAME).gauges())
        .isEmpty();
    assertThat(rig.registry.find(ClusterMirrorMetrics.CONDITION).tag("name", NAME).gauges())
        .isEmpty();
  }

  @Test
  void aPartitionGrowthTheDestinationRefusesIsDestinationRefusedWhileTheMirrorGoesOn() {
    // Given orders mirrored with one partition, grown to three on the source, and an operator
    // principal without ALTER on it
    rig.mirroring(1);
    rig.source.topic(TOPIC, 3);
    rig.destination.refusePartitionGrowth(
        new org.apache.kafka.common.errors.TopicAuthorizationException(
            "Authorization failed.", java.util.Set.of(TOPIC)));
    ClusterMirror cr = clusterMirror(MirrorState.Mirroring, DeletionPolicy.Retain);
    cr.getMetadata().setResourceVersion("900");

    // When it is reconciled
    rig.reconcile(cr);

    // Then Degraded and Stalled say DestinationRefused with the ACLs to grant, and the two
    // partitions stay pending
    ClusterMirrorStatus refused = rig.statusWriter.last();
    Condition degraded = Conditions.find(refused, Conditions.DEGRADED).orElseThrow();
    assertThat(degraded.getReason()).isEqualTo(Reasons.DESTINATION_REFUSED);
    assertThat(degraded.getMessage())
        .contains("cannot add partitions to topics {" + TOPIC + "=3}")
        .contains("ALTER");
    assertThat(Conditions.find(refused, Conditions.STALLED).orElseThrow().getStatus())
        .isEqualTo(Conditions.TRUE);
    assertThat(refused.getTopicSync().getPartitionsPending())
        .singleElement()
        .satisfies(p -> assertThat(p.getPartitions()).isEqualTo("1..2"));

    // When the ACL is granted and it is reconciled again
    rig.destination.refusePartitionGrowth(null);
    cr.getMetadata().setResourceVersion("901");
    rig.reconcile(cr);

    // Then the partitions are added and the refusal is gone
    assertThat(rig.journal.lines()).contains("createPartitions {" + TOPIC + "=3}");
    assertThat(
            Conditions.find(rig.statusWriter.last(), Conditions.DEGRADED).orElseThrow().getReason())
        .isNotEqualTo(Reasons.DESTINATION_REFUSED);
  }

  @Test
  void partitionsTheSourceGainedAreAddedOnTheDestinationAndPendingUntilThen() {
    // Given orders mirrored with one partition, and grown to three on the source
    rig.mirroring(1);
    rig.source.topic(TOPIC, 3);
    ClusterMirror cr = clusterMirror(MirrorState.Mirroring, DeletionPolicy.Retain);

    // When it is reconciled
    UpdateControl<ClusterMirror> first = rig.reconcile(cr);

    // Then the destination's orders is raised to three partitions, and this status names the two
    // it lacked: Mirroring and Ready False (SourcePartitionsPending), no lag, a metric of 2
    assertThat(rig.journal.lines()).contains("createPartitions {" + TOPIC + "=3}");
    ClusterMirrorStatus pending = rig.statusWriter.last();
    assertThat(pending.getTopicSync().getPartitionsPending())
        .singleElement()
        .satisfies(
            p -> {
              assertThat(p.getTopic()).isEqualTo(TOPIC);
              assertThat(p.getPartitions()).isEqualTo("1..2");
              assertThat(p.getSourcePartitions()).isEqualTo(3);
              assertThat(p.getDestinationPartitions()).isEqualTo(1);
            });
    Condition mirroring = Conditions.find(pending, Conditions.MIRRORING).orElseThrow();
    assertThat(mirroring.getStatus()).isEqualTo(Conditions.FALSE);
    assertThat(mirroring.getReason()).isEqualTo(Reasons.SOURCE_PARTITIONS_PENDING);
    assertThat(Conditions.find(pending, Conditions.READY).orElseThrow().getReason())
        .isEqualTo(Reasons.SOURCE_PARTITIONS_PENDING);
    assertThat(pending.getMaxLagRecords()).isNull();
    assertThat(sourcePartitionsPending()).isEqualTo(2.0);
    assertThat(first.getScheduleDelay()).contains(rig.settings.requeueMs());

    // When it is reconciled again, once the requeue it asked for is due
    rig.advanceMs(rig.settings.requeueMs());
    rig.reconcile(cr);

    // Then the new partitions are started as mirrors, and nothing is pending any more
    assertThat(
            rig.control.calls().stream()
                .filter(c -> c.what().equals("START_MIRRORING"))
                .flatMap(c -> c.keys().stream())
                .map(PartitionKey::partition)
                .toList())
        .contains(1, 2);
    assertThat(rig.statusWriter.last().getTopicSync().getPartitionsPending()).isEmpty();
    assertThat(sourcePartitionsPending()).isEqualTo(0.0);
  }

  @Test
  void aStopAddsNoPartitionAsksNoSourceAndItsStoppedMessageNamesWhatItDidNotCarryOver() {
    // Given a status that listed orders 1..2 as pending (written before an operator restart), a
    // source that no longer answers, and a stop
    rig.mirroring(1);
    rig.source.topic(TOPIC, 3);
    rig.source.failWith("the source is down");
    ClusterMirror cr = clusterMirror(MirrorState.Stopped, DeletionPolicy.Retain);
    ClusterMirrorStatus before = new ClusterMirrorStatus();
    TopicSyncStatus sync = new TopicSyncStatus();
    PendingPartitions row = new PendingPartitions();
    row.setTopic(TOPIC);
    row.setPartitions("1..2");
    row.setSourcePartitions(3);
    row.setDestinationPartitions(1);
    row.setMessage("topic orders partitions 1..2 (source has 3, destination 1): being added");
    sync.setPartitionsPending(List.of(row));
    before.setTopicSync(sync);
    cr.setStatus(before);

    // When the stop runs
    rig.reconcile(cr);

    // Then no partition is added, the source's error is not reported (it was not asked), the stop
    // completes, and Stopped=True names the source partitions it did not carry over
    assertThat(rig.journal.lines()).noneMatch(l -> l.startsWith("createPartitions"));
    ClusterMirrorStatus last = rig.statusWriter.last();
    assertThat(Conditions.isStopped(last)).as(rig.journal.toString()).isTrue();
    assertThat(Conditions.find(last, Conditions.STOPPED).orElseThrow().getMessage())
        .contains("source partitions never mirrored")
        .contains("topic orders partitions 1..2 (source has 3, destination 1)");
    assertThat(last.getTopicSync().getLastError()).isNull();
    assertThat(last.getTopicSync().getPartitionsPending())
        .singleElement()
        .satisfies(p -> assertThat(p.getMessage()).contains("a stop never adds partitions"));
  }

  @Test
  void afterARestartTheLastPendingPartitionsStandWhileTheDestinationCannotBeRead() {
    // Given a status that listed orders 1..2 as pending, read by a restarted operator, and a
    // destination that does not answer
    ClusterMirror cr = clusterMirror(MirrorState.Mirroring, DeletionPolicy.Retain);
    ClusterMirrorStatus before = new ClusterMirrorStatus();
    TopicSyncStatus sync = new TopicSyncStatus();
    PendingPartitions row = new PendingPartitions();
    row.setTopic(TOPIC);
    row.setPartitions("1..2");
    row.setSourcePartitions(3);
    row.setDestinationPartitions(1);
    row.setMessage(
        "topic orders partitions 1..2 (source has 3, destination 1): being added to the"
            + " destination, then mirrored");
    sync.setPartitionsPending(List.of(row));
    before.setTopicSync(sync);
    cr.setStatus(before);
    rig.destination.failWith("the destination is down");

    // When it is reconciled
    rig.reconcile(cr);

    // Then Mirroring stays False naming them once (never an empty list for an unknown state)
    ClusterMirrorStatus last = rig.statusWriter.last();
    Condition mirroring = Conditions.find(last, Conditions.MIRRORING).orElseThrow();
    assertThat(mirroring.getStatus()).isEqualTo(Conditions.FALSE);
    assertThat(mirroring.getReason()).isEqualTo(Reasons.SOURCE_PARTITIONS_PENDING);
    assertThat(mirroring.getMessage())
        .containsOnlyOnce("topic orders partitions 1..2")
        .contains("(source has 3, destination 1): being added to the destination");
    assertThat(last.getMaxLagRecords()).isNull();
  }

  private double sourcePartitionsPending() {
    return rig.registry
        .find(ClusterMirrorMetrics.SOURCE_PARTITIONS_PENDING)
        .tags("namespace", NS, "name", NAME)
        .gauge()
        .value();
  }

  private double partitions(String phase) {
    return rig.registry
        .find(ClusterMirrorMetrics.PARTITIONS)
        .tags("namespace", NS, "name", NAME, "phase", phase)
        .gauge()
        .value();
  }

  @Test
  void aTopicCreationTheDestinationRefusesIsStalledDestinationRefusedUntilTheRefusalEnds() {
    // Given a source topic the destination lacks, and a destination whose topic policy refuses it
    rig.source.topic(TOPIC, 4);
    rig.destination.refuseTopicCreation(
        new org.apache.kafka.common.errors.PolicyViolationException(
            "Topic replication factor must be 4"));
    ClusterMirror cr = clusterMirror(MirrorState.Mirroring, DeletionPolicy.Retain);
    cr.getMetadata().setResourceVersion("900");

    // When it is reconciled
    rig.reconcile(cr);

    // Then Degraded and Stalled say the destination refused (not that it is unreachable), with
    // the ClusterMirror, the destination, Kafka's words and what to change
    Condition degraded =
        Conditions.find(rig.statusWriter.last(), Conditions.DEGRADED).orElseThrow();
    assertThat(degraded.getStatus()).isEqualTo(Conditions.TRUE);
    assertThat(degraded.getReason()).isEqualTo(Reasons.DESTINATION_REFUSED);
    assertThat(degraded.getMessage())
        .startsWith("ClusterMirror " + NS + "/" + cr.getMetadata().getName() + ": ")
        .contains("the destination cluster " + cr.getSpec().getDestination().getBootstrapServers())
        .contains("cannot create topic " + TOPIC)
        .contains("Topic replication factor must be 4")
        .contains("create.topic.policy.class.name");
    assertThat(
            Conditions.find(rig.statusWriter.last(), Conditions.STALLED).orElseThrow().getStatus())
        .isEqualTo(Conditions.TRUE);

    // When the policy changes and it is reconciled again (a later resync: not the echo of its own
    // status write)
    rig.destination.refuseTopicCreation(null);
    cr.getMetadata().setResourceVersion("901");
    rig.reconcile(cr);

    // Then the topic is created and the refusal is gone
    assertThat(rig.journal.lines()).contains("createTopics {" + TOPIC + "=4} rf=3");
    assertThat(
            Conditions.find(rig.statusWriter.last(), Conditions.DEGRADED).orElseThrow().getReason())
        .isNotEqualTo(Reasons.DESTINATION_REFUSED);
  }

  @Test
  void aMissingAclIsStalledDestinationRefusedAndNamesTheAclsToGrant() {
    // Given a destination where the operator's principal may not create the topic
    rig.source.topic(TOPIC, 4);
    rig.destination.refuseTopicCreation(
        new org.apache.kafka.common.errors.TopicAuthorizationException(
            "Authorization failed.", java.util.Set.of(TOPIC)));
    ClusterMirror cr = clusterMirror(MirrorState.Mirroring, DeletionPolicy.Retain);

    // When it is reconciled
    rig.reconcile(cr);

    // Then DestinationRefused names the ACLs
    Condition degraded =
        Conditions.find(rig.statusWriter.last(), Conditions.DEGRADED).orElseThrow();
    assertThat(degraded.getReason()).isEqualTo(Reasons.DESTINATION_REFUSED);
    assertThat(degraded.getMessage()).contains("TopicAuthorizationException").contains("CREATE");
  }

  @Test
  void missingTopicsAreCreatedFromTheSourceWithMirrorSettingsButNotOnAStop() {
    // Given a source topic the destination lacks
    rig.source.topic(TOPIC, 4);
    ClusterMirror stop = clusterMirror(MirrorState.Stopped, DeletionPolicy.Retain);

    // When a Stopped ClusterMirror is reconciled, Then no topic is created
    rig.reconcile(stop);
    assertThat(rig.journal.lines()).noneMatch(l -> l.startsWith("createTopics"));

    // When a Mirroring one is, Then it is created with the source's partition count, RF 3
    ClusterMirror mirror = clusterMirror(MirrorState.Mirroring, DeletionPolicy.Retain);
    mirror.getMetadata().setUid("uid-mirroring");
    rig.reconcile(mirror);
    assertThat(rig.journal.lines()).contains("createTopics {" + TOPIC + "=4} rf=3");
    assertThat(rig.control.calls())
        .filteredOn(c -> c.what().equals("START_MIRRORING"))
        .isNotEmpty();
  }

  @Test
  void aMissingTopicIsCreatedWithTheSourcesSyncedConfigsButNotItsSafetySettings() {
    // Given a source topic kept forever and compacted, with min.insync.replicas 1
    rig.source.topic(TOPIC, 2);
    rig.source.configs.put(
        TOPIC,
        new java.util.TreeMap<>(
            Map.of("retention.ms", "-1", "cleanup.policy", "compact", "min.insync.replicas", "1")));

    // When a Mirroring ClusterMirror is reconciled
    rig.reconcile(clusterMirror(MirrorState.Mirroring, DeletionPolicy.Retain));

    // Then the destination topic is created with the source's retention and cleanup policy only
    assertThat(rig.journal.lines())
        .contains(
            "createTopics {"
                + TOPIC
                + "=2} rf=3 configs={"
                + TOPIC
                + "={cleanup.policy=compact, retention.ms=-1}}");
  }

  @Test
  void topicConfigDriftIsCorrectedWhileMirroringShownInStatusAndAnnounced() {
    // Given a mirrored topic whose source keeps records forever and whose destination deletes
    // them after 7 days, and differs on min.insync.replicas
    rig.mirroring(1);
    rig.source.configs.put(
        TOPIC, new java.util.TreeMap<>(Map.of("retention.ms", "-1", "min.insync.replicas", "1")));
    rig.destination.configs.put(
        TOPIC,
        new java.util.TreeMap<>(Map.of("retention.ms", "604800000", "min.insync.replicas", "2")));
    ClusterMirror cr = clusterMirror(MirrorState.Mirroring, DeletionPolicy.Retain);

    // When it is reconciled
    rig.reconcile(cr);

    // Then retention is set on the destination, min.insync.replicas is left alone
    assertThat(rig.journal.lines()).contains("alterTopicConfigs {" + TOPIC + "={retention.ms=-1}}");
    assertThat(rig.destination.configs.get(TOPIC))
        .containsEntry("retention.ms", "-1")
        .containsEntry("min.insync.replicas", "2");
    var sync = rig.statusWriter.last().getTopicConfigSync();
    assertThat(sync.getLastError()).isNull();
    assertThat(sync.getTopicsChecked()).isEqualTo(1);
    assertThat(sync.getTopicsInSync()).isEqualTo(1);
    assertThat(sync.getLastDrift())
        .singleElement()
        .satisfies(
            d -> {
              assertThat(d.getTopic()).isEqualTo(TOPIC);
              assertThat(d.getConfig()).isEqualTo("retention.ms");
              assertThat(d.getSourceValue()).isEqualTo("-1");
              assertThat(d.getDestinationValue()).isEqualTo("604800000");
              assertThat(d.getState()).isEqualTo("Corrected");
            });
    assertThat(rig.events.events())
        .anyMatch(
            e -> e.startsWith("Normal TopicConfigsCorrected: ") && e.contains("retention.ms=-1"));

    // When the destination drifts again: not before the interval, then corrected
    rig.destination.configs.get(TOPIC).put("retention.ms", "1000");
    rig.journal.clear();
    rig.reconcile(cr);
    assertThat(rig.journal.lines()).noneMatch(l -> l.startsWith("alterTopicConfigs"));
    rig.advanceMs(TopicConfigSync.INTERVAL_MS);
    rig.reconcile(cr);
    assertThat(rig.journal.lines()).contains("alterTopicConfigs {" + TOPIC + "={retention.ms=-1}}");
  }

  @Test
  void anUnreadableSourceLeavesTheDestinationsConfigsAndSaysWhy() {
    // Given a mirrored topic whose source cannot be read
    rig.mirroring(1);
    rig.destination.configs.put(TOPIC, new java.util.TreeMap<>(Map.of("retention.ms", "1000")));
    rig.source.failWith("connection refused");

    // When reconciled
    rig.reconcile(clusterMirror(MirrorState.Mirroring, DeletionPolicy.Retain));

    // Then nothing is altered and status names the source
    assertThat(rig.journal.lines()).noneMatch(l -> l.startsWith("alterTopicConfigs"));
    assertThat(rig.statusWriter.last().getTopicConfigSync().getLastError())
        .startsWith("the source's topic configs could not be read")
        .contains("source");
  }

  @Test
  void aDisabledSyncNeitherChangesConfigsNorReportsStatus() {
    // Given drift and spec.topicConfigs.enabled false
    rig.mirroring(1);
    rig.source.configs.put(TOPIC, new java.util.TreeMap<>(Map.of("retention.ms", "-1")));
    rig.destination.configs.put(TOPIC, new java.util.TreeMap<>(Map.of("retention.ms", "1000")));
    ClusterMirror cr = clusterMirror(MirrorState.Mirroring, DeletionPolicy.Retain);
    var off = new dev.kafkamirror.operator.api.v1alpha1.TopicConfigSync();
    off.setEnabled(false);
    cr.getSpec().setTopicConfigs(off);

    // When reconciled, Then nothing is altered and there is no topicConfigSync status
    rig.reconcile(cr);
    assertThat(rig.journal.lines()).noneMatch(l -> l.startsWith("alterTopicConfigs"));
    assertThat(rig.statusWriter.last().getTopicConfigSync()).isNull();
  }

  @Test
  void aStopOnATopicAllowingUncleanElectionWaitsAndIsDegraded() {
    // Given a topic whose unclean leader election is enabled
    rig.mirroring(1);
    rig.destination.uncleanElection(TOPIC, "topic config unclean.leader.election.enable=true");
    ClusterMirror cr = clusterMirror(MirrorState.Stopped, DeletionPolicy.Retain);

    // When it is reconciled
    rig.reconcile(cr);

    // Then no stop step is called and Degraded names the topic and the override
    assertThat(rig.control.calls()).noneMatch(c -> !c.what().equals("DESCRIBE"));
    Condition degraded =
        Conditions.find(rig.statusWriter.last(), Conditions.DEGRADED).orElseThrow();
    assertThat(degraded.getReason()).isEqualTo(Reasons.UNCLEAN_LEADER_ELECTION_ENABLED);
    assertThat(degraded.getMessage()).contains(TOPIC).contains("allowUncleanLeaderElection");
    assertThat(List.of(rig.control.partition(TOPIC, 0).mirrorState)).containsExactly("MIRRORING");
  }

  @Test
  void aStopOfAHaltedPartitionIsAnnouncedAndItsStatusKeepsWhyItsMirrorHalted() {
    // Given two partitions, the mirror of partition 0 halted by the plugin for good
    rig.mirroring(2);
    rig.control.halted(
        TOPIC,
        0,
        "SourceTopicRecreated",
        TOPIC
            + "-0 of mirror "
            + NAME
            + ": the source topic was deleted and created again. Way out: fail over with what the"
            + " destination has (stop the mirror)");
    ClusterMirror cr = clusterMirror(MirrorState.Stopped, DeletionPolicy.Retain);

    // When the ClusterMirror asks for Stopped (a failover)
    rig.reconcile(cr);

    // Then both stops complete, the halted partition's too
    ClusterMirrorStatus last = rig.statusWriter.last();
    assertThat(Conditions.isStopped(last)).as(rig.journal.toString()).isTrue();
    assertThat(rig.control.partition(TOPIC, 0).stopStep).isEqualTo("STOPPED");
    // And not silently: a Warning Event names the halted partition and its reason, not the other
    assertThat(rig.events.events())
        .filteredOn(e -> e.startsWith("Warning StoppingHaltedPartitions: "))
        .singleElement()
        .satisfies(
            e ->
                assertThat(e)
                    .contains(TOPIC + "-0 (SourceTopicRecreated)", "writable", "barrier")
                    .doesNotContain(TOPIC + "-1"));
    // And the halted partition's status says it was stopped after its mirror halted, and why
    assertThat(partition(last, 0).getState()).isEqualTo("STOPPED");
    assertThat(partition(last, 0).getMessage())
        .contains("halted", "SourceTopicRecreated", "Way out");
    assertThat(partition(last, 1).getMessage()).isNull();

    // When it is reconciled again at the next resync
    rig.advanceMs(rig.settings.idleRequeueMs() + 1);
    rig.reconcile(cr);

    // Then the status still says so, and the Event is not repeated
    assertThat(rig.statusWriter.writes().size()).isGreaterThan(1);
    assertThat(partition(rig.statusWriter.last(), 0).getMessage())
        .contains("halted", "SourceTopicRecreated");
    assertThat(rig.events.events())
        .filteredOn(e -> e.startsWith("Warning StoppingHaltedPartitions: "))
        .hasSize(1);
  }

  private static PartitionStatus partition(ClusterMirrorStatus status, int partition) {
    return status.getPartitions().stream()
        .filter(p -> p.getPartition() == partition)
        .findFirst()
        .orElseThrow();
  }

  /** A newer copy of {@code cr}: generation 2, wanting {@code state}. */
  private static ClusterMirror newerSpec(ClusterMirror cr, MirrorState state) {
    ClusterMirror newer = clusterMirror(state, cr.getSpec().getDeletionPolicy());
    newer.getMetadata().setGeneration(cr.getMetadata().getGeneration() + 1);
    newer.getMetadata().setResourceVersion("2");
    return newer;
  }

  /** Start calls for {@code partition} to its leader (broker 1), one per round that started it. */
  private long startCalls(int partition) {
    return rig.control.calls().stream()
        .filter(c -> c.what().equals("START_MIRRORING") && c.brokerId() == 1)
        .filter(c -> c.keys().contains(new PartitionKey(TOPIC, partition)))
        .count();
  }

  /**
   * Two partitions to start: the leader (broker 1) fails partition 1's first start, the followers
   * are unreachable (their calls never block a start); a Mirroring ClusterMirror of them.
   */
  private ClusterMirror twoPartitionsToStartThe2ndFailingItsFirstStart() {
    rig.destination.topic(TOPIC, 2);
    rig.source.topic(TOPIC, 2);
    rig.control.unreachable(2);
    rig.control.unreachable(3);
    rig.control.failOnce(Action.START_MIRRORING, new PartitionKey(TOPIC, 1), "UNREACHABLE");
    ClusterMirror cr = clusterMirror(MirrorState.Mirroring, DeletionPolicy.Retain);
    return cr;
  }

  @Test
  void aMirroringReconcileWhoseStartNeedsASecondRoundRunsItWhenTheSpecIsUnchanged() {
    // Given two partitions to start, the leader (broker 1) failing partition 1's first start, the
    // followers unreachable (their calls never block a start)
    ClusterMirror cr = twoPartitionsToStartThe2ndFailingItsFirstStart();

    // When it is reconciled and the informer's newest copy is the same generation
    rig.reconcile(cr, () -> java.util.Optional.of(cr));

    // Then partition 1's start is sent to its leader again in a second round of the reconcile
    assertThat(startCalls(1)).as(rig.control.calls().toString()).isEqualTo(2);
    assertThat(rig.control.partition(TOPIC, 1).mirrorState).isEqualTo("MIRRORING");
  }

  @Test
  void aSpecChangeDuringAMirroringReconcileEndsItsRoundsSoTheStopIsNotKeptWaiting() {
    // Given the same start, and a stop applied while the first round runs (the informer's
    // newest copy has generation 2, Stopped)
    ClusterMirror cr = twoPartitionsToStartThe2ndFailingItsFirstStart();
    ClusterMirror stop = newerSpec(cr, MirrorState.Stopped);

    // When the Mirroring generation is reconciled
    rig.reconcile(cr, () -> java.util.Optional.of(stop));

    // Then the rounds end after the first: partition 1's start is not sent again, and no
    // describe follows the first round's calls (the next reconcile observes anew)
    List<String> calls = rig.control.calls().stream().map(TestingBrokerControl.Call::what).toList();
    assertThat(startCalls(1)).as(calls.toString()).isEqualTo(1);
    int lastStart = calls.lastIndexOf("START_MIRRORING");
    assertThat(calls.subList(lastStart, calls.size()))
        .as(calls.toString())
        .doesNotContain("DESCRIBE");
    // And nothing is written after the rounds (a stop is waiting for this reconcile): the one
    // status write is the first visit's seed
    assertThat(rig.statusWriter.writes()).as(rig.journal.toString()).hasSize(1);
    assertThat(rig.statusWriter.last().getPhase())
        .isEqualTo(dev.kafkamirror.operator.api.v1alpha1.MirrorPhase.Pending);

    // When the stop is reconciled next, Then it begins at once: partition 0's fetchers go
    rig.control.reachable(2);
    rig.control.reachable(3);
    rig.reconcile(stop, () -> java.util.Optional.of(stop));
    assertThat(rig.control.calls())
        .as(rig.journal.toString())
        .anyMatch(
            c ->
                c.what().equals("REMOVE_FETCHERS")
                    && c.keys().contains(new PartitionKey(TOPIC, 0)));
  }

  @Test
  void aMirroringReconcileThatAStopSupersedesEndsWithoutItsStatusWriteSoTheStopBeginsSooner() {
    // Given a mirroring reconcile (generation 1) whose status has been written once, and a stop
    // applied while it observes (the informer's newest copy has generation 2, Stopped)
    ClusterMirror cr = mirroredOnceThenLagging(DeletionPolicy.Retain);
    int writesBefore = rig.statusWriter.writes().size();
    ClusterMirror stop = newerSpec(cr, MirrorState.Stopped);

    // When generation 1 is reconciled again
    UpdateControl<ClusterMirror> control = rig.reconcile(cr, () -> java.util.Optional.of(stop));

    // Then it writes no status (at 1,000 partitions a write takes 0.2 to 0.9 s under a failover's
    // load, and the stop's reconcile waits for it) and asks for no delayed reconcile: JOSDK runs
    // the stop's reconcile as soon as this one returns
    assertThat(rig.statusWriter.writes()).as(rig.journal.toString()).hasSize(writesBefore);
    assertThat(control.getScheduleDelay()).isEmpty();

    // When the stop is reconciled next, Then it runs to its end and its status is written
    rig.reconcile(stop, () -> java.util.Optional.of(stop));
    assertThat(Conditions.isStopped(rig.statusWriter.last())).as(rig.journal.toString()).isTrue();
    assertThat(rig.statusWriter.last().getObservedGeneration()).isEqualTo(2L);
  }

  @Test
  void aMirroringReconcileThatADeletionUnderStopMirroringSupersedesEndsWithoutItsStatusWrite() {
    // Given a mirroring ClusterMirror under StopMirroring (the reconcile adds its finalizer),
    // reconciled once, then partition 0 lagging by 7 records
    ClusterMirror cr = mirroredOnceThenLagging(DeletionPolicy.StopMirroring);
    assertThat(cr.hasFinalizer(ClusterMirrorReconciler.FINALIZER)).isTrue();
    int writesBefore = rig.statusWriter.writes().size();
    // And its deletion in the informer's newest copy (the finalizer makes it a stop)
    ClusterMirror deleting = clusterMirror(MirrorState.Mirroring, DeletionPolicy.StopMirroring);
    deleting.addFinalizer(ClusterMirrorReconciler.FINALIZER);
    deleting.getMetadata().setDeletionTimestamp("2026-12-01T05:00:00Z");

    // When the resource as it was before the deletion is reconciled
    UpdateControl<ClusterMirror> control = rig.reconcile(cr, () -> java.util.Optional.of(deleting));

    // Then no status is written and no delayed reconcile asked for: the deletion's stop follows
    assertThat(rig.statusWriter.writes()).as(rig.journal.toString()).hasSize(writesBefore);
    assertThat(control.getScheduleDelay()).isEmpty();
    assertThat(rig.control.partition(TOPIC, 0).stopStep).isNull();
  }

  @Test
  void aMirroringReconcileThatANewerSpecSupersedesWithoutAStopStillWritesItsStatus() {
    // Given a mirroring reconcile (generation 1) and a newer generation that pauses
    ClusterMirror cr = mirroredOnceThenLagging(DeletionPolicy.Retain);
    int writesBefore = rig.statusWriter.writes().size();
    ClusterMirror pause = newerSpec(cr, MirrorState.Paused);

    // When generation 1 is reconciled again
    rig.reconcile(cr, () -> java.util.Optional.of(pause));

    // Then its status is still written (only a waiting stop skips it): a spec that keeps changing
    // keeps a status
    assertThat(rig.statusWriter.writes()).as(rig.journal.toString()).hasSize(writesBefore + 1);
    assertThat(rig.statusWriter.last().getMaxLagRecords()).isEqualTo(7L);
  }

  @Test
  void aFailbackReportThatAStopSupersedesIsStillWrittenWithItsWarning() {
    // Given a failback (TruncateAndRestore) of two partitions not mirrored yet, whose source
    // leader (broker 7) describes each failed over from this destination through offset 5
    ClusterMirror cr = failbackOfTwoPartitions();
    // And a stop applied while its first reconcile runs
    ClusterMirror stop = newerSpec(cr, MirrorState.Stopped);

    // When generation 1 is reconciled while the informer already holds the stop
    UpdateControl<ClusterMirror> control = rig.reconcile(cr, () -> java.util.Optional.of(stop));

    // Then its dry run reported what the alignment would discard
    assertThat(rig.control.calls())
        .as(rig.journal.toString())
        .anyMatch(c -> c.what().equals("START_FAILBACK"));
    // And that report is written, though a stop waits: the stop's status starts from the last
    // one written and would never hold it
    assertThat(rig.statusWriter.last().getFailback())
        .as(rig.journal.toString())
        .extracting(
            dev.kafkamirror.operator.api.v1alpha1.FailbackDiscard::getPartition,
            dev.kafkamirror.operator.api.v1alpha1.FailbackDiscard::getDiscardedFromOffset,
            dev.kafkamirror.operator.api.v1alpha1.FailbackDiscard::getDiscardedToOffset)
        .containsExactly(
            org.assertj.core.groups.Tuple.tuple(0, 5L, 10L),
            org.assertj.core.groups.Tuple.tuple(1, 5L, 10L));
    assertThat(control.getScheduleDelay()).isPresent();
    // And a Warning Event announced it
    assertThat(rig.events.events())
        .anyMatch(e -> e.startsWith("Warning " + FailbackReports.EVENT_REASON + ": "));
  }

  @Test
  void aKeepDiscardedCopyThatAStopSupersedesIsStillWrittenWithItsProgress() {
    // Given a failback of two partitions that keeps what its alignment discards, whose first
    // reconcile reported (its dry run) that offsets 5 to 10 of each would be discarded
    ClusterMirror cr = failbackOfTwoPartitions();
    dev.kafkamirror.operator.api.v1alpha1.FailbackPolicy policy =
        new dev.kafkamirror.operator.api.v1alpha1.FailbackPolicy();
    policy.setKeepDiscarded(new dev.kafkamirror.operator.api.v1alpha1.KeepDiscarded());
    cr.getSpec().setFailback(policy);
    rig.reconcile(cr);
    assertThat(rig.statusWriter.last().getFailback()).as(rig.journal.toString()).hasSize(2);
    assertThat(rig.keptCopies).as("a dry run copies nothing").isEmpty();
    cr.setStatus(rig.statusWriter.last());
    cr.getMetadata().setResourceVersion("2");
    // And a stop applied while the next reconcile of the same generation runs
    ClusterMirror stop = newerSpec(cr, MirrorState.Stopped);
    stop.getMetadata().setResourceVersion("3");

    // When that reconcile runs while the informer already holds the stop
    rig.reconcile(cr, () -> java.util.Optional.of(stop));

    // Then it copied what the alignment discards into the side topic, and truncated nothing
    assertThat(rig.keptCopies)
        .as(rig.journal.toString())
        .containsExactly(
            "orders-0 [5, 10) into orders.cmo-discarded",
            "orders-1 [5, 10) into orders.cmo-discarded");
    // And the copy's progress is written, though a stop waits: the stop's status starts from the
    // last one written and would never hold it
    assertThat(rig.statusWriter.last().getFailback())
        .as(rig.journal.toString())
        .extracting(
            dev.kafkamirror.operator.api.v1alpha1.FailbackDiscard::getPartition,
            dev.kafkamirror.operator.api.v1alpha1.FailbackDiscard::getKeptIn,
            dev.kafkamirror.operator.api.v1alpha1.FailbackDiscard::getCopiedThrough,
            dev.kafkamirror.operator.api.v1alpha1.FailbackDiscard::getCopiedRecords)
        .containsExactly(
            org.assertj.core.groups.Tuple.tuple(0, "orders.cmo-discarded", 10L, 5L),
            org.assertj.core.groups.Tuple.tuple(1, "orders.cmo-discarded", 10L, 5L));
  }

  /**
   * A Mirroring ClusterMirror of two partitions with initialSync TruncateAndRestore: the
   * destination's partitions are not mirrored, the source's leader (broker 7) describes each as
   * failed over from this destination ({@code destination-id}) through offset 5.
   */
  private ClusterMirror failbackOfTwoPartitions() {
    rig.destination.topic(TOPIC, 2);
    rig.source.topic(TOPIC, 2);
    for (int p = 0; p < 2; p++) {
      rig.control.failedOverOnSource(7, TOPIC, p, "destination-id", 5L, 2, "topic-id-of-orders");
    }
    ClusterMirror cr = clusterMirror(MirrorState.Mirroring, DeletionPolicy.Retain);
    cr.getSpec()
        .setInitialSync(dev.kafkamirror.operator.api.v1alpha1.InitialSync.TruncateAndRestore);
    dev.kafkamirror.operator.api.v1alpha1.ControlEndpoint sourceControl =
        new dev.kafkamirror.operator.api.v1alpha1.ControlEndpoint();
    sourceControl.setPort(9443);
    sourceControl.setSecretRef(ReconcilerRig.ref(ReconcilerRig.CONTROL_SECRET, "secret"));
    cr.getSpec().getSource().setControl(sourceControl);
    return cr;
  }

  /**
   * Two mirroring partitions of a ClusterMirror with {@code policy} reconciled once (their status
   * written), then partition 0 lagging by 7 records, the echo's delay past: the next reconcile of
   * the same generation has a status change to write.
   */
  private ClusterMirror mirroredOnceThenLagging(DeletionPolicy policy) {
    rig.mirroring(2);
    ClusterMirror cr = clusterMirror(MirrorState.Mirroring, policy);
    rig.reconcile(cr);
    rig.control.partition(TOPIC, 0).lagRecords = 7L;
    rig.advanceMs(60_000L);
    return cr;
  }

  @Test
  void aStopsRoundsAreNotCutShortByANewerSpec() {
    // Given three mirroring partitions, a stop, and a newer generation asking to mirror again
    rig.mirroring(3);
    ClusterMirror cr = clusterMirror(MirrorState.Stopped, DeletionPolicy.Retain);
    ClusterMirror mirrorAgain = newerSpec(cr, MirrorState.Mirroring);

    // When the stop is reconciled (its steps take several rounds, each observed anew)
    rig.reconcile(cr, () -> java.util.Optional.of(mirrorAgain));

    // Then the stop still runs to its end within the reconcile
    assertThat(Conditions.isStopped(rig.statusWriter.last())).as(rig.journal.toString()).isTrue();
    for (int p = 0; p < 3; p++) {
      assertThat(rig.control.partition(TOPIC, p).stopStep).isEqualTo("STOPPED");
    }
  }
}
