package dev.kafkamirror.broker.agent.kafka4_4.stop;

import dev.kafkamirror.broker.agent.PluginConfig;
import dev.kafkamirror.broker.core.mirror.SourceEpochHistory;
import dev.kafkamirror.broker.core.stop.FencedStopStateException;
import dev.kafkamirror.broker.core.stop.MembershipTable;
import dev.kafkamirror.broker.core.stop.MirrorMembership;
import dev.kafkamirror.broker.core.stop.StopState;
import dev.kafkamirror.broker.core.stop.StopStateKey;
import dev.kafkamirror.broker.core.stop.StopStateTable;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.PartitionInfo;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.TopicExistsException;
import org.apache.kafka.common.errors.WakeupException;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.utils.Utils;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The durable stop progress of every mirror partition of this (the destination) cluster, kept in a
 * compacted topic ({@value PluginConfig#DEFAULT_STATE_TOPIC} by default) that is replicated like
 * any other topic (replication factor min(3, brokers), min.insync.replicas 2 from three replicas,
 * writes with acks=all).
 *
 * <p>Every broker's plugin reads the whole topic into a {@link StopStateTable} and keeps following
 * it. All records of one data partition land in one state partition (hash of mirror, topic id and
 * partition), so they are read in the order they were written.
 *
 * <p>Consistency: {@link #sync} waits until the table holds every record acknowledged before the
 * call (it reads up to end offsets fetched after the call started). A leader syncs once after it
 * gains a leader epoch; later it is the only writer that counts for its partitions (fencing by
 * leader epoch, see {@link StopStateTable}), and its own writes enter the table when acknowledged.
 *
 * <p>Ordering: the writer sends with one request in flight per connection (not idempotent; see
 * {@code openClients} for why not), so the records of one data partition land in the order they
 * were sent, also across retries and concurrent callers; the table never moves a step back within a
 * leader epoch whichever path (acknowledgement or reader) folds a record first.
 *
 * <p>Threading: one reader thread owns the consumer; {@link #writeAll} is called by control calls
 * and the fetchers; the table is guarded by {@code this}.
 */
public final class StopStateStore implements AutoCloseable {

  private static final Logger LOG =
      LoggerFactory.getLogger("dev.kafkamirror.broker.agent.StopStateStore");
  private static final long RETRY_BACKOFF_MS = 500L;

  private static volatile StopStateStore instance;
  private static volatile PluginConfig config;

  private final Properties clientProperties;
  private final String topic;
  private final int partitionsToCreate;
  private final int brokerId;
  private final StopStateTable table = new StopStateTable();
  private final MembershipTable membership = new MembershipTable();
  private final List<Runnable> caughtUpListeners = new CopyOnWriteArrayList<>();
  private final Thread reader;
  private final Object progress = new Object();
  private volatile boolean running = true;
  private volatile KafkaConsumer<byte[], byte[]> consumer;
  private volatile KafkaProducer<byte[], byte[]> producer;
  private volatile int partitionCount = -1;
  private volatile long caughtUpAsOfNanos = Long.MIN_VALUE;
  private volatile long syncRequestedNanos = Long.MIN_VALUE;
  private volatile String lastError;

  /**
   * Per data partition (by topic id, so that a topic deleted and created again starts afresh): the
   * leader epoch in which this broker led it when a sync began, and the reader generation of that
   * sync. See {@link #syncAsLeader}.
   */
  private final Map<StopStateKey, SyncedAsLeader> syncedAsLeader = new ConcurrentHashMap<>();

  /** Counts the reader's (re)starts; a restarted reader re-reads the topic from the beginning. */
  private volatile long readerGeneration;

  private record SyncedAsLeader(int leaderEpoch, long readerGeneration) {}

  private Admin admin;
  private volatile long unreadableRecords;
  private volatile long unverifiedRecords;
  private volatile String lastUnverifiedRecord;

  private static volatile java.util.function.Consumer<StopStateStore> onEveryCatchUp = s -> {};

  /**
   * Records the plugin's settings and what to run after every round that caught up; the store
   * starts on first use.
   */
  public static void configure(
      PluginConfig pluginConfig, java.util.function.Consumer<StopStateStore> afterCatchUp) {
    config = pluginConfig;
    onEveryCatchUp = afterCatchUp;
  }

  /**
   * The store of this broker, started on first use.
   *
   * @throws StopStateUnavailableException when the plugin has no usable settings for it
   */
  public static StopStateStore get() throws StopStateUnavailableException {
    StopStateStore store = instance;
    if (store != null) {
      return store;
    }
    synchronized (StopStateStore.class) {
      if (instance == null) {
        PluginConfig c = config;
        if (c == null) {
          throw new StopStateUnavailableException("the plugin is not configured");
        }
        try {
          instance = new StopStateStore(c);
          StopStateStore started = instance;
          java.util.function.Consumer<StopStateStore> hook = onEveryCatchUp;
          started.onCaughtUp(() -> hook.accept(started));
        } catch (IllegalArgumentException e) {
          throw new StopStateUnavailableException(e.getMessage());
        }
        instance.reader.start();
      }
      return instance;
    }
  }

  /** The store if it was started, without starting it. */
  public static Optional<StopStateStore> ifStarted() {
    return Optional.ofNullable(instance);
  }

  private StopStateStore(PluginConfig c) {
    this.clientProperties = c.localClientProperties();
    this.topic = c.stateTopic();
    this.partitionsToCreate = c.stateTopicPartitions();
    this.brokerId = c.brokerId();
    this.reader = new Thread(this::readLoop, "cluster-mirror-stop-state-reader");
    reader.setDaemon(true);
  }

  public String topic() {
    return topic;
  }

  public int brokerId() {
    return brokerId;
  }

  /** Runs {@code listener} on the reader thread after every round that caught up. */
  public void onCaughtUp(Runnable listener) {
    caughtUpListeners.add(listener);
  }

  /** The last problem reading or creating the topic, if the store is not caught up. */
  public Optional<String> lastError() {
    return Optional.ofNullable(lastError);
  }

  public long unreadableRecords() {
    return unreadableRecords;
  }

  /** Whether the table has caught up with the topic at least once. */
  public boolean caughtUpOnce() {
    return caughtUpAsOfNanos != Long.MIN_VALUE;
  }

  /**
   * Waits until the table holds every record acknowledged before this call.
   *
   * @throws StopStateUnavailableException after {@code timeoutMs}, naming the last error
   */
  public void sync(long timeoutMs) throws StopStateUnavailableException {
    long start = System.nanoTime();
    try {
      awaitCaughtUpSince(start, timeoutMs);
    } finally {
      LOG.debug("stop-state sync: {} ms", (System.nanoTime() - start) / 1_000_000L);
    }
  }

  private void awaitCaughtUpSince(long start, long timeoutMs) throws StopStateUnavailableException {
    long deadline = start + TimeUnit.MILLISECONDS.toNanos(timeoutMs);
    syncRequestedNanos = start;
    KafkaConsumer<byte[], byte[]> c = consumer;
    if (c != null) {
      c.wakeup();
    }
    synchronized (progress) {
      while (caughtUpAsOfNanos == Long.MIN_VALUE || caughtUpAsOfNanos - start < 0) {
        long leftNanos = deadline - System.nanoTime();
        if (leftNanos <= 0) {
          throw new StopStateUnavailableException(
              "the stop-state topic "
                  + topic
                  + " could not be read up to date within "
                  + timeoutMs
                  + " ms"
                  + (lastError == null ? "" : ": " + lastError));
        }
        try {
          progress.wait(Math.max(1L, TimeUnit.NANOSECONDS.toMillis(leftNanos)));
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          throw new StopStateUnavailableException("interrupted while reading " + topic);
        }
      }
    }
  }

  /**
   * Whether the table is up to date for {@code key} without a sync: a sync that began while this
   * broker led the partition in {@code leaderEpoch} has completed, and the reader has not started
   * over since. The caller passes the epoch in which it leads the partition now.
   *
   * <p>Why that is enough: the sync read every record acknowledged before it began. Afterwards the
   * records that count for the partition are those of epoch {@code leaderEpoch} or newer (fencing,
   * see {@link StopStateTable}); while this broker leads in {@code leaderEpoch} it is their only
   * writer, and its own writes enter the table when acknowledged. A stale leader's late write has
   * an older epoch and never outranks them.
   */
  public boolean isCurrentAsLeader(StopStateKey key, int leaderEpoch) {
    SyncedAsLeader s = syncedAsLeader.get(key);
    return s != null && s.leaderEpoch() == leaderEpoch && s.readerGeneration() == readerGeneration;
  }

  /**
   * {@link #sync}, then remembers for each of {@code leaderEpochs} (data partitions this broker
   * led, read before the call, with their epochs) that the table is current for it in that epoch.
   */
  public void syncAsLeader(Map<StopStateKey, Integer> leaderEpochs, long timeoutMs)
      throws StopStateUnavailableException {
    long generation = readerGeneration;
    sync(timeoutMs);
    leaderEpochs.forEach(
        (key, epoch) -> syncedAsLeader.put(key, new SyncedAsLeader(epoch, generation)));
  }

  /** The state that counts for {@code key}, as far as this broker has read. */
  public synchronized Optional<StopState> get(StopStateKey key) {
    return table.get(key);
  }

  /** Outcome of one write of {@link #writeAll}: the error, or null when written. */
  public record WriteOutcome(StopState state, Exception error) {}

  /**
   * Writes {@code states} with acks=all and waits for every acknowledgement; each state is checked
   * against the table first (fencing, no step backwards) and enters the table once acknowledged.
   * Each state succeeds or fails alone.
   */
  public List<WriteOutcome> writeAll(List<StopState> states, long timeoutMs) {
    return writeAll(states, timeoutMs, true);
  }

  /**
   * {@link #writeAll(List, long)}; {@code syncFirst} false when the caller synced since it became
   * the leader of the partitions written (its table is then up to date for them: only the leader of
   * the newest epoch writes records that count).
   */
  public List<WriteOutcome> writeAll(List<StopState> states, long timeoutMs, boolean syncFirst) {
    long start = System.nanoTime();
    try {
      return writeAllTimed(states, timeoutMs, syncFirst);
    } finally {
      LOG.debug(
          "stop-state write: {} records, {} ms",
          states.size(),
          (System.nanoTime() - start) / 1_000_000L);
    }
  }

  private List<WriteOutcome> writeAllTimed(
      List<StopState> states, long timeoutMs, boolean syncFirst) {
    List<WriteOutcome> outcomes = new ArrayList<>(states.size());
    KafkaProducer<byte[], byte[]> p;
    int partitions;
    try {
      if (syncFirst || producer == null) {
        sync(timeoutMs);
      }
      p = producer;
      partitions = partitionCount;
    } catch (StopStateUnavailableException e) {
      states.forEach(s -> outcomes.add(new WriteOutcome(s, e)));
      return outcomes;
    }
    long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(timeoutMs);
    Map<StopState, Future<RecordMetadata>> sent = new LinkedHashMap<>();
    Map<StopState, Integer> replacedEpochs = new HashMap<>();
    for (StopState state : states) {
      try {
        synchronized (this) {
          table.checkWrite(state);
          table
              .get(state.key())
              .filter(old -> old.leaderEpoch() < state.leaderEpoch())
              .ifPresent(old -> replacedEpochs.put(state, old.leaderEpoch()));
        }
        sent.put(
            state,
            p.send(
                signed(
                    partitionOf(state.key(), partitions),
                    StopStateCodec.encodeKey(state.key(), state.leaderEpoch()),
                    StopStateCodec.encodeValue(state))));
      } catch (FencedStopStateException e) {
        outcomes.add(new WriteOutcome(state, e));
      } catch (RuntimeException e) {
        outcomes.add(new WriteOutcome(state, new StopStateUnavailableException(e.toString())));
      }
    }
    for (Map.Entry<StopState, Future<RecordMetadata>> e : sent.entrySet()) {
      StopState state = e.getKey();
      try {
        long leftMs = Math.max(1L, TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime()));
        e.getValue().get(leftMs, TimeUnit.MILLISECONDS);
        synchronized (this) {
          table.apply(state);
        }
        outcomes.add(new WriteOutcome(state, null));
        Integer oldEpoch = replacedEpochs.get(state);
        if (oldEpoch != null) {
          // The older epoch's record no longer counts; a tombstone lets compaction drop it.
          p.send(
              signed(
                  partitionOf(state.key(), partitions),
                  StopStateCodec.encodeKey(state.key(), oldEpoch),
                  null));
        }
      } catch (ExecutionException ex) {
        outcomes.add(
            new WriteOutcome(
                state,
                new StopStateUnavailableException(
                    "writing the stop state of "
                        + state.topic()
                        + "-"
                        + state.key().partition()
                        + " to "
                        + topic
                        + " failed: "
                        + ex.getCause())));
      } catch (TimeoutException ex) {
        outcomes.add(
            new WriteOutcome(
                state,
                new StopStateUnavailableException(
                    "writing the stop state of "
                        + state.topic()
                        + "-"
                        + state.key().partition()
                        + " to "
                        + topic
                        + " was not acknowledged within "
                        + timeoutMs
                        + " ms")));
      } catch (InterruptedException ex) {
        Thread.currentThread().interrupt();
        outcomes.add(new WriteOutcome(state, new StopStateUnavailableException("interrupted")));
      }
    }
    return outcomes;
  }

  /**
   * A record of the state topic carrying the MAC that tells the plugin's writes apart from any
   * other client's (see {@link StateRecordAuth}).
   *
   * @throws IllegalStateException when this broker has no state secret: it writes no stop state
   */
  private ProducerRecord<byte[], byte[]> signed(int partition, byte[] key, byte[] value) {
    StateRecordAuth auth =
        StateRecordAuth.configured()
            .orElseThrow(
                () ->
                    new IllegalStateException(
                        "cannot authenticate stop-state records: "
                            + StateRecordAuth.unavailableReason()));
    return new ProducerRecord<>(
        topic,
        partition,
        key,
        value,
        List.of(
            new org.apache.kafka.common.header.internals.RecordHeader(
                StateRecordAuth.HEADER, auth.mac(topic, partition, key, value))));
  }

  /** How many records of the state topic this broker ignored because they did not verify. */
  public long unverifiedRecords() {
    return unverifiedRecords;
  }

  /** Where and why the last record that did not verify was ignored, if any. */
  public Optional<String> lastUnverifiedRecord() {
    return Optional.ofNullable(lastUnverifiedRecord);
  }

  /** An Admin client of this cluster, shared by control calls (Admin is thread-safe). */
  public synchronized Admin admin() {
    if (admin == null) {
      Properties props = new Properties();
      props.putAll(clientProperties);
      props.put("client.id", "cluster-mirror-control-admin-" + brokerId);
      admin = Admin.create(props);
    }
    return admin;
  }

  static int partitionOf(StopStateKey key, int partitions) {
    return Utils.toPositive(Utils.murmur2(StopStateCodec.partitionKey(key))) % partitions;
  }

  private void readLoop() {
    while (running) {
      try {
        openClients();
        readUntilClosed();
      } catch (WakeupException e) {
        // a sync request; go round again
      } catch (Exception e) {
        if (!running) {
          break;
        }
        lastError = e.toString();
        LOG.warn("stop-state topic {}: {}; retrying", topic, e.toString());
        closeClients();
        try {
          Thread.sleep(RETRY_BACKOFF_MS);
        } catch (InterruptedException ie) {
          break;
        }
      }
    }
    closeClients();
  }

  private void openClients() throws Exception {
    if (consumer != null) {
      return;
    }
    Properties admin = new Properties();
    admin.putAll(clientProperties);
    admin.put("client.id", "cluster-mirror-stop-state-admin-" + brokerId);
    try (Admin a = Admin.create(admin)) {
      int brokers = a.describeCluster().nodes().get(10, TimeUnit.SECONDS).size();
      short replicationFactor = (short) Math.min(3, Math.max(1, brokers));
      NewTopic newTopic =
          new NewTopic(topic, partitionsToCreate, replicationFactor)
              .configs(
                  Map.of(
                      "cleanup.policy",
                      "compact",
                      "min.insync.replicas",
                      replicationFactor >= 3 ? "2" : "1"));
      try {
        a.createTopics(List.of(newTopic)).all().get(10, TimeUnit.SECONDS);
        LOG.info(
            "created stop-state topic {} ({} partitions, replication factor {})",
            topic,
            partitionsToCreate,
            replicationFactor);
      } catch (ExecutionException e) {
        if (!(e.getCause() instanceof TopicExistsException)) {
          throw e;
        }
      }
    }
    Properties cp = new Properties();
    cp.putAll(clientProperties);
    cp.put("client.id", "cluster-mirror-stop-state-reader-" + brokerId);
    cp.put("enable.auto.commit", "false");
    cp.put("key.deserializer", ByteArrayDeserializer.class.getName());
    cp.put("value.deserializer", ByteArrayDeserializer.class.getName());
    KafkaConsumer<byte[], byte[]> c = new KafkaConsumer<>(cp);
    List<PartitionInfo> infos = List.of();
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
    while (infos == null || infos.isEmpty()) {
      infos = c.partitionsFor(topic, Duration.ofSeconds(5));
      if ((infos == null || infos.isEmpty()) && System.nanoTime() > deadline) {
        c.close(Duration.ZERO);
        throw new IllegalStateException("stop-state topic " + topic + " has no partitions yet");
      }
    }
    List<TopicPartition> assignment = new ArrayList<>();
    for (PartitionInfo info : infos) {
      assignment.add(new TopicPartition(topic, info.partition()));
    }
    c.assign(assignment);
    c.seekToBeginning(assignment);
    Properties pp = writerProperties(clientProperties, brokerId);
    synchronized (this) {
      partitionCount = assignment.size();
      producer = new KafkaProducer<>(pp);
      consumer = c;
      // The new consumer reads from the beginning: until it has caught up the table may show older
      // steps, so no partition counts as current without a new sync.
      readerGeneration++;
    }
  }

  /**
   * The settings of the stop-state writer: the cluster's client settings ({@code
   * cluster.mirror.local.client.*}), then the ones order and durability rest on, which a user's
   * client settings cannot override.
   */
  static Properties writerProperties(Properties clientProperties, int brokerId) {
    Properties pp = new Properties();
    pp.putAll(clientProperties);
    pp.put("client.id", "cluster-mirror-stop-state-writer-" + brokerId);
    pp.put("acks", "all");
    // Writes of one partition's state must land in the order they were sent: compaction keeps the
    // last record of each (partition, leader epoch) key, so a record that overtook a later one
    // would become the state that counts after compaction or on a re-read. Two callers (two
    // operators, or a zombie one) can have writes of the same key in flight at once, so "one
    // writeAll writes each key once" is not enough. Two ways give order: idempotence, or one
    // request in flight per connection (a retry is then re-sent before anything later is sent).
    // This uses the second. Idempotence would take a producer id from this (the destination)
    // cluster. That is not a safety concern (the state topic is never a mirror partition and
    // producer state is per partition), but the id would come out of the first block of ids the
    // destination hands out, the same ids (0, 1, ...) the source's producers have and that the
    // producer-id collision tests and the demo must draw for a local producer; the state writer
    // must not change which ids clients of the destination get. A retried duplicate is the same
    // record next to the original, which the fold treats as a no-op.
    pp.put("enable.idempotence", "false");
    pp.put("max.in.flight.requests.per.connection", "1");
    pp.put("retries", "2147483647");
    pp.put("linger.ms", "5");
    pp.put("delivery.timeout.ms", "30000");
    pp.put("request.timeout.ms", "10000");
    pp.put("key.serializer", ByteArraySerializer.class.getName());
    pp.put("value.serializer", ByteArraySerializer.class.getName());
    return pp;
  }

  private void readUntilClosed() {
    KafkaConsumer<byte[], byte[]> c = consumer;
    while (running) {
      long roundStart = System.nanoTime();
      Map<TopicPartition, Long> ends = c.endOffsets(c.assignment(), Duration.ofSeconds(10));
      // Poll only while behind: a poll with nothing to read waits its whole timeout.
      while (!reached(c, ends)) {
        for (ConsumerRecord<byte[], byte[]> r : c.poll(Duration.ofMillis(50))) {
          apply(r);
        }
      }
      lastError = null;
      synchronized (progress) {
        caughtUpAsOfNanos = roundStart;
        progress.notifyAll();
      }
      for (Runnable listener : caughtUpListeners) {
        try {
          listener.run();
        } catch (RuntimeException e) {
          LOG.warn("stop-state listener failed", e);
        }
      }
      if (syncRequestedNanos - roundStart <= 0) {
        // Nobody waits: follow the topic at a relaxed pace (a sync request wakes this poll).
        for (ConsumerRecord<byte[], byte[]> r : c.poll(Duration.ofMillis(500))) {
          apply(r);
        }
      }
    }
  }

  private static boolean reached(KafkaConsumer<byte[], byte[]> c, Map<TopicPartition, Long> ends) {
    for (Map.Entry<TopicPartition, Long> end : ends.entrySet()) {
      if (c.position(end.getKey()) < end.getValue()) {
        return false;
      }
    }
    return true;
  }

  private void apply(ConsumerRecord<byte[], byte[]> r) {
    String where = r.topic() + "-" + r.partition() + "@" + r.offset();
    org.apache.kafka.common.header.Header mac = r.headers().lastHeader(StateRecordAuth.HEADER);
    Optional<String> unverified =
        StateRecordAuth.configured()
            .map(
                a ->
                    a.check(
                        r.topic(),
                        r.partition(),
                        r.key(),
                        r.value(),
                        mac == null ? null : mac.value()))
            .orElseGet(() -> Optional.of(StateRecordAuth.unavailableReason()));
    if (unverified.isPresent()) {
      // Fail closed: a record that does not verify never enters the table, whatever it says.
      unverifiedRecords++;
      lastUnverifiedRecord = where + ": " + unverified.get();
      LOG.error(
          "ignoring stop-state record {}: it does not verify ({}); only the plugin writes {}, so"
              + " this is a forgery or a broker with another state secret",
          where,
          unverified.get(),
          topic);
      return;
    }
    String kind = MembershipCodec.kindOf(r.key());
    if (SourceEpochCodec.KIND.equals(kind)) {
      applySourceEpochs(r.key(), r.value(), where);
      return;
    }
    if (kind != null) {
      applyMembership(r.key(), r.value(), where);
      return;
    }
    try {
      StopStateCodec.VersionedKey key = StopStateCodec.decodeKey(r.key(), where);
      synchronized (this) {
        if (r.value() == null) {
          table.applyTombstone(key.key(), key.leaderEpoch());
        } else {
          table.apply(StopStateCodec.decodeValue(key, r.value(), where));
        }
      }
    } catch (StopStateCodec.StopStateFormatException e) {
      unreadableRecords++;
      LOG.error("skipping an unreadable stop-state record: {}", e.getMessage());
    }
  }

  /**
   * The cluster's mirror memberships and their holders, as far as this broker has read (see {@link
   * MembershipTable}). Lock-free for readers.
   */
  public MembershipTable membership() {
    return membership;
  }

  private void applyMembership(byte[] key, byte[] value, String where) {
    if (value == null) {
      // Memberships are never deleted; a tombstone of one changes nothing.
      return;
    }
    try {
      MembershipCodec.Decoded d = MembershipCodec.decode(key, value, where);
      if (d.member() != null) {
        membership
            .apply(d.member())
            .ifPresent(why -> LOG.error("stop-state topic {}: {}", where, why));
      } else {
        membership.applyHolder(d.topicId(), d.partition(), d.holderBroker());
      }
    } catch (StopStateCodec.StopStateFormatException e) {
      unreadableRecords++;
      LOG.error("skipping an unreadable membership record: {}", e.getMessage());
    }
  }

  /**
   * Writes the membership of a mirror partition with acks=all and waits for the acknowledgement;
   * afterwards the membership is in this broker's table. Writing it again is harmless (the first
   * membership of a partition wins).
   *
   * @throws StopStateUnavailableException when it is not acknowledged within {@code timeoutMs}
   */
  public void writeMembership(MirrorMembership m, long timeoutMs)
      throws StopStateUnavailableException {
    KafkaProducer<byte[], byte[]> p = producer;
    int partitions = partitionCount;
    if (p == null || partitions < 1) {
      throw new StopStateUnavailableException(
          "the stop-state topic "
              + topic
              + " is not open yet"
              + (lastError == null ? "" : ": " + lastError));
    }
    try {
      p.send(
              signed(
                  partitionOf(m.stopStateKey(), partitions),
                  MembershipCodec.memberKey(m),
                  MembershipCodec.memberValue(m)))
          .get(timeoutMs, TimeUnit.MILLISECONDS);
    } catch (IllegalStateException e) {
      throw new StopStateUnavailableException(
          "cannot record the mirror membership of " + m + ": " + e.getMessage());
    } catch (ExecutionException | TimeoutException e) {
      throw new StopStateUnavailableException(
          "writing the mirror membership of " + m + " to " + topic + " failed: " + e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new StopStateUnavailableException("interrupted while writing the membership of " + m);
    }
    membership.apply(m).ifPresent(why -> LOG.error("{}", why));
  }

  /**
   * Records, without waiting, that this broker holds the membership {@code m} in its local
   * registry; the leader's fence moves leadership only to holders. Once acknowledged it is in this
   * broker's table; a failed write is retried after the next read round.
   */
  public void writeHolderAsync(MirrorMembership m) {
    KafkaProducer<byte[], byte[]> p = producer;
    int partitions = partitionCount;
    if (p == null || partitions < 1) {
      return;
    }
    ProducerRecord<byte[], byte[]> record;
    try {
      record =
          signed(
              partitionOf(m.stopStateKey(), partitions),
              MembershipCodec.holderKey(m, brokerId),
              MembershipCodec.holderValue(m, System.currentTimeMillis()));
    } catch (IllegalStateException e) {
      LOG.error("cannot record that broker {} holds {}: {}", brokerId, m, e.getMessage());
      return;
    }
    p.send(
        record,
        (metadata, error) -> {
          if (error == null) {
            membership.applyHolder(m.topicId(), m.partition(), brokerId);
          } else {
            LOG.warn("recording that broker {} holds {} failed: {}", brokerId, m, error.toString());
          }
        });
  }

  /** The source epoch history of a partition and the destination leader epoch that wrote it. */
  private record WrittenHistory(int leaderEpoch, long recordedAtMs, SourceEpochHistory history) {

    /**
     * Whether this record replaces {@code held}: a newer destination leader epoch, or the same one
     * (the same writer) and recorded later; a record the reader reaches after the writer's own
     * newer one never takes it back.
     */
    boolean replaces(WrittenHistory held) {
      return leaderEpoch > held.leaderEpoch
          || (leaderEpoch == held.leaderEpoch && recordedAtMs >= held.recordedAtMs);
    }
  }

  private final Map<StopStateKey, WrittenHistory> sourceEpochs = new ConcurrentHashMap<>();

  /**
   * The source's leader-epoch history of a mirror partition, as far as this broker has read (see
   * {@link SourceEpochCodec}); empty when none was recorded. Lock-free for readers.
   */
  public SourceEpochHistory sourceEpochs(StopStateKey key) {
    WrittenHistory w = sourceEpochs.get(key);
    return w == null ? SourceEpochHistory.empty() : w.history();
  }

  private void applySourceEpochs(byte[] key, byte[] value, String where) {
    if (value == null) {
      // Histories are only ever replaced, never deleted.
      return;
    }
    try {
      SourceEpochCodec.Decoded d = SourceEpochCodec.decode(key, value, where);
      putSourceEpochs(d.key(), new WrittenHistory(d.leaderEpoch(), d.recordedAtMs(), d.history()));
    } catch (StopStateCodec.StopStateFormatException e) {
      unreadableRecords++;
      LOG.error("skipping an unreadable source-epoch record: {}", e.getMessage());
    }
  }

  /** Keeps {@code history} unless a destination leader of a newer epoch wrote the one held. */
  private void putSourceEpochs(StopStateKey key, WrittenHistory written) {
    sourceEpochs.merge(key, written, (held, next) -> next.replaces(held) ? next : held);
  }

  /**
   * Writes the source epoch history of a mirror partition with acks=all and waits for the
   * acknowledgement; afterwards it is in this broker's table. The fetcher calls this before it
   * appends the first batch of a source epoch the history does not hold yet, as the leader of the
   * data partition in {@code leaderEpoch}.
   *
   * @throws StopStateUnavailableException when it is not acknowledged within {@code timeoutMs}: the
   *     caller must not append
   */
  public void writeSourceEpochs(
      StopStateKey key,
      String dataTopic,
      int leaderEpoch,
      SourceEpochHistory history,
      long timeoutMs)
      throws StopStateUnavailableException {
    KafkaProducer<byte[], byte[]> p = producer;
    int partitions = partitionCount;
    if (p == null || partitions < 1) {
      throw new StopStateUnavailableException(
          "the stop-state topic "
              + topic
              + " is not open yet"
              + (lastError == null ? "" : ": " + lastError));
    }
    String what = "the source epochs " + history.entries() + " of " + dataTopic + " (" + key + ")";
    WrittenHistory held = sourceEpochs.get(key);
    // Strictly later than what this broker holds, so that the reader never prefers an older record.
    long recordedAtMs =
        Math.max(System.currentTimeMillis(), held == null ? 0L : held.recordedAtMs() + 1);
    try {
      p.send(
              signed(
                  partitionOf(key, partitions),
                  SourceEpochCodec.key(key),
                  SourceEpochCodec.value(dataTopic, leaderEpoch, brokerId, history, recordedAtMs)))
          .get(timeoutMs, TimeUnit.MILLISECONDS);
    } catch (IllegalStateException e) {
      throw new StopStateUnavailableException("cannot record " + what + ": " + e.getMessage());
    } catch (ExecutionException | TimeoutException e) {
      throw new StopStateUnavailableException("writing " + what + " to " + topic + " failed: " + e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new StopStateUnavailableException("interrupted while writing " + what);
    }
    putSourceEpochs(key, new WrittenHistory(leaderEpoch, recordedAtMs, history));
  }

  private synchronized void closeClients() {
    if (consumer != null) {
      consumer.close(Duration.ofSeconds(1));
      consumer = null;
    }
    if (producer != null) {
      producer.close(Duration.ofSeconds(1));
      producer = null;
    }
  }

  @Override
  public void close() {
    running = false;
    synchronized (this) {
      if (admin != null) {
        admin.close(Duration.ofSeconds(1));
        admin = null;
      }
    }
    KafkaConsumer<byte[], byte[]> c = consumer;
    if (c != null) {
      c.wakeup();
    }
  }
}
