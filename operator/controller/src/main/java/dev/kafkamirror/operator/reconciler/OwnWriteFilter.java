package dev.kafkamirror.operator.reconciler;

import dev.kafkamirror.operator.api.v1alpha1.ClusterMirror;
import java.util.Map;
import java.util.Objects;
import java.util.OptionalLong;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;

/**
 * Recognises the echo of this process's own status write. Per uid it keeps the resource version the
 * last end-of-reconcile status write produced, the generation that reconcile worked from, and when
 * the next reconcile it asked for is due. An event whose resource still has that version and
 * generation (and is not being deleted) is the echo of that write: nothing else changed, so the
 * reconcile is skipped until it is due.
 *
 * <p>The generation matters because the write reads the latest object first: a spec change made
 * during the reconcile is inside the version the write produced. A Mirroring reconcile describes
 * every follower; without this filter each status write caused one more reconcile, and a spec
 * change arriving meanwhile (a stop) waited for it.
 *
 * <p>Thread-safe.
 */
public final class OwnWriteFilter {

  private record OwnWrite(String resourceVersion, long generation, long dueNanos) {}

  private final Map<String, OwnWrite> writes = new ConcurrentHashMap<>();
  private final LongSupplier nanoTime;

  /**
   * @param nanoTime a monotonic clock in nanoseconds ({@code System::nanoTime})
   */
  public OwnWriteFilter(LongSupplier nanoTime) {
    this.nanoTime = nanoTime;
  }

  /**
   * How long to wait before reconciling {@code cr}, when this event is only the echo of this
   * process's own write and the requested reconcile is not yet due; empty when it must be
   * reconciled now.
   */
  public OptionalLong echoDelayMs(ClusterMirror cr) {
    OwnWrite own = writes.get(cr.getMetadata().getUid());
    if (own == null
        || !own.resourceVersion().equals(cr.getMetadata().getResourceVersion())
        || !Objects.equals(own.generation(), cr.getMetadata().getGeneration())
        || cr.isMarkedForDeletion()) {
      return OptionalLong.empty();
    }
    long leftMs = TimeUnit.NANOSECONDS.toMillis(own.dueNanos() - nanoTime.getAsLong());
    return leftMs > 0 ? OptionalLong.of(leftMs) : OptionalLong.empty();
  }

  /**
   * Remembers an end-of-reconcile status write: it produced {@code resourceVersion}, was computed
   * from {@code generation}, and asked for the next reconcile in {@code delayMs}.
   */
  public void wrote(String uid, String resourceVersion, long generation, long delayMs) {
    writes.put(
        uid,
        new OwnWrite(
            resourceVersion,
            generation,
            nanoTime.getAsLong() + TimeUnit.MILLISECONDS.toNanos(delay(delayMs))));
  }

  private static long delay(long delayMs) {
    return Math.max(0, delayMs);
  }

  /** Forgets {@code uid}: its next event is reconciled whatever it carries. */
  public void forget(String uid) {
    writes.remove(uid);
  }
}
