package dev.kafkamirror.broker.core.mirror;

/**
 * When a mirror fetcher may read the source's metadata again after it found it stale.
 *
 * <p>A refresh that resolved every partition (each source topic exists and has a leader) leaves no
 * delay, so a leadership error is followed by a refresh at once. A refresh after which some
 * partition is still unresolved (a source topic deleted and not created again, no leader yet)
 * doubles the delay before the next one, from {@value #INITIAL_DELAY_MS} ms up to {@value
 * #MAX_DELAY_MS} ms: a deleted source topic is not looked up twenty times a second for as long as
 * it stays gone, and its recreation is still seen within {@value #MAX_DELAY_MS} ms.
 *
 * <p>Pure (the caller passes the clock); not thread-safe: one per fetcher thread.
 */
public final class MetadataBackoff {

  /** The delay after the first refresh that left a partition unresolved. */
  public static final long INITIAL_DELAY_MS = 100L;

  /** The longest delay between two refreshes while a partition stays unresolved. */
  public static final long MAX_DELAY_MS = 5_000L;

  private long delayMs;
  private long refreshedAtMs;
  private boolean refreshed;

  /** Whether a refresh of stale metadata may run at {@code nowMs}. */
  public boolean due(long nowMs) {
    return !refreshed || nowMs - refreshedAtMs >= delayMs;
  }

  /**
   * Records a refresh at {@code nowMs}.
   *
   * @param unresolved whether some partition still had no source topic or no leader after it
   */
  public void refreshed(long nowMs, boolean unresolved) {
    refreshed = true;
    refreshedAtMs = nowMs;
    delayMs =
        !unresolved ? 0L : delayMs == 0L ? INITIAL_DELAY_MS : Math.min(delayMs * 2, MAX_DELAY_MS);
  }

  /** The delay after the last refresh before the next one may run. */
  public long delayMs() {
    return delayMs;
  }
}
