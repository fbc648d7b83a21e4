package dev.kafkamirror.broker.agent.kafka4_4.stop;

import dev.kafkamirror.broker.agent.PluginConfig;
import dev.kafkamirror.broker.core.mirror.SourceEpochHistory;
import dev.kafkamirror.broker.core.stop.MembershipTable;
import dev.kafkamirror.broker.core.stop.MirrorMembership;
import dev.kafkamirror.broker.core.stop.StopState;
import dev.kafkamirror.broker.core.stop.StopStateKey;
import dev.kafkamirror.broker.core.stop.StopStateTable;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Consumer;
import org.apache.kafka.clients.admin.Admin;
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
 * {@code StateTopicClients.writerProperties} for why not), so the records of one data partition
 * land in the order they were sent, also across retries and concurrent callers; the table never
 * moves a step back within a leader epoch whichever path (acknowledgement or reader) folds a record
 * first.
 *
 * <p>Structure: this class is the entry point and keeps the public methods; the work is done by
 * {@link StateTopicClients} (the topic and its clients), {@link StopStateReader} (the reader thread
 * and its catch-up loop), {@link StopStateTables} (what was read, verified and folded) and {@link
 * StopStateWriter} (signed writes with acks=all).
 *
 * <p>Threading: one reader thread owns the consumer; {@link #writeAll} is called by control calls
 * and the fetchers; the stop-state table is guarded by {@link StopStateTables}; the shared Admin by
 * {@code this}.
 */
public final class StopStateStore implements AutoCloseable {

  private static final Logger LOG =
      LoggerFactory.getLogger("dev.kafkamirror.broker.agent.StopStateStore");

  private static volatile StopStateStore instance;
  private static volatile PluginConfig config;
  private static volatile Consumer<StopStateStore> onEveryCatchUp = s -> {};

  private final Properties clientProperties;
  private final String topic;
  private final int brokerId;
  private final StateTopicClients clients;
  private final StopStateTables tables;
  private final StopStateReader reader;
  private final StopStateWriter writer;

  /**
   * Per data partition (by topic id, so that a topic deleted and created again starts afresh): the
   * leader epoch in which this broker led it when a sync began, and the reader generation of that
   * sync. See {@link #syncAsLeader}.
   */
  private final Map<StopStateKey, SyncedAsLeader> syncedAsLeader = new ConcurrentHashMap<>();

  private record SyncedAsLeader(int leaderEpoch, long readerGeneration) {}

  private Admin admin;

  /**
   * Records the plugin's settings and what to run after every round that caught up; the store
   * starts on first use.
   */
  public static void configure(PluginConfig pluginConfig, Consumer<StopStateStore> afterCatchUp) {
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
          Consumer<StopStateStore> hook = onEveryCatchUp;
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
    this.brokerId = c.brokerId();
    this.clients =
        new StateTopicClients(clientProperties, topic, c.stateTopicPartitions(), brokerId);
    this.tables = new StopStateTables(topic);
    this.reader = new StopStateReader(topic, clients, tables);
    this.writer = new StopStateWriter(topic, brokerId, clients, tables, reader);
  }

  public String topic() {
    return topic;
  }

  public int brokerId() {
    return brokerId;
  }

  /** Runs {@code listener} on the reader thread after every round that caught up. */
  public void onCaughtUp(Runnable listener) {
    reader.onCaughtUp(listener);
  }

  /** The last problem reading or creating the topic, if the store is not caught up. */
  public Optional<String> lastError() {
    return reader.lastError();
  }

  public long unreadableRecords() {
    return tables.unreadableRecords();
  }

  /** Whether the table has caught up with the topic at least once. */
  public boolean caughtUpOnce() {
    return reader.caughtUpOnce();
  }

  /**
   * Waits until the table holds every record acknowledged before this call.
   *
   * @throws StopStateUnavailableException after {@code timeoutMs}, naming the last error
   */
  public void sync(long timeoutMs) throws StopStateUnavailableException {
    reader.sync(timeoutMs);
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
    return s != null
        && s.leaderEpoch() == leaderEpoch
        && s.readerGeneration() == clients.readerGeneration();
  }

  /**
   * {@link #sync}, then remembers for each of {@code leaderEpochs} (data partitions this broker
   * led, read before the call, with their epochs) that the table is current for it in that epoch.
   */
  public void syncAsLeader(Map<StopStateKey, Integer> leaderEpochs, long timeoutMs)
      throws StopStateUnavailableException {
    long generation = clients.readerGeneration();
    sync(timeoutMs);
    leaderEpochs.forEach(
        (key, epoch) -> syncedAsLeader.put(key, new SyncedAsLeader(epoch, generation)));
  }

  /** The state that counts for {@code key}, as far as this broker has read. */
  public Optional<StopState> get(StopStateKey key) {
    return tables.get(key);
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
      return writer.writeAll(states, timeoutMs, syncFirst);
    } finally {
      LOG.debug(
          "stop-state write: {} records, {} ms",
          states.size(),
          (System.nanoTime() - start) / 1_000_000L);
    }
  }

  /** How many records of the state topic this broker ignored because they did not verify. */
  public long unverifiedRecords() {
    return tables.unverifiedRecords();
  }

  /** Where and why the last record that did not verify was ignored, if any. */
  public Optional<String> lastUnverifiedRecord() {
    return tables.lastUnverifiedRecord();
  }

  /** An Admin client of this cluster, shared by control calls (Admin is thread-safe). */
  public synchronized Admin admin() {
    if (admin == null) {
      admin =
          Admin.create(
              StateTopicClients.named(
                  clientProperties, "cluster-mirror-control-admin-" + brokerId));
    }
    return admin;
  }

  /** The state partition of every record of one data partition. */
  static int partitionOf(StopStateKey key, int partitions) {
    return StateTopicClients.partitionOf(key, partitions);
  }

  /** The settings of the stop-state writer (see {@link StateTopicClients#writerProperties}). */
  static Properties writerProperties(Properties clientProperties, int brokerId) {
    return StateTopicClients.writerProperties(clientProperties, brokerId);
  }

  /**
   * The cluster's mirror memberships and their holders, as far as this broker has read (see {@link
   * MembershipTable}). Lock-free for readers.
   */
  public MembershipTable membership() {
    return tables.membership();
  }

  /**
   * Writes the memberships of mirror partitions with acks=all, all sent before the first
   * acknowledgement is awaited (one round trip for many partitions instead of one each); each
   * succeeds or fails alone, and an acknowledged one is in this broker's table. Writing one again
   * is harmless (the first membership of a partition wins).
   *
   * @return the memberships that were not acknowledged within {@code timeoutMs}, each with why;
   *     empty when all were
   */
  public Map<MirrorMembership, StopStateUnavailableException> writeMemberships(
      List<MirrorMembership> memberships, long timeoutMs) {
    return writer.writeMemberships(memberships, timeoutMs);
  }

  /**
   * Records, without waiting, that this broker holds the membership {@code m} in its local
   * registry; the leader's fence moves leadership only to holders. Once acknowledged it is in this
   * broker's table; a failed write is retried after the next read round.
   */
  public void writeHolderAsync(MirrorMembership m) {
    writer.writeHolderAsync(m);
  }

  /**
   * The source's leader-epoch history of a mirror partition, as far as this broker has read (see
   * {@link SourceEpochCodec}); empty when none was recorded. Lock-free for readers.
   */
  public SourceEpochHistory sourceEpochs(StopStateKey key) {
    StopStateTables.WrittenHistory w = tables.heldSourceEpochs(key);
    return w == null ? SourceEpochHistory.empty() : w.history();
  }

  /**
   * One partition's source epoch history to write, as the leader of the data partition in {@code
   * leaderEpoch}: see {@link #writeSourceEpochs}.
   */
  public record SourceEpochWrite(
      StopStateKey key, String dataTopic, int leaderEpoch, SourceEpochHistory history) {

    @Override
    public String toString() {
      return "the source epochs " + history.entries() + " of " + dataTopic + " (" + key + ")";
    }
  }

  /**
   * Writes source epoch histories of mirror partitions with acks=all, all sent before the first
   * acknowledgement is awaited; each succeeds or fails alone, and an acknowledged one is in this
   * broker's table. The fetcher writes a partition's history before it appends the first batch of a
   * source epoch the history does not hold yet; a write not acknowledged means no append.
   *
   * @return the writes that were not acknowledged within {@code timeoutMs}, each with why; empty
   *     when all were
   */
  public Map<SourceEpochWrite, StopStateUnavailableException> writeSourceEpochs(
      List<SourceEpochWrite> writes, long timeoutMs) {
    return writer.writeSourceEpochs(writes, timeoutMs);
  }

  @Override
  public void close() {
    synchronized (this) {
      if (admin != null) {
        admin.close(Duration.ofSeconds(1));
        admin = null;
      }
    }
    reader.stop();
  }
}
