package dev.kafkamirror.broker.agent.kafka4_4.mirror;

import java.util.LinkedHashMap;
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
 * <p>In memory only: after a broker restart the operator registers the mirrors again (durable stop
 * progress is the stop sequence's). Until then a restarted broker treats the partitions as ordinary
 * ones.
 *
 * <p>Thread-safe.
 */
public final class MirrorRegistry {

  private static final MirrorRegistry INSTANCE = new MirrorRegistry();

  private final Map<TopicPartition, MirrorEntry> entries = new ConcurrentHashMap<>();
  private final Map<String, MirrorFetcher> fetchers = new ConcurrentHashMap<>();

  public static MirrorRegistry instance() {
    return INSTANCE;
  }

  /** The entry of a partition, if it is registered as a mirror. */
  public Optional<MirrorEntry> entry(TopicPartition tp) {
    return Optional.ofNullable(entries.get(tp));
  }

  Map<TopicPartition, MirrorEntry> entriesOf(String sourceKey) {
    Map<TopicPartition, MirrorEntry> out =
        new TreeMap<>(java.util.Comparator.comparing(TopicPartition::toString));
    entries.forEach(
        (tp, e) -> {
          if (e.sourceKey().equals(sourceKey)) {
            out.put(tp, e);
          }
        });
    return out;
  }

  /**
   * Registers {@code tp} as MIRRORING from the source named by {@code sourceKey} (its mirror name)
   * and makes sure a fetcher runs for that source. Idempotent: a partition already mirroring from
   * the same source stays as it is.
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
      existing.expectedSourceClusterId(expectedClusterId);
      existing.state(MirrorState.MIRRORING);
      ensureFetcher(mirrorName, sourceClientProperties);
      return existing;
    }
    MirrorEntry entry = new MirrorEntry(mirrorName, mirrorName, MirrorState.MIRRORING);
    entry.expectedSourceClusterId(expectedClusterId);
    entries.put(tp, entry);
    ensureFetcher(mirrorName, sourceClientProperties);
    return entry;
  }

  private void ensureFetcher(String key, Properties props) {
    fetchers.computeIfAbsent(
        key,
        k -> {
          MirrorFetcher fetcher = new MirrorFetcher(new SourceCluster(k, props), this);
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
      return entry;
    }
  }

  /** For describe: the mirror fields of a partition. */
  public Map<String, Object> describe(TopicPartition tp, long logEndOffset) {
    MirrorEntry entry = entries.get(tp);
    return entry == null ? new LinkedHashMap<>() : entry.describe(logEndOffset);
  }
}
