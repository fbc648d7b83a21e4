package dev.kafkamirror.testing.time;

import java.time.Clock;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.concurrent.atomic.AtomicReference;

/** A UTC wall clock that stands still until a test sets or advances it. Thread-safe. */
public final class SettableClock extends Clock {

  private final AtomicReference<Instant> now;

  public SettableClock(Instant start) {
    this.now = new AtomicReference<>(start);
  }

  /** From now on the clock reads {@code instant}. */
  public void set(Instant instant) {
    now.set(instant);
  }

  /** Moves the clock {@code ms} milliseconds on. */
  public void advanceMillis(long ms) {
    now.updateAndGet(t -> t.plusMillis(ms));
  }

  @Override
  public ZoneOffset getZone() {
    return ZoneOffset.UTC;
  }

  /** The same clock: tests read instants, not zones. */
  @Override
  public Clock withZone(ZoneId zone) {
    return this;
  }

  @Override
  public Instant instant() {
    return now.get();
  }
}
