package dev.kafkamirror.contract;

import java.util.Optional;

/**
 * Every call of the broker plugin's control endpoint: its path and which request fields it takes.
 * The agent routes by {@link #forPath}, the operator and the test client build requests from it; no
 * other list of paths exists.
 *
 * <p>Every call is a {@value #METHOD} with a JSON {@link ControlRequest} body, authenticated by
 * {@code Authorization: Bearer <secret>} ({@link ControlHeaders}), answered with {@code {"results":
 * [...]}} (one entry per partition, see {@link Fields}) or a {@link RequestError}.
 */
public enum ControlCall {
  /** Role, offsets, producer state, mirror registration and stop progress of local replicas. */
  DESCRIBE("/v1/describe", false),
  /** Registers partitions as mirrors of a source and starts fetching; needs mirrorName + source. */
  START_MIRRORING("/v1/mirror/start", false),
  /** MIRRORING to PAUSED. */
  PAUSE("/v1/mirror/pause", false),
  /** PAUSED to MIRRORING. */
  RESUME("/v1/mirror/resume", false),
  /** Stop step 1: no mirror append is in flight afterwards. */
  REMOVE_FETCHERS("/v1/stop/remove-fetchers", false),
  /**
   * Stop step 2: the leader truncates to its last stable offset and fences the replicas; it records
   * step 3 in the same write when the partition's registration knows its source.
   */
  TRUNCATE("/v1/stop/truncate", false),
  /**
   * Stop step 3: the last mirrored offsets, durably; every partition names its source (checked
   * against the recorded one when step 2 recorded them already).
   */
  PERSIST_OFFSETS("/v1/stop/persist-offsets", true),
  /** Stop step 4: the MIRROR_PID_RESET barrier naming the source, on every in-sync replica. */
  BARRIER("/v1/stop/barrier", true),
  /** Stop step 5: STOPPED and writable. */
  MAKE_WRITABLE("/v1/stop/make-writable", false);

  /** The only HTTP method the endpoint serves. */
  public static final String METHOD = "POST";

  private final String path;
  private final boolean sourceClusterIdRequired;

  ControlCall(String path, boolean sourceClusterIdRequired) {
    this.path = path;
    this.sourceClusterIdRequired = sourceClusterIdRequired;
  }

  /** The request path, such as {@code /v1/stop/barrier}. */
  public String path() {
    return path;
  }

  /**
   * Whether every partition of the call must name {@code sourceClusterId}; calls that do not take
   * it refuse a partition that names one, so that a caller never believes it was checked.
   */
  public boolean sourceClusterIdRequired() {
    return sourceClusterIdRequired;
  }

  /**
   * Whether the call needs (and is the only one to accept) {@code mirrorName} and {@code source}.
   */
  public boolean takesMirrorSource() {
    return this == START_MIRRORING;
  }

  /** Whether the call is one of the five steps of the stop sequence. */
  public boolean isStopStep() {
    return ordinal() >= REMOVE_FETCHERS.ordinal();
  }

  /** The call served at {@code path}, or empty. */
  public static Optional<ControlCall> forPath(String path) {
    for (ControlCall call : values()) {
      if (call.path.equals(path)) {
        return Optional.of(call);
      }
    }
    return Optional.empty();
  }
}
