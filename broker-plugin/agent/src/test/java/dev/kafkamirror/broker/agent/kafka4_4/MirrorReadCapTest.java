package dev.kafkamirror.broker.agent.kafka4_4;

import static org.assertj.core.api.Assertions.assertThat;

import org.apache.kafka.server.storage.log.FetchIsolation;
import org.junit.jupiter.api.Test;

class MirrorReadCapTest {

  @Test
  void aHighWatermarkReadOfAReadOnlyMirrorEndsAtTheLastStableOffset() {
    // Given a read-only mirror partition
    // When a consumer at read_uncommitted or another cluster's mirror fetcher reads it
    // Then the read ends where read_committed reads end: nothing a stop can cut is shown
    assertThat(MirrorReadCap.capped(FetchIsolation.HIGH_WATERMARK, true))
        .isEqualTo(FetchIsolation.TXN_COMMITTED);
  }

  @Test
  void replicaAndReadCommittedReadsOfAMirrorAreUntouched() {
    // Given a read-only mirror partition
    // When its followers (log end) or read_committed consumers read it
    // Then they read as Kafka reads: the stop's fence handles replicas
    assertThat(MirrorReadCap.capped(FetchIsolation.LOG_END, true))
        .isEqualTo(FetchIsolation.LOG_END);
    assertThat(MirrorReadCap.capped(FetchIsolation.TXN_COMMITTED, true))
        .isEqualTo(FetchIsolation.TXN_COMMITTED);
  }

  @Test
  void readsOfAPartitionThatIsNoMirrorOrAStoppedOneAreUntouched() {
    // Given a partition that is not (or no longer) a read-only mirror
    // When a consumer at read_uncommitted reads it
    // Then it reads up to the high watermark, as on any Kafka broker
    assertThat(MirrorReadCap.capped(FetchIsolation.HIGH_WATERMARK, false))
        .isEqualTo(FetchIsolation.HIGH_WATERMARK);
  }
}
