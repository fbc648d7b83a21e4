package dev.kafkamirror.broker.core.stop.rules;

/**
 * A mirror partition's state in this broker's own registry, as the stop rules see it (the agent's
 * registry state, without its types).
 */
public enum LocalState {
  /** Fetching from the source; read-only for clients. */
  MIRRORING,
  /** Fetching paused; read-only for clients. */
  PAUSED,
  /** A stop has begun here: no mirror append starts; read-only for clients. */
  STOPPING,
  /** Writable for clients. */
  STOPPED;

  /** Whether a stop has begun on this broker (no mirror append will start). */
  public boolean stopBegun() {
    return this == STOPPING || this == STOPPED;
  }
}
