package dev.kafkamirror.broker.agent.kafka4_4;

import java.io.File;
import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A batch of log truncations on one thread: what Kafka syncs to disk once per truncated partition
 * is synced once for the batch, at its end, before the thread goes on.
 *
 * <p>Two kinds of batch: a replica fetcher thread's follower truncations of one fetch round ({@code
 * AbstractFetcherThread.maybeTruncateToEpochEndOffsets}, hooked), and the truncations of one stop
 * call on a leader ({@code KafkaStopPartitions.truncateAll}, one {@code LogManager.truncateTo}
 * request). A stop that fences 1,000 partitions makes every broker truncate some 333 of them as a
 * leader and 666 as a follower, each in one batch.
 *
 * <p>What is deferred, per truncated partition, in Kafka 4.4:
 *
 * <ul>
 *   <li>the recovery-point checkpoint of the log directory ({@code
 *       LogManager.checkpointRecoveryOffsetsInDir}: the whole directory's file, written and synced;
 *       one line per log, so quadratic in the partitions of the broker), written once per directory
 *       at the end of the batch ({@link #defer});
 *   <li>the sync of the producer-state snapshot that {@code UnifiedLog.rebuildProducerState} writes
 *       at the truncation offset ({@code ProducerStateManager.takeSnapshot()}, which writes and
 *       syncs one file): the file is written as Kafka writes it, without the sync ({@link
 *       #takeSnapshotUnsynced}); the end of the batch syncs all of them, several at a time, so that
 *       the file system commits them together instead of one journal commit per partition.
 * </ul>
 *
 * <p>What is kept: Kafka's order per partition (truncate, then snapshot and checkpoint durable,
 * then append) holds for the batch. The end of the batch syncs every snapshot first, then writes
 * the checkpoints, when the batch method returns: before a fetcher thread appends to any of those
 * partitions again (appends to a follower's log come from the same thread, which holds its
 * partition map lock for the whole method, so no leadership change or fetcher removal can slip in
 * between), and before a stop call's truncate step answers (a mirror partition that a stop
 * truncates takes no append before that: its fetchers are removed and clients are refused until the
 * partition is STOPPED). The checkpoint written is the same one the last truncation of the batch
 * would have written (the recovery points in memory, read when written). The crash window between a
 * partition's truncation and its checkpoint or snapshot sync, which stock Kafka also has for one
 * partition, lasts the batch. A broker killed inside it restarts with a recovery point above the
 * truncated log end, which Kafka's log loader clamps to the log end ({@code StopStepCrashPointIT}
 * halts a follower there and checks that the replicas converge), and at worst with a snapshot file
 * whose contents did not reach the disk: Kafka's snapshot reader checks each file's CRC, deletes
 * one that does not match and rebuilds the producer state from an older snapshot and the log, as it
 * does for the snapshot it writes without a sync when it rolls a segment.
 *
 * <p>Threading: a batch belongs to the thread that opened it (a thread-local); nested batches end
 * with the outermost. A checkpoint or snapshot asked for outside a batch, or on another thread, is
 * written and synced at once, as without the agent. The syncs at the end run on a small pool of
 * daemon threads ({@link #SYNC_THREADS}) and the batch's thread waits for all of them. Never throws
 * into the broker: a failed deferred write or sync is logged (Kafka's own checkpoint method already
 * turns a disk error into an offline log directory and a log line).
 */
public final class TruncationBatches {

  private static final Logger LOG =
      LoggerFactory.getLogger("dev.kafkamirror.broker.agent.TruncationBatches");

  /** The most snapshot files synced at the same time at the end of a batch. */
  static final int SYNC_THREADS = 8;

  /** Writes the recovery-point checkpoint of one log directory. */
  @FunctionalInterface
  public interface DirectoryCheckpoint {
    void write(File directory);
  }

  /** Writes a producer-state snapshot without syncing it: the file written, if one was. */
  @FunctionalInterface
  public interface UnsyncedSnapshot {
    Optional<File> write() throws IOException;
  }

  /** Syncs one file to its device. */
  @FunctionalInterface
  interface FileSync {
    void sync(Path file) throws IOException;
  }

  private record Pending(Object owner, File directory, DirectoryCheckpoint checkpoint) {}

  private static final class Batch {
    final boolean follower;
    int depth;
    int deferred;
    final List<Pending> pending = new ArrayList<>();
    final List<Path> unsyncedSnapshots = new ArrayList<>();

    Batch(boolean follower) {
      this.follower = follower;
    }
  }

  private static final ThreadLocal<Batch> BATCH = new ThreadLocal<>();

  /** How the end of a batch syncs a snapshot file; replaced by tests. */
  static volatile FileSync fileSync = TruncationBatches::syncFile;

  private TruncationBatches() {}

  /**
   * Opens (or nests into) this thread's batch of follower truncations; pass the result to {@link
   * #end}.
   */
  public static boolean begin() {
    return begin(true);
  }

  /** Opens (or nests into) this thread's batch of a stop call's truncations on a leader. */
  static boolean beginLeaderTruncations() {
    return begin(false);
  }

  private static boolean begin(boolean follower) {
    Batch b = BATCH.get();
    if (b == null) {
      b = new Batch(follower);
      BATCH.set(b);
    }
    b.depth++;
    return true;
  }

  /**
   * Whether the checkpoint of {@code directory} (of the log manager {@code owner}) is deferred to
   * the end of this thread's batch; false outside a batch (the caller writes it now).
   */
  public static boolean defer(Object owner, File directory, DirectoryCheckpoint checkpoint) {
    Batch b = BATCH.get();
    if (b == null || owner == null || directory == null || checkpoint == null) {
      return false;
    }
    b.deferred++;
    for (Pending p : b.pending) {
      if (p.owner() == owner && Objects.equals(p.directory(), directory)) {
        return true;
      }
    }
    b.pending.add(new Pending(owner, directory, checkpoint));
    return true;
  }

  /**
   * Inside a batch, writes a snapshot with {@code unsynced} and keeps its file for the sync at the
   * end of the batch: true, the caller's synced write is then skipped. Outside a batch false,
   * nothing written (the caller writes and syncs it now). When the write throws, nothing is kept
   * and the exception propagates: the caller's own write then runs as without the agent.
   */
  public static boolean deferSnapshotSync(UnsyncedSnapshot unsynced) throws IOException {
    Batch b = BATCH.get();
    if (b == null || unsynced == null) {
      return false;
    }
    Optional<File> written = unsynced.write();
    written.ifPresent(f -> b.unsyncedSnapshots.add(f.toPath()));
    return true;
  }

  /**
   * {@link #deferSnapshotSync} for Kafka 4.4's {@code ProducerStateManager.takeSnapshot()}: the
   * same snapshot, written by {@code takeSnapshot(false)}. Public: the advice that calls it is
   * inlined into Kafka's class, in another package.
   */
  public static boolean takeSnapshotUnsynced(
      org.apache.kafka.storage.internals.log.ProducerStateManager producerState)
      throws IOException {
    return producerState != null && deferSnapshotSync(() -> producerState.takeSnapshot(false));
  }

  /**
   * Closes this thread's batch when {@code began} (what {@link #begin} returned); the outermost end
   * syncs every deferred snapshot, then writes every deferred checkpoint once, in the order first
   * asked, each failure alone.
   */
  public static void end(boolean began) {
    Batch b = BATCH.get();
    if (!began || b == null) {
      return;
    }
    if (--b.depth > 0) {
      return;
    }
    BATCH.remove();
    if (b.pending.isEmpty() && b.unsyncedSnapshots.isEmpty()) {
      return;
    }
    dev.kafkamirror.broker.agent.TestFaults.crashPoint(
        b.follower
            ? dev.kafkamirror.broker.agent.TestFaults.CrashPoint.INSIDE_FOLLOWER_TRUNCATION_BATCH
            : dev.kafkamirror.broker.agent.TestFaults.CrashPoint.INSIDE_LEADER_TRUNCATION_BATCH,
        b.unsyncedSnapshots.size()
            + " snapshots and "
            + b.deferred
            + " checkpoints deferred on "
            + Thread.currentThread().getName());
    long start = System.nanoTime();
    int syncFailures = syncAll(b.unsyncedSnapshots);
    long syncedAt = System.nanoTime();
    for (Pending p : b.pending) {
      try {
        p.checkpoint().write(p.directory());
      } catch (RuntimeException | Error e) {
        LOG.error(
            "cluster mirror agent: the recovery-point checkpoint of log directory {} after a batch"
                + " of truncations failed; Kafka writes it again on its next checkpoint round",
            p.directory(),
            e);
      }
    }
    long end = System.nanoTime();
    if (b.deferred > b.pending.size() || b.unsyncedSnapshots.size() > 1) {
      LOG.info(
          "cluster mirror agent: {} truncations in one batch on {}: {} producer-state snapshots"
              + " synced together ({} ms, {} failed), {} recovery-point checkpoint writes of {} log"
              + " directories written once each ({} ms)",
          b.follower ? "follower" : "leader",
          Thread.currentThread().getName(),
          b.unsyncedSnapshots.size(),
          (syncedAt - start) / 1_000_000L,
          syncFailures,
          b.deferred,
          b.pending.size(),
          (end - syncedAt) / 1_000_000L);
    }
  }

  /**
   * Syncs {@code files}, up to {@link #SYNC_THREADS} at a time, and waits for all; a file deleted
   * in the meantime (a later truncation of the same log) needs none. Returns how many failed, each
   * logged.
   */
  static int syncAll(List<Path> files) {
    if (files.isEmpty()) {
      return 0;
    }
    if (files.size() == 1) {
      return syncLogged(files.get(0)) ? 0 : 1;
    }
    // An unbounded queue on a pool that is never shut down: submit does not refuse.
    List<Future<Boolean>> results = new ArrayList<>();
    for (Path file : files) {
      results.add(SyncPool.EXECUTOR.submit(() -> syncLogged(file)));
    }
    int failed = 0;
    boolean interrupted = false;
    for (Future<Boolean> r : results) {
      while (true) {
        try {
          if (!r.get()) {
            failed++;
          }
          break;
        } catch (InterruptedException e) {
          // The syncs must be done before the batch's thread goes on: wait, and keep the flag.
          interrupted = true;
        } catch (ExecutionException e) {
          failed++;
          break;
        }
      }
    }
    if (interrupted) {
      Thread.currentThread().interrupt();
    }
    return failed;
  }

  private static boolean syncLogged(Path file) {
    try {
      fileSync.sync(file);
      return true;
    } catch (IOException | RuntimeException e) {
      LOG.error(
          "cluster mirror agent: the sync of producer-state snapshot {} after a batch of"
              + " truncations failed; Kafka checks the file when it loads it and rebuilds the"
              + " producer state from an older snapshot and the log if it is damaged",
          file,
          e);
      return false;
    }
  }

  private static void syncFile(Path file) throws IOException {
    try (FileChannel channel = FileChannel.open(file, StandardOpenOption.READ)) {
      channel.force(true);
    } catch (NoSuchFileException e) {
      // Deleted since it was written (a later truncation of the same log): nothing to sync.
    }
  }

  /** The daemon threads of the syncs, started on first use, gone after a minute idle. */
  private static final class SyncPool {
    static final ThreadPoolExecutor EXECUTOR = create();

    private static ThreadPoolExecutor create() {
      AtomicInteger index = new AtomicInteger();
      ThreadPoolExecutor executor =
          new ThreadPoolExecutor(
              SYNC_THREADS,
              SYNC_THREADS,
              60,
              TimeUnit.SECONDS,
              new LinkedBlockingQueue<>(),
              r -> {
                Thread t = new Thread(r, "cluster-mirror-snapshot-sync-" + index.incrementAndGet());
                t.setDaemon(true);
                return t;
              });
      executor.allowCoreThreadTimeOut(true);
      return executor;
    }
  }

  /**
   * {@link #defer} for Kafka 4.4's {@code LogManager.checkpointRecoveryOffsetsInDir(File)}, which
   * writes the deferred checkpoint with the same method (outside the batch by then, so not deferred
   * again). Public: the advice that calls it is inlined into Kafka's class, in another package.
   */
  public static boolean deferRecoveryCheckpoint(
      org.apache.kafka.storage.internals.log.LogManager logManager, File directory) {
    return defer(logManager, directory, logManager::checkpointRecoveryOffsetsInDir);
  }

  /** Whether this thread is inside a batch (tests). */
  static boolean inBatch() {
    return BATCH.get() != null;
  }
}
