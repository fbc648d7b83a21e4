package dev.kafkamirror.operator.reconciler;

import static org.assertj.core.api.Assertions.assertThat;

import dev.kafkamirror.operator.api.v1alpha1.ClusterMirror;
import dev.kafkamirror.operator.api.v1alpha1.DeletionPolicy;
import dev.kafkamirror.operator.api.v1alpha1.MirrorState;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

class OwnWriteFilterTest {

  private final AtomicLong now = new AtomicLong(5_000_000_000L);
  private final OwnWriteFilter filter = new OwnWriteFilter(now::get);

  private static ClusterMirror cr(String resourceVersion, long generation) {
    ClusterMirror cr = ReconcilerRig.clusterMirror(MirrorState.Mirroring, DeletionPolicy.Retain);
    cr.getMetadata().setResourceVersion(resourceVersion);
    cr.getMetadata().setGeneration(generation);
    return cr;
  }

  @Test
  void theEchoOfAWriteIsSkippedUntilItsRequeueIsDue() {
    // Given a write that produced version 7 from generation 2 and asked for 1000 ms
    filter.wrote("uid-orders-mirror", "7", 2L, 1_000L);
    // Then its echo waits the rest of the delay
    assertThat(filter.echoDelayMs(cr("7", 2L))).hasValue(1_000L);
    now.addAndGet(400_000_000L);
    assertThat(filter.echoDelayMs(cr("7", 2L))).hasValue(600L);
    // And once due, it is reconciled
    now.addAndGet(600_000_000L);
    assertThat(filter.echoDelayMs(cr("7", 2L))).isEmpty();
  }

  @Test
  void anotherVersionAnotherGenerationADeletionOrForgettingIsReconciledAtOnce() {
    filter.wrote("uid-orders-mirror", "7", 2L, 30_000L);
    assertThat(filter.echoDelayMs(cr("8", 2L))).isEmpty();
    assertThat(filter.echoDelayMs(cr("7", 3L))).isEmpty();
    ClusterMirror deleting = cr("7", 2L);
    deleting.getMetadata().setDeletionTimestamp("2026-12-01T05:00:00Z");
    assertThat(filter.echoDelayMs(deleting)).isEmpty();
    filter.forget("uid-orders-mirror");
    assertThat(filter.echoDelayMs(cr("7", 2L))).isEmpty();
  }
}
