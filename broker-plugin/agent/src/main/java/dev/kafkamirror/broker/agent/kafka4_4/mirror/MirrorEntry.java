package dev.kafkamirror.broker.agent.kafka4_4.mirror;

import dev.kafkamirror.contract.Fields;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * One destination partition registered as a mirror on this broker.
 *
 * <p>Thread-safe: fields are volatile; the fetcher thread writes the progress fields, control calls
 * write the state.
 */
public final class MirrorEntry {

  private final String mirrorName;
  private volatile MirrorState state;
  private volatile String sourceClusterId;
  private volatile String expectedSourceClusterId;
  private volatile long lastMirroredOffset = -1L;
  private volatile long sourceHighWatermark = -1L;
  private volatile long sourceLogStartOffset = -1L;
  private volatile String lastError;
  private volatile long batchesAppended;
  private volatile Map<String, String> persistableClientProperties = Map.of();
  private volatile int stopStateCheckedAtEpoch = -1;
  private volatile String sourceMismatch;
  private volatile String observedSourceClusterId;
  private volatile String knownFrom = ClusterMembership.FROM_START;

  MirrorEntry(String mirrorName, MirrorState state) {
    this.mirrorName = mirrorName;
    this.state = state;
  }

  public String mirrorName() {
    return mirrorName;
  }

  public MirrorState state() {
    return state;
  }

  void state(MirrorState newState) {
    this.state = newState;
  }

  /** The cluster id of the source, as the source reported it; null before the first contact. */
  public String sourceClusterId() {
    return sourceClusterId;
  }

  void sourceClusterId(String id) {
    this.sourceClusterId = id;
  }

  /**
   * The source's client properties without secrets, as written to the broker-local registry file.
   */
  Map<String, String> persistableClientProperties() {
    return persistableClientProperties;
  }

  void persistableClientProperties(Map<String, String> props) {
    this.persistableClientProperties = Map.copyOf(props);
  }

  /** The cluster id the source must report, or null to accept any. */
  public String expectedSourceClusterId() {
    return expectedSourceClusterId;
  }

  void expectedSourceClusterId(String id) {
    this.expectedSourceClusterId = id;
  }

  public long lastMirroredOffset() {
    return lastMirroredOffset;
  }

  void progress(long lastOffset, long sourceHw, long sourceLogStart, int batches) {
    this.lastMirroredOffset = lastOffset;
    this.sourceHighWatermark = sourceHw;
    this.sourceLogStartOffset = sourceLogStart;
    this.batchesAppended += batches;
    this.lastError = null;
  }

  void sourceOffsets(long sourceHw, long sourceLogStart) {
    this.sourceHighWatermark = sourceHw;
    this.sourceLogStartOffset = sourceLogStart;
  }

  void error(String message) {
    this.lastError = message;
  }

  public String lastError() {
    return lastError;
  }

  /**
   * The leader epoch at which the fetcher last confirmed, from the durable stop state, that no stop
   * has started for this partition; -1 before that. A leader confirms once per epoch it gains.
   */
  int stopStateCheckedAtEpoch() {
    return stopStateCheckedAtEpoch;
  }

  void stopStateCheckedAtEpoch(int epoch) {
    this.stopStateCheckedAtEpoch = epoch;
  }

  /**
   * Why the fetcher stopped fetching this partition for good because the source reported another
   * cluster id than the one this partition mirrors; null while the source's identity is verified.
   * Set by the fetcher, cleared only by a registration with another source (new client properties
   * or expected cluster id). The partition stays read-only either way.
   */
  public String sourceMismatch() {
    return sourceMismatch;
  }

  /** The cluster id the source reported when it did not match; null without a mismatch. */
  public String observedSourceClusterId() {
    return observedSourceClusterId;
  }

  void sourceMismatch(String observedClusterId, String message) {
    this.observedSourceClusterId = observedClusterId;
    this.sourceMismatch = message;
    this.lastError = message;
  }

  void clearSourceMismatch() {
    this.sourceMismatch = null;
    this.observedSourceClusterId = null;
  }

  /**
   * How this broker knows the partition is a mirror: {@code start} (a control call), {@code
   * registry-file} (restored at start) or {@code cluster-record} (adopted from the cluster's mirror
   * membership).
   */
  public String knownFrom() {
    return knownFrom;
  }

  void knownFrom(String origin) {
    this.knownFrom = origin;
  }

  /** Whether client writes must be refused. */
  public boolean readOnly() {
    return state != MirrorState.STOPPED;
  }

  /** For the control endpoint's describe, as the leader. */
  public Map<String, Object> describe(long localLogEndOffset) {
    return describe(localLogEndOffset, true);
  }

  /**
   * For the control endpoint's describe. {@code lagRecords} is the source's high watermark (the end
   * of what a mirror can read there) minus the local log end, -1 when unknown. It is never clamped:
   * a local log that ends beyond the source's is not "lag 0" but -1 and, on the leader of a mirror
   * that follows its source, an error: the destination holds records the source does not have.
   */
  public Map<String, Object> describe(long localLogEndOffset, boolean leader) {
    long lag = sourceHighWatermark < 0 ? -1L : sourceHighWatermark - localLogEndOffset;
    String error = lastError;
    if (lag < 0 && sourceHighWatermark >= 0) {
      lag = -1L;
      if (leader && (state == MirrorState.MIRRORING || state == MirrorState.PAUSED)) {
        String ahead =
            "the local log ends at offset "
                + localLogEndOffset
                + ", beyond the source's high watermark "
                + sourceHighWatermark
                + ": the destination holds records the source does not have; the mirror cannot"
                + " follow until that is resolved";
        error = error == null ? ahead : ahead + "; " + error;
      }
    }
    Map<String, Object> out = new LinkedHashMap<>();
    out.put(Fields.Mirror.MIRROR_NAME, mirrorName);
    String mismatch = sourceMismatch;
    boolean halted =
        mismatch != null && (state == MirrorState.MIRRORING || state == MirrorState.PAUSED);
    // A mirror that stopped fetching because its source is another cluster is never reported as
    // MIRRORING: the operator maps SOURCE_MISMATCH to a failed partition (SourceClusterMismatch).
    out.put(
        Fields.Mirror.STATE,
        halted ? dev.kafkamirror.contract.MirrorState.SOURCE_MISMATCH.name() : state.name());
    if (halted) {
      out.put(Fields.Mirror.REGISTERED_STATE, state.name());
      out.put(Fields.Mirror.SOURCE_MISMATCH, mismatch);
      out.put(Fields.Mirror.OBSERVED_SOURCE_CLUSTER_ID, observedSourceClusterId);
    }
    out.put(Fields.Mirror.KNOWN_FROM, knownFrom);
    out.put(Fields.Mirror.SOURCE_CLUSTER_ID, sourceClusterId);
    out.put(Fields.Mirror.EXPECTED_SOURCE_CLUSTER_ID, expectedSourceClusterId);
    out.put(Fields.Mirror.LAST_MIRRORED_OFFSET, lastMirroredOffset);
    out.put(Fields.Mirror.SOURCE_HIGH_WATERMARK, sourceHighWatermark);
    out.put(Fields.Mirror.SOURCE_LOG_START_OFFSET, sourceLogStartOffset);
    out.put(Fields.Mirror.LAG_RECORDS, lag);
    out.put(Fields.Mirror.BATCHES_APPENDED, batchesAppended);
    if (halted) {
      error = mismatch;
    }
    if (error != null) {
      out.put(Fields.Mirror.LAST_ERROR, error);
    }
    return out;
  }
}
