package dev.kafkamirror.broker.agent.kafka4_4;

import dev.kafkamirror.broker.agent.kafka4_4.mirror.MirrorClassificationPendingException;
import dev.kafkamirror.broker.agent.kafka4_4.mirror.MirrorRegistry;
import java.util.concurrent.atomic.AtomicBoolean;
import org.apache.kafka.server.storage.log.FetchIsolation;
import org.apache.kafka.storage.internals.log.UnifiedLog;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What the readers of a mirror partition are shown: nothing at or above its last stable offset
 * until the mirror is stopped.
 *
 * <p>Why: a mirror's stop truncates the partition to its last stable offset, below the high
 * watermark when a source transaction is open. Kafka's own readers are protected from such a cut
 * only by a new leader epoch; the stop fences (moves leadership, a new epoch) where another replica
 * can lead, but a single-replica partition has no one to move to and its barrier lands in the same
 * epoch as the records cut away. Another mirror fetching from this one (a chain A→B→C) could then
 * not tell the barrier from the record it already holds at that offset, and would go on copying
 * after a record its source no longer has. So reads of a read-only mirror partition that would end
 * at the high watermark ({@link FetchIsolation#HIGH_WATERMARK}: consumers at {@code
 * read_uncommitted}, other clusters' mirror fetchers) end at the last stable offset instead, as
 * {@code read_committed} reads do: nothing a stop can take back is ever shown. Replica fetches
 * ({@link FetchIsolation#LOG_END}) are untouched; the stop's fence and membership handle replicas.
 *
 * <p>Fails closed: while this broker cannot tell yet whether a partition is a mirror, or when the
 * answer fails, the read is capped (a cap only delays records; showing a record that is later cut
 * cannot be undone).
 *
 * <p>Threading: called from Kafka's request handler threads, concurrently; stateless apart from a
 * once-only log flag.
 */
public final class MirrorReadCap {

  private static final Logger LOG =
      LoggerFactory.getLogger("dev.kafkamirror.broker.agent.MirrorReadCap");
  private static final AtomicBoolean FAILURE_LOGGED = new AtomicBoolean();

  private MirrorReadCap() {}

  /** Entry of {@code UnifiedLog.read(long, int, FetchIsolation, boolean)}. */
  public static FetchIsolation isolationFor(UnifiedLog log, FetchIsolation requested) {
    if (requested != FetchIsolation.HIGH_WATERMARK || !BarrierHooks.ruleEnabled()) {
      // With the barrier rule off (stock comparisons), the stop truncates nothing: reads as stock.
      return requested;
    }
    boolean mirror;
    try {
      mirror = MirrorRegistry.instance().readOnlyReason(log.topicPartition()).isPresent();
    } catch (MirrorClassificationPendingException e) {
      mirror = true;
    } catch (Throwable t) {
      if (FAILURE_LOGGED.compareAndSet(false, true)) {
        LOG.error(
            "cannot tell whether {} is a mirror partition; capping its reads at the last stable"
                + " offset (logged once)",
            log.topicPartition(),
            t);
      }
      mirror = true;
    }
    return capped(requested, mirror);
  }

  /** The rule, pure: a mirror's high-watermark read ends at the last stable offset. */
  static FetchIsolation capped(FetchIsolation requested, boolean readOnlyMirror) {
    return readOnlyMirror && requested == FetchIsolation.HIGH_WATERMARK
        ? FetchIsolation.TXN_COMMITTED
        : requested;
  }
}
