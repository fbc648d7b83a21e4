package dev.kafkamirror.broker.core.stop.explore;

/**
 * One record batch of the modelled partition log: what it is and the leader epoch it was appended
 * in (its {@code partitionLeaderEpoch}). Offsets are positions: the model's batches hold one record
 * each.
 */
record Batch(Kind kind, int epoch) {

  enum Kind {
    /** A mirrored, non-transactional batch. */
    DATA,
    /** A mirrored batch of a transaction (it opens the transaction if none is open). */
    TXN,
    /** A mirrored COMMIT marker ending the open transaction. */
    COMMIT,
    /** The MIRROR_PID_RESET barrier. */
    BARRIER,
    /** A destination client's write, once the partition is writable. */
    CLIENT
  }

  @Override
  public String toString() {
    return (kind == Kind.CLIENT ? "W" : kind.name().substring(0, 1)) + epoch;
  }
}
