package dev.kafkamirror.testing.failover;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.NavigableMap;
import java.util.Set;
import java.util.TreeMap;
import org.apache.kafka.common.TopicPartition;

/**
 * The pure half of the failover checker: compares what a reader returned with a {@link
 * WriteLedger}, and two readers with each other. Every problem names the reader, the topic, the
 * partition, the offset, and what was expected against what was found.
 */
public final class LedgerComparison {

  /** How the reader read: which of the ledger's records it may see. */
  public enum Isolation {
    /** Committed records only: nothing aborted or never committed. */
    READ_COMMITTED,
    /** Everything in the log: aborted records may show, never-committed ones (truncated) not. */
    READ_UNCOMMITTED
  }

  private LedgerComparison() {}

  /**
   * The problems of {@code observed} (one topic, read from the beginning to the end by {@code
   * reader} at {@code isolation}) against {@code ledger}: every committed record exactly once at
   * its offset; no aborted record under read_committed; no never-committed record at all; nothing
   * the ledger does not know. Empty when all holds.
   */
  public static List<String> compare(
      WriteLedger ledger,
      String topic,
      String reader,
      Isolation isolation,
      List<ObservedRecord> observed) {
    List<String> problems = new ArrayList<>();
    Map<String, TopicPartition> committedAt = new HashMap<>();
    Map<String, Long> committedOffset = new HashMap<>();
    Map<String, TopicPartition> abortedIn = new HashMap<>();
    Map<String, TopicPartition> neverCommittedIn = new HashMap<>();
    for (TopicPartition tp : ledger.partitions(topic)) {
      ledger
          .committed(tp)
          .forEach(
              (offset, value) -> {
                committedAt.put(value, tp);
                committedOffset.put(value, offset);
              });
      ledger.aborted(tp).forEach(v -> abortedIn.put(v, tp));
      ledger.neverCommitted(tp).forEach(v -> neverCommittedIn.put(v, tp));
    }
    Map<TopicPartition, NavigableMap<Long, List<String>>> seen = new HashMap<>();
    Map<String, List<String>> placesOfValue = new TreeMap<>();
    for (ObservedRecord r : observed) {
      if (!r.topic().equals(topic)) {
        problems.add(reader + ": read " + r + " while reading topic " + topic);
        continue;
      }
      TopicPartition tp = new TopicPartition(r.topic(), r.partition());
      seen.computeIfAbsent(tp, k -> new TreeMap<>())
          .computeIfAbsent(r.offset(), k -> new ArrayList<>())
          .add(r.value());
      placesOfValue
          .computeIfAbsent(String.valueOf(r.value()), k -> new ArrayList<>())
          .add(tp + "@" + r.offset());
      String where = reader + " (" + name(isolation) + "): " + tp + " offset " + r.offset();
      if (r.value() == null) {
        problems.add(where + ": a record with a null value, which the test never wrote");
      } else if (neverCommittedIn.containsKey(r.value())) {
        problems.add(
            where
                + ": never-committed record "
                + r.value()
                + " is visible (its transaction was open when its cluster was lost; the failover"
                + " must truncate it away)");
      } else if (abortedIn.containsKey(r.value())) {
        if (isolation == Isolation.READ_COMMITTED) {
          problems.add(where + ": aborted record " + r.value() + " is visible");
        }
      } else if (committedAt.containsKey(r.value())) {
        TopicPartition expectedTp = committedAt.get(r.value());
        long expectedOffset = committedOffset.get(r.value());
        if (!expectedTp.equals(tp) || expectedOffset != r.offset()) {
          problems.add(
              where
                  + ": committed record "
                  + r.value()
                  + " expected at "
                  + expectedTp
                  + " offset "
                  + expectedOffset);
        }
      } else {
        problems.add(where + ": unexpected record " + r.value() + " (not in the ledger)");
      }
    }
    placesOfValue.forEach(
        (value, places) -> {
          if (places.size() > 1) {
            problems.add(
                reader
                    + " ("
                    + name(isolation)
                    + "): "
                    + value
                    + " is there "
                    + places.size()
                    + " times, at "
                    + places);
          }
        });
    for (TopicPartition tp : ledger.partitions(topic)) {
      NavigableMap<Long, List<String>> atOffsets = seen.getOrDefault(tp, new TreeMap<>());
      ledger
          .committed(tp)
          .forEach(
              (offset, value) -> {
                List<String> found = atOffsets.getOrDefault(offset, List.of());
                if (!found.contains(value)) {
                  problems.add(
                      reader
                          + " ("
                          + name(isolation)
                          + "): "
                          + tp
                          + " offset "
                          + offset
                          + ": expected committed record "
                          + value
                          + ", found "
                          + (found.isEmpty() ? "nothing" : String.join(", ", found)));
                }
              });
    }
    return problems;
  }

  /**
   * The records only one of two readers of the same data returned (say kcat and the Java consumer,
   * both read_committed); empty when they agree record for record.
   */
  public static List<String> agree(
      String readerA, List<ObservedRecord> a, String readerB, List<ObservedRecord> b) {
    Set<ObservedRecord> onlyA = new LinkedHashSet<>(a);
    b.forEach(onlyA::remove);
    Set<ObservedRecord> onlyB = new LinkedHashSet<>(b);
    a.forEach(onlyB::remove);
    List<String> problems = new ArrayList<>();
    if (!onlyA.isEmpty()) {
      problems.add(readerA + " read, " + readerB + " did not: " + firstOf(onlyA));
    }
    if (!onlyB.isEmpty()) {
      problems.add(readerB + " read, " + readerA + " did not: " + firstOf(onlyB));
    }
    if (a.size() != b.size() && onlyA.isEmpty() && onlyB.isEmpty()) {
      problems.add(
          readerA
              + " read "
              + a.size()
              + " records, "
              + readerB
              + " "
              + b.size()
              + " (duplicates)");
    }
    return problems;
  }

  private static String firstOf(Set<ObservedRecord> records) {
    List<String> shown = records.stream().limit(10).map(ObservedRecord::toString).toList();
    return shown + (records.size() > 10 ? " and " + (records.size() - 10) + " more" : "");
  }

  private static String name(Isolation isolation) {
    return isolation == Isolation.READ_COMMITTED ? "read_committed" : "read_uncommitted";
  }
}
