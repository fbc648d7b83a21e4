package dev.kafkamirror.broker.core.stop;

/**
 * A stop-state write that would be stale: a newer leader epoch already owns the partition's stop,
 * or the write would move the stop backwards. Nothing was written.
 */
public final class FencedStopStateException extends Exception {

  private static final long serialVersionUID = 1L;

  public FencedStopStateException(String message) {
    super(message);
  }
}
