package dev.kafkamirror.operator.reconciler;

import com.fasterxml.jackson.databind.JsonNode;
import dev.kafkamirror.contract.Fields;
import dev.kafkamirror.contract.PartitionError;
import dev.kafkamirror.operator.api.v1alpha1.FailbackDiscard;
import dev.kafkamirror.operator.core.DiscardKeeping;
import dev.kafkamirror.operator.core.PartitionKey;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeMap;

/**
 * The failback's discard accounting in status ({@code status.failback}): the plugin's {@code
 * alignment} answers merged into what the status already holds, one row per partition, and the
 * Warning Event text for a row that is new or changed. Holds no state.
 */
final class FailbackReports {

  /** Warning Event reason: what a failback would discard (dry run) or discarded. */
  static final String EVENT_REASON = "FailbackDiscards";

  /** Normal Event reason: the discarded records of a partition are copied to its side topic. */
  static final String KEPT_REASON = "FailbackDiscardsKept";

  /** Warning Event reason: the copy to the side topic failed; nothing is truncated. */
  static final String KEEP_FAILED_REASON = "FailbackKeepFailed";

  private FailbackReports() {}

  /**
   * The partitions whose planned report (a dry run, not yet truncated) is persisted, each with the
   * log end that report accounted for: a truncation is sent only while the log still ends there.
   */
  static Map<PartitionKey, Long> reported(List<FailbackDiscard> previous) {
    if (previous == null) {
      return Map.of();
    }
    Map<PartitionKey, Long> out = new HashMap<>();
    for (FailbackDiscard r : previous) {
      if (Boolean.TRUE.equals(r.getTruncated())
          || r.getTopic() == null
          || r.getPartition() == null) {
        continue;
      }
      Long end =
          r.getDiscardedToOffset() != null ? r.getDiscardedToOffset() : r.getAlignmentOffset();
      if (end != null) {
        out.put(new PartitionKey(r.getTopic(), r.getPartition()), end);
      }
    }
    return out;
  }

  /**
   * Each planned (not yet truncated) row's discarded range, {@code [discardedFrom, discardedTo)}; a
   * row discarding nothing is an empty range at its alignment offset.
   */
  static Map<PartitionKey, DiscardKeeping.Range> ranges(List<FailbackDiscard> previous) {
    Map<PartitionKey, DiscardKeeping.Range> out = new HashMap<>();
    if (previous == null) {
      return out;
    }
    for (FailbackDiscard r : previous) {
      if (Boolean.TRUE.equals(r.getTruncated())
          || r.getTopic() == null
          || r.getPartition() == null
          || r.getAlignmentOffset() == null) {
        continue;
      }
      long from =
          r.getDiscardedFromOffset() != null ? r.getDiscardedFromOffset() : r.getAlignmentOffset();
      long to = r.getDiscardedToOffset() != null ? r.getDiscardedToOffset() : from;
      out.put(new PartitionKey(r.getTopic(), r.getPartition()), new DiscardKeeping.Range(from, to));
    }
    return out;
  }

  /** Each row's persisted copy end (keepDiscarded), where it has one. */
  static Map<PartitionKey, Long> copiedThrough(List<FailbackDiscard> previous) {
    Map<PartitionKey, Long> out = new HashMap<>();
    if (previous == null) {
      return out;
    }
    for (FailbackDiscard r : previous) {
      if (r.getCopiedThrough() != null && r.getTopic() != null && r.getPartition() != null) {
        out.put(new PartitionKey(r.getTopic(), r.getPartition()), r.getCopiedThrough());
      }
    }
    return out;
  }

  /**
   * The rows with this reconcile's copies written in (side topic, copy end, records), and the
   * Events they call for: a Normal one per completed copy naming where the records are, a Warning
   * per failed one.
   */
  record KeptMerge(List<FailbackDiscard> rows, List<String> keptMessages, List<String> failed) {}

  static KeptMerge withKept(
      String ref, List<FailbackDiscard> rows, Map<PartitionKey, FailoverRounds.Kept> kept) {
    List<String> keptMessages = new ArrayList<>();
    List<String> failed = new ArrayList<>();
    if (kept.isEmpty() || rows == null) {
      return new KeptMerge(rows, keptMessages, failed);
    }
    List<FailbackDiscard> out = new ArrayList<>();
    for (FailbackDiscard r : rows) {
      FailoverRounds.Kept k =
          r.getTopic() == null || r.getPartition() == null
              ? null
              : kept.get(new PartitionKey(r.getTopic(), r.getPartition()));
      if (k == null) {
        out.add(r);
        continue;
      }
      Long before = r.getCopiedThrough();
      r = copyOf(r);
      r.setKeptIn(k.sideTopic());
      r.setCopiedThrough(k.outcome().copiedThrough());
      r.setCopiedRecords(k.outcome().copiedRecords());
      out.add(r);
      String where =
          r.getTopic()
              + "-"
              + r.getPartition()
              + " offsets "
              + k.range().from()
              + ".."
              + (k.range().to() - 1);
      if (k.outcome().problem() != null) {
        failed.add("failback of " + ref + ": " + k.outcome().problem());
      } else if (k.outcome().complete(k.range())
          && !Long.valueOf(k.outcome().copiedThrough()).equals(before)) {
        keptMessages.add(
            "failback of "
                + ref
                + " kept "
                + where
                + " before truncating: "
                + k.outcome().copiedRecords()
                + " committed records in topic "
                + k.sideTopic()
                + " partition "
                + r.getPartition()
                + " (headers "
                + DiscardKeeping.HEADER_OFFSET
                + " etc. name the original offsets)");
      }
    }
    return new KeptMerge(out, keptMessages, failed);
  }

  /**
   * Whether every one of {@code keys} has a persisted planned report that still covers its log: the
   * log end now ({@code logEnds}, from the leader's describe) is the end the report accounted for.
   * Records written after the report would otherwise be discarded unreported, and a log cut below
   * it (an unclean election) no longer holds what the report counted; the plugin refuses a start
   * whose {@code expectedLogEndOffset} differs from its log end either way, so either needs another
   * dry run. A partition whose log end is unknown is not covered (fail closed: another dry run).
   */
  static boolean covers(
      Map<PartitionKey, Long> reported, Set<PartitionKey> keys, Map<PartitionKey, Long> logEnds) {
    for (PartitionKey key : keys) {
      Long end = reported.get(key);
      Long now = logEnds.get(key);
      if (end == null || now == null || now.longValue() != end.longValue()) {
        return false;
      }
    }
    return true;
  }

  /**
   * Whether a leader's error for a failback start ({@code "<code>: <message>"}) refuses it for good
   * (the partition turns FAILED with the plugin's reason): every {@code INVALID_STATE} except
   * {@link PartitionError#FAILBACK_LOG_MOVED_AFTER_REPORT}, which only says the log moved after the
   * persisted report. Nothing was truncated then; the log end no longer matches the report, so the
   * next reconcile runs a new dry run (and copy) and starts with the new end.
   */
  static boolean refusedForGood(String leaderError) {
    if (leaderError == null || !leaderError.startsWith(PartitionError.Code.INVALID_STATE.name())) {
      return false;
    }
    return !leaderError.contains(PartitionError.FAILBACK_LOG_MOVED_AFTER_REPORT);
  }

  /** The plugin's {@code alignment} answer as a status row. */
  static FailbackDiscard row(PartitionKey key, JsonNode alignment, String now) {
    FailbackDiscard r = new FailbackDiscard();
    r.setTopic(key.topic());
    r.setPartition(key.partition());
    r.setAlignmentOffset(longOrNull(alignment, Fields.Alignment.OFFSET));
    r.setDiscardedFromOffset(longOrNull(alignment, Fields.Alignment.DISCARDED_FROM));
    r.setDiscardedToOffset(longOrNull(alignment, Fields.Alignment.DISCARDED_TO));
    r.setDiscardedRecords(longOrNull(alignment, Fields.Alignment.DISCARDED_RECORDS));
    r.setDiscardedBytes(longOrNull(alignment, Fields.Alignment.DISCARDED_BYTES));
    r.setTruncated(alignment.path(Fields.Alignment.TRUNCATED).asBoolean(false));
    JsonNode message = alignment.get(Fields.Alignment.MESSAGE);
    r.setMessage(message == null || message.isNull() ? null : message.asText());
    r.setReportedAt(now);
    return r;
  }

  /**
   * The merged rows, in partition order, and the rows that are new or differ from the previous one
   * (ignoring the time), which get a Warning Event.
   */
  record Merge(List<FailbackDiscard> rows, List<FailbackDiscard> changed) {}

  static Merge merge(
      List<FailbackDiscard> previous, Map<PartitionKey, JsonNode> answers, String now) {
    Map<PartitionKey, FailbackDiscard> rows = new TreeMap<>();
    if (previous != null) {
      for (FailbackDiscard r : previous) {
        rows.put(new PartitionKey(r.getTopic(), r.getPartition()), r);
      }
    }
    List<FailbackDiscard> changed = new ArrayList<>();
    for (Map.Entry<PartitionKey, JsonNode> e : new LinkedHashMap<>(answers).entrySet()) {
      FailbackDiscard row = row(e.getKey(), e.getValue(), now);
      FailbackDiscard before = rows.get(e.getKey());
      if (before != null) {
        // The copy's progress outlives a new report of the same partition (it resumes from the
        // side partition's tail) and the truncation's answer.
        row.setKeptIn(before.getKeptIn());
        row.setCopiedThrough(before.getCopiedThrough());
        row.setCopiedRecords(before.getCopiedRecords());
      }
      if (before == null || !sameReport(before, row)) {
        rows.put(e.getKey(), row);
        changed.add(row);
      }
    }
    return new Merge(new ArrayList<>(rows.values()), changed);
  }

  /** The Warning Event's message for {@code rows}: names topic, partition and offsets of each. */
  static String eventMessage(String ref, List<FailbackDiscard> rows) {
    return eventMessage(ref, rows, null);
  }

  /**
   * The Warning Event's message for {@code rows}; with {@code keepSuffix} (keepDiscarded) a planned
   * report says where the records will be copied before the truncation.
   */
  static String eventMessage(String ref, List<FailbackDiscard> rows, String keepSuffix) {
    StringBuilder out = new StringBuilder();
    boolean planned = rows.stream().anyMatch(r -> !Boolean.TRUE.equals(r.getTruncated()));
    out.append("failback of ")
        .append(ref)
        .append(planned ? " will discard (planned, nothing truncated yet): " : " discarded: ");
    int listed = 0;
    for (FailbackDiscard r : rows) {
      if (listed == 10) {
        out.append("; and ").append(rows.size() - listed).append(" more partitions");
        break;
      }
      out.append(listed == 0 ? "" : "; ")
          .append(r.getTopic())
          .append('-')
          .append(r.getPartition())
          .append(Boolean.TRUE.equals(r.getTruncated()) ? " (truncated)" : " (planned)")
          .append(" offsets ")
          .append(r.getDiscardedFromOffset())
          .append("..")
          .append(r.getDiscardedToOffset() == null ? null : r.getDiscardedToOffset() - 1)
          .append(": ")
          .append(r.getDiscardedRecords())
          .append(" records, ")
          .append(r.getDiscardedBytes())
          .append(" bytes, aligned at offset ")
          .append(r.getAlignmentOffset());
      if (r.getKeptIn() != null) {
        out.append(", kept in ")
            .append(r.getKeptIn())
            .append(" partition ")
            .append(r.getPartition())
            .append(" (")
            .append(r.getCopiedRecords())
            .append(" committed records through offset ")
            .append(r.getCopiedThrough())
            .append(')');
        String lost =
            Boolean.TRUE.equals(r.getTruncated())
                ? DiscardKeeping.uncopied(
                    r.getKeptIn(), r.getCopiedThrough(), r.getDiscardedToOffset())
                : null;
        if (lost != null) {
          out.append(" BUT ").append(lost);
        }
      }
      listed++;
    }
    if (planned && keepSuffix != null) {
      out.append(". spec.failback.keepDiscarded: their committed records are copied to <topic>")
          .append(keepSuffix)
          .append(" (same partition) before each partition is truncated; see status.failback");
    } else {
      out.append(
          planned
              ? ". Copy them now if they matter (kafka-console-consumer from those offsets); see"
                  + " status.failback"
              : ". See status.failback");
    }
    return out.toString();
  }

  /** A new row equal to {@code r} (the previous status is never changed in place). */
  private static FailbackDiscard copyOf(FailbackDiscard r) {
    FailbackDiscard c = new FailbackDiscard();
    c.setTopic(r.getTopic());
    c.setPartition(r.getPartition());
    c.setAlignmentOffset(r.getAlignmentOffset());
    c.setDiscardedFromOffset(r.getDiscardedFromOffset());
    c.setDiscardedToOffset(r.getDiscardedToOffset());
    c.setDiscardedRecords(r.getDiscardedRecords());
    c.setDiscardedBytes(r.getDiscardedBytes());
    c.setTruncated(r.getTruncated());
    c.setKeptIn(r.getKeptIn());
    c.setCopiedThrough(r.getCopiedThrough());
    c.setCopiedRecords(r.getCopiedRecords());
    c.setMessage(r.getMessage());
    c.setReportedAt(r.getReportedAt());
    return c;
  }

  private static boolean sameReport(FailbackDiscard a, FailbackDiscard b) {
    return Objects.equals(a.getAlignmentOffset(), b.getAlignmentOffset())
        && Objects.equals(a.getDiscardedFromOffset(), b.getDiscardedFromOffset())
        && Objects.equals(a.getDiscardedToOffset(), b.getDiscardedToOffset())
        && Objects.equals(a.getDiscardedRecords(), b.getDiscardedRecords())
        && Objects.equals(a.getDiscardedBytes(), b.getDiscardedBytes())
        && Objects.equals(a.getTruncated(), b.getTruncated());
  }

  private static Long longOrNull(JsonNode node, String field) {
    JsonNode v = node.get(field);
    return v == null || !v.canConvertToLong() ? null : v.asLong();
  }
}
