package dev.kafkamirror.contract;

import java.util.Set;

/**
 * The JSON field names of requests and answers. The agent builds its answers with them, the
 * operator reads them; a field that is not named here is not part of the contract.
 */
public final class Fields {

  // Request.
  public static final String PARTITIONS = "partitions";
  public static final String TIMEOUT_MS = "timeoutMs";
  public static final String MIRROR_NAME = "mirrorName";
  public static final String SOURCE = "source";
  public static final String TOPIC = "topic";
  public static final String PARTITION = "partition";
  public static final String SOURCE_CLUSTER_ID = "sourceClusterId";
  public static final String BOOTSTRAP_SERVERS = "bootstrapServers";
  public static final String CLUSTER_ID = "clusterId";
  public static final String PROPERTIES = "properties";

  /** {@link ControlCall#START_MIRRORING} only: an {@link InitialSync} name. */
  public static final String INITIAL_SYNC = "initialSync";

  /** With {@link #INITIAL_SYNC} only: plan and report, change nothing. */
  public static final String DRY_RUN = "dryRun";

  /**
   * Per partition, with {@link #INITIAL_SYNC} only: the new source's recorded stop state ({@link
   * #LAST_MIRRORED_OFFSET}, {@link #LAST_MIRRORED_SOURCE_EPOCH}).
   */
  public static final String ALIGN_TO = "alignTo";

  public static final String LAST_MIRRORED_OFFSET = "lastMirroredOffset";
  public static final String LAST_MIRRORED_SOURCE_EPOCH = "lastMirroredSourceEpoch";

  /**
   * Optional in a partition's {@link #ALIGN_TO}, real (not dry-run) starts only: the log end the
   * caller's report of the discarded records covered; the leader refuses the start without
   * truncating when its read-only log ends elsewhere.
   */
  public static final String EXPECTED_LOG_END_OFFSET = "expectedLogEndOffset";

  /**
   * Optional in a partition's {@link #ALIGN_TO}: the id of the topic (of the cluster being aligned)
   * that the former destination mirrored, its {@code mirror.sourceTopicId}; the leader refuses,
   * changing nothing, when its topic has another id (the topic was replaced).
   */
  public static final String EXPECTED_TOPIC_ID = "expectedTopicId";

  /** The top-level fields of a request body. */
  public static final Set<String> REQUEST =
      Set.of(PARTITIONS, TIMEOUT_MS, MIRROR_NAME, SOURCE, INITIAL_SYNC, DRY_RUN);

  /** The fields of one partition of a request. */
  public static final Set<String> REQUEST_PARTITION =
      Set.of(TOPIC, PARTITION, SOURCE_CLUSTER_ID, ALIGN_TO);

  /** The fields of a partition's {@link #ALIGN_TO}. */
  public static final Set<String> REQUEST_ALIGN_TO =
      Set.of(
          LAST_MIRRORED_OFFSET,
          LAST_MIRRORED_SOURCE_EPOCH,
          EXPECTED_LOG_END_OFFSET,
          EXPECTED_TOPIC_ID);

  /** The fields of {@code source}. */
  public static final Set<String> REQUEST_SOURCE =
      Set.of(BOOTSTRAP_SERVERS, CLUSTER_ID, PROPERTIES);

  // Answer: {"results": [{"topic", "partition", ...result fields or "error": {"code", "message"}}]}
  public static final String RESULTS = "results";
  public static final String ERROR = "error";
  public static final String CODE = "code";
  public static final String MESSAGE = "message";

  /** {@code /v1/describe}: one local replica. */
  public static final class Describe {
    public static final String ROLE = "role";
    public static final String LEADER_ID = "leaderId";
    public static final String LEADER_EPOCH = "leaderEpoch";
    public static final String REPLICAS = "replicas";
    public static final String ISR = "isr";
    public static final String LOG_START_OFFSET = "logStartOffset";
    public static final String LOG_END_OFFSET = "logEndOffset";
    public static final String HIGH_WATERMARK = "highWatermark";
    public static final String LAST_STABLE_OFFSET = "lastStableOffset";
    public static final String PRODUCER_ENTRIES = "producerEntries";
    public static final String OPEN_TRANSACTIONS = "openTransactions";
    public static final String BARRIER_RESETS = "barrierResets";
    public static final String BARRIER_RULE_ENABLED = "barrierRuleEnabled";

    /** The mirror registration ({@link Mirror}); absent when the partition is no mirror. */
    public static final String MIRROR = "mirror";

    /** The durable stop progress ({@link Stop}); absent before a stop starts. */
    public static final String STOP = "stop";

    /** What this broker's write guards refused ({@link WriteGuards}); informational. */
    public static final String WRITE_GUARDS = "writeGuards";

    /**
     * What the cluster's mirror membership records about the partition ({@link ClusterMembership});
     * absent when nothing.
     */
    public static final String CLUSTER_MEMBERSHIP = "clusterMembership";

    private Describe() {}
  }

  /** {@code describe.writeGuards}: counts since the broker started. */
  public static final class WriteGuards {
    public static final String REFUSED_TRANSACTION_ADDS = "refusedTransactionAdds";
    public static final String REFUSED_TRANSACTION_MARKERS = "refusedTransactionMarkers";
    public static final String REFUSED_STATE_TOPIC_WRITES = "refusedStateTopicWrites";
    public static final String LAST_REFUSED_STATE_TOPIC_WRITE = "lastRefusedStateTopicWrite";
    public static final String UNVERIFIED_STATE_RECORDS = "unverifiedStateRecords";
    public static final String LAST_UNVERIFIED_STATE_RECORD = "lastUnverifiedStateRecord";

    private WriteGuards() {}
  }

  /** {@code describe.mirror}. */
  public static final class Mirror {
    public static final String MIRROR_NAME = "mirrorName";

    /** A {@link MirrorState} name. */
    public static final String STATE = "state";

    public static final String SOURCE_CLUSTER_ID = "sourceClusterId";
    public static final String EXPECTED_SOURCE_CLUSTER_ID = "expectedSourceClusterId";
    public static final String LAST_MIRRORED_OFFSET = "lastMirroredOffset";
    public static final String SOURCE_HIGH_WATERMARK = "sourceHighWatermark";
    public static final String SOURCE_LOG_START_OFFSET = "sourceLogStartOffset";
    public static final String LAG_RECORDS = "lagRecords";
    public static final String BATCHES_APPENDED = "batchesAppended";
    public static final String LAST_ERROR = "lastError";

    /**
     * On a MIRRORING leader whose source has not answered a fetch of the partition for longer than
     * the plugin's silence bound (30 s): since when (ISO-8601 instant of the last answer, or of the
     * registration when there was none). Absent otherwise; the instant does not move while the
     * silence lasts.
     */
    public static final String SOURCE_SILENT_SINCE = "sourceSilentSince";

    /** With {@link MirrorState#SOURCE_MISMATCH}: the registration's own state. */
    public static final String REGISTERED_STATE = "registeredState";

    /** With {@link MirrorState#SOURCE_MISMATCH}: why fetching halted. */
    public static final String SOURCE_MISMATCH = "sourceMismatch";

    /** With {@link MirrorState#SOURCE_MISMATCH}: the cluster id the source reported. */
    public static final String OBSERVED_SOURCE_CLUSTER_ID = "observedSourceClusterId";

    /**
     * How the broker knows the partition is a mirror: {@code start}, {@code registry-file} or
     * {@code cluster-record} (adopted from the cluster's mirror membership).
     */
    public static final String KNOWN_FROM = "knownFrom";

    /**
     * With {@link MirrorState#FAILED}: a {@link MirrorFailure} name saying why fetching halted for
     * good ({@link #LAST_ERROR} has the details: offsets, ids, the way out).
     */
    public static final String FAILED_REASON = "failedReason";

    /**
     * The id of the source topic this partition mirrors, recorded before its first mirrored append;
     * absent before that.
     */
    public static final String SOURCE_TOPIC_ID = "sourceTopicId";

    private Mirror() {}
  }

  /** {@code describe.clusterMembership}. */
  public static final class ClusterMembership {
    public static final String MIRROR_NAME = "mirrorName";

    /** The broker that recorded the membership. */
    public static final String RECORDED_BY_BROKER = "recordedByBroker";

    /** The brokers that acknowledged holding it; the fence picks only these. */
    public static final String HOLDERS = "holders";

    /** True while the broker has not read the membership since it started (writes refused). */
    public static final String PENDING = "pending";

    /** Why the broker's registry file could not be read at start. */
    public static final String REGISTRY_UNREADABLE = "registryUnreadable";

    private ClusterMembership() {}
  }

  /** {@code describe.stop}. */
  public static final class Stop {
    /** A {@link StopStep} name. */
    public static final String STEP = "step";

    public static final String STEP_NUMBER = "stepNumber";
    public static final String STATE_LEADER_EPOCH = "stateLeaderEpoch";
    public static final String WRITER_BROKER_ID = "writerBrokerId";
    public static final String TRUNCATE_TARGET_OFFSET = "truncateTargetOffset";
    public static final String TRUNCATED_TO_OFFSET = "truncatedToOffset";
    public static final String LAST_MIRRORED_OFFSET = "lastMirroredOffset";
    public static final String LAST_MIRRORED_EPOCH = "lastMirroredEpoch";

    /**
     * The <em>source's</em> leader epoch of the last mirrored batch kept, -1 when unknown (for a
     * failback: the old source truncates to the end of this epoch).
     */
    public static final String LAST_MIRRORED_SOURCE_EPOCH = "lastMirroredSourceEpoch";

    public static final String BARRIER_OFFSET = "barrierOffset";
    public static final String SOURCE_CLUSTER_ID = "sourceClusterId";
    public static final String UPDATED_AT_MS = "updatedAtMs";

    /**
     * Present and false when the answering leader could not read the stop state up to date in its
     * leader epoch (the fields may be behind what a previous leader recorded); {@link #STATE_ERROR}
     * says why.
     */
    public static final String STATE_CURRENT = "stateCurrent";

    public static final String STATE_ERROR = "stateError";

    private Stop() {}
  }

  /** One entry of {@code describe.barrierResets}. */
  public static final class BarrierReset {
    public static final String PATH = "path";
    public static final String BARRIER_OFFSET = "barrierOffset";
    public static final String PRODUCERS_REMOVED = "producersRemoved";
    public static final String FORCED_ABORTS = "forcedAborts";
    public static final String RESET_MICROS = "resetMicros";
    public static final String SOURCE_CLUSTER_ID = "sourceClusterId";
    public static final String MALFORMED_VALUE = "malformedValue";

    private BarrierReset() {}
  }

  /** The result fields of the state-changing calls. */
  public static final class StepResult {
    /** A {@link MirrorState} name: the partition's state after the call. */
    public static final String STATE = "state";

    public static final String LAST_MIRRORED_OFFSET = "lastMirroredOffset";
    public static final String LEADER_EPOCH = "leaderEpoch";
    public static final String LOG_END_OFFSET = "logEndOffset";
    public static final String BARRIER_OFFSET = "barrierOffset";
    public static final String APPENDED = "appended";
    public static final String ABORTED_TRANSACTIONS = "abortedTransactions";
    public static final String HIGH_WATERMARK = "highWatermark";
    public static final String STOP = "stop";

    /** A start with an {@link InitialSync}: the {@link Alignment} of the partition. */
    public static final String ALIGNMENT = "alignment";

    private StepResult() {}
  }

  /**
   * {@code alignment} of a start with {@link InitialSync#TRUNCATE_AND_RESTORE}: where the log was
   * (or, in a dry run, would be) truncated, and what that discards, reported before it happens.
   */
  public static final class Alignment {
    /** The last offset both clusters agree on (exclusive): mirroring starts here. */
    public static final String OFFSET = "alignmentOffset";

    /** Where this log's copy of the recorded source epoch ends. */
    public static final String LOCAL_EPOCH_END = "localEpochEnd";

    /** The discarded offsets {@code discardedFromOffset..discardedToOffset-1}. */
    public static final String DISCARDED_FROM = "discardedFromOffset";

    public static final String DISCARDED_TO = "discardedToOffset";

    /** Records (not offsets: a compacted log has gaps) in the discarded range. */
    public static final String DISCARDED_RECORDS = "discardedRecords";

    /** Their size on disk, batch headers included. */
    public static final String DISCARDED_BYTES = "discardedBytes";

    /** True for a dry run: nothing was changed. */
    public static final String DRY_RUN = "dryRun";

    /** True once the log is truncated to the alignment offset (false in a dry run). */
    public static final String TRUNCATED = "truncated";

    /** The accounting in words, as logged by the broker. */
    public static final String MESSAGE = "message";

    /** The inputs, as given: the new source's recorded stop state. */
    public static final String LAST_MIRRORED_OFFSET = "lastMirroredOffset";

    public static final String LAST_MIRRORED_SOURCE_EPOCH = "lastMirroredSourceEpoch";

    private Alignment() {}
  }

  private Fields() {}
}
