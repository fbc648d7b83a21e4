package dev.kafkamirror.broker.agent.kafka4_4;

import java.io.File;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The recovery-point checkpoint of a batch of follower truncations, written once per log directory
 * at the end of the batch instead of once per partition.
 *
 * <p>Why: in Kafka 4.4 a replica fetcher thread that finds diverging partitions in a fetch response
 * truncates them one at a time ({@code AbstractFetcherThread.maybeTruncateToEpochEndOffsets} →
 * {@code Partition.truncateTo} → {@code LogManager.truncateTo} of one partition), and each of those
 * rewrites and syncs the whole recovery-point checkpoint of the log directory ({@code
 * checkpointRecoveryOffsetsInDir}: one line per log of the directory). A stop that fences 1,000
 * partitions makes every follower truncate hundreds of partitions in one batch, so that is
 * quadratic in the partitions of the broker; the stop-state topic, replicated by the same fetcher
 * threads, waits behind it.
 *
 * <p>What is kept: Kafka's order per partition (truncate, then checkpoint, then append) holds for
 * the batch: the checkpoint of every directory the batch touched is written when the batch method
 * returns, before its thread appends to any of those partitions again (appends to a follower's log
 * come from the same fetcher thread, and the method runs under the thread's partition map lock, so
 * no leadership change or fetcher removal can slip in between). The checkpoint written is the same
 * one the last truncation of the batch would have written (the recovery points in memory, read when
 * written). The crash window between a partition's truncation and its checkpoint, which stock Kafka
 * has for one partition, lasts the batch: a broker killed inside it restarts with a recovery point
 * above the truncated log end for those partitions, which Kafka's log loader clamps to the log end
 * ({@code StopStepCrashPointIT} halts a follower there and checks that the replicas converge).
 *
 * <p>Threading: a batch belongs to the thread that opened it (a thread-local); nested batches end
 * with the outermost. A checkpoint asked for outside a batch, or on another thread, is written at
 * once, as without the agent. Never throws into the broker: a failed deferred write is logged
 * (Kafka's own method already turns a disk error into an offline log directory and a log line).
 */
public final class FollowerTruncationCheckpoints {

  private static final Logger LOG =
      LoggerFactory.getLogger("dev.kafkamirror.broker.agent.FollowerTruncationCheckpoints");

  /** Writes the recovery-point checkpoint of one log directory. */
  @FunctionalInterface
  public interface DirectoryCheckpoint {
    void write(File directory);
  }

  private record Pending(Object owner, File directory, DirectoryCheckpoint checkpoint) {}

  private static final class Batch {
    int depth;
    int deferred;
    final List<Pending> pending = new ArrayList<>();
  }

  private static final ThreadLocal<Batch> BATCH = new ThreadLocal<>();

  private FollowerTruncationCheckpoints() {}

  /** Opens (or nests into) this thread's batch; pass the result to {@link #end}. */
  public static boolean begin() {
    Batch b = BATCH.get();
    if (b == null) {
      b = new Batch();
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
   * Closes this thread's batch when {@code began} (what {@link #begin} returned); the outermost end
   * writes every deferred checkpoint once, in the order first asked, each failure alone.
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
    if (b.pending.isEmpty()) {
      return;
    }
    dev.kafkamirror.broker.agent.TestFaults.crashPoint(
        dev.kafkamirror.broker.agent.TestFaults.CrashPoint.INSIDE_FOLLOWER_TRUNCATION_BATCH,
        b.deferred + " truncations on " + Thread.currentThread().getName());
    long start = System.nanoTime();
    for (Pending p : b.pending) {
      try {
        p.checkpoint().write(p.directory());
      } catch (RuntimeException | Error e) {
        LOG.error(
            "cluster mirror agent: the recovery-point checkpoint of log directory {} after a batch"
                + " of follower truncations failed; Kafka writes it again on its next checkpoint"
                + " round",
            p.directory(),
            e);
      }
    }
    long ms = (System.nanoTime() - start) / 1_000_000L;
    if (b.deferred > b.pending.size()) {
      LOG.info(
          "cluster mirror agent: follower truncations in one batch on {}: {} recovery-point"
              + " checkpoint writes of {} log directories written once each at the end ({} ms)",
          Thread.currentThread().getName(),
          b.deferred,
          b.pending.size(),
          ms);
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
