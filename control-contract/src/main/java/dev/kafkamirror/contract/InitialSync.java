package dev.kafkamirror.contract;

/**
 * How {@link ControlCall#START_MIRRORING} brings a destination log that already holds records in
 * line with the source before the first mirrored append ({@code initialSync}).
 */
public enum InitialSync {
  /**
   * Failback: the destination was this mirror's source's own source (A in A→B, now B→A). Its log is
   * made read-only first, then truncated to the last offset both clusters agree on, proven from the
   * new source's recorded stop ({@code alignTo}: last mirrored offset and source epoch) against
   * this log's own leader-epoch history; what that discards is reported (records, bytes, offsets)
   * before it is discarded; then the partition mirrors the new source from there.
   */
  TRUNCATE_AND_RESTORE;

  /** The value named {@code name}, or null for null or a name this contract does not know. */
  public static InitialSync parse(String name) {
    for (InitialSync s : values()) {
      if (s.name().equals(name)) {
        return s;
      }
    }
    return null;
  }
}
