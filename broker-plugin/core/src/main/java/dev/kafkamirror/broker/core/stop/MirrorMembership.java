package dev.kafkamirror.broker.core.stop;

import java.util.Map;
import java.util.Objects;

/**
 * The cluster-wide record that one destination partition is a mirror: written to the stop-state
 * topic with acks=all by the partition's leader before its first mirrored append, and adopted by
 * every broker that hosts a replica of it. Keyed by topic id and partition, so that a topic deleted
 * and created again under the same name is not a mirror.
 *
 * @param clientProperties the source client's properties without secrets, so that a replica that
 *     adopts the partition from this record can resume a plain-text mirror when it leads
 * @param sourceTopicId the id of the source topic this partition mirrors, as the leader saw it
 *     before its first mirrored append; null in records of plugins that did not record it. Every
 *     leader checks the source's topic id against it, so that a source topic deleted and created
 *     again under the same name is never appended after the old one's records
 * @param generation 0 for the first mirror of the partition; a failback that makes a partition
 *     whose mirror was stopped (and made writable) a mirror again records the next generation,
 *     which replaces the earlier membership (see {@link MembershipTable#apply})
 */
public record MirrorMembership(
    String topicId,
    int partition,
    String topic,
    String mirrorName,
    String expectedSourceClusterId,
    int writerBrokerId,
    Map<String, String> clientProperties,
    long recordedAtMs,
    String sourceTopicId,
    int generation) {

  public MirrorMembership {
    if (generation < 0) {
      throw new IllegalArgumentException("generation must be >= 0, got " + generation);
    }
    Objects.requireNonNull(topicId, "topicId");
    Objects.requireNonNull(topic, "topic");
    Objects.requireNonNull(mirrorName, "mirrorName");
    if (partition < 0) {
      throw new IllegalArgumentException("partition must be >= 0, got " + partition);
    }
    clientProperties = clientProperties == null ? Map.of() : Map.copyOf(clientProperties);
  }

  /** A membership of generation 0. */
  public MirrorMembership(
      String topicId,
      int partition,
      String topic,
      String mirrorName,
      String expectedSourceClusterId,
      int writerBrokerId,
      Map<String, String> clientProperties,
      long recordedAtMs,
      String sourceTopicId) {
    this(
        topicId,
        partition,
        topic,
        mirrorName,
        expectedSourceClusterId,
        writerBrokerId,
        clientProperties,
        recordedAtMs,
        sourceTopicId,
        0);
  }

  /** A membership without the source topic's id (as plugins before it wrote). */
  public MirrorMembership(
      String topicId,
      int partition,
      String topic,
      String mirrorName,
      String expectedSourceClusterId,
      int writerBrokerId,
      Map<String, String> clientProperties,
      long recordedAtMs) {
    this(
        topicId,
        partition,
        topic,
        mirrorName,
        expectedSourceClusterId,
        writerBrokerId,
        clientProperties,
        recordedAtMs,
        null);
  }

  /** The stop-state key of this partition under its mirror. */
  public StopStateKey stopStateKey() {
    return new StopStateKey(mirrorName, topicId, partition);
  }

  @Override
  public String toString() {
    return topic
        + "-"
        + partition
        + " (topic id "
        + topicId
        + ") of mirror "
        + mirrorName
        + (generation == 0 ? "" : " (generation " + generation + ")")
        + ", recorded by broker "
        + writerBrokerId;
  }
}
