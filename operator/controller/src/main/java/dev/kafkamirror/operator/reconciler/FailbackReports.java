package dev.kafkamirror.operator.reconciler;

import com.fasterxml.jackson.databind.JsonNode;
import dev.kafkamirror.contract.Fields;
import dev.kafkamirror.operator.api.v1alpha1.FailbackDiscard;
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
   * Whether every one of {@code keys} has a persisted planned report that still covers its log: the
   * log end now ({@code logEnds}, from the leader's describe) is not beyond the end the report
   * accounted for. Records written after the report would otherwise be discarded unreported; a
   * partition whose log end is unknown is not covered (fail closed: another dry run).
   */
  static boolean covers(
      Map<PartitionKey, Long> reported, Set<PartitionKey> keys, Map<PartitionKey, Long> logEnds) {
    for (PartitionKey key : keys) {
      Long end = reported.get(key);
      Long now = logEnds.get(key);
      if (end == null || now == null || now > end) {
        return false;
      }
    }
    return true;
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
      if (before == null || !sameReport(before, row)) {
        rows.put(e.getKey(), row);
        changed.add(row);
      }
    }
    return new Merge(new ArrayList<>(rows.values()), changed);
  }

  /** The Warning Event's message for {@code rows}: names topic, partition and offsets of each. */
  static String eventMessage(String ref, List<FailbackDiscard> rows) {
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
      listed++;
    }
    out.append(
        planned
            ? ". Copy them now if they matter (kafka-console-consumer from those offsets); see"
                + " status.failback"
            : ". See status.failback");
    return out.toString();
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
