package dev.kafkamirror.operator.api.v1alpha1;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import io.fabric8.generator.annotation.Default;
import io.fabric8.generator.annotation.Max;
import io.fabric8.generator.annotation.Min;
import io.fabric8.generator.annotation.Size;
import io.fabric8.generator.annotation.ValidationRule;
import java.util.List;

/**
 * Which topic configs the destination topics take from their source topics. The destination's
 * safety settings are never taken: {@link #NEVER_SYNCED} is refused at admission.
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
@ValidationRule(
    value =
        "!has(self.include) || self.include.all(k, !(k in ['min.insync.replicas',"
            + " 'unclean.leader.election.enable', 'leader.replication.throttled.replicas',"
            + " 'follower.replication.throttled.replicas', 'remote.storage.enable',"
            + " 'local.retention.ms', 'local.retention.bytes']))",
    message =
        "spec.topicConfigs.include: min.insync.replicas, unclean.leader.election.enable, the"
            + " replication throttles and the tiered storage settings stay the destination's own;"
            + " remove them from include")
public class TopicConfigSync {

  /** The destination's own settings, never taken from the source. */
  public static final List<String> NEVER_SYNCED =
      List.of(
          "min.insync.replicas",
          "unclean.leader.election.enable",
          "leader.replication.throttled.replicas",
          "follower.replication.throttled.replicas",
          "remote.storage.enable",
          "local.retention.ms",
          "local.retention.bytes");

  /** What is synced without an include list. */
  public static final List<String> SYNCED_BY_DEFAULT =
      List.of(
          "cleanup.policy",
          "compression.type",
          "delete.retention.ms",
          "max.compaction.lag.ms",
          "max.message.bytes",
          "message.timestamp.after.max.ms",
          "message.timestamp.before.max.ms",
          "message.timestamp.type",
          "min.cleanable.dirty.ratio",
          "min.compaction.lag.ms",
          "retention.bytes",
          "retention.ms",
          "segment.bytes",
          "segment.ms");

  @Default("true")
  @JsonPropertyDescription(
      "Whether destination topics are created with, and kept in line with, the source topics'"
          + " configs. false: topics are created with the destination's defaults and never"
          + " changed.")
  private Boolean enabled = true;

  @Min(1)
  @Max(3600)
  @Default("30")
  @JsonPropertyDescription(
      "How often the synced configs are compared, and differences corrected on the destination,"
          + " while mirroring or paused, in seconds.")
  private Integer syncIntervalSeconds = 30;

  @Size(max = 100)
  @JsonPropertyDescription(
      "The topic config names taken from the source. Absent: cleanup.policy, compression.type,"
          + " delete.retention.ms, max.compaction.lag.ms, max.message.bytes,"
          + " message.timestamp.after.max.ms, message.timestamp.before.max.ms,"
          + " message.timestamp.type, min.cleanable.dirty.ratio, min.compaction.lag.ms,"
          + " retention.bytes, retention.ms, segment.bytes, segment.ms. min.insync.replicas,"
          + " unclean.leader.election.enable, the replication throttles and tiered storage"
          + " settings are refused: they stay the destination's.")
  private List<String> include;

  @Size(max = 100)
  @JsonPropertyDescription("Topic config names never taken from the source; they win over include.")
  private List<String> exclude;

  public Boolean getEnabled() {
    return enabled;
  }

  public void setEnabled(Boolean enabled) {
    this.enabled = enabled;
  }

  public Integer getSyncIntervalSeconds() {
    return syncIntervalSeconds;
  }

  public void setSyncIntervalSeconds(Integer syncIntervalSeconds) {
    this.syncIntervalSeconds = syncIntervalSeconds;
  }

  public List<String> getInclude() {
    return include;
  }

  public void setInclude(List<String> include) {
    this.include = include;
  }

  public List<String> getExclude() {
    return exclude;
  }

  public void setExclude(List<String> exclude) {
    this.exclude = exclude;
  }
}
