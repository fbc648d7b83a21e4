package dev.kafkamirror.broker.agent.kafka4_4.mirror;

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

  /** Whether client writes must be refused. */
  public boolean readOnly() {
    return state != MirrorState.STOPPED;
  }

  /** For the control endpoint's describe. */
  public Map<String, Object> describe(long localLogEndOffset) {
    Map<String, Object> out = new LinkedHashMap<>();
    out.put("mirrorName", mirrorName);
    out.put("state", state.name());
    out.put("sourceClusterId", sourceClusterId);
    out.put("expectedSourceClusterId", expectedSourceClusterId);
    out.put("lastMirroredOffset", lastMirroredOffset);
    out.put("sourceHighWatermark", sourceHighWatermark);
    out.put("sourceLogStartOffset", sourceLogStartOffset);
    out.put(
        "lagRecords",
        sourceHighWatermark < 0 ? -1L : Math.max(0L, sourceHighWatermark - localLogEndOffset));
    out.put("batchesAppended", batchesAppended);
    if (lastError != null) {
      out.put("lastError", lastError);
    }
    return out;
  }
}
