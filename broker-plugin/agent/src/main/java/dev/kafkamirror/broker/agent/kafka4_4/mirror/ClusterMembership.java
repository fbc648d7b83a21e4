package dev.kafkamirror.broker.agent.kafka4_4.mirror;

import dev.kafkamirror.broker.agent.kafka4_4.BrokerHandles;
import dev.kafkamirror.broker.agent.kafka4_4.stop.StopStateStore;
import dev.kafkamirror.broker.agent.kafka4_4.stop.StopStateUnavailableException;
import dev.kafkamirror.broker.core.stop.MembershipTable;
import dev.kafkamirror.broker.core.stop.MirrorMembership;
import dev.kafkamirror.broker.core.stop.StopState;
import dev.kafkamirror.broker.core.stop.StopStep;
import dev.kafkamirror.contract.Fields;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import kafka.cluster.Partition;
import kafka.server.ReplicaManager;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.Uuid;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import scala.Option;

/**
 * Mirror membership for the whole destination cluster, kept durable in the stop-state topic (see
 * {@link MembershipTable}):
 *
 * <ul>
 *   <li>a leader records the membership of a partition (acks=all) before its first mirrored append
 *       ({@link #ensureRecorded}); the fetcher does not append until it is acknowledged;
 *   <li>every broker adopts, after every read round of the topic, each member partition it hosts a
 *       replica of and has no registration for ({@link #adoptAll}): read-only, persisted in its
 *       registry file, fetching only when it leads; then it records itself as a holder, and the
 *       truncate step's fence moves leadership only to holders;
 *   <li>{@link MirrorRegistry#readOnlyReason} answers from it for partitions this broker has no
 *       registration for, hosted or not, and refuses with {@link
 *       MirrorClassificationPendingException} while this broker could hold mirrors but has not read
 *       the membership since it started.
 * </ul>
 *
 * <p>Threading: adoption runs on the stop-state reader thread, recording on fetcher threads, the
 * guard question on request handler threads; state is in thread-safe tables.
 */
public final class ClusterMembership {

  private static final Logger LOG =
      LoggerFactory.getLogger("dev.kafkamirror.broker.agent.ClusterMembership");
  private static final long WRITE_TIMEOUT_MS = 10_000L;
  private static final long HOLDER_RETRY_MS = 10_000L;

  /** Origin of a local registration, as describe reports it. */
  public static final String FROM_START = "start";

  public static final String FROM_REGISTRY_FILE = "registry-file";
  public static final String FROM_CLUSTER_RECORD = "cluster-record";

  private static volatile String stateTopic = "__cluster_mirror_state";
  private static volatile boolean registryHeldMirrorsAtStart;
  private static volatile String registryUnreadable;
  private static final Map<String, Long> holderRequestedAt = new ConcurrentHashMap<>();
  private static final Map<String, Boolean> conflictsReported = new ConcurrentHashMap<>();

  private ClusterMembership() {}

  /** The name of the stop-state topic (from the plugin's settings). */
  public static void stateTopic(String topic) {
    stateTopic = topic;
  }

  /** The name of the stop-state topic. */
  static String stateTopic() {
    return stateTopic;
  }

  static void registryHeldMirrorsAtStart(boolean held) {
    registryHeldMirrorsAtStart = held;
  }

  static void registryUnreadable(String why) {
    registryUnreadable = why;
  }

  /** Why the registry file could not be read at start, or empty. */
  public static Optional<String> registryUnreadable() {
    return Optional.ofNullable(registryUnreadable);
  }

  /**
   * Whether this broker must read the cluster's membership before it may call any partition
   * writable: it had mirror registrations (or an unreadable registry) at start, or its cluster has
   * a stop-state topic. A cluster that never mirrored has neither.
   */
  static boolean mayHoldMirrors() {
    if (registryHeldMirrorsAtStart || registryUnreadable != null) {
      return true;
    }
    Optional<ReplicaManager> rm = BrokerHandles.replicaManager();
    return rm.isPresent() && rm.get().metadataCache().contains(stateTopic);
  }

  /** Whether the membership has been read since this broker started. */
  static boolean membershipRead() {
    return StopStateStore.ifStarted().map(StopStateStore::caughtUpOnce).orElse(false);
  }

  /**
   * The cluster's answer for a partition this broker has no registration for.
   *
   * @throws MirrorClassificationPendingException while it cannot be known yet
   */
  static Optional<String> readOnlyReason(TopicPartition tp) {
    if (tp.topic().equals(stateTopic)) {
      return Optional.empty();
    }
    Optional<StopStateStore> started = StopStateStore.ifStarted();
    if (started.isEmpty() || !started.get().caughtUpOnce()) {
      // Kafka's internal topics (offsets, transaction state) are never mirrors: their coordinators
      // write them while this broker starts.
      if (!mayHoldMirrors() || org.apache.kafka.common.internals.Topic.isInternal(tp.topic())) {
        return Optional.empty();
      }
      if (started.isEmpty()) {
        startStore();
      }
      throw new MirrorClassificationPendingException(
          "cannot tell yet whether "
              + tp
              + " is a read-only mirror: this broker has not read the cluster's mirror membership"
              + " from "
              + stateTopic
              + " since it started"
              + (registryUnreadable == null ? "" : " (its registry file is unreadable)")
              + "; retry");
    }
    StopStateStore store = started.get();
    List<MirrorMembership> named = store.membership().membersNamed(tp.topic(), tp.partition());
    if (named.isEmpty()) {
      return Optional.empty();
    }
    String topicId = currentTopicId(tp.topic());
    for (MirrorMembership m : named) {
      if (topicId != null && !topicId.equals(m.topicId())) {
        continue; // a membership of an earlier topic of the same name
      }
      Optional<StopState> stop = store.get(m.stopStateKey());
      if (stop.isPresent() && stop.get().step() == StopStep.STOPPED) {
        continue;
      }
      return Optional.of(
          tp
              + " is a read-only mirror of "
              + m.mirrorName()
              + " (cluster membership recorded by broker "
              + m.writerBrokerId()
              + ", stop step "
              + stop.map(s -> s.step().name()).orElse("none")
              + "); it becomes writable when the mirror is stopped");
    }
    return Optional.empty();
  }

  private static String currentTopicId(String topic) {
    Optional<ReplicaManager> rm = BrokerHandles.replicaManager();
    if (rm.isEmpty()) {
      return null;
    }
    Uuid id = rm.get().metadataCache().getTopicId(topic);
    return id == null || Uuid.ZERO_UUID.equals(id) ? null : id.toString();
  }

  /** Starts this broker's stop-state reader (which adopts the membership) if it is not running. */
  public static void startStore() {
    try {
      StopStateStore.get();
    } catch (StopStateUnavailableException e) {
      LOG.error("cannot read the cluster's mirror membership: {}", e.getMessage());
    }
  }

  /**
   * Starts a daemon that starts the stop-state reader as soon as this broker's metadata shows the
   * stop-state topic, so that a broker with no registration of its own (down while a mirror was
   * started, say) adopts the cluster's memberships.
   */
  public static void watchForStateTopic() {
    Thread t =
        new Thread(
            () -> {
              while (StopStateStore.ifStarted().isEmpty()) {
                Optional<ReplicaManager> rm = BrokerHandles.replicaManager();
                if (rm.isPresent() && rm.get().metadataCache().contains(stateTopic)) {
                  startStore();
                  return;
                }
                try {
                  Thread.sleep(1_000L);
                } catch (InterruptedException e) {
                  return;
                }
              }
            },
            "cluster-mirror-membership-watch");
    t.setDaemon(true);
    t.start();
  }

  /** A partition whose membership {@link #ensureRecorded} makes sure of. */
  record Candidate(TopicPartition tp, MirrorEntry entry, Partition partition) {}

  /**
   * Before a leader's first mirrored append for each candidate (the store synced): makes sure its
   * membership is durable in the stop-state topic. The memberships still to record are written
   * together (all sent, then all awaited: one round trip for a leader's many new partitions, not
   * one each); each partition succeeds or fails alone.
   *
   * @return the candidates whose membership is durable; for the others the entry's error (or
   *     failure) says why, and the caller must not append
   */
  static java.util.Set<TopicPartition> ensureRecorded(
      StopStateStore store, List<Candidate> candidates) {
    java.util.Set<TopicPartition> durable = new java.util.HashSet<>();
    Map<MirrorMembership, Candidate> toWrite = new java.util.LinkedHashMap<>();
    for (Candidate c : candidates) {
      Decision d = decide(store, c.tp(), c.entry(), c.partition());
      if (d.recorded() != null) {
        requestHolder(store, d.recorded());
        durable.add(c.tp());
      } else if (d.toWrite() != null) {
        toWrite.put(d.toWrite(), c);
      }
    }
    if (toWrite.isEmpty()) {
      return durable;
    }
    Map<MirrorMembership, StopStateUnavailableException> failed =
        store.writeMemberships(List.copyOf(toWrite.keySet()), WRITE_TIMEOUT_MS);
    for (Map.Entry<MirrorMembership, Candidate> e : toWrite.entrySet()) {
      MirrorMembership m = e.getKey();
      StopStateUnavailableException why = failed.get(m);
      if (why != null) {
        e.getValue()
            .entry()
            .error(
                "not fetching "
                    + e.getValue().tp()
                    + " until its mirror membership is recorded in "
                    + store.topic()
                    + ": "
                    + why.getMessage());
        continue;
      }
      LOG.info("recorded the mirror membership of {}", m);
      requestHolder(store, m);
      durable.add(e.getValue().tp());
    }
    return durable;
  }

  /**
   * What one partition needs before its first append: nothing (its membership {@code recorded}), a
   * write ({@code toWrite}), or neither (refused: the entry's error or failure says why).
   */
  private record Decision(MirrorMembership recorded, MirrorMembership toWrite) {
    static final Decision REFUSED = new Decision(null, null);
  }

  private static Decision decide(
      StopStateStore store, TopicPartition tp, MirrorEntry entry, Partition partition) {
    Optional<Uuid> topicId =
        partition.log().isDefined() ? partition.log().get().topicId() : Optional.empty();
    if (topicId.isEmpty()) {
      entry.error("not fetching " + tp + ": it has no topic id yet");
      return Decision.REFUSED;
    }
    String id = topicId.get().toString();
    if (entry.sourceTopicIdFor(id) == null) {
      // The membership carries the source topic id to every broker that may lead the partition
      // later (the fetcher pins it first): a record without it would leave them unable to name the
      // topic this partition mirrors.
      entry.error(
          "not fetching "
              + tp
              + " for mirror "
              + entry.mirrorName()
              + ": the id of its source topic "
              + tp.topic()
              + " is not recorded yet (the source's metadata does not show the topic); it is"
              + " recorded before the mirror membership and before any append");
      return Decision.REFUSED;
    }
    Optional<MirrorMembership> existing = store.membership().member(id, tp.partition());
    int generation = 0;
    if (existing.isPresent()
        && !existing.get().mirrorName().equals(entry.mirrorName())
        && replaceableByFailback(store, existing.get(), entry)) {
      // A failback made this partition, whose earlier mirror was stopped, a mirror again.
      generation = existing.get().generation() + 1;
    } else if (existing.isPresent()) {
      if (!existing.get().mirrorName().equals(entry.mirrorName())) {
        entry.error(
            "not fetching "
                + tp
                + " for mirror "
                + entry.mirrorName()
                + ": the cluster records it as a member of mirror "
                + existing.get().mirrorName());
        return Decision.REFUSED;
      }
      String recreated =
          dev.kafkamirror.broker.core.mirror.SourceAlignment.topicRecreated(
              tp + " of mirror " + entry.mirrorName(),
              tp.topic(),
              existing.get().sourceTopicId(),
              entry.sourceTopicIdFor(id));
      if (recreated != null) {
        // Another leader recorded the source topic this partition mirrors, and it is not the one
        // this broker sees now.
        entry.fail(
            dev.kafkamirror.broker.core.mirror.SourceAlignment.SOURCE_TOPIC_RECREATED,
            recreated,
            id);
        LOG.error("{}", recreated);
        return Decision.REFUSED;
      }
      return new Decision(existing.get(), null);
    }
    if (generation == 0 && entry.alignment() == null && partition.log().isDefined()) {
      // The first membership of a plain start: nothing in this log was mirrored. A log that already
      // used offsets holds (or held) records the source did not give.
      String why =
          dev.kafkamirror.broker.core.mirror.SourceAlignment.localRecordsBeforeMirror(
              tp.toString(),
              entry.mirrorName(),
              partition.log().get().logStartOffset(),
              partition.log().get().logEndOffset());
      if (why != null) {
        String halted =
            why.replace(": cannot start mirror ", ": not mirroring for mirror ")
                .replace(
                    "Nothing was changed.",
                    "Nothing was appended; the partition stays read-only, FAILED.");
        entry.fail(
            dev.kafkamirror.broker.core.mirror.SourceAlignment.LOCAL_RECORDS_NOT_MIRRORED,
            halted,
            id);
        LOG.error("{}", halted);
        return Decision.REFUSED;
      }
    }
    MirrorMembership m =
        new MirrorMembership(
            id,
            tp.partition(),
            tp.topic(),
            entry.mirrorName(),
            entry.expectedSourceClusterId(),
            store.brokerId(),
            entry.persistableClientProperties(),
            System.currentTimeMillis(),
            entry.sourceTopicIdFor(id),
            generation);
    return new Decision(null, m);
  }

  /**
   * Whether {@code entry}, registered here by a failback start, may record a membership of the next
   * generation over {@code existing}: only when the stop of {@code existing}'s mirror is recorded
   * STOPPED (the partition was made writable), never over a mirror that still runs or stops.
   */
  static boolean replaceableByFailback(
      StopStateStore store, MirrorMembership existing, MirrorEntry entry) {
    if (entry.alignment() == null) {
      return false;
    }
    Optional<StopState> stop = store.get(existing.stopStateKey());
    return stop.isPresent() && stop.get().step() == StopStep.STOPPED;
  }

  /**
   * What adoption reads from and writes to the cluster's records: the stop-state store in a broker,
   * a table in tests.
   */
  interface ClusterRecords {
    /** The memberships and holders as far as this broker has read. */
    MembershipTable membership();

    /** The stop state that counts for {@code key}, as far as this broker has read. */
    Optional<StopState> stopState(dev.kafkamirror.broker.core.stop.StopStateKey key);

    int brokerId();

    /** Records, without waiting, that this broker holds {@code m} in its local registry. */
    void writeHolderAsync(MirrorMembership m);
  }

  private static ClusterRecords recordsOf(StopStateStore store) {
    return new ClusterRecords() {
      @Override
      public MembershipTable membership() {
        return store.membership();
      }

      @Override
      public Optional<StopState> stopState(dev.kafkamirror.broker.core.stop.StopStateKey key) {
        return store.get(key);
      }

      @Override
      public int brokerId() {
        return store.brokerId();
      }

      @Override
      public void writeHolderAsync(MirrorMembership m) {
        store.writeHolderAsync(m);
      }
    };
  }

  /**
   * After every read round: adopts each member partition this broker hosts a replica of and has no
   * registration for, and records this broker as a holder of each member it has registered.
   */
  public static void adoptAll(StopStateStore store) {
    Optional<ReplicaManager> rm = BrokerHandles.replicaManager();
    if (rm.isEmpty()) {
      return;
    }
    adoptAll(recordsOf(store), MirrorRegistry.instance(), tp -> hostedTopicId(rm.get(), tp));
  }

  /** The topic id of the log this broker hosts for {@code tp}, if it hosts one online. */
  private static Optional<String> hostedTopicId(ReplicaManager rm, TopicPartition tp) {
    Option<Partition> partition = rm.onlinePartition(tp);
    if (partition.isEmpty() || partition.get().log().isEmpty()) {
      return Optional.empty();
    }
    return partition.get().log().get().topicId().map(Uuid::toString);
  }

  /**
   * {@link #adoptAll(StopStateStore)} against {@code records} and {@code registry}, {@code
   * hostedTopicId} telling which partitions this broker hosts (with the topic id of its log).
   *
   * <p>The registry file is written once, at the end, whatever number of partitions were adopted or
   * had their source topic id taken from the record: it holds every registration, so a write per
   * partition costs time quadratic in everything ever mirrored here, on the stop-state reader
   * thread, where it delays every sync a stop call waits for (a 30 s sync timeout in the third of
   * five 1,000-partition stops in a row, docs/benchmarks.md). Deferring is safe: an adopted
   * registration is read-only at once and not fetched until the file holds it, and a source topic
   * id taken from a record is durable in that record.
   */
  static void adoptAll(
      ClusterRecords records,
      MirrorRegistry registry,
      java.util.function.Function<TopicPartition, Optional<String>> hostedTopicId) {
    registry.writingOnceAfter(
        () -> {
          for (MirrorMembership m : records.membership().all()) {
            adoptOne(records, registry, hostedTopicId, m);
          }
          return null;
        });
  }

  private static void adoptOne(
      ClusterRecords records,
      MirrorRegistry registry,
      java.util.function.Function<TopicPartition, Optional<String>> hostedTopicId,
      MirrorMembership m) {
    TopicPartition tp = new TopicPartition(m.topic(), m.partition());
    Optional<String> topicId = hostedTopicId.apply(tp);
    if (topicId.isEmpty() || !topicId.get().equals(m.topicId())) {
      return;
    }
    MirrorEntry entry = registry.entry(tp).orElse(null);
    MirrorState recorded;
    if (entry == null) {
      entry = registry.adoptFromCluster(tp, m, recordedState(records, m));
      LOG.info(
          "adopted {} from the cluster's mirror membership as {} (no local registration)",
          m,
          entry.state());
    } else if (!entry.mirrorName().equals(m.mirrorName())
        && entry.state() == MirrorState.STOPPED
        && m.generation() > 0) {
      // A failback made the partition a mirror again (a newer generation of its membership):
      // the stopped registration here gives way, read-only again.
      entry = registry.adoptReplacingStopped(tp, m, recordedState(records, m));
      LOG.info(
          "adopted {} from the cluster's mirror membership as {} in place of a stopped mirror",
          m,
          entry.state());
    } else if (entry.mirrorName().equals(m.mirrorName())
        && entry.state() == MirrorState.STOPPED
        && !m.topicId().equals(entry.sourceTopicIdPinnedFor())
        && (recorded = recordedState(records, m)) != MirrorState.STOPPED) {
      // Stopped here, but the cluster records no stop of this topic's partition: a registration
      // becomes STOPPED only after the stop's STOPPED is recorded (StopRules), so this one belongs
      // to an earlier topic of the name (kept when it was deleted: no topic id recorded for it).
      // Left as it is, it would let clients write into a live mirror once this broker leads.
      entry = registry.adoptReplacingStaleStopped(tp, m, recorded);
      LOG.warn(
          "{}: the stopped registration of mirror {} here was not made for topic id {}, whose"
              + " partition the cluster records as a live member ({}); adopted read-only in its"
              + " place",
          tp,
          m.mirrorName(),
          m.topicId(),
          recorded);
    } else if (entry.mirrorName().equals(m.mirrorName())) {
      takeRecordedSourceTopicId(registry, tp, entry, m);
    } else {
      if (conflictsReported.putIfAbsent(tp + "/" + m.topicId(), Boolean.TRUE) == null) {
        LOG.error(
            "{} is registered here for mirror {} but the cluster records it as a member of {};"
                + " it stays read-only",
            tp,
            entry.mirrorName(),
            m.mirrorName());
      }
      return;
    }
    requestHolder(records, m);
  }

  /** The local state of a member partition adopted from its record: its recorded stop step. */
  private static MirrorState recordedState(ClusterRecords records, MirrorMembership m) {
    Optional<StopStep> step = records.stopState(m.stopStateKey()).map(StopState::step);
    return step.isEmpty()
        ? MirrorState.MIRRORING
        : step.get() == StopStep.STOPPED ? MirrorState.STOPPED : MirrorState.STOPPING;
  }

  /**
   * The source topic id the cluster's membership records for {@code entry}'s partition, in the
   * destination topic whose id is {@code destinationTopicId}: only a record of the same mirror
   * counts (a record of an earlier mirror of the partition, replaced by a failback, names another
   * source). Null when the membership is not read yet since this broker started, or records none
   * (no membership yet, or one written by a plugin before the field).
   */
  static String recordedSourceTopicId(
      TopicPartition tp, MirrorEntry entry, String destinationTopicId) {
    if (destinationTopicId == null) {
      return null;
    }
    Optional<StopStateStore> store = StopStateStore.ifStarted();
    if (store.isEmpty() || !store.get().caughtUpOnce()) {
      return null;
    }
    return store
        .get()
        .membership()
        .member(destinationTopicId, tp.partition())
        .filter(m -> m.mirrorName().equals(entry.mirrorName()))
        .map(MirrorMembership::sourceTopicId)
        .orElse(null);
  }

  /**
   * Makes a registration of {@code m}'s mirror (from a start call on a follower, or a registry
   * file) carry the source topic id the membership records, persisted in the registry file: the
   * membership is written after the leader pinned the id and before its first append, and every
   * later append checks against it, so it names the topic the partition mirrors. A broker that
   * never led the partition, or pinned an id it never appended from (it crashed before the
   * membership was written, and another leader pinned the source's next topic), would otherwise
   * report none, or another, when it leads after a leader change or the stop's fence. A record
   * without the field (an earlier plugin) changes nothing: unknown stays unknown.
   */
  private static void takeRecordedSourceTopicId(
      MirrorRegistry registry, TopicPartition tp, MirrorEntry entry, MirrorMembership m) {
    String recorded = m.sourceTopicId();
    if (recorded == null) {
      return;
    }
    String pinned = entry.sourceTopicIdFor(m.topicId());
    if (recorded.equals(pinned)) {
      return;
    }
    registry.pinSourceTopicId(entry, recorded, m.topicId());
    if (pinned == null) {
      LOG.info(
          "mirror {}: {} mirrors source topic {} with topic id {} (from the cluster's membership"
              + " record by broker {})",
          m.mirrorName(),
          tp,
          tp.topic(),
          recorded,
          m.writerBrokerId());
    } else {
      LOG.warn(
          "mirror {}: {} had source topic id {} pinned here, but the cluster's membership record"
              + " (by broker {}) names {}, which every append was checked against; it now uses {}",
          m.mirrorName(),
          tp,
          pinned,
          m.writerBrokerId(),
          recorded,
          recorded);
    }
  }

  private static void requestHolder(StopStateStore store, MirrorMembership m) {
    requestHolder(recordsOf(store), m);
  }

  private static void requestHolder(ClusterRecords store, MirrorMembership m) {
    if (store.membership().isHolder(m.topicId(), m.partition(), store.brokerId())) {
      return;
    }
    String key = m.topicId() + "/" + m.partition();
    long now = System.currentTimeMillis();
    Long last = holderRequestedAt.get(key);
    if (last != null && now - last < HOLDER_RETRY_MS) {
      return;
    }
    holderRequestedAt.put(key, now);
    store.writeHolderAsync(m);
  }

  /**
   * Whether the cluster records a mirror membership of the partition (any mirror, any generation);
   * empty while that cannot be known (the membership not read yet since this broker started, or no
   * topic id).
   */
  public static Optional<Boolean> memberRecorded(TopicPartition tp, Optional<Uuid> topicId) {
    Optional<StopStateStore> store = StopStateStore.ifStarted();
    if (store.isEmpty() || !store.get().caughtUpOnce() || topicId.isEmpty()) {
      return Optional.empty();
    }
    return Optional.of(
        store.get().membership().member(topicId.get().toString(), tp.partition()).isPresent());
  }

  /** The brokers known to hold the membership of the partition (for the fence). */
  public static java.util.Set<Integer> holders(String topicId, int partition) {
    return StopStateStore.ifStarted()
        .map(s -> s.membership().holders(topicId, partition))
        .orElse(java.util.Set.of());
  }

  /** For describe: what the cluster records about the partition, empty when nothing. */
  public static Map<String, Object> describe(TopicPartition tp, Optional<Uuid> topicId) {
    Map<String, Object> out = new LinkedHashMap<>();
    Optional<StopStateStore> store = StopStateStore.ifStarted();
    if (registryUnreadable != null) {
      out.put(Fields.ClusterMembership.REGISTRY_UNREADABLE, registryUnreadable);
    }
    if (store.isEmpty() || !store.get().caughtUpOnce()) {
      if (mayHoldMirrors() && !tp.topic().equals(stateTopic)) {
        out.put(Fields.ClusterMembership.PENDING, true);
      }
      return out;
    }
    if (topicId.isEmpty()) {
      return out;
    }
    store
        .get()
        .membership()
        .member(topicId.get().toString(), tp.partition())
        .ifPresent(
            m -> {
              out.put(Fields.ClusterMembership.MIRROR_NAME, m.mirrorName());
              out.put(Fields.ClusterMembership.RECORDED_BY_BROKER, m.writerBrokerId());
              out.put(
                  Fields.ClusterMembership.HOLDERS,
                  List.copyOf(store.get().membership().holders(m.topicId(), m.partition())));
            });
    return out;
  }
}
