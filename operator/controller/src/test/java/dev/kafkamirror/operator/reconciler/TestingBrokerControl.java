package dev.kafkamirror.operator.reconciler;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.kafkamirror.contract.ControlRequest;
import dev.kafkamirror.contract.Fields;
import dev.kafkamirror.operator.control.BrokerControl;
import dev.kafkamirror.operator.control.ControlClient;
import dev.kafkamirror.operator.control.ControlResult;
import dev.kafkamirror.operator.core.Action;
import dev.kafkamirror.operator.core.PartitionKey;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * The destination's plugins in memory: one registration and stop state per partition, moved along
 * by the calls the way the plugin moves it (start registers, remove-fetchers begins the stop, each
 * later step records the next durable step, make-writable STOPPED). Every call is journaled with
 * its broker; a broker can be made unreachable and an action can be made to fail.
 */
final class TestingBrokerControl implements BrokerControl {

  /** One partition's state as its leader would describe it. */
  static final class Partition {
    volatile String mirrorName;
    volatile String mirrorState;
    volatile String sourceClusterId;
    volatile String stopStep;
    volatile Long barrierOffset;
    volatile long lagRecords;
    volatile String failedReason;
    volatile String lastError;
  }

  /** One call as the fake received it. */
  record Call(String what, int brokerId, List<PartitionKey> keys, String sourceClusterId) {}

  private static final ObjectMapper MAPPER = new ObjectMapper();

  private final Map<PartitionKey, Partition> partitions = new ConcurrentHashMap<>();
  private final Set<Integer> unreachable = ConcurrentHashMap.newKeySet();
  private final Set<Integer> withoutRegistration = ConcurrentHashMap.newKeySet();
  private final Map<Action, String> failures = new ConcurrentHashMap<>();
  private final Map<Action, Map<PartitionKey, String>> partitionFailures =
      new ConcurrentHashMap<>();
  private final List<Call> calls = new CopyOnWriteArrayList<>();
  private final Journal journal;
  private volatile boolean answersWithStopState;
  private volatile boolean truncateRecordsOffsets;
  private final Map<Integer, Map<PartitionKey, ObjectNode>> describedBy = new ConcurrentHashMap<>();
  private volatile java.util.function.ToIntFunction<PartitionKey> leaderOf = k -> 1;

  TestingBrokerControl(Journal journal) {
    this.journal = journal;
  }

  /** The partition, created unregistered on first use. */
  Partition partition(String topic, int partition) {
    return partitions.computeIfAbsent(new PartitionKey(topic, partition), k -> new Partition());
  }

  /** A partition registered and mirroring from {@code sourceClusterId} under {@code mirror}. */
  void mirroring(String topic, int partition, String mirror, String sourceClusterId) {
    Partition p = partition(topic, partition);
    p.mirrorName = mirror;
    p.mirrorState = "MIRRORING";
    p.sourceClusterId = sourceClusterId;
  }

  /**
   * A registered partition whose mirror the plugin halted for good: describe state FAILED with
   * {@code failedReason} and {@code message} as its last error, lag unknown.
   */
  void halted(String topic, int partition, String failedReason, String message) {
    Partition p = partition(topic, partition);
    p.mirrorState = "FAILED";
    p.failedReason = failedReason;
    p.lastError = message;
    p.lagRecords = -1L;
  }

  /** Broker {@code brokerId} describes every partition without a mirror registration. */
  void withoutRegistration(int brokerId) {
    withoutRegistration.add(brokerId);
  }

  void unreachable(int brokerId) {
    unreachable.add(brokerId);
  }

  void reachable(int brokerId) {
    unreachable.remove(brokerId);
  }

  /** Every later call of {@code action} fails on the leader with {@code code}. */
  void fail(Action action, String code) {
    failures.put(action, code);
  }

  /**
   * Every later successful step call answers as the plugin does: the partition's mirror state,
   * leader epoch and log end, and its stop fields after the call (without this, an answer carries
   * only the partition's name).
   */
  void answersWithStopState() {
    answersWithStopState = true;
  }

  /**
   * Every later truncate records OFFSETS_PERSISTED with the truncation, as a plugin does for a
   * partition whose registration knows its source (steps 2 and 3 in one durable write); without
   * this, TRUNCATED, as an older plugin does.
   */
  void truncateRecordsOffsets() {
    truncateRecordsOffsets = true;
  }

  private volatile java.util.function.BiConsumer<PartitionKey, Integer> onFence = (k, b) -> {};

  /**
   * Called with the partition and the answering broker whenever an injected failure is {@code
   * LEADER_MOVED}: the fence moved that partition's leadership away from the broker.
   */
  void onFence(java.util.function.BiConsumer<PartitionKey, Integer> listener) {
    this.onFence = listener;
  }

  /** The next call of {@code action} fails for {@code key} alone, with {@code code}; once. */
  void failOnce(Action action, PartitionKey key, String code) {
    partitionFailures.computeIfAbsent(action, a -> new ConcurrentHashMap<>()).put(key, code);
  }

  List<Call> calls() {
    return List.copyOf(calls);
  }

  @Override
  public List<ControlResult> describe(
      int brokerId, String address, ControlClient.Channel channel, List<PartitionKey> keys) {
    calls.add(new Call("DESCRIBE", brokerId, List.copyOf(keys), null));
    List<ControlResult> out = new ArrayList<>();
    for (PartitionKey key : keys) {
      if (unreachable.contains(brokerId)) {
        out.add(unreachableResult(key, brokerId, address));
        continue;
      }
      ObjectNode described = describedBy.getOrDefault(brokerId, Map.of()).get(key);
      out.add(
          new ControlResult(
              key,
              brokerId,
              described == null ? describeBody(key, brokerId) : described.deepCopy(),
              null,
              null));
    }
    return out;
  }

  private ObjectNode describeBody(PartitionKey key, int brokerId) {
    Partition p = partition(key.topic(), key.partition());
    ObjectNode body = leaderDescribe(key.topic(), key.partition(), brokerId, 3, 10L);
    if (p.mirrorState != null && !withoutRegistration.contains(brokerId)) {
      ObjectNode m = body.putObject(Fields.Describe.MIRROR);
      m.put(Fields.Mirror.MIRROR_NAME, p.mirrorName);
      m.put(Fields.Mirror.STATE, p.mirrorState);
      m.put(Fields.Mirror.SOURCE_CLUSTER_ID, p.sourceClusterId);
      m.put(Fields.Mirror.EXPECTED_SOURCE_CLUSTER_ID, p.sourceClusterId);
      m.put(Fields.Mirror.LAST_MIRRORED_OFFSET, 9L);
      m.put(Fields.Mirror.LAG_RECORDS, p.lagRecords);
      if ("FAILED".equals(p.mirrorState)) {
        m.put(Fields.Mirror.REGISTERED_STATE, "MIRRORING");
        m.put(Fields.Mirror.FAILED_REASON, p.failedReason);
      }
      if (p.lastError != null && "FAILED".equals(p.mirrorState)) {
        m.put(Fields.Mirror.LAST_ERROR, p.lastError);
      }
    }
    if (p.stopStep != null) {
      ObjectNode s = body.putObject(Fields.Describe.STOP);
      s.put(Fields.Stop.STEP, p.stopStep);
      s.put(Fields.Stop.STATE_LEADER_EPOCH, 3);
      s.put(Fields.Stop.TRUNCATED_TO_OFFSET, 10L);
      s.put(Fields.Stop.LAST_MIRRORED_OFFSET, 9L);
      if (p.barrierOffset != null) {
        s.put(Fields.Stop.BARRIER_OFFSET, p.barrierOffset);
      }
      s.put(Fields.Stop.SOURCE_CLUSTER_ID, p.sourceClusterId);
    }
    return body;
  }

  /**
   * A leader's describe of {@code topic}-{@code partition} on {@code brokerId} in {@code epoch},
   * its log ending at {@code end}, everything committed and stable; no mirror or stop fields yet.
   */
  private static ObjectNode leaderDescribe(
      String topic, int partition, int brokerId, int epoch, long end) {
    ObjectNode body = MAPPER.createObjectNode();
    body.put(Fields.TOPIC, topic);
    body.put(Fields.PARTITION, partition);
    body.put(Fields.Describe.ROLE, "LEADER");
    body.put(Fields.Describe.LEADER_ID, brokerId);
    body.put(Fields.Describe.LEADER_EPOCH, epoch);
    body.put(Fields.Describe.LOG_END_OFFSET, end);
    body.put(Fields.Describe.HIGH_WATERMARK, end);
    body.put(Fields.Describe.LAST_STABLE_OFFSET, end);
    return body;
  }

  /**
   * Broker {@code brokerId} of the failback's source cluster describes {@code topic}-{@code
   * partition} as a finished failover: STOPPED behind its barrier, mirrored from {@code
   * mirroredFrom} through {@code lastMirroredOffset} (exclusive) in source epoch {@code
   * sourceEpoch}, of the topic with id {@code sourceTopicId}.
   */
  void failedOverOnSource(
      int brokerId,
      String topic,
      int partition,
      String mirroredFrom,
      long lastMirroredOffset,
      int sourceEpoch,
      String sourceTopicId) {
    ObjectNode body = leaderDescribe(topic, partition, brokerId, 5, lastMirroredOffset + 1);
    ObjectNode m = body.putObject(Fields.Describe.MIRROR);
    m.put(Fields.Mirror.MIRROR_NAME, "failed-over");
    m.put(Fields.Mirror.STATE, "STOPPED");
    m.put(Fields.Mirror.SOURCE_CLUSTER_ID, mirroredFrom);
    m.put(Fields.Mirror.EXPECTED_SOURCE_CLUSTER_ID, mirroredFrom);
    m.put(Fields.Mirror.SOURCE_TOPIC_ID, sourceTopicId);
    ObjectNode stop = body.putObject(Fields.Describe.STOP);
    stop.put(Fields.Stop.STEP, "STOPPED");
    stop.put(Fields.Stop.STATE_LEADER_EPOCH, 5);
    stop.put(Fields.Stop.TRUNCATED_TO_OFFSET, lastMirroredOffset);
    stop.put(Fields.Stop.LAST_MIRRORED_OFFSET, lastMirroredOffset);
    stop.put(Fields.Stop.LAST_MIRRORED_SOURCE_EPOCH, sourceEpoch);
    stop.put(Fields.Stop.BARRIER_OFFSET, lastMirroredOffset);
    stop.put(Fields.Stop.SOURCE_CLUSTER_ID, mirroredFrom);
    describedBy
        .computeIfAbsent(brokerId, b -> new ConcurrentHashMap<>())
        .put(new PartitionKey(topic, partition), body);
  }

  /**
   * The destination's leader of each partition, as its metadata names it: a failback start's leader
   * answers with the partition's {@code alignment}, a follower registers ALIGNING and answers
   * without one, as the plugin does.
   */
  void leaders(java.util.function.ToIntFunction<PartitionKey> leaderOf) {
    this.leaderOf = leaderOf;
  }

  /**
   * A failback start as the plugin answers it: its leader reports the {@code alignment} (what is,
   * or in a dry run would be, discarded: offsets {@code alignTo.lastMirroredOffset} to 10, the log
   * end every partition describes); a real start registers the partition MIRRORING.
   */
  @Override
  public List<ControlResult> startFailback(
      int brokerId,
      String address,
      ControlClient.Channel channel,
      List<PartitionKey> keys,
      String sourceClusterId,
      String mirrorName,
      ControlRequest.MirrorSource source,
      Failback failback) {
    calls.add(new Call("START_FAILBACK", brokerId, List.copyOf(keys), source.clusterId()));
    journal.add(
        "control START_FAILBACK broker="
            + brokerId
            + " "
            + keys
            + (failback.dryRun() ? " dryRun" : ""));
    List<ControlResult> out = new ArrayList<>();
    for (PartitionKey key : keys) {
      if (unreachable.contains(brokerId)) {
        out.add(unreachableResult(key, brokerId, address));
        continue;
      }
      ControlRequest.AlignTo to = failback.alignTo().get(key);
      if (to == null) {
        throw new AssertionError("failback start of " + key + " without its alignTo");
      }
      ObjectNode body = MAPPER.createObjectNode();
      body.put(Fields.TOPIC, key.topic());
      body.put(Fields.PARTITION, key.partition());
      if (leaderOf.applyAsInt(key) == brokerId) {
        ObjectNode a = body.putObject(Fields.StepResult.ALIGNMENT);
        a.put(Fields.Alignment.OFFSET, to.lastMirroredOffset());
        a.put(Fields.Alignment.DISCARDED_FROM, to.lastMirroredOffset());
        a.put(Fields.Alignment.DISCARDED_TO, 10L);
        a.put(Fields.Alignment.DISCARDED_RECORDS, 10L - to.lastMirroredOffset());
        a.put(Fields.Alignment.DISCARDED_BYTES, 100L * (10L - to.lastMirroredOffset()));
        a.put(Fields.Alignment.DRY_RUN, failback.dryRun());
        a.put(Fields.Alignment.TRUNCATED, !failback.dryRun());
        a.put(Fields.Alignment.LAST_MIRRORED_OFFSET, to.lastMirroredOffset());
        a.put(Fields.Alignment.LAST_MIRRORED_SOURCE_EPOCH, to.lastMirroredSourceEpoch());
      }
      if (!failback.dryRun()) {
        Partition p = partition(key.topic(), key.partition());
        synchronized (p) {
          apply(Action.START_MIRRORING, p, mirrorName, sourceClusterId, source, false);
        }
      }
      out.add(new ControlResult(key, brokerId, body, null, null));
    }
    return out;
  }

  @Override
  public List<ControlResult> act(
      Action action,
      int brokerId,
      String address,
      ControlClient.Channel channel,
      List<PartitionKey> keys,
      String sourceClusterId,
      String mirrorName,
      ControlRequest.MirrorSource source) {
    if (!action.callsBroker()) {
      throw new IllegalArgumentException("action " + action + " makes no control call");
    }
    calls.add(new Call(action.name(), brokerId, List.copyOf(keys), sourceClusterId));
    journal.add("control " + action + " broker=" + brokerId + " " + keys);
    List<ControlResult> out = new ArrayList<>();
    for (PartitionKey key : keys) {
      if (unreachable.contains(brokerId)) {
        out.add(unreachableResult(key, brokerId, address));
        continue;
      }
      String failure = failures.get(action);
      Map<PartitionKey, String> once = partitionFailures.get(action);
      if (failure == null && once != null) {
        failure = once.remove(key);
      }
      if (failure != null) {
        if (failure.equals("LEADER_MOVED")) {
          onFence.accept(key, brokerId);
        }
        out.add(
            new ControlResult(
                key,
                brokerId,
                null,
                failure,
                action + " on broker " + brokerId + " for " + key + ": injected " + failure));
        continue;
      }
      Partition p = partition(key.topic(), key.partition());
      synchronized (p) {
        apply(action, p, mirrorName, sourceClusterId, source, truncateRecordsOffsets);
      }
      ObjectNode body = MAPPER.createObjectNode();
      body.put(Fields.TOPIC, key.topic());
      body.put(Fields.PARTITION, key.partition());
      if (answersWithStopState) {
        ObjectNode described = describeBody(key, brokerId);
        body.put(Fields.StepResult.STATE, p.mirrorState);
        body.set(Fields.StepResult.LEADER_EPOCH, described.get(Fields.Describe.LEADER_EPOCH));
        body.set(Fields.StepResult.LOG_END_OFFSET, described.get(Fields.Describe.LOG_END_OFFSET));
        if (described.has(Fields.Describe.STOP)) {
          body.set(Fields.StepResult.STOP, described.get(Fields.Describe.STOP));
        }
      }
      out.add(new ControlResult(key, brokerId, body, null, null));
    }
    return out;
  }

  private static void apply(
      Action action,
      Partition p,
      String mirrorName,
      String sourceClusterId,
      ControlRequest.MirrorSource source,
      boolean truncateRecordsOffsets) {
    switch (action) {
      case START_MIRRORING -> {
        p.mirrorName = mirrorName;
        p.mirrorState = "MIRRORING";
        p.sourceClusterId = source.clusterId();
      }
      case PAUSE -> p.mirrorState = "PAUSED";
      case RESUME -> p.mirrorState = "MIRRORING";
      case REMOVE_FETCHERS -> {
        p.mirrorState = "STOPPING";
        if (p.stopStep == null) {
          p.stopStep = "FETCHERS_REMOVED";
        }
      }
      case TRUNCATE -> p.stopStep = truncateRecordsOffsets ? "OFFSETS_PERSISTED" : "TRUNCATED";
      case PERSIST_OFFSETS -> p.stopStep = "OFFSETS_PERSISTED";
      case WRITE_BARRIER -> {
        p.stopStep = "BARRIER_WRITTEN";
        p.barrierOffset = 10L;
      }
      case MAKE_WRITABLE -> {
        p.stopStep = "STOPPED";
        p.mirrorState = "STOPPED";
      }
      default -> throw new IllegalArgumentException(action.name());
    }
  }

  private static ControlResult unreachableResult(PartitionKey key, int brokerId, String address) {
    return new ControlResult(
        key,
        brokerId,
        null,
        ControlResult.UNREACHABLE,
        "control endpoint of broker " + brokerId + " at " + address + " unreachable: refused");
  }
}
