package dev.kafkamirror.contract;

import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The body of every control call. Clients build it and send {@link #toJson()}; the agent parses and
 * validates it into the same record, so that what a client sends is exactly what the broker acts on
 * (the contract test round-trips every call).
 *
 * @param partitions the partitions of the call, 1 to {@link ControlLimits#MAX_PARTITIONS}
 * @param timeoutMs how long the broker may work; null for {@link ControlLimits#DEFAULT_TIMEOUT_MS}
 * @param mirrorName for {@link ControlCall#START_MIRRORING} only
 * @param source for {@link ControlCall#START_MIRRORING} only
 * @param initialSync for {@link ControlCall#START_MIRRORING} only, or null: how a non-empty
 *     destination log is brought in line first; every partition then names its {@link AlignTo}
 * @param dryRun with {@code initialSync} only: plan and report, change nothing
 */
public record ControlRequest(
    List<Partition> partitions,
    Long timeoutMs,
    String mirrorName,
    MirrorSource source,
    InitialSync initialSync,
    boolean dryRun) {

  public ControlRequest {
    partitions = List.copyOf(partitions);
  }

  /** A request without an initial sync. */
  public ControlRequest(
      List<Partition> partitions, Long timeoutMs, String mirrorName, MirrorSource source) {
    this(partitions, timeoutMs, mirrorName, source, null, false);
  }

  /**
   * The new source's recorded stop state of one partition, which a {@link
   * InitialSync#TRUNCATE_AND_RESTORE} start aligns this log to.
   *
   * @param lastMirroredOffset the new source's {@code stop.lastMirroredOffset} (exclusive end of
   *     what it mirrored from this cluster)
   * @param lastMirroredSourceEpoch its {@code stop.lastMirroredSourceEpoch}: this cluster's leader
   *     epoch of the last batch it kept, -1 when unknown
   * @param expectedLogEndOffset real starts only, or null: the log end of this partition that the
   *     caller's report of what the failback discards (a dry run's {@code discardedToOffset}, and
   *     any copy of those records) accounted for. The leader compares it with its log end once the
   *     partition is read-only and refuses without truncating when they differ, so that no record
   *     written after the report is discarded unreported. Null: no check (as before the field)
   * @param expectedTopicId the new source's {@code mirror.sourceTopicId}: the id of this cluster's
   *     topic it mirrored, or null. The leader refuses, changing nothing, when its topic has
   *     another id (deleted and created again: epochs and offsets of another incarnation prove
   *     nothing). Null: no check (as before the field)
   */
  public record AlignTo(
      long lastMirroredOffset,
      int lastMirroredSourceEpoch,
      Long expectedLogEndOffset,
      String expectedTopicId) {

    /** An alignment without an expected topic id (a caller from before the field). */
    public AlignTo(
        long lastMirroredOffset, int lastMirroredSourceEpoch, Long expectedLogEndOffset) {
      this(lastMirroredOffset, lastMirroredSourceEpoch, expectedLogEndOffset, null);
    }

    /** An alignment without an expected log end (a dry run, or a caller without a report). */
    public AlignTo(long lastMirroredOffset, int lastMirroredSourceEpoch) {
      this(lastMirroredOffset, lastMirroredSourceEpoch, null, null);
    }
  }

  /**
   * One partition of a call.
   *
   * @param sourceClusterId the source cluster id, only for calls that {@linkplain
   *     ControlCall#sourceClusterIdRequired() require it}; null otherwise
   */
  public record Partition(String topic, int partition, String sourceClusterId, AlignTo alignTo) {

    /** A partition without an alignment. */
    public Partition(String topic, int partition, String sourceClusterId) {
      this(topic, partition, sourceClusterId, null);
    }

    /** "topic-partition", as Kafka prints a TopicPartition. */
    public String key() {
      return topic + "-" + partition;
    }
  }

  /**
   * The source cluster of {@link ControlCall#START_MIRRORING}.
   *
   * @param bootstrapServers host:port list
   * @param clusterId the cluster id the source must report, or null to accept any
   * @param properties client security settings for the source (keys starting with one of {@link
   *     ControlLimits#SOURCE_PROPERTY_PREFIXES}), never null
   */
  public record MirrorSource(
      String bootstrapServers, String clusterId, Map<String, String> properties) {

    public MirrorSource {
      properties =
          properties == null
              ? Map.of()
              : Collections.unmodifiableMap(new LinkedHashMap<>(properties));
    }

    /** Never prints the property values: they hold passwords. */
    @Override
    public String toString() {
      return "MirrorSource[bootstrapServers="
          + bootstrapServers
          + ", clusterId="
          + clusterId
          + ", properties="
          + properties.keySet()
          + "]";
    }
  }

  /** A request for a call without a source: partitions and a timeout. */
  public static ControlRequest of(List<Partition> partitions, Long timeoutMs) {
    return new ControlRequest(partitions, timeoutMs, null, null);
  }

  /** The partitions of {@code topic} with the same (possibly null) source cluster id. */
  public static List<Partition> partitions(String topic, String sourceClusterId, int... indexes) {
    List<Partition> out = new ArrayList<>();
    for (int p : indexes) {
      out.add(new Partition(topic, p, sourceClusterId));
    }
    return out;
  }

  /** The JSON body, with the field names of {@link Fields}. */
  public String toJson() {
    StringBuilder out = new StringBuilder(64 + partitions.size() * 48);
    out.append('{');
    name(out, Fields.PARTITIONS).append('[');
    for (int i = 0; i < partitions.size(); i++) {
      Partition p = partitions.get(i);
      if (i > 0) {
        out.append(',');
      }
      out.append('{');
      name(out, Fields.TOPIC);
      string(out, p.topic()).append(',');
      name(out, Fields.PARTITION).append(p.partition());
      if (p.sourceClusterId() != null) {
        out.append(',');
        name(out, Fields.SOURCE_CLUSTER_ID);
        string(out, p.sourceClusterId());
      }
      if (p.alignTo() != null) {
        out.append(',');
        name(out, Fields.ALIGN_TO).append('{');
        name(out, Fields.LAST_MIRRORED_OFFSET).append(p.alignTo().lastMirroredOffset()).append(',');
        name(out, Fields.LAST_MIRRORED_SOURCE_EPOCH).append(p.alignTo().lastMirroredSourceEpoch());
        if (p.alignTo().expectedLogEndOffset() != null) {
          out.append(',');
          name(out, Fields.EXPECTED_LOG_END_OFFSET).append(p.alignTo().expectedLogEndOffset());
        }
        if (p.alignTo().expectedTopicId() != null) {
          out.append(',');
          name(out, Fields.EXPECTED_TOPIC_ID);
          string(out, p.alignTo().expectedTopicId());
        }
        out.append('}');
      }
      out.append('}');
    }
    out.append(']');
    if (timeoutMs != null) {
      out.append(',');
      name(out, Fields.TIMEOUT_MS).append(timeoutMs.longValue());
    }
    if (mirrorName != null) {
      out.append(',');
      name(out, Fields.MIRROR_NAME);
      string(out, mirrorName);
    }
    if (source != null) {
      out.append(',');
      name(out, Fields.SOURCE).append('{');
      name(out, Fields.BOOTSTRAP_SERVERS);
      string(out, source.bootstrapServers());
      if (source.clusterId() != null) {
        out.append(',');
        name(out, Fields.CLUSTER_ID);
        string(out, source.clusterId());
      }
      if (!source.properties().isEmpty()) {
        out.append(',');
        name(out, Fields.PROPERTIES).append('{');
        boolean first = true;
        for (Map.Entry<String, String> e : source.properties().entrySet()) {
          if (!first) {
            out.append(',');
          }
          first = false;
          name(out, e.getKey());
          string(out, e.getValue());
        }
        out.append('}');
      }
      out.append('}');
    }
    if (initialSync != null) {
      out.append(',');
      name(out, Fields.INITIAL_SYNC);
      string(out, initialSync.name());
      if (dryRun) {
        out.append(',');
        name(out, Fields.DRY_RUN).append(true);
      }
    }
    return out.append('}').toString();
  }

  /** Never prints the source's property values: they hold passwords. */
  @Override
  public String toString() {
    return "ControlRequest[partitions="
        + partitions.size()
        + ", timeoutMs="
        + timeoutMs
        + ", mirrorName="
        + mirrorName
        + ", source="
        + source
        + (initialSync == null ? "" : ", initialSync=" + initialSync + ", dryRun=" + dryRun)
        + "]";
  }

  private static StringBuilder name(StringBuilder out, String name) {
    return string(out, name).append(':');
  }

  /** A JSON string literal (RFC 8259): quotes, backslash and control characters escaped. */
  static StringBuilder string(StringBuilder out, String value) {
    if (value == null) {
      return out.append("null");
    }
    out.append('"');
    for (int i = 0; i < value.length(); i++) {
      char c = value.charAt(i);
      switch (c) {
        case '"' -> out.append("\\\"");
        case '\\' -> out.append("\\\\");
        case '\n' -> out.append("\\n");
        case '\r' -> out.append("\\r");
        case '\t' -> out.append("\\t");
        case '\b' -> out.append("\\b");
        case '\f' -> out.append("\\f");
        default -> {
          if (c < 0x20) {
            out.append(String.format("\\u%04x", (int) c));
          } else {
            out.append(c);
          }
        }
      }
    }
    return out.append('"');
  }
}
