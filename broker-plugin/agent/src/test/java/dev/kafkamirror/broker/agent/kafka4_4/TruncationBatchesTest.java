package dev.kafkamirror.broker.agent.kafka4_4;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.utils.Time;
import org.apache.kafka.storage.internals.log.ProducerStateManager;
import org.apache.kafka.storage.internals.log.ProducerStateManagerConfig;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class TruncationBatchesTest {

  private final Object logManager = new Object();
  private final List<String> written = Collections.synchronizedList(new ArrayList<>());
  private final List<Path> synced = Collections.synchronizedList(new ArrayList<>());
  private TruncationBatches.FileSync realSync;

  @BeforeEach
  void recordSyncs() {
    realSync = TruncationBatches.fileSync;
    TruncationBatches.fileSync =
        file -> {
          synced.add(file);
          written.add("sync:" + file.getFileName());
        };
  }

  private TruncationBatches.DirectoryCheckpoint writer(String owner) {
    return dir -> written.add(owner + ":" + dir.getName());
  }

  @AfterEach
  void noBatchLeftOpen() {
    TruncationBatches.fileSync = realSync;
    assertThat(TruncationBatches.inBatch()).isFalse();
  }

  private static TruncationBatches.UnsyncedSnapshot snapshot(String name) {
    return () -> Optional.of(new File(name));
  }

  @Test
  void outsideABatchNothingIsDeferred() {
    // Given no batch on this thread
    // When a checkpoint is asked for
    boolean deferred = TruncationBatches.defer(logManager, new File("d1"), writer("lm"));

    // Then the caller writes it now
    assertThat(deferred).isFalse();
    assertThat(written).isEmpty();
  }

  @Test
  void aBatchWritesEachDirectoryOnceAtItsEndInTheOrderFirstAsked() {
    // Given a batch
    boolean began = TruncationBatches.begin();

    // When five truncations ask for checkpoints of two directories
    for (String d : List.of("d2", "d1", "d2", "d2", "d1")) {
      assertThat(TruncationBatches.defer(logManager, new File(d), writer("lm"))).isTrue();
    }

    // Then nothing is written before the batch ends, each directory once after
    assertThat(written).isEmpty();
    TruncationBatches.end(began);
    assertThat(written).containsExactly("lm:d2", "lm:d1");
  }

  @Test
  void twoLogManagersWithTheSameDirectoryNameAreWrittenApart() {
    // Given a batch with the same directory asked for by two log managers (a broker and a test)
    boolean began = TruncationBatches.begin();
    TruncationBatches.defer(logManager, new File("d1"), writer("a"));
    TruncationBatches.defer(new Object(), new File("d1"), writer("b"));

    // When it ends, Then each is written by its own log manager
    TruncationBatches.end(began);
    assertThat(written).containsExactly("a:d1", "b:d1");
  }

  @Test
  void nestedBatchesWriteAtTheOutermostEnd() {
    // Given a batch inside a batch
    boolean outer = TruncationBatches.begin();
    boolean inner = TruncationBatches.begin();
    TruncationBatches.defer(logManager, new File("d1"), writer("lm"));

    // When the inner one ends, Then nothing is written yet
    TruncationBatches.end(inner);
    assertThat(written).isEmpty();
    assertThat(TruncationBatches.inBatch()).isTrue();

    // When the outer one ends, Then the directory is written once
    TruncationBatches.end(outer);
    assertThat(written).containsExactly("lm:d1");
  }

  @Test
  void aFailedWriteDoesNotKeepTheOthersFromBeingWrittenNorThrow() {
    // Given a batch whose first directory's checkpoint fails
    boolean began = TruncationBatches.begin();
    TruncationBatches.defer(
        logManager,
        new File("d1"),
        dir -> {
          throw new IllegalStateException("disk gone");
        });
    TruncationBatches.defer(logManager, new File("d2"), writer("lm"));

    // When it ends, Then the second is still written and nothing is thrown
    TruncationBatches.end(began);
    assertThat(written).containsExactly("lm:d2");
  }

  @Test
  void anEndWhoseBeginFailedChangesNothing() {
    // Given a batch and an inner begin that did not happen (its advice failed)
    boolean began = TruncationBatches.begin();
    TruncationBatches.defer(logManager, new File("d1"), writer("lm"));

    // When the failed one's end runs, Then the batch stays open
    TruncationBatches.end(false);
    assertThat(written).isEmpty();
    TruncationBatches.end(began);
    assertThat(written).containsExactly("lm:d1");
  }

  @Test
  void aBatchIsThisThreadsOnly() throws Exception {
    // Given a batch on this thread
    boolean began = TruncationBatches.begin();

    // When another thread asks for a checkpoint, Then it writes it itself
    boolean deferredElsewhere =
        CompletableFuture.supplyAsync(
                () -> TruncationBatches.defer(logManager, new File("d1"), writer("other")))
            .get();
    assertThat(deferredElsewhere).isFalse();
    TruncationBatches.end(began);
    assertThat(written).isEmpty();
  }

  @Test
  void outsideABatchASnapshotIsNeitherWrittenNorDeferred() throws Exception {
    // Given no batch on this thread
    List<String> calls = new ArrayList<>();

    // When a snapshot is asked for
    boolean deferred =
        TruncationBatches.deferSnapshotSync(
            () -> {
              calls.add("write");
              return Optional.of(new File("s1"));
            });

    // Then the caller writes and syncs it itself, as Kafka does
    assertThat(deferred).isFalse();
    assertThat(calls).isEmpty();
  }

  @Test
  void snapshotsOfABatchAreSyncedAtItsEndBeforeTheCheckpointsAreWritten() throws Exception {
    // Given a batch with three truncations, each writing a snapshot and asking for a checkpoint
    boolean began = TruncationBatches.begin();
    for (String name : List.of("a.snapshot", "b.snapshot", "c.snapshot")) {
      assertThat(TruncationBatches.deferSnapshotSync(snapshot(name))).isTrue();
      TruncationBatches.defer(logManager, new File("d1"), writer("lm"));
    }

    // Then nothing is synced before the batch ends
    assertThat(synced).isEmpty();

    // When it ends, Then every snapshot is synced, and only then the checkpoint is written
    TruncationBatches.end(began);
    assertThat(synced)
        .extracting(Path::toString)
        .containsExactlyInAnyOrder("a.snapshot", "b.snapshot", "c.snapshot");
    assertThat(written).hasSize(4).last().isEqualTo("lm:d1");
  }

  @Test
  void aLeaderBatchSyncsItsSnapshotsLikeAFollowerBatch() throws Exception {
    // Given a stop call's truncations on a leader, nested into nothing
    boolean began = TruncationBatches.beginLeaderTruncations();
    TruncationBatches.deferSnapshotSync(snapshot("a.snapshot"));
    TruncationBatches.deferSnapshotSync(snapshot("b.snapshot"));

    // When it ends, Then both are synced
    TruncationBatches.end(began);
    assertThat(synced)
        .extracting(Path::toString)
        .containsExactlyInAnyOrder("a.snapshot", "b.snapshot");
  }

  @Test
  void aSnapshotWriteThatFailsIsNotKeptAndItsErrorReachesTheCaller() {
    // Given a batch
    boolean began = TruncationBatches.begin();

    // When the unsynced write fails, Then the caller sees the error (Kafka's own write then runs)
    assertThatThrownBy(
            () ->
                TruncationBatches.deferSnapshotSync(
                    () -> {
                      throw new IOException("disk full");
                    }))
        .isInstanceOf(IOException.class);

    // And the end of the batch has nothing to sync
    TruncationBatches.end(began);
    assertThat(synced).isEmpty();
  }

  @Test
  void aFailedSyncDoesNotKeepTheOthersFromBeingSyncedNorThrow() throws Exception {
    // Given a batch of three snapshots whose second one cannot be synced
    TruncationBatches.fileSync =
        file -> {
          if (file.toString().equals("b.snapshot")) {
            throw new IOException("device gone");
          }
          synced.add(file);
        };
    boolean began = TruncationBatches.begin();
    for (String name : List.of("a.snapshot", "b.snapshot", "c.snapshot")) {
      TruncationBatches.deferSnapshotSync(snapshot(name));
    }

    // When it ends, Then the other two are synced and nothing is thrown
    TruncationBatches.end(began);
    assertThat(synced)
        .extracting(Path::toString)
        .containsExactlyInAnyOrder("a.snapshot", "c.snapshot");
  }

  @Test
  void aKafkaProducerStateSnapshotInsideABatchIsWrittenAtOnceAndSyncedAtTheEnd(@TempDir Path dir)
      throws Exception {
    // Given Kafka's producer state of a log at offset 5, and a batch
    ProducerStateManager producerState =
        new ProducerStateManager(
            new TopicPartition("t", 0),
            dir.toFile(),
            60_000,
            new ProducerStateManagerConfig(86_400_000, false),
            Time.SYSTEM);
    producerState.updateMapEndOffset(5);
    boolean began = TruncationBatches.begin();

    // When the snapshot the truncation takes is deferred
    boolean deferred = TruncationBatches.takeSnapshotUnsynced(producerState);

    // Then it is written now, at offset 5, and Kafka counts it as taken (no second one)
    assertThat(deferred).isTrue();
    Path file = dir.resolve("00000000000000000005.snapshot");
    assertThat(Files.exists(file)).isTrue();
    assertThat(producerState.latestSnapshotOffset()).hasValue(5);
    assertThat(producerState.takeSnapshot(false)).isEmpty();
    assertThat(synced).isEmpty();

    // When the batch ends, Then that file is synced
    TruncationBatches.end(began);
    assertThat(synced).containsExactly(file);
  }

  @Test
  void theRealSyncCountsAFileDeletedInTheMeantimeAsSyncedAndAMissingDirectoryAsFailed(
      @TempDir Path dir) throws Exception {
    // Given the real sync, a snapshot that exists, and one a later truncation of the same log
    // deleted
    TruncationBatches.fileSync = realSync;
    Path kept = Files.writeString(dir.resolve("kept.snapshot"), "x");
    Path gone = dir.resolve("gone.snapshot");

    // When both are synced, Then neither failed (a deleted file needs no sync)
    assertThat(TruncationBatches.syncAll(List.of(kept, gone))).isZero();

    // And a file that cannot be opened for another reason than its absence counts as failed
    Path unopenable = dir.resolve("not-a-directory").resolve("x.snapshot");
    Files.writeString(dir.resolve("not-a-directory"), "a file where a directory should be");
    assertThat(TruncationBatches.syncAll(List.of(kept, unopenable))).isEqualTo(1);
  }
}
