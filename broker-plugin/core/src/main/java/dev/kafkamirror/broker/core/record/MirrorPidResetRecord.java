package dev.kafkamirror.broker.core.record;

import java.util.Objects;

/**
 * The value of a {@code MIRROR_PID_RESET} control record (control type {@value
 * ControlRecordKey#MIRROR_PID_RESET}), schema {@code MirrorPidResetRecord.json} beside this class:
 * {@code Version int16, SourceClusterId string}, flexible versions 0+.
 *
 * @param version the record version; this plugin writes and reads {@value #CURRENT_VERSION}
 * @param sourceClusterId the cluster id of the source whose data the partition mirrored; never
 *     empty
 */
public record MirrorPidResetRecord(short version, String sourceClusterId) {

  /** The only version this plugin writes and reads. */
  public static final short CURRENT_VERSION = 0;

  public MirrorPidResetRecord {
    Objects.requireNonNull(sourceClusterId, "sourceClusterId");
    if (sourceClusterId.isEmpty()) {
      throw new IllegalArgumentException(
          "a MIRROR_PID_RESET barrier must name its source cluster; sourceClusterId is empty");
    }
  }

  /** A current-version record for {@code sourceClusterId}. */
  public static MirrorPidResetRecord of(String sourceClusterId) {
    return new MirrorPidResetRecord(CURRENT_VERSION, sourceClusterId);
  }
}
