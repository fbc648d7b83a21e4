package dev.kafkamirror.contract;

/**
 * Why a mirror partition is {@link MirrorState#FAILED} ({@code describe.mirror.failedReason}): the
 * plugin stopped fetching it for good because one more append could make the destination differ
 * from its source. The names are the operator's status reasons as they are.
 */
public enum MirrorFailure {
  /**
   * The source topic was deleted and created again under the same name: its topic id is not the one
   * recorded when mirroring started. The new topic's records are never appended after the old
   * one's.
   */
  SourceTopicRecreated,
  /**
   * The destination's log ends below the source's log start: records were deleted on the source
   * (retention, deleteRecords) before they were mirrored. Nothing is skipped.
   */
  SourceRetentionOverrun,
  /**
   * The source's log no longer holds the record the destination's log ends with (an unclean leader
   * election or a truncation on the source): the source answered an epoch-checked fetch with a
   * diverging epoch. Nothing more is appended; the destination keeps its records.
   */
  SourceDiverged;

  /** The failure named {@code name}, or null for null or a name this contract does not know. */
  public static MirrorFailure parse(String name) {
    for (MirrorFailure f : values()) {
      if (f.name().equals(name)) {
        return f;
      }
    }
    return null;
  }
}
