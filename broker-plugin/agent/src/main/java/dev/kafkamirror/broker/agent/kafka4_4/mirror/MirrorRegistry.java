package dev.kafkamirror.broker.agent.kafka4_4.mirror;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.kafka.common.TopicPartition;

/**
 * Which local partitions are mirrors, of which source, in which state; and the fetchers, one per
 * source.
 *
 * <p>Persisted in the broker-local registry file ({@link MirrorRegistryFile}), and backed by the
 * cluster-wide mirror membership in the stop-state topic ({@link ClusterMembership}): a broker that
 * hosts a member partition without a registration adopts it from there.
 *
 * <p>Thread-safe.
 */
public final class MirrorRegistry {

  private static final MirrorRegistry INSTANCE =
      new MirrorRegistry(
          null,
          (key, clientProperties, registry) ->
              new MirrorFetcher(new SourceCluster(key, clientProperties), registry));

  private final Map<TopicPartition, MirrorEntry> entries = new ConcurrentHashMap<>();
  private final Map<String, Fetcher> fetchers = new ConcurrentHashMap<>();
  private final FetcherFactory newFetcher;
  private MirrorRegistryFile file;

  /** A source's fetcher as the registry runs it: a {@link MirrorFetcher} on a broker. */
  interface Fetcher {
    Properties clientProperties();

    void start();

    void shutdown();
  }

  /** Makes, without starting it, the fetcher of source {@code key} for {@code registry}. */
  interface FetcherFactory {
    Fetcher create(String key, Properties clientProperties, MirrorRegistry registry);
  }

  /**
   * A registry that writes {@code file} (null: no file until {@link #restoreFrom}) and runs the
   * fetchers {@code newFetcher} makes. A broker has one, {@link #instance()}; unit tests make their
   * own.
   */
  MirrorRegistry(MirrorRegistryFile file, FetcherFactory newFetcher) {
    this.file = file;
    this.newFetcher = newFetcher;
  }

  /** The changes a thread makes inside {@link #writingOnceAfter}, written at its end. */
  private final ThreadLocal<Deferred> deferred = new ThreadLocal<>();

  /** Whole-file writes of the registry file since start, and their time (for the broker MBean). */
  private final java.util.concurrent.atomic.AtomicLong fileWrites =
      new java.util.concurrent.atomic.AtomicLong();

  private final java.util.concurrent.atomic.AtomicLong fileWriteNanos =
      new java.util.concurrent.atomic.AtomicLong();

  private static final class Deferred {
    boolean dirty;
    final Map<String, Properties> fetchers = new java.util.LinkedHashMap<>();
  }

  /**
   * Loads the broker-local registry file from {@code logDir} and persists every later change there.
   * Entries come back in their state (so a mirror stays read-only); fetchers restart for MIRRORING
   * entries with the non-secret client properties that were kept.
   *
   * <p>An unreadable file (empty, cut short) restores nothing and is kept as a copy; until this
   * broker has read the cluster's mirror membership, {@link #readOnlyReason} then refuses client
   * writes to every partition (it cannot tell which were mirrors), and afterwards answers from the
   * membership, which adoption writes back to a new file.
   *
   * @return how many partitions were restored, or -1 when the file is unreadable
   */
  public synchronized int restoreFrom(java.nio.file.Path logDir) {
    file = new MirrorRegistryFile(logDir);
    List<MirrorRegistryFile.Row> rows;
    try {
      rows = file.read();
    } catch (MirrorRegistryFile.UnreadableRegistryException e) {
      String why = e.getMessage();
      try {
        why += " (a copy is kept at " + file.keepUnreadableCopy() + ")";
      } catch (java.io.IOException copyFailed) {
        why += " (no copy could be kept: " + copyFailed + ")";
      }
      ClusterMembership.registryUnreadable(why);
      return -1;
    }
    int restored = 0;
    boolean mirrors = false;
    for (MirrorRegistryFile.Row row : rows) {
      TopicPartition tp = new TopicPartition(row.topic(), row.partition());
      MirrorEntry entry = new MirrorEntry(row.mirrorName(), MirrorState.valueOf(row.state()));
      entry.expectedSourceClusterId(row.expectedSourceClusterId());
      entry.persistableClientProperties(row.clientProperties());
      entry.knownFrom(
          row.knownFrom() == null ? ClusterMembership.FROM_REGISTRY_FILE : row.knownFrom());
      entry.pinSourceTopicId(row.sourceTopicId(), row.sourceTopicIdFor());
      entry.error("restored after a broker restart from " + file.path());
      entries.put(tp, entry);
      mirrors |= entry.readOnly();
      if (entry.state() == MirrorState.MIRRORING
          && row.clientProperties().containsKey("bootstrap.servers")) {
        ensureFetcher(row.mirrorName(), MirrorRegistryFile.toProperties(row.clientProperties()));
      }
      restored++;
    }
    ClusterMembership.registryHeldMirrorsAtStart(mirrors);
    return restored;
  }

  /**
   * Registers {@code tp} from the cluster's membership record {@code m}, in {@code state}, when
   * this broker has no registration for it; persists it, and starts the source's fetcher for a
   * MIRRORING partition whose record has the (non-secret) client properties. Idempotent: an
   * existing registration stays as it is.
   */
  synchronized MirrorEntry adoptFromCluster(
      TopicPartition tp, dev.kafkamirror.broker.core.stop.MirrorMembership m, MirrorState state) {
    MirrorEntry existing = entries.get(tp);
    if (existing != null) {
      return existing;
    }
    MirrorEntry entry = new MirrorEntry(m.mirrorName(), state);
    entry.expectedSourceClusterId(m.expectedSourceClusterId());
    entry.persistableClientProperties(m.clientProperties());
    entry.knownFrom(ClusterMembership.FROM_CLUSTER_RECORD);
    entry.pinSourceTopicId(m.sourceTopicId(), m.sourceTopicId() == null ? null : m.topicId());
    entries.put(tp, entry);
    persist();
    if (state == MirrorState.MIRRORING && m.clientProperties().containsKey("bootstrap.servers")) {
      ensureFetcher(m.mirrorName(), MirrorRegistryFile.toProperties(m.clientProperties()));
    }
    return entry;
  }

  /**
   * {@link #adoptFromCluster} over a registration that is STOPPED under another mirror (a failback
   * recorded a newer membership generation); any other registration stays as it is.
   */
  synchronized MirrorEntry adoptReplacingStopped(
      TopicPartition tp, dev.kafkamirror.broker.core.stop.MirrorMembership m, MirrorState state) {
    MirrorEntry existing = entries.get(tp);
    if (existing != null
        && (existing.state() != MirrorState.STOPPED
            || existing.mirrorName().equals(m.mirrorName()))) {
      return existing;
    }
    entries.remove(tp);
    return adoptFromCluster(tp, m, state);
  }

  /**
   * {@link #adoptFromCluster} over a registration of the same mirror that is STOPPED but was not
   * made for the topic {@code m} is a member of (no destination topic id recorded for it, or
   * another): a registration of an earlier topic of the name. Any other registration stays.
   */
  synchronized MirrorEntry adoptReplacingStaleStopped(
      TopicPartition tp, dev.kafkamirror.broker.core.stop.MirrorMembership m, MirrorState state) {
    MirrorEntry existing = entries.get(tp);
    if (existing != null
        && (existing.state() != MirrorState.STOPPED
            || !existing.mirrorName().equals(m.mirrorName())
            || m.topicId().equals(existing.sourceTopicIdPinnedFor()))) {
      return existing;
    }
    entries.remove(tp);
    return adoptFromCluster(tp, m, state);
  }

  /**
   * Records the id of the source topic {@code entry} mirrors into the destination topic {@code
   * destinationTopicId}, durably (registry file) before the caller appends anything.
   */
  synchronized void pinSourceTopicId(
      MirrorEntry entry, String sourceTopicId, String destinationTopicId) {
    entry.pinSourceTopicId(sourceTopicId, destinationTopicId);
    persist();
  }

  /**
   * Writes the whole registry file (every registration) and marks what it wrote durable. Inside
   * {@link #writingOnceAfter} on this thread, only notes that a write is due.
   */
  private void persist() {
    Deferred d = deferred.get();
    if (d != null) {
      d.dirty = true;
      return;
    }
    Map<TopicPartition, MirrorEntry> written = entriesSorted();
    if (file != null) {
      long start = System.nanoTime();
      file.write(MirrorRegistryFile.rows(written));
      fileWriteNanos.addAndGet(System.nanoTime() - start);
      fileWrites.incrementAndGet();
    }
    written.values().forEach(e -> e.durable(true));
  }

  /**
   * Runs {@code work}, whose changes to this registry are written to the registry file once, when
   * it ends, instead of once per change: the file holds every registration, so writing it per
   * partition of a many-partition start (or per source topic id a fetcher round pins) costs time
   * quadratic in the registrations, all under this registry's lock, which the control calls and the
   * fetchers wait for. The changes are in memory at once (a new registration is read-only at once);
   * a registration started inside is not fetched until the file holds it, and the fetchers the
   * changes need are started after the write. So callers that answer or append only after this
   * returns keep the guarantee of writing per change: durable before the answer or the append.
   * Nested calls on one thread join the outer one.
   */
  public <T> T writingOnceAfter(java.util.function.Supplier<T> work) {
    if (deferred.get() != null) {
      return work.get();
    }
    Deferred d = new Deferred();
    deferred.set(d);
    try {
      return work.get();
    } finally {
      deferred.remove();
      synchronized (this) {
        try {
          if (d.dirty) {
            persist();
          }
        } finally {
          d.fetchers.forEach(this::restartFetcher);
        }
      }
    }
  }

  /** Makes sure a fetcher runs for {@code key}: now, or after the deferred write. */
  private void restartFetcherAfterWrite(String key, Properties props) {
    Deferred d = deferred.get();
    if (d != null) {
      d.fetchers.put(key, props);
    } else {
      restartFetcher(key, props);
    }
  }

  /**
   * Topic, then partition number: a stable order that builds no string per comparison. The fetcher
   * lists its mirror's entries every round (every 50 to 500 ms when idle) and the stop-state reader
   * all entries after every read round; ordered by {@code TopicPartition.toString} that was the
   * largest CPU cost of a broker holding 10,000 mirror partitions (JFR, 2026-12-04).
   */
  static final java.util.Comparator<TopicPartition> ORDER =
      java.util.Comparator.comparing(TopicPartition::topic)
          .thenComparingInt(TopicPartition::partition);

  private Map<TopicPartition, MirrorEntry> entriesSorted() {
    Map<TopicPartition, MirrorEntry> sorted = new java.util.TreeMap<>(ORDER);
    sorted.putAll(entries);
    return sorted;
  }

  /**
   * How many times the registry file was written whole since this broker started: once per start
   * call, fetcher round or read round of the stop-state topic that changed a registration, not once
   * per partition (each write holds every registration, under this registry's lock).
   */
  public long fileWrites() {
    return fileWrites.get();
  }

  /** The time spent writing the registry file since this broker started, in milliseconds. */
  public long fileWriteMillis() {
    return java.util.concurrent.TimeUnit.NANOSECONDS.toMillis(fileWriteNanos.get());
  }

  public static MirrorRegistry instance() {
    return INSTANCE;
  }

  /** The entry of a partition, if it is registered as a mirror. */
  public Optional<MirrorEntry> entry(TopicPartition tp) {
    return Optional.ofNullable(entries.get(tp));
  }

  /**
   * Why {@code tp} must not take writes from anything but the mirror itself (client records,
   * transaction markers of destination producers, a destination transaction adding it), or empty
   * when it may. The one question every guard asks: the produce guard, the transaction coordinator
   * and the marker guard.
   *
   * <p>Answers from this broker's registration of the partition; without one, from the cluster's
   * mirror membership ({@link ClusterMembership}), which also knows partitions this broker does not
   * host.
   *
   * @throws MirrorClassificationPendingException (retriable) when this broker cannot tell yet: it
   *     could hold mirrors (registrations or an unreadable registry file at start, or a stop-state
   *     topic in its cluster) and has not read the membership since it started. Guards refuse.
   */
  public Optional<String> readOnlyReason(TopicPartition tp) {
    MirrorEntry e = entries.get(tp);
    if (e == null) {
      return ClusterMembership.readOnlyReason(tp);
    }
    if (!e.readOnly()) {
      return Optional.empty();
    }
    return Optional.of(
        tp
            + " is a read-only mirror of "
            + e.mirrorName()
            + " (state "
            + e.state()
            + "); it becomes writable when the mirror is stopped");
  }

  Map<TopicPartition, MirrorEntry> entriesOf(String mirrorName) {
    Map<TopicPartition, MirrorEntry> out = new TreeMap<>(ORDER);
    entries.forEach(
        (tp, e) -> {
          if (e.mirrorName().equals(mirrorName)) {
            out.put(tp, e);
          }
        });
    return out;
  }

  /**
   * Registers {@code tp} as MIRRORING from the source of mirror {@code mirrorName} and makes sure a
   * fetcher runs for that source. Idempotent: a partition already mirroring from the same source
   * stays as it is.
   *
   * @throws IllegalStateException when the partition mirrors another source, or was made writable
   */
  public synchronized MirrorEntry startMirroring(
      TopicPartition tp,
      String mirrorName,
      String expectedClusterId,
      Properties sourceClientProperties) {
    MirrorEntry existing = entries.get(tp);
    if (existing != null) {
      if (!existing.mirrorName().equals(mirrorName)) {
        throw new IllegalStateException(
            tp + " already mirrors " + existing.mirrorName() + ", not " + mirrorName);
      }
      if (existing.state() == MirrorState.STOPPED) {
        throw new IllegalStateException(
            tp
                + " was made writable after mirror "
                + mirrorName
                + " stopped; it cannot mirror again in place");
      }
      if (existing.state() == MirrorState.STOPPING) {
        throw new IllegalStateException(
            tp + " is stopping (mirror " + mirrorName + "); it cannot resume");
      }
      Map<String, String> persistable = MirrorRegistryFile.withoutSecrets(sourceClientProperties);
      if (!java.util.Objects.equals(existing.expectedSourceClusterId(), expectedClusterId)
          || !existing.persistableClientProperties().equals(persistable)) {
        // A registration with another source: its identity is verified afresh.
        existing.clearSourceMismatch();
      }
      existing.expectedSourceClusterId(expectedClusterId);
      existing.persistableClientProperties(persistable);
      existing.state(MirrorState.MIRRORING);
      restartFetcherAfterWrite(mirrorName, sourceClientProperties);
      persist();
      return existing;
    }
    MirrorEntry entry = new MirrorEntry(mirrorName, MirrorState.MIRRORING);
    entry.expectedSourceClusterId(expectedClusterId);
    entry.persistableClientProperties(MirrorRegistryFile.withoutSecrets(sourceClientProperties));
    // Not fetched until the registry file holds it (at once, or at the end of a deferred write).
    entry.durable(false);
    entries.put(tp, entry);
    persist();
    restartFetcherAfterWrite(mirrorName, sourceClientProperties);
    return entry;
  }

  /**
   * Registers {@code tp} for a failback under {@code mirrorName}, state ALIGNING: read-only at once
   * (persisted before this returns), never fetched until {@link #completeAlignment}. Replaces a
   * STOPPED registration of another mirror (this cluster was that mirror's destination and became
   * writable; it is now made a mirror again). Idempotent: a registration of the same mirror that is
   * ALIGNING, MIRRORING or PAUSED stays as it is.
   *
   * @throws IllegalStateException when the partition mirrors another source, is stopping, or was
   *     stopped under this very mirror name (its recorded stop would be adopted again)
   */
  public synchronized MirrorEntry registerForAlignment(
      TopicPartition tp,
      String mirrorName,
      String expectedClusterId,
      Properties sourceClientProperties) {
    MirrorEntry existing = entries.get(tp);
    if (existing != null) {
      boolean same = existing.mirrorName().equals(mirrorName);
      if (same
          && (existing.state() == MirrorState.ALIGNING
              || existing.state() == MirrorState.MIRRORING
              || existing.state() == MirrorState.PAUSED)) {
        return existing;
      }
      if (same && existing.state() == MirrorState.STOPPED) {
        throw new IllegalStateException(
            tp
                + " was a mirror of "
                + mirrorName
                + " that stopped; its recorded stop would be adopted again. Start the failback"
                + " under a mirror name not used before for this partition");
      }
      if (existing.state() != MirrorState.STOPPED) {
        throw new IllegalStateException(
            tp
                + " is "
                + existing.state()
                + " as a mirror of "
                + existing.mirrorName()
                + ", not "
                + mirrorName
                + "; stop that mirror first");
      }
    }
    MirrorEntry entry = new MirrorEntry(mirrorName, MirrorState.ALIGNING);
    entry.expectedSourceClusterId(expectedClusterId);
    entry.persistableClientProperties(MirrorRegistryFile.withoutSecrets(sourceClientProperties));
    entries.put(tp, entry);
    persist();
    return entry;
  }

  /**
   * Undoes a {@link #registerForAlignment} that must not go on (its log moved after the caller's
   * report): {@code tp} gets back the registration it had before that call, {@code previous} (a
   * STOPPED registration of another mirror, or an ALIGNING one of the same mirror), or none;
   * persisted before this returns. No fetcher ran for an ALIGNING entry and no membership was
   * recorded for it (that happens before the first mirrored append), so nothing else is left.
   *
   * @return false, changing nothing, when the registration is not {@code entry} any more or left
   *     ALIGNING (another call moved it on: its state is kept)
   */
  public synchronized boolean rollBackAlignment(
      TopicPartition tp, MirrorEntry entry, MirrorEntry previous) {
    if (entries.get(tp) != entry || entry == previous) {
      return entry == previous;
    }
    synchronized (entry) {
      if (entry.state() != MirrorState.ALIGNING) {
        return false;
      }
    }
    if (previous == null) {
      entries.remove(tp);
    } else {
      entries.put(tp, previous);
    }
    persist();
    return true;
  }

  /**
   * ALIGNING to MIRRORING once the leader truncated to the alignment offset, and starts the
   * source's fetcher. Idempotent.
   *
   * @throws IllegalStateException when the registration is not {@code entry} any more or left
   *     ALIGNING for another state than MIRRORING
   */
  public MirrorEntry completeAlignment(
      TopicPartition tp, MirrorEntry entry, Properties sourceClientProperties) {
    synchronized (this) {
      if (entries.get(tp) != entry) {
        throw new IllegalStateException(
            tp + " was registered again while it was aligned; repeat the start call");
      }
      synchronized (entry) {
        if (entry.state() == MirrorState.ALIGNING) {
          entry.state(MirrorState.MIRRORING);
        } else if (entry.state() != MirrorState.MIRRORING) {
          throw new IllegalStateException(
              tp + " is " + entry.state() + " (mirror " + entry.mirrorName() + "), not ALIGNING");
        }
      }
      persist();
      restartFetcher(entry.mirrorName(), sourceClientProperties);
    }
    return entry;
  }

  /**
   * Removes {@code tp}'s registration when it is still {@code entry}, persisted (at once, or at the
   * end of a {@link #writingOnceAfter}): it is not fetched any more (fetchers read the registry
   * each round), drops out of the mirror MBeans at their next sync, and a fetcher whose source has
   * no registration left is shut down. Only for a registration whose destination topic no longer
   * exists ({@link DeletedDestinationTopics}).
   *
   * @return false, changing nothing, when {@code tp} has another registration or none
   */
  synchronized boolean remove(TopicPartition tp, MirrorEntry entry) {
    if (!entries.remove(tp, entry)) {
      return false;
    }
    persist();
    String key = entry.mirrorName();
    if (entries.values().stream().noneMatch(e -> e.mirrorName().equals(key))) {
      Fetcher idle = fetchers.remove(key);
      if (idle != null) {
        idle.shutdown();
      }
      Deferred d = deferred.get();
      if (d != null) {
        d.fetchers.remove(key);
      }
    }
    return true;
  }

  /**
   * Replaces the source's fetcher when the registration brings client properties it was not started
   * with.
   */
  private void restartFetcher(String key, Properties props) {
    Fetcher running = fetchers.get(key);
    if (running != null && !running.clientProperties().equals(props)) {
      running.shutdown();
      fetchers.remove(key);
    }
    ensureFetcher(key, props);
  }

  private void ensureFetcher(String key, Properties props) {
    fetchers.computeIfAbsent(
        key,
        k -> {
          Fetcher fetcher = newFetcher.create(k, props, this);
          fetcher.start();
          return fetcher;
        });
  }

  /** Moves a registered partition to {@code state}; returns the entry. */
  public MirrorEntry transition(TopicPartition tp, MirrorState from, MirrorState to) {
    MirrorEntry entry = entries.get(tp);
    if (entry == null) {
      throw new IllegalStateException(tp + " is not a mirror on this broker");
    }
    synchronized (entry) {
      if (entry.state() == to) {
        return entry;
      }
      if (entry.state() != from) {
        throw new IllegalStateException(
            tp
                + " is "
                + entry.state()
                + " (mirror "
                + entry.mirrorName()
                + "); "
                + to
                + " needs "
                + from);
      }
      entry.state(to);
    }
    synchronized (this) {
      persist();
    }
    return entry;
  }

  /**
   * Moves a partition forward to {@code target} (STOPPING or STOPPED) from any earlier state, under
   * the entry's lock, so that no mirror append is in flight when it returns. A partition already at
   * or past {@code target} stays as it is.
   *
   * @return the entry, or empty when the partition is not a mirror here
   */
  public Optional<MirrorEntry> advanceTo(TopicPartition tp, MirrorState target) {
    if (target != MirrorState.STOPPING && target != MirrorState.STOPPED) {
      throw new IllegalArgumentException("advanceTo only STOPPING or STOPPED, not " + target);
    }
    MirrorEntry entry = entries.get(tp);
    if (entry == null) {
      return Optional.empty();
    }
    boolean changed = false;
    synchronized (entry) {
      MirrorState now = entry.state();
      if (now != target && now != MirrorState.STOPPED) {
        entry.state(target);
        changed = true;
      }
    }
    if (changed) {
      synchronized (this) {
        persist();
      }
    }
    return Optional.of(entry);
  }

  /**
   * {@link #advanceTo} for many partitions, writing the registry file once.
   *
   * @return how many partitions changed
   */
  public int advanceAll(java.util.Collection<TopicPartition> partitions, MirrorState target) {
    if (target != MirrorState.STOPPING && target != MirrorState.STOPPED) {
      throw new IllegalArgumentException("advanceAll only STOPPING or STOPPED, not " + target);
    }
    int changed = 0;
    for (TopicPartition tp : partitions) {
      MirrorEntry entry = entries.get(tp);
      if (entry == null) {
        continue;
      }
      synchronized (entry) {
        MirrorState now = entry.state();
        if (now != target && now != MirrorState.STOPPED) {
          entry.state(target);
          changed++;
        }
      }
    }
    if (changed > 0) {
      synchronized (this) {
        persist();
      }
    }
    return changed;
  }

  /** Every registered partition and its entry. */
  public Map<TopicPartition, MirrorEntry> all() {
    return entriesSorted();
  }

  /** For describe: the mirror fields of a partition, described by its leader or a follower. */
  public Map<String, Object> describe(TopicPartition tp, long logEndOffset, boolean leader) {
    MirrorEntry entry = entries.get(tp);
    return entry == null ? new LinkedHashMap<>() : entry.describe(logEndOffset, leader);
  }

  /** For describe: the mirror fields of a partition. */
  public Map<String, Object> describe(TopicPartition tp, long logEndOffset) {
    MirrorEntry entry = entries.get(tp);
    return entry == null ? new LinkedHashMap<>() : entry.describe(logEndOffset);
  }
}
