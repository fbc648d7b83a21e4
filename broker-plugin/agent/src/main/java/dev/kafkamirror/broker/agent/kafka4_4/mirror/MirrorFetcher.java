package dev.kafkamirror.broker.agent.kafka4_4.mirror;

import dev.kafkamirror.broker.agent.kafka4_4.BrokerHandles;
import dev.kafkamirror.broker.agent.kafka4_4.StopStateAdoption;
import dev.kafkamirror.broker.agent.kafka4_4.stop.StopStateStore;
import dev.kafkamirror.broker.agent.kafka4_4.stop.StopStateUnavailableException;
import dev.kafkamirror.broker.core.mirror.IdlePacing;
import dev.kafkamirror.broker.core.mirror.MetadataBackoff;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import kafka.cluster.Partition;
import kafka.server.ReplicaManager;
import org.apache.kafka.clients.ClientResponse;
import org.apache.kafka.common.IsolationLevel;
import org.apache.kafka.common.Node;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.message.FetchResponseData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.Records;
import org.apache.kafka.common.requests.FetchMetadata;
import org.apache.kafka.common.requests.FetchRequest;
import org.apache.kafka.common.requests.FetchResponse;
import org.apache.kafka.storage.internals.log.UnifiedLog;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import scala.Option;

/**
 * The mirror fetcher of one source cluster in this broker: a daemon thread that, for every
 * partition registered as MIRRORING whose local replica is the leader, fetches from the source
 * partition's leader at the local log end (a consumer fetch, read_uncommitted, so bounded by the
 * source high watermark) and appends the batches as-is.
 *
 * <p>Source brokers: one fetch in flight to each source broker that leads a mirrored partition, all
 * at once, each answer appended as it arrives (as Kafka's follower fetchers do, one per source
 * broker); the next fetch to a broker is sent after its answer is appended, so a partition is in at
 * most one fetch and every fetch asks from the local log end. A broker that stops answering holds
 * up only its own partitions, until the request timeout; the source's metadata is read in the
 * background for the same reason. An answer is used only for a partition still as it was at the
 * send (same registration, leader epoch and log end); otherwise that partition is fetched afresh.
 *
 * <p>Leader changes: on the destination, a partition is fetched only while this broker leads it
 * (checked every round), so a new leader that has the partition registered picks it up; on the
 * source, leaders are re-read whenever a fetch fails with a leadership error and every {@value
 * #METADATA_MAX_AGE_MS} ms. While a partition stays unresolved after a re-read (its source topic
 * deleted, no leader), the next re-read waits longer each time, up to {@link
 * MetadataBackoff#MAX_DELAY_MS} ms, instead of following every idle round.
 *
 * <p>Divergence: every fetch carries the source epoch of the local log's last record as {@code
 * lastFetchedEpoch}, from the durable source epoch history, which is written before the first batch
 * of a new source epoch is appended. A source that no longer holds that record answers with a
 * diverging epoch; the partition then fails for good ({@value MirrorAlignment#SOURCE_DIVERGED}) and
 * nothing more is appended.
 *
 * <p>Collaborators: {@link SourceIdentity} checks every cluster id the source reports; {@link
 * MirrorAlignment} pins the source topic id and handles out-of-range answers, a log start inside
 * the first batch and a diverging epoch; {@link SourceEpochs} makes a new source epoch durable
 * before its first batch is appended.
 *
 * <p>Threading: the thread owns its {@link SourceCluster} and its collaborators; the registry is
 * shared and thread-safe.
 */
final class MirrorFetcher extends Thread implements MirrorRegistry.Fetcher {

  private static final Logger LOG =
      LoggerFactory.getLogger("dev.kafkamirror.broker.agent.MirrorFetcher");
  private static final long METADATA_MAX_AGE_MS = 30_000L;

  /**
   * How long the source may hold a fetch that finds nothing new. It answers as soon as any
   * partition of the fetch has a record, so this bounds only the idle rounds, and each round costs
   * work in proportion to the partitions led here (the fetch lists them all, the source reads each,
   * this thread checks each): at 10,000 idle partitions on 3 brokers, 100 ms kept the source at
   * half a core and each fetcher thread at a tenth (docs/benchmarks.md). 500 ms is also what
   * Kafka's consumers and replica fetchers wait.
   */
  private static final int FETCH_MAX_WAIT_MS = 500;

  private static final int PARTITION_MAX_BYTES = 1024 * 1024;
  private static final long IDLE_SLEEP_MS = 50L;
  private static final long ERROR_BACKOFF_MS = 500L;
  private static final long STOP_STATE_SYNC_TIMEOUT_MS = 5_000L;
  private static final int FETCH_MAX_BYTES = 16 * 1024 * 1024;
  private static final long STALL_REPORT_INTERVAL_MS = 60_000L;
  private static final int STALLS_LISTED = 5;

  /** The longest wait for an answer in one round; an answer ends the wait at once. */
  private static final long POLL_MS = 2L * FETCH_MAX_WAIT_MS;

  private final SourceCluster source;
  private final MirrorRegistry registry;
  private volatile boolean running = true;
  private long metadataRefreshedAtMs;
  private boolean metadataStale = true;
  private final MetadataBackoff metadataBackoff = new MetadataBackoff();
  private long stallsReportedAtMs;

  private final SourceIdentity identity;
  private final MirrorAlignment alignment;

  /**
   * The fetch in flight to each source broker, by broker id: at most one per broker, and a
   * partition in at most one.
   */
  private final Map<String, InFlight> inFlight = new HashMap<>();

  /**
   * Partitions not pinned to a source topic id yet, with how many metadata reads had been started
   * when this fetcher first saw them so: only a read numbered above that may pin them.
   */
  private final Map<TopicPartition, Long> pinNeededAfterRead = new HashMap<>();

  /** Source brokers whose last fetch failed as a whole, with when they get the next one. */
  private final Map<String, Long> backoffUntilMs = new HashMap<>();

  /**
   * A fetch sent and not answered yet, with what its answer is read against: the partitions asked
   * for, and the round's topic names, local replicas and source epochs as they were when it was
   * sent (maps of that round, shared by its fetches and never changed after it), each partition's
   * registration and leader epoch at the send.
   */
  private record InFlight(
      Node leader,
      Map<TopicPartition, FetchRequest.PartitionData> partitions,
      Map<Uuid, String> topicNames,
      Map<TopicPartition, Partition> active,
      Map<TopicPartition, SourceEpochs> epochs,
      Map<TopicPartition, MirrorEntry> entries,
      Map<TopicPartition, Integer> leaderEpochs) {

    /** Whether {@code partition} is still led here, in the leader epoch of the send, with a log. */
    boolean stillLedHere(TopicPartition tp, Partition partition) {
      Integer epoch = leaderEpochs.get(tp);
      try {
        return epoch != null
            && partition.isLeader()
            && partition.getLeaderEpoch() == epoch
            && partition.log().isDefined();
      } catch (RuntimeException e) {
        return false;
      }
    }

    /**
     * Whether {@code tp}'s answer may still be used: the same registration, still led here in the
     * leader epoch of the send (its stop state checked in it), at the log end the fetch asked from.
     * An answer can come up to the request timeout after its send; a partition stopped, truncated,
     * registered again or led anew meanwhile is fetched afresh instead.
     */
    boolean stillAsSent(TopicPartition tp, MirrorEntry entry, Partition partition) {
      FetchRequest.PartitionData sent = partitions.get(tp);
      if (entry == null
          || partition == null
          || sent == null
          || entries.get(tp) != entry
          || entry.sourceMismatch() != null
          || !stillLedHere(tp, partition)
          || entry.stopStateCheckedAtEpoch() != leaderEpochs.get(tp)) {
        return false;
      }
      try {
        return partition.localLogOrException().logEndOffset() == sent.fetchOffset;
      } catch (RuntimeException e) {
        // No local log any more (the replica went offline or was deleted).
        return false;
      }
    }
  }

  MirrorFetcher(SourceCluster source, MirrorRegistry registry) {
    super("cluster-mirror-fetcher-" + source.key());
    setDaemon(true);
    this.source = source;
    this.registry = registry;
    this.identity = new SourceIdentity(source, registry);
    this.alignment = new MirrorAlignment(source, registry);
  }

  @Override
  public void shutdown() {
    running = false;
    interrupt();
  }

  @Override
  public void run() {
    LOG.info("mirror fetcher for source {} started", source.key());
    while (running) {
      try {
        long roundStarted = System.nanoTime();
        if (!fetchOnce()) {
          // Only what is left of IDLE_SLEEP_MS: after a long poll that found nothing new, at once.
          long waitMs =
              IdlePacing.waitAfterIdleRoundMs(
                  TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - roundStarted), IDLE_SLEEP_MS);
          if (waitMs > 0) {
            Thread.sleep(waitMs);
          }
        }
      } catch (InterruptedException e) {
        break;
      } catch (Throwable t) {
        if (!running) {
          break;
        }
        LOG.warn("mirror fetcher for source {}: {}", source.key(), t.toString());
        String message = "source " + source.key() + ": " + t;
        registry.entriesOf(source.key()).values().forEach(e -> e.error(message));
        metadataStale = true;
        try {
          Thread.sleep(ERROR_BACKOFF_MS);
        } catch (InterruptedException e) {
          break;
        }
      }
    }
    source.close();
    LOG.info("mirror fetcher for source {} stopped", source.key());
  }

  /**
   * One round over every partition this broker leads and mirrors from this source; false when idle.
   */
  private boolean fetchOnce() throws Exception {
    Optional<ReplicaManager> rm = BrokerHandles.replicaManager();
    if (rm.isEmpty()) {
      return false;
    }
    long now = System.currentTimeMillis();
    Map<TopicPartition, Partition> active = new LinkedHashMap<>();
    // A partition to pin to a source topic id that the last metadata knows: re-read at once, so
    // that the id pinned is the source's current one (the backoff is for topics that are gone).
    boolean pinWaits = false;
    java.util.Set<TopicPartition> unpinned = new java.util.HashSet<>();
    for (Map.Entry<TopicPartition, MirrorEntry> e : registry.entriesOf(source.key()).entrySet()) {
      if (e.getValue().state() != MirrorState.MIRRORING
          || e.getValue().sourceMismatch() != null
          || !e.getValue().durable()) {
        continue;
      }
      Option<Partition> partition = rm.get().onlinePartition(e.getKey());
      if (partition.isDefined() && partition.get().isLeader()) {
        String destinationTopicId = MirrorAlignment.destinationTopicId(partition.get());
        if (e.getValue().failedReasonFor(destinationTopicId) != null) {
          continue;
        }
        if (e.getValue().madeForAnotherTopic(destinationTopicId)) {
          // The destination topic this registration was made for was deleted; the log under the
          // name is another topic's, never mirrored into by this registration. Its removal
          // (DeletedDestinationTopics) follows; a start call registers the new topic afresh.
          continue;
        }
        if (e.getValue().sourceTopicIdFor(destinationTopicId) == null) {
          // The source topic id is recorded from fresh metadata only.
          metadataStale = true;
          pinWaits |= source.topicIdOf(e.getKey().topic()) != null;
          unpinned.add(e.getKey());
          pinNeededAfterRead.putIfAbsent(e.getKey(), source.readsStarted());
        }
        active.put(e.getKey(), partition.get());
      }
    }
    reportStalls(active.keySet(), now);
    if (active.isEmpty()) {
      // Answers still due are read (and find nothing to append to) rather than left for later.
      if (!inFlight.isEmpty()) {
        pollAnswers(active);
      }
      return false;
    }
    pinNeededAfterRead.keySet().retainAll(unpinned);
    boolean refreshed = false;
    SourceCluster.Refresh read = source.finishedRefresh();
    if (read != null) {
      // Identity first: the topic metadata of another cluster is of no use.
      if (identity.mismatch(
          read.clusterId(), "the source's metadata (bootstrap " + bootstrap() + ")")) {
        active
            .keySet()
            .removeIf(tp -> registry.entry(tp).map(m -> m.sourceMismatch() != null).orElse(true));
      } else {
        read.apply();
        refreshed = true;
      }
      if (active.isEmpty()) {
        return pollAnswers(active);
      }
    }
    if (!source.refreshing()
        && ((metadataStale && (pinWaits || metadataBackoff.due(now)))
            || now - metadataRefreshedAtMs > METADATA_MAX_AGE_MS)) {
      // In the background: a source broker that does not answer must not hold up the fetches
      // to the others. What goes stale from here on asks for another read after this one.
      source.startRefresh(active.keySet());
      metadataRefreshedAtMs = now;
      metadataStale = false;
    }
    // The source topic id is pinned from metadata read after the partition was first seen
    // unpinned, never from older metadata (the topic may have been created again since): until
    // such a read is in, the partition waits, neither pinned nor fetched.
    for (TopicPartition tp : unpinned) {
      if (read == null || !refreshed || read.number() <= pinNeededAfterRead.get(tp)) {
        active.remove(tp);
      }
    }
    // Before the membership is recorded (it carries the source topic id) and before any append.
    alignment.checkSourceTopicIds(active);
    checkStopState(active);
    // A partition in a fetch still in flight waits for its answer; a source broker gets one fetch
    // at a time, as a Kafka follower's fetcher sends.
    Map<TopicPartition, Partition> sendable = new LinkedHashMap<>(active);
    for (InFlight f : inFlight.values()) {
      sendable.keySet().removeAll(f.partitions().keySet());
    }
    Map<String, Map<TopicPartition, FetchRequest.PartitionData>> byLeader = new HashMap<>();
    Map<String, Node> leaders = new HashMap<>();
    Map<Uuid, String> topicNames = new HashMap<>();
    Map<TopicPartition, SourceEpochs> epochs = new HashMap<>();
    boolean unresolved = false;
    for (Map.Entry<TopicPartition, Partition> e : sendable.entrySet()) {
      TopicPartition tp = e.getKey();
      Node leader = source.leaderOf(tp);
      // Fetched by the recorded source topic id, never by name: a source topic created again under
      // the same name is answered UNKNOWN_TOPIC_ID, not with the new topic's records.
      String pinned =
          registry
              .entry(tp)
              .map(m -> m.sourceTopicIdFor(MirrorAlignment.destinationTopicId(e.getValue())))
              .orElse(null);
      Uuid topicId = pinned == null ? null : Uuid.fromString(pinned);
      if (!source.wasRead(tp.topic())) {
        // No finished metadata read has asked about its topic yet (a partition just registered):
        // no error before one has; a read asking about it is started (or running).
        metadataStale = true;
        continue;
      }
      if (source.topicIdOf(tp.topic()) == null) {
        registry
            .entry(tp)
            .ifPresent(
                m ->
                    m.error(
                        "the source topic "
                            + tp.topic()
                            + " does not exist on source "
                            + source.key()
                            + " (deleted?); not fetching "
                            + tp));
        metadataStale = true;
        unresolved = true;
        continue;
      }
      if (leader == null || topicId == null) {
        registry
            .entry(tp)
            .ifPresent(m -> m.error("no leader for " + tp + " on source " + source.key()));
        metadataStale = true;
        unresolved = true;
        continue;
      }
      if (inFlight.containsKey(leader.idString())
          || backoffUntilMs.getOrDefault(leader.idString(), 0L) > now) {
        continue;
      }
      long fetchOffset = e.getValue().localLogOrException().logEndOffset();
      SourceEpochs known = SourceEpochs.of(tp, registry.entry(tp).orElse(null), e.getValue());
      if (known == null) {
        registry
            .entry(tp)
            .ifPresent(
                m ->
                    m.error(
                        "not fetching "
                            + tp
                            + ": its source epoch history cannot be read (no topic id or no"
                            + " state topic)"));
        continue;
      }
      topicNames.put(topicId, tp.topic());
      epochs.put(tp, known);
      // As a Kafka follower does: the source's epoch of the last record held, so that the source
      // answers with a diverging epoch when its log no longer contains that record.
      int lastFetchedEpoch = known.history().epochAt(fetchOffset - 1);
      leaders.putIfAbsent(leader.idString(), leader);
      byLeader
          .computeIfAbsent(leader.idString(), n -> new LinkedHashMap<>())
          .put(
              tp,
              new FetchRequest.PartitionData(
                  topicId,
                  fetchOffset,
                  -1L,
                  PARTITION_MAX_BYTES,
                  Optional.empty(),
                  lastFetchedEpoch < 0 || fetchOffset == 0
                      ? Optional.empty()
                      : Optional.of(lastFetchedEpoch)));
    }
    if (refreshed) {
      metadataBackoff.refreshed(now, unresolved);
    }
    for (Map.Entry<String, Map<TopicPartition, FetchRequest.PartitionData>> request :
        byLeader.entrySet()) {
      send(leaders.get(request.getKey()), request.getValue(), topicNames, active, epochs);
    }
    return pollAnswers(active);
  }

  /**
   * At most once every {@value #STALL_REPORT_INTERVAL_MS} ms, logs the partitions led here that the
   * source has not answered for longer than {@link MirrorEntry#SOURCE_SILENCE_MS} ms (never, or not
   * since their last answer), with what this fetcher knows of each: a partition that is skipped
   * round after round must not go unnoticed in the broker's log. Describe reports the same silence
   * per partition.
   */
  private void reportStalls(java.util.Set<TopicPartition> ledHere, long now) {
    if (now - stallsReportedAtMs < STALL_REPORT_INTERVAL_MS) {
      return;
    }
    stallsReportedAtMs = now;
    int stalled = 0;
    StringBuilder examples = new StringBuilder();
    for (TopicPartition tp : ledHere) {
      MirrorEntry entry = registry.entry(tp).orElse(null);
      long silentMs = entry == null ? 0L : entry.sourceSilentForMs(now);
      if (entry == null
          || entry.state() != MirrorState.MIRRORING
          || silentMs <= MirrorEntry.SOURCE_SILENCE_MS) {
        continue;
      }
      stalled++;
      if (stalled <= STALLS_LISTED) {
        boolean sent = inFlight.values().stream().anyMatch(f -> f.partitions().containsKey(tp));
        Node leader = source.leaderOf(tp);
        examples
            .append(stalled == 1 ? "" : "; ")
            .append(tp)
            .append(": silent for ")
            .append(silentMs / 1000)
            .append(" s, source leader ")
            .append(leader == null ? "unknown" : leader.idString())
            .append(", source topic ")
            .append(source.wasRead(tp.topic()) ? "read" : "not read yet")
            .append(", source topic id ")
            .append(entry.sourceTopicId() == null ? "not pinned" : "pinned")
            .append(", stop state checked at epoch ")
            .append(entry.stopStateCheckedAtEpoch())
            .append(sent ? ", in a fetch in flight" : "")
            .append(", last error: ")
            .append(entry.lastError() == null ? "none recorded" : entry.lastError());
      }
    }
    if (stalled > 0) {
      LOG.warn(
          "mirror fetcher for source {}: {} partitions led here have had no answer from the source"
              + " for over {} s (first {}: {})",
          source.key(),
          stalled,
          MirrorEntry.SOURCE_SILENCE_MS / 1000,
          Math.min(stalled, STALLS_LISTED),
          examples);
    }
  }

  /**
   * Sends one fetch to {@code leader} when its connection is ready and checked; otherwise the
   * connection is carried on and the partitions wait for a later round.
   */
  private void send(
      Node leader,
      Map<TopicPartition, FetchRequest.PartitionData> partitions,
      Map<Uuid, String> topicNames,
      Map<TopicPartition, Partition> active,
      Map<TopicPartition, SourceEpochs> epochs) {
    try {
      if (!source.readyForFetch(leader)) {
        return;
      }
    } catch (SourceCluster.SourceIdentityException e) {
      LOG.error("mirror fetcher for source {}: {}; not fetching", source.key(), e.getMessage());
      metadataStale = true;
      return;
    } catch (java.io.IOException e) {
      failed(leader, partitions.keySet(), e.getMessage());
      return;
    }
    FetchRequest.Builder request =
        FetchRequest.Builder.forConsumer(
                ApiKeys.FETCH.latestVersion(), FETCH_MAX_WAIT_MS, 1, partitions)
            .isolationLevel(IsolationLevel.READ_UNCOMMITTED)
            .metadata(FetchMetadata.LEGACY)
            .setMaxBytes(FETCH_MAX_BYTES);
    // The round's maps are kept as they are (no later round changes them); the answer looks up
    // only its own partitions in them.
    Map<TopicPartition, MirrorEntry> entries = new HashMap<>();
    Map<TopicPartition, Integer> leaderEpochs = new HashMap<>();
    for (TopicPartition tp : partitions.keySet()) {
      registry.entry(tp).ifPresent(m -> entries.put(tp, m));
      leaderEpochs.put(tp, active.get(tp).getLeaderEpoch());
    }
    source.send(leader, request);
    inFlight.put(
        leader.idString(),
        new InFlight(
            leader, Map.copyOf(partitions), topicNames, active, epochs, entries, leaderEpochs));
  }

  /**
   * Waits for the answers of the fetches in flight (at most {@value #POLL_MS} ms, less as soon as
   * one arrives; {@value #IDLE_SLEEP_MS} ms while none is in flight, which carries connections on)
   * and appends what they carry; then raises the log starts of {@code active}.
   *
   * @return whether anything was appended (without, the round lasts at least {@value
   *     #IDLE_SLEEP_MS} ms in all, so an answer that keeps failing is not asked for again at once,
   *     while a round that held the source's long poll goes on at once: {@link IdlePacing})
   */
  private boolean pollAnswers(Map<TopicPartition, Partition> active) {
    SourceCluster.IdentityCheck check =
        (node, reported) -> {
          if (identity.mismatch(reported, "source broker " + node)) {
            throw new SourceCluster.SourceIdentityException(
                "source broker " + node + " reports cluster id " + reported);
          }
        };
    // One poll returns as soon as any bytes moved, usually a part of a large answer: while fetches
    // are in flight, poll on until one is complete (or POLL_MS passed), as a blocking receive did.
    // Returning after a partial read made the fetcher sleep between the chunks of every answer.
    // It also ends when a new connection's cluster id check is settled (the next round can fetch
    // over it instead of waiting for another broker's held fetch) and at shutdown (a poll of an
    // interrupted thread returns at once, so waiting on would spin until the deadline).
    long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(POLL_MS);
    int checksInFlight = source.checksInFlight();
    List<ClientResponse> answers = source.poll(inFlight.isEmpty() ? IDLE_SLEEP_MS : POLL_MS, check);
    while (answers.isEmpty()
        && !inFlight.isEmpty()
        && running
        && source.checksInFlight() == checksInFlight) {
      long leftMs = TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime());
      if (leftMs <= 0) {
        break;
      }
      answers = source.poll(leftMs, check);
    }
    // Every answer is taken out of the fetches in flight before any is handled, and each is
    // handled on its own: one that fails must not leave another broker's fetch in flight for good.
    List<Map.Entry<InFlight, ClientResponse>> handled = new java.util.ArrayList<>();
    for (ClientResponse answer : answers) {
      InFlight fetch = inFlight.remove(answer.destination());
      if (fetch != null) {
        handled.add(Map.entry(fetch, answer));
      }
    }
    boolean progressed = false;
    for (Map.Entry<InFlight, ClientResponse> h : handled) {
      try {
        progressed |= answered(h.getKey(), h.getValue());
      } catch (RuntimeException e) {
        failed(h.getKey().leader(), h.getKey().partitions().keySet(), e.toString());
      }
    }
    for (Map.Entry<TopicPartition, Partition> e : active.entrySet()) {
      registry
          .entry(e.getKey())
          .ifPresent(m -> MirrorAlignment.alignLogStart(e.getKey(), m, e.getValue()));
    }
    return progressed;
  }

  /**
   * A fetch to {@code leader} failed as a whole: its partitions say why, the metadata is read
   * again, and {@code leader} gets no fetch for {@value #ERROR_BACKOFF_MS} ms. The partitions of
   * the other source brokers go on.
   */
  private void failed(Node leader, java.util.Collection<TopicPartition> partitions, String why) {
    String message = "fetch from source broker " + leader + " of " + source.key() + ": " + why;
    for (TopicPartition tp : partitions) {
      registry.entry(tp).ifPresent(m -> m.error(message));
    }
    LOG.warn("mirror fetcher for source {}: {}", source.key(), message);
    metadataStale = true;
    backoffUntilMs.put(leader.idString(), System.currentTimeMillis() + ERROR_BACKOFF_MS);
  }

  /**
   * Before a leader's first append in each leader epoch it gains, reads the durable stop state up
   * to date: a partition whose stop has begun (recorded by an earlier leader) is never fetched
   * again. Until that check succeeds the partition is not fetched.
   */
  private void checkStopState(Map<TopicPartition, Partition> active) {
    List<TopicPartition> unchecked = new java.util.ArrayList<>();
    for (Map.Entry<TopicPartition, Partition> e : active.entrySet()) {
      MirrorEntry entry = registry.entry(e.getKey()).orElse(null);
      if (entry != null && entry.stopStateCheckedAtEpoch() != e.getValue().getLeaderEpoch()) {
        unchecked.add(e.getKey());
      }
    }
    if (unchecked.isEmpty()) {
      return;
    }
    StopStateStore store;
    try {
      store = StopStateStore.get();
      store.sync(STOP_STATE_SYNC_TIMEOUT_MS);
    } catch (StopStateUnavailableException ex) {
      for (TopicPartition tp : unchecked) {
        registry
            .entry(tp)
            .ifPresent(
                m ->
                    m.error(
                        "not fetching "
                            + tp
                            + " until the stop state can be read: "
                            + ex.getMessage()));
        active.remove(tp);
      }
      return;
    }
    List<ClusterMembership.Candidate> candidates = new java.util.ArrayList<>();
    // The epoch each check is made in, read before it: an epoch gained meanwhile is checked anew.
    Map<TopicPartition, Integer> checkedIn = new HashMap<>();
    // A stop adopted here is in memory at once (no append below) and written to the registry file
    // once for the round, not once per partition (docs/benchmarks.md, "Five stops in a row").
    registry.writingOnceAfter(
        () -> {
          for (TopicPartition tp : unchecked) {
            checkedIn.put(tp, active.get(tp).getLeaderEpoch());
            MirrorEntry entry = registry.entry(tp).orElse(null);
            if (entry == null || StopStateAdoption.adopt(store, tp, entry)) {
              // A stop has begun: no mirrored append.
              active.remove(tp);
            } else {
              candidates.add(new ClusterMembership.Candidate(tp, entry, active.get(tp)));
            }
          }
          return null;
        });
    java.util.Set<TopicPartition> recorded = ClusterMembership.ensureRecorded(store, candidates);
    for (ClusterMembership.Candidate c : candidates) {
      if (recorded.contains(c.tp())) {
        c.entry().stopStateCheckedAtEpoch(checkedIn.get(c.tp()));
      } else {
        // The membership is not durable yet: no mirrored append.
        active.remove(c.tp());
      }
    }
  }

  /** Appends what the answer to {@code fetch} carries; true when something was appended. */
  private boolean answered(InFlight fetch, ClientResponse response) {
    Node leader = fetch.leader();
    if (response.wasDisconnected()) {
      failed(
          leader,
          fetch.partitions().keySet(),
          response.wasTimedOut()
              ? "no answer within " + SourceCluster.requestTimeoutMs() + " ms"
              : "the connection was closed before the answer");
      return false;
    }
    if (response.versionMismatch() != null) {
      failed(leader, fetch.partitions().keySet(), response.versionMismatch().toString());
      return false;
    }
    FetchResponse answer = (FetchResponse) response.responseBody();
    if (answer.error() != Errors.NONE) {
      failed(leader, fetch.partitions().keySet(), answer.error().name());
      return false;
    }
    Map<TopicPartition, Partition> active = fetch.active();
    Map<TopicPartition, SourceEpochs> epochs = fetch.epochs();
    boolean progressed = false;
    Map<TopicPartition, FetchResponseData.PartitionData> data =
        answer.responseData(fetch.topicNames(), response.requestHeader().apiVersion());
    for (TopicPartition tp : fetch.partitions().keySet()) {
      if (!data.containsKey(tp)) {
        // Never silent: a partition left out of every answer would otherwise wait unexplained.
        registry
            .entry(tp)
            .ifPresent(
                m ->
                    m.error(
                        "source broker "
                            + leader
                            + " of "
                            + source.key()
                            + " left "
                            + tp
                            + " out of its answer to a fetch"));
      }
    }
    // First every partition's answer is looked at and the source epochs its records start are
    // written, all together; then the records whose epochs are durable are appended.
    Map<TopicPartition, MemoryRecords> toAppend = new LinkedHashMap<>();
    Map<TopicPartition, SourceEpochs.Pending> epochWrites = new LinkedHashMap<>();
    for (Map.Entry<TopicPartition, FetchResponseData.PartitionData> e : data.entrySet()) {
      TopicPartition tp = e.getKey();
      FetchResponseData.PartitionData pd = e.getValue();
      MirrorEntry entry = registry.entry(tp).orElse(null);
      Partition partition = active.get(tp);
      if (entry == null
          || partition == null
          || entry.state() != MirrorState.MIRRORING
          || !fetch.stillAsSent(tp, entry, partition)) {
        continue;
      }
      Errors error = Errors.forCode(pd.errorCode());
      if (error == Errors.OFFSET_OUT_OF_RANGE) {
        progressed |= alignment.outOfRange(tp, entry, partition);
        continue;
      }
      if (error != Errors.NONE) {
        entry.error(tp + " on source " + source.key() + ": " + error.name());
        if (error == Errors.NOT_LEADER_OR_FOLLOWER
            || error == Errors.UNKNOWN_TOPIC_OR_PARTITION
            || error == Errors.FENCED_LEADER_EPOCH
            || error == Errors.LEADER_NOT_AVAILABLE
            || error == Errors.UNKNOWN_TOPIC_ID) {
          source.forget(tp);
          metadataStale = true;
        }
        continue;
      }
      // Whatever follows, the source answered: its offsets are current, so the lag is too, and
      // an error reported before this answer is over (what follows reports its own).
      entry.answeredWithoutError(pd.highWatermark(), pd.logStartOffset());
      entry.fetched(pd.records() == null ? 0 : pd.records().sizeInBytes());
      SourceEpochs known = epochs.get(tp);
      if (FetchResponse.isDivergingEpoch(pd)) {
        alignment.sourceDiverged(tp, entry, partition, known, pd.divergingEpoch());
        continue;
      }
      Records records = FetchResponse.recordsOrFail(pd);
      if (!(records instanceof MemoryRecords memory) || memory.sizeInBytes() == 0) {
        continue;
      }
      if (known == null) {
        continue;
      }
      Optional<StopStateStore.SourceEpochWrite> write = known.writeBefore(memory, partition, entry);
      if (write == null) {
        continue;
      }
      write.ifPresent(w -> epochWrites.put(tp, new SourceEpochs.Pending(w, partition, entry)));
      toAppend.put(tp, memory);
    }
    toAppend.keySet().removeAll(SourceEpochs.writeAll(epochWrites));
    for (Map.Entry<TopicPartition, MemoryRecords> e : toAppend.entrySet()) {
      TopicPartition tp = e.getKey();
      MemoryRecords memory = e.getValue();
      FetchResponseData.PartitionData pd = data.get(tp);
      MirrorEntry entry = registry.entry(tp).orElse(null);
      Partition partition = active.get(tp);
      if (entry == null) {
        continue;
      }
      // Under the entry's lock: once a control call moved the entry out of MIRRORING, no append is
      // in flight.
      synchronized (entry) {
        if (entry.state() != MirrorState.MIRRORING
            || entry.failedReason() != null
            || !fetch.stillAsSent(tp, entry, partition)) {
          continue;
        }
        try {
          UnifiedLog log = partition.localLogOrException();
          boolean wasEmpty = log.logStartOffset() == log.logEndOffset();
          MirrorAppender.Appended appended = MirrorAppender.append(partition, memory);
          if (appended != null) {
            if (wasEmpty && pd.logStartOffset() > log.logStartOffset()) {
              // The source's log start lies inside the first batch: Kafka started the local log
              // at the batch's base offset; raised to the source's once the HW passed it.
              entry.alignLogStartTo(pd.logStartOffset());
            }
            entry.progress(
                appended.lastOffset(), pd.highWatermark(), pd.logStartOffset(), appended.batches());
            progressed = true;
          } else {
            entry.sourceOffsets(pd.highWatermark(), pd.logStartOffset());
          }
        } catch (MirrorAppender.MirrorAppendException ex) {
          entry.error(ex.getMessage());
          LOG.error("mirror {}: {}", entry.mirrorName(), ex.getMessage());
        }
      }
    }
    long now = System.currentTimeMillis();
    for (TopicPartition tp : data.keySet()) {
      MirrorEntry entry = registry.entry(tp).orElse(null);
      Partition partition = active.get(tp);
      if (entry != null && partition != null && fetch.stillLedHere(tp, partition)) {
        entry.observedLogEnd(partition.localLogOrException().logEndOffset(), now);
      }
    }
    return progressed;
  }

  private String bootstrap() {
    return String.valueOf(source.clientProperties().getProperty("bootstrap.servers"));
  }

  @Override
  public java.util.Properties clientProperties() {
    return source.clientProperties();
  }
}
