package dev.kafkamirror.broker.agent.kafka4_4.mirror;

import dev.kafkamirror.contract.Fields;
import java.time.Instant;
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

  /**
   * Whether the registry file holds this registration; false only between a start inside {@link
   * MirrorRegistry#writingOnceAfter} and that scope's file write. The fetcher never acts on a
   * registration that is not durable.
   */
  private volatile boolean durable = true;

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
  private volatile String sourceTopicId;
  private volatile String sourceTopicIdPinnedFor;
  private volatile String failedReason;
  private volatile String failedMessage;
  private volatile String failedForTopicId;
  private volatile long alignLogStartTo = -1L;
  private volatile long sourceAnsweredAtMs = -1L;
  private volatile Map<String, Object> alignment;
  // For the MBeans; written by the fetcher thread only.
  private volatile long fetches;
  private volatile long fetchedBytes;
  private final long registeredAtMs = System.currentTimeMillis();
  private volatile long behindSinceMs = -1L;
  private volatile boolean everCaughtUp;

  /** How long without an answer from the source before the lag counts as unknown. */
  static final long SOURCE_SILENCE_MS = 30_000L;

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
    this.sourceAnsweredAtMs = System.currentTimeMillis();
  }

  /** The source's offsets from an answer for this partition (also one that could not be used). */
  void sourceOffsets(long sourceHw, long sourceLogStart) {
    if (sourceHw < 0) {
      return;
    }
    this.sourceHighWatermark = sourceHw;
    this.sourceLogStartOffset = sourceLogStart;
    this.sourceAnsweredAtMs = System.currentTimeMillis();
  }

  /**
   * The source answered a fetch of this partition without an error: its offsets are taken and the
   * last error is cleared (an idle partition, which appends nothing, would otherwise report an
   * error long over, such as one leader change on the source, for as long as it stays idle).
   */
  void answeredWithoutError(long sourceHw, long sourceLogStart) {
    sourceOffsets(sourceHw, sourceLogStart);
    this.lastError = null;
  }

  /**
   * How long the source has not answered a fetch of this partition at {@code nowMs}: since its last
   * answer, or since this registration when it never answered.
   */
  long sourceSilentForMs(long nowMs) {
    long answered = sourceAnsweredAtMs;
    return Math.max(0L, nowMs - (answered >= 0 ? answered : registeredAtMs));
  }

  /** Counts one fetch answer for this partition carrying {@code bytes} of records. */
  void fetched(long bytes) {
    fetches++;
    fetchedBytes += bytes;
  }

  long fetches() {
    return fetches;
  }

  long fetchedBytes() {
    return fetchedBytes;
  }

  long batchesAppended() {
    return batchesAppended;
  }

  /**
   * After a fetch: whether the local log end has reached the source's high watermark. Caught up,
   * the partition is not behind; behind, it has been since the first such observation after it was
   * last caught up (or since it was registered, if it never was).
   */
  void observedLogEnd(long localLogEnd, long nowMs) {
    long hw = sourceHighWatermark;
    if (hw < 0) {
      return;
    }
    if (localLogEnd >= hw) {
      everCaughtUp = true;
      behindSinceMs = -1L;
    } else if (behindSinceMs < 0) {
      behindSinceMs = everCaughtUp ? nowMs : registeredAtMs;
    }
  }

  /** How long the partition has been continuously behind its source, in ms; 0 when caught up. */
  long behindForMs(long nowMs) {
    long since = behindSinceMs;
    if (since < 0) {
      return everCaughtUp ? 0L : Math.max(0L, nowMs - registeredAtMs);
    }
    return Math.max(0L, nowMs - since);
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

  /**
   * The id of the source topic this partition mirrors, recorded before its first mirrored append
   * into the destination topic whose id is {@code destinationTopicId}; null when none is recorded
   * for that destination topic (a destination topic deleted and created again starts afresh).
   */
  String sourceTopicIdFor(String destinationTopicId) {
    String pinnedFor = sourceTopicIdPinnedFor;
    if (pinnedFor != null && !pinnedFor.equals(destinationTopicId)) {
      return null;
    }
    return sourceTopicId;
  }

  /** The recorded source topic id, whatever destination topic it was recorded for. */
  public String sourceTopicId() {
    return sourceTopicId;
  }

  /** The destination topic id the source topic id was recorded for; null when not known. */
  String sourceTopicIdPinnedFor() {
    return sourceTopicIdPinnedFor;
  }

  /**
   * Whether this registration was made for a destination topic other than the one whose id is
   * {@code destinationTopicId} (a topic deleted and created again under the name). False while
   * either id is unknown.
   */
  boolean madeForAnotherTopic(String destinationTopicId) {
    String pinnedFor = sourceTopicIdPinnedFor;
    return pinnedFor != null && destinationTopicId != null && !pinnedFor.equals(destinationTopicId);
  }

  void pinSourceTopicId(String sourceId, String destinationTopicId) {
    this.sourceTopicId = sourceId;
    this.sourceTopicIdPinnedFor = destinationTopicId;
  }

  /**
   * Halts fetching of this partition for good, while the destination topic is the one whose id is
   * {@code destinationTopicId}: {@code reason} (a {@link dev.kafkamirror.contract.MirrorFailure}
   * name) and {@code message} are reported by describe as state FAILED. The partition stays
   * read-only; a stop still works. Not persisted: the fetcher finds the same fault again after a
   * restart, from the recorded source topic id and the source's offsets.
   */
  void fail(String reason, String message, String destinationTopicId) {
    this.failedMessage = message;
    this.failedForTopicId = destinationTopicId;
    this.failedReason = reason;
    this.lastError = message;
  }

  /**
   * Why fetching halted for good for the destination topic whose id is {@code destinationTopicId},
   * or null; a failure recorded for another incarnation of the destination topic is dropped.
   */
  String failedReasonFor(String destinationTopicId) {
    String reason = failedReason;
    if (reason != null
        && failedForTopicId != null
        && !failedForTopicId.equals(destinationTopicId)) {
      failedReason = null;
      failedMessage = null;
      failedForTopicId = null;
      return null;
    }
    return reason;
  }

  /**
   * Why fetching halted for good (a {@link dev.kafkamirror.contract.MirrorFailure} name), or null.
   */
  public String failedReason() {
    return failedReason;
  }

  /**
   * The source's log start offset the local log start is to be raised to once the high watermark
   * passed it (the source's log start lay inside the first mirrored batch); -1 for none.
   */
  long alignLogStartTo() {
    return alignLogStartTo;
  }

  void alignLogStartTo(long offset) {
    this.alignLogStartTo = offset;
  }

  /**
   * The failback alignment of this registration (offset and what it discarded), as answered to the
   * start call; null for a start without an initial sync. Kept in memory: describe shows it until
   * the broker restarts.
   */
  public Map<String, Object> alignment() {
    return alignment;
  }

  public void alignment(Map<String, Object> alignment) {
    this.alignment = alignment == null ? null : Map.copyOf(alignment);
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
    return describe(localLogEndOffset, leader, System.currentTimeMillis());
  }

  Map<String, Object> describe(long localLogEndOffset, boolean leader, long nowMs) {
    long lag = sourceHighWatermark < 0 ? -1L : sourceHighWatermark - localLogEndOffset;
    String error = lastError;
    String failed = failedReason;
    // Since when the source has been silent, on a leader that fetches (null while it answers).
    Instant silentSince = null;
    boolean halted =
        failed != null && (state == MirrorState.MIRRORING || state == MirrorState.PAUSED);
    // Silent since the last answer, or since this registration when the source never answered.
    boolean everAnswered = sourceAnsweredAtMs >= 0;
    long silentFromMs = everAnswered ? sourceAnsweredAtMs : registeredAtMs;
    if (leader
        && state == MirrorState.MIRRORING
        && failed == null
        && sourceMismatch == null
        && nowMs - silentFromMs > SOURCE_SILENCE_MS) {
      // Stalled: the offsets are as old as the source's last answer; the source may be far ahead.
      // Never answered: without this, a partition the fetcher keeps skipping (no leader known on
      // the source, a membership not recorded, ...) looks like one that merely has no lag yet.
      lag = -1L;
      silentSince = Instant.ofEpochMilli(silentFromMs);
      // A time, not a count of seconds: the text stays the same from one describe to the next, so
      // the operator's status does not change with every read of it.
      String silent =
          "no answer from the source since "
              + (everAnswered ? "" : "this registration at ")
              + silentSince
              + " (over "
              + SOURCE_SILENCE_MS / 1000
              + " s"
              + (everAnswered
                  ? "; the source high watermark " + sourceHighWatermark + " is that old"
                  : "")
              + "); lag unknown";
      if (error != null) {
        error = silent + "; " + error;
      } else {
        error =
            everAnswered
                ? silent
                : silent + "; the fetcher recorded no reason (see the broker's log)";
      }
    }
    // From the offsets themselves, not from lag: a silent source made lag -1 above, and a caught-up
    // log must not read as one ahead of its source.
    if (sourceHighWatermark >= 0 && localLogEndOffset > sourceHighWatermark) {
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
    if (halted && lag == 0) {
      // A halted mirror does not follow its source: never "lag 0".
      lag = -1L;
    }
    Map<String, Object> out = new LinkedHashMap<>();
    out.put(Fields.Mirror.MIRROR_NAME, mirrorName);
    String mismatch = sourceMismatch;
    boolean mismatched =
        mismatch != null && (state == MirrorState.MIRRORING || state == MirrorState.PAUSED);
    halted &= !mismatched;
    // A mirror that stopped fetching because its source is another cluster is never reported as
    // MIRRORING: the operator maps SOURCE_MISMATCH to a failed partition (SourceClusterMismatch).
    // A mirror halted for good (FAILED) is never reported as MIRRORING either: the operator maps
    // FAILED to a failed partition with failedReason as its reason.
    out.put(
        Fields.Mirror.STATE,
        mismatched
            ? dev.kafkamirror.contract.MirrorState.SOURCE_MISMATCH.name()
            : halted ? dev.kafkamirror.contract.MirrorState.FAILED.name() : state.name());
    if (mismatched) {
      out.put(Fields.Mirror.REGISTERED_STATE, state.name());
      out.put(Fields.Mirror.SOURCE_MISMATCH, mismatch);
      out.put(Fields.Mirror.OBSERVED_SOURCE_CLUSTER_ID, observedSourceClusterId);
    }
    if (halted) {
      out.put(Fields.Mirror.REGISTERED_STATE, state.name());
      out.put(Fields.Mirror.FAILED_REASON, failed);
    }
    out.put(Fields.Mirror.KNOWN_FROM, knownFrom);
    out.put(Fields.Mirror.SOURCE_CLUSTER_ID, sourceClusterId);
    out.put(Fields.Mirror.EXPECTED_SOURCE_CLUSTER_ID, expectedSourceClusterId);
    if (sourceTopicId != null) {
      out.put(Fields.Mirror.SOURCE_TOPIC_ID, sourceTopicId);
    }
    out.put(Fields.Mirror.LAST_MIRRORED_OFFSET, lastMirroredOffset);
    out.put(Fields.Mirror.SOURCE_HIGH_WATERMARK, sourceHighWatermark);
    out.put(Fields.Mirror.SOURCE_LOG_START_OFFSET, sourceLogStartOffset);
    out.put(Fields.Mirror.LAG_RECORDS, lag);
    out.put(Fields.Mirror.BATCHES_APPENDED, batchesAppended);
    if (silentSince != null) {
      out.put(Fields.Mirror.SOURCE_SILENT_SINCE, silentSince.toString());
    }
    if (alignment != null) {
      out.put(Fields.StepResult.ALIGNMENT, alignment);
    }
    if (mismatched) {
      error = mismatch;
    } else if (halted && failedMessage != null) {
      error = failedMessage;
    }
    if (error != null) {
      out.put(Fields.Mirror.LAST_ERROR, error);
    }
    return out;
  }

  boolean durable() {
    return durable;
  }

  void durable(boolean durable) {
    this.durable = durable;
  }
}
