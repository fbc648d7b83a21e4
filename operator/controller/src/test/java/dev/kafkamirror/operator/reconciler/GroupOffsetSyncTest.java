package dev.kafkamirror.operator.reconciler;

import static dev.kafkamirror.operator.reconciler.ReconcilerRig.NOW;
import static dev.kafkamirror.operator.reconciler.ReconcilerRig.SOURCE_ID;
import static dev.kafkamirror.operator.reconciler.ReconcilerRig.TOPIC;
import static org.assertj.core.api.Assertions.assertThat;

import dev.kafkamirror.operator.api.v1alpha1.ClusterMirror;
import dev.kafkamirror.operator.api.v1alpha1.ConsumerGroupSync;
import dev.kafkamirror.operator.api.v1alpha1.ConsumerGroupSyncStatus;
import dev.kafkamirror.operator.api.v1alpha1.DeletionPolicy;
import dev.kafkamirror.operator.api.v1alpha1.GroupSyncStatus;
import dev.kafkamirror.operator.api.v1alpha1.MirrorState;
import dev.kafkamirror.operator.core.GroupOffsetPlanner.DestinationGroup;
import dev.kafkamirror.operator.core.PartitionKey;
import dev.kafkamirror.operator.core.TopicSelector;
import java.time.Clock;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/** The consumer group offset sync against fake source and destination clusters. */
class GroupOffsetSyncTest {

  private static final String REF = "ns/orders-mirror";
  private static final PartitionKey P0 = new PartitionKey(TOPIC, 0);
  private static final PartitionKey P1 = new PartitionKey(TOPIC, 1);

  private final Journal journal = new Journal();
  private final TestingGroupOffsets source = new TestingGroupOffsets("source", SOURCE_ID, journal);
  private final TestingGroupOffsets destination =
      new TestingGroupOffsets("destination", "DSTDSTDSTDSTDSTDSTDST1", journal);
  private final AtomicLong nanos = new AtomicLong(1_000_000_000L);
  private final GroupOffsetSync sync =
      new GroupOffsetSync(
          (label, p, t) -> label.endsWith(" destination") ? destination : source,
          Clock.fixed(NOW, ZoneOffset.UTC),
          nanos::get,
          1_000L);
  private final ClusterMirror cr = mirror(List.of("app-.*"), List.of("app-test"), 10);
  private final ResolvedMirror resolved =
      new ResolvedMirror(
          "orders-mirror",
          "source.example:9092",
          SOURCE_ID,
          TopicSelector.of(List.of(TOPIC), null, null),
          "control-secret",
          null,
          9443,
          Map.of(),
          new Properties(),
          new Properties(),
          Map.of());

  static ClusterMirror mirror(List<String> include, List<String> exclude, int intervalSeconds) {
    ClusterMirror cr = ReconcilerRig.clusterMirror(MirrorState.Mirroring, DeletionPolicy.Retain);
    ConsumerGroupSync groups = new ConsumerGroupSync();
    groups.setInclude(include);
    groups.setExclude(exclude);
    groups.setSyncIntervalSeconds(intervalSeconds);
    cr.getSpec().setConsumerGroups(groups);
    return cr;
  }

  private ConsumerGroupSyncStatus status() {
    return sync.status(cr, null);
  }

  private GroupSyncStatus row(String group) {
    return status().getGroups().stream()
        .filter(r -> r.getGroup().equals(group))
        .findFirst()
        .orElseThrow(() -> new AssertionError(group + " not in " + status().getGroups()));
  }

  @Test
  void theSelectedGroupsCommitsAreCarriedOncePerIntervalAndNotRewrittenWhenUnchanged() {
    // Given two selected groups and an excluded one on the source, the destination holding 0..100
    source.commit("app-1", TOPIC, 0, 40).commit("app-1", TOPIC, 1, 7);
    source.commit("app-2", TOPIC, 0, 12).commit("app-test", TOPIC, 0, 99);
    destination.range(TOPIC, 0, 0, 100).range(TOPIC, 1, 0, 100);

    // When the sync runs
    sync.periodic(REF, cr, resolved, Set.of(P0, P1));

    // Then the selected groups' commits are on the destination, the excluded group's are not
    assertThat(destination.committed("app-1", TOPIC, 0)).isEqualTo(40L);
    assertThat(destination.committed("app-1", TOPIC, 1)).isEqualTo(7L);
    assertThat(destination.committed("app-2", TOPIC, 0)).isEqualTo(12L);
    assertThat(destination.commits).doesNotContainKey("app-test");
    assertThat(status().getGroupsSelected()).isEqualTo(2);
    assertThat(status().getGroupsSynced()).isEqualTo(2);
    assertThat(status().getPartitionsBehind()).isZero();
    assertThat(status().getLastSuccessfulSyncAt()).isEqualTo("2026-12-01T05:00:00Z");
    assertThat(status().getLastError()).isNull();
    int calls = destination.commitCalls;

    // And before the interval passed, a new source commit is not read
    source.commit("app-1", TOPIC, 0, 50);
    nanos.addAndGet(9_000_000_000L);
    assertThat(sync.dueInMs(cr)).isEqualTo(1_000L);
    sync.periodic(REF, cr, resolved, Set.of(P0, P1));
    assertThat(destination.commitCalls).isEqualTo(calls);

    // And once it passed, only the changed group is written
    nanos.addAndGet(1_000_000_000L);
    sync.periodic(REF, cr, resolved, Set.of(P0, P1));
    assertThat(destination.committed("app-1", TOPIC, 0)).isEqualTo(50L);
    assertThat(destination.commitCalls).isEqualTo(calls + 1);
  }

  @Test
  void aGroupWithMembersOnTheDestinationIsSkippedAndStatusSaysSo() {
    // Given app-1 has a member on the destination at offset 5
    source.commit("app-1", TOPIC, 0, 40);
    destination.commit("app-1", TOPIC, 0, 5).range(TOPIC, 0, 0, 100);
    destination.states.put("app-1", new DestinationGroup("STABLE", 1));

    // When the sync runs
    sync.periodic(REF, cr, resolved, Set.of(P0));

    // Then its destination commit stays, and status names it as skipped with one partition behind
    assertThat(destination.committed("app-1", TOPIC, 0)).isEqualTo(5L);
    assertThat(status().getGroupsSkippedActive()).isEqualTo(1);
    assertThat(row("app-1").getState()).isEqualTo("SkippedActive");
    assertThat(row("app-1").getPartitionsBehind()).isEqualTo(1);
    assertThat(row("app-1").getMessage()).contains("app-1", "1 member(s)", "STABLE");
  }

  @Test
  void aCommitBeyondTheDestinationsLogEndIsClampedAndStatusSaysSo() {
    source.commit("app-1", TOPIC, 0, 140);
    destination.range(TOPIC, 0, 0, 100);

    sync.periodic(REF, cr, resolved, Set.of(P0));

    assertThat(destination.committed("app-1", TOPIC, 0)).isEqualTo(100L);
    assertThat(row("app-1").getPartitionsClamped()).isEqualTo(1);
    assertThat(row("app-1").getPartitionsBehind()).isEqualTo(1);
    assertThat(row("app-1").getMessage()).contains("clamped", "orders-0");
  }

  @Test
  void anUnreachableSourceOrAnotherClusterWritesNothingAndSaysWhy() {
    source.commit("app-1", TOPIC, 0, 40);
    destination.range(TOPIC, 0, 0, 100);
    source.unreachable = true;

    sync.periodic(REF, cr, resolved, Set.of(P0));

    assertThat(destination.commits).isEmpty();
    assertThat(status().getLastError()).contains("source", "within 3000 ms");
    assertThat(status().getLastSuccessfulSyncAt()).isNull();

    // And a source that is another cluster is not read either
    source.unreachable = false;
    source.clusterId = "OTHEROTHEROTHEROTHER12";
    nanos.addAndGet(10_000_000_000L);
    sync.periodic(REF, cr, resolved, Set.of(P0));
    assertThat(destination.commits).isEmpty();
    assertThat(status().getLastError()).contains("OTHEROTHEROTHEROTHER12", SOURCE_ID);
  }

  @Test
  void aRefusedCommitFailsOnlyThatGroupAndNamesIt() {
    source.commit("app-1", TOPIC, 0, 40).commit("app-2", TOPIC, 0, 41);
    destination.range(TOPIC, 0, 0, 100);
    destination.refuseCommit.add("app-1");

    sync.periodic(REF, cr, resolved, Set.of(P0));

    assertThat(destination.committed("app-2", TOPIC, 0)).isEqualTo(41L);
    assertThat(row("app-1").getState()).isEqualTo("Failed");
    assertThat(status().getLastError()).contains("app-1", "orders-0", "destination");
    assertThat(status().getGroups().get(0).getGroup()).isEqualTo("app-1");
  }

  @Test
  void theStopsFinalSyncWithTheSourceDownCommitsTheLastSeenOffsetsClampedToTheTruncatedLog() {
    // Given while mirroring the source committed 150 on P0 and 30 on P1, but the destination held
    // only 100 of P0 then (clamped to 100)
    source.commit("app-1", TOPIC, 0, 150).commit("app-1", TOPIC, 1, 30);
    destination.range(TOPIC, 0, 0, 100).range(TOPIC, 1, 0, 100);
    sync.periodic(REF, cr, resolved, Set.of(P0, P1));
    assertThat(destination.committed("app-1", TOPIC, 0)).isEqualTo(100L);

    // When the source dies, P0 catches up and is truncated to 151 (its barrier included), P1 is
    // truncated to 20, and both are about to become writable
    source.unreachable = true;
    destination.range(TOPIC, 0, 0, 151).range(TOPIC, 1, 0, 20);
    sync.beforeMakeWritable(REF, cr, resolved, List.of(P0, P1));

    // Then the last seen source commit stands on P0 and P1's is clamped into the truncated log
    assertThat(destination.committed("app-1", TOPIC, 0)).isEqualTo(150L);
    assertThat(destination.committed("app-1", TOPIC, 1)).isEqualTo(20L);
    assertThat(status().getFinalSyncAt()).isEqualTo("2026-12-01T05:00:00Z");
    assertThat(status().getFinalSyncReadSource()).isFalse();
    assertThat(status().getLastError()).contains("could not read the source", "stand");
  }

  @Test
  void theFinalSyncWritesOnlyThePartitionsBecomingWritable() {
    source.commit("app-1", TOPIC, 0, 10).commit("app-1", TOPIC, 1, 20);
    destination.range(TOPIC, 0, 0, 100).range(TOPIC, 1, 0, 100);

    sync.beforeMakeWritable(REF, cr, resolved, List.of(P1));

    assertThat(destination.committed("app-1", TOPIC, 0)).isNull();
    assertThat(destination.committed("app-1", TOPIC, 1)).isEqualTo(20L);
    assertThat(status().getFinalSyncReadSource()).isTrue();
  }

  @Test
  void withoutAnIncludePatternNothingIsReadOrWritten() {
    ClusterMirror none = mirror(null, null, 10);
    source.commit("app-1", TOPIC, 0, 10);
    source.unreachable = true; // any call would be recorded as an error

    sync.periodic(REF, none, resolved, Set.of(P0));
    sync.beforeMakeWritable(REF, none, resolved, List.of(P0));

    assertThat(sync.status(none, null)).isNull();
    assertThat(sync.dueInMs(none)).isEqualTo(Long.MAX_VALUE);
  }

  @Test
  void aBadPatternIsReportedAndNothingIsWritten() {
    ClusterMirror bad = mirror(List.of("(unclosed"), null, 10);
    source.commit("(unclosed", TOPIC, 0, 10);
    destination.range(TOPIC, 0, 0, 100);

    sync.periodic(REF, bad, resolved, Set.of(P0));

    assertThat(destination.commits).isEmpty();
    assertThat(sync.status(bad, null).getLastError())
        .contains("spec.consumerGroups.include[0]", "(unclosed");
  }
}
