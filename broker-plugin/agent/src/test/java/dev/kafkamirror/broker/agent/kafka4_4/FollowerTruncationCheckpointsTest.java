package dev.kafkamirror.broker.agent.kafka4_4;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.File;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class FollowerTruncationCheckpointsTest {

  private final Object logManager = new Object();
  private final List<String> written = new ArrayList<>();

  private FollowerTruncationCheckpoints.DirectoryCheckpoint writer(String owner) {
    return dir -> written.add(owner + ":" + dir.getName());
  }

  @AfterEach
  void noBatchLeftOpen() {
    assertThat(FollowerTruncationCheckpoints.inBatch()).isFalse();
  }

  @Test
  void outsideABatchNothingIsDeferred() {
    // Given no batch on this thread
    // When a checkpoint is asked for
    boolean deferred =
        FollowerTruncationCheckpoints.defer(logManager, new File("d1"), writer("lm"));

    // Then the caller writes it now
    assertThat(deferred).isFalse();
    assertThat(written).isEmpty();
  }

  @Test
  void aBatchWritesEachDirectoryOnceAtItsEndInTheOrderFirstAsked() {
    // Given a batch
    boolean began = FollowerTruncationCheckpoints.begin();

    // When five truncations ask for checkpoints of two directories
    for (String d : List.of("d2", "d1", "d2", "d2", "d1")) {
      assertThat(FollowerTruncationCheckpoints.defer(logManager, new File(d), writer("lm")))
          .isTrue();
    }

    // Then nothing is written before the batch ends, each directory once after
    assertThat(written).isEmpty();
    FollowerTruncationCheckpoints.end(began);
    assertThat(written).containsExactly("lm:d2", "lm:d1");
  }

  @Test
  void twoLogManagersWithTheSameDirectoryNameAreWrittenApart() {
    // Given a batch with the same directory asked for by two log managers (a broker and a test)
    boolean began = FollowerTruncationCheckpoints.begin();
    FollowerTruncationCheckpoints.defer(logManager, new File("d1"), writer("a"));
    FollowerTruncationCheckpoints.defer(new Object(), new File("d1"), writer("b"));

    // When it ends, Then each is written by its own log manager
    FollowerTruncationCheckpoints.end(began);
    assertThat(written).containsExactly("a:d1", "b:d1");
  }

  @Test
  void nestedBatchesWriteAtTheOutermostEnd() {
    // Given a batch inside a batch
    boolean outer = FollowerTruncationCheckpoints.begin();
    boolean inner = FollowerTruncationCheckpoints.begin();
    FollowerTruncationCheckpoints.defer(logManager, new File("d1"), writer("lm"));

    // When the inner one ends, Then nothing is written yet
    FollowerTruncationCheckpoints.end(inner);
    assertThat(written).isEmpty();
    assertThat(FollowerTruncationCheckpoints.inBatch()).isTrue();

    // When the outer one ends, Then the directory is written once
    FollowerTruncationCheckpoints.end(outer);
    assertThat(written).containsExactly("lm:d1");
  }

  @Test
  void aFailedWriteDoesNotKeepTheOthersFromBeingWrittenNorThrow() {
    // Given a batch whose first directory's checkpoint fails
    boolean began = FollowerTruncationCheckpoints.begin();
    FollowerTruncationCheckpoints.defer(
        logManager,
        new File("d1"),
        dir -> {
          throw new IllegalStateException("disk gone");
        });
    FollowerTruncationCheckpoints.defer(logManager, new File("d2"), writer("lm"));

    // When it ends, Then the second is still written and nothing is thrown
    FollowerTruncationCheckpoints.end(began);
    assertThat(written).containsExactly("lm:d2");
  }

  @Test
  void anEndWhoseBeginFailedChangesNothing() {
    // Given a batch and an inner begin that did not happen (its advice failed)
    boolean began = FollowerTruncationCheckpoints.begin();
    FollowerTruncationCheckpoints.defer(logManager, new File("d1"), writer("lm"));

    // When the failed one's end runs, Then the batch stays open
    FollowerTruncationCheckpoints.end(false);
    assertThat(written).isEmpty();
    FollowerTruncationCheckpoints.end(began);
    assertThat(written).containsExactly("lm:d1");
  }

  @Test
  void aBatchIsThisThreadsOnly() throws Exception {
    // Given a batch on this thread
    boolean began = FollowerTruncationCheckpoints.begin();

    // When another thread asks for a checkpoint, Then it writes it itself
    boolean deferredElsewhere =
        CompletableFuture.supplyAsync(
                () ->
                    FollowerTruncationCheckpoints.defer(
                        logManager, new File("d1"), writer("other")))
            .get();
    assertThat(deferredElsewhere).isFalse();
    FollowerTruncationCheckpoints.end(began);
    assertThat(written).isEmpty();
  }
}
