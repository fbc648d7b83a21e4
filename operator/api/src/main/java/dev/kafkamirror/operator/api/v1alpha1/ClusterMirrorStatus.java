package dev.kafkamirror.operator.api.v1alpha1;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import io.fabric8.generator.annotation.Size;
import java.util.ArrayList;
import java.util.List;

/** What the operator observed. */
@JsonInclude(JsonInclude.Include.NON_NULL)
public class ClusterMirrorStatus {

  @JsonPropertyDescription("The metadata.generation this status was computed from.")
  private Long observedGeneration;

  @JsonPropertyDescription(
      "The observed phase: Pending, Starting, Mirroring, Pausing, Paused, Aligning, Stopping,"
          + " Stopped or Failed (Stalled is True).")
  private MirrorPhase phase;

  @JsonPropertyDescription(
      "Conditions keyed by type: Ready, Mirroring, Stopped, Degraded, and kstatus' Reconciling"
          + " and Stalled.")
  private List<Condition> conditions = new ArrayList<>();

  @JsonPropertyDescription("The cluster id the source reported.")
  private String sourceClusterId;

  private PartitionCounts partitionCounts;

  @JsonPropertyDescription("'stopped/total', for the printer column.")
  private String stoppedOfTotal;

  @JsonPropertyDescription("The largest lag of a partition, in records.")
  private Long maxLagRecords;

  @Size(max = 1000)
  @JsonPropertyDescription(
      "Per partition, at most 1,000 (the least advanced first when there are more).")
  private List<PartitionStatus> partitions = new ArrayList<>();

  @JsonPropertyDescription(
      "AfterCatchUp only: when the operator began waiting for zero lag (RFC 3339).")
  private String catchUpStartedAt;

  @JsonPropertyDescription("When the stop began (RFC 3339).")
  private String stopStartedAt;

  @JsonPropertyDescription("When every partition was STOPPED (RFC 3339).")
  private String stopFinishedAt;

  @JsonPropertyDescription(
      "How the operator reaches the brokers' control endpoints: TLS, or InsecurePlaintext (no"
          + " spec.destination.control.tlsTrustedCertificate: the bearer secret and the source's"
          + " passwords cross the network in clear text).")
  private String controlChannel;

  @JsonPropertyDescription("The consumer group offset sync (spec.consumerGroups), when configured.")
  private ConsumerGroupSyncStatus consumerGroupSync;

  @JsonPropertyDescription(
      "The destination topics against the source's: source partitions not yet on the"
          + " destination.")
  private TopicSyncStatus topicSync;

  public TopicSyncStatus getTopicSync() {
    return topicSync;
  }

  public void setTopicSync(TopicSyncStatus topicSync) {
    this.topicSync = topicSync;
  }

  @Size(max = 1000)
  @JsonPropertyDescription(
      "A failback (spec.initialSync TruncateAndRestore): per partition, what its alignment"
          + " discards, reported before the truncation (truncated false) and after it (true).")
  private List<FailbackDiscard> failback;

  public List<FailbackDiscard> getFailback() {
    return failback;
  }

  public void setFailback(List<FailbackDiscard> failback) {
    this.failback = failback;
  }

  @JsonPropertyDescription("The topic config sync (spec.topicConfigs), unless it is disabled.")
  private TopicConfigSyncStatus topicConfigSync;

  public MirrorPhase getPhase() {
    return phase;
  }

  public void setPhase(MirrorPhase phase) {
    this.phase = phase;
  }

  public String getControlChannel() {
    return controlChannel;
  }

  public void setControlChannel(String controlChannel) {
    this.controlChannel = controlChannel;
  }

  public Long getObservedGeneration() {
    return observedGeneration;
  }

  public void setObservedGeneration(Long observedGeneration) {
    this.observedGeneration = observedGeneration;
  }

  public List<Condition> getConditions() {
    return conditions;
  }

  public void setConditions(List<Condition> conditions) {
    this.conditions = conditions;
  }

  public String getSourceClusterId() {
    return sourceClusterId;
  }

  public void setSourceClusterId(String sourceClusterId) {
    this.sourceClusterId = sourceClusterId;
  }

  public PartitionCounts getPartitionCounts() {
    return partitionCounts;
  }

  public void setPartitionCounts(PartitionCounts partitionCounts) {
    this.partitionCounts = partitionCounts;
  }

  public String getStoppedOfTotal() {
    return stoppedOfTotal;
  }

  public void setStoppedOfTotal(String stoppedOfTotal) {
    this.stoppedOfTotal = stoppedOfTotal;
  }

  public Long getMaxLagRecords() {
    return maxLagRecords;
  }

  public void setMaxLagRecords(Long maxLagRecords) {
    this.maxLagRecords = maxLagRecords;
  }

  public List<PartitionStatus> getPartitions() {
    return partitions;
  }

  public void setPartitions(List<PartitionStatus> partitions) {
    this.partitions = partitions;
  }

  public String getCatchUpStartedAt() {
    return catchUpStartedAt;
  }

  public void setCatchUpStartedAt(String catchUpStartedAt) {
    this.catchUpStartedAt = catchUpStartedAt;
  }

  public String getStopStartedAt() {
    return stopStartedAt;
  }

  public void setStopStartedAt(String stopStartedAt) {
    this.stopStartedAt = stopStartedAt;
  }

  public String getStopFinishedAt() {
    return stopFinishedAt;
  }

  public void setStopFinishedAt(String stopFinishedAt) {
    this.stopFinishedAt = stopFinishedAt;
  }

  public ConsumerGroupSyncStatus getConsumerGroupSync() {
    return consumerGroupSync;
  }

  public void setConsumerGroupSync(ConsumerGroupSyncStatus consumerGroupSync) {
    this.consumerGroupSync = consumerGroupSync;
  }

  public TopicConfigSyncStatus getTopicConfigSync() {
    return topicConfigSync;
  }

  public void setTopicConfigSync(TopicConfigSyncStatus topicConfigSync) {
    this.topicConfigSync = topicConfigSync;
  }
}
