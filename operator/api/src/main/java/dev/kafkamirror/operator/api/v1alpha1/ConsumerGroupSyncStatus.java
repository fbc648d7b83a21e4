package dev.kafkamirror.operator.api.v1alpha1;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import io.fabric8.generator.annotation.Size;
import java.util.ArrayList;
import java.util.List;

/** How the consumer group offset sync stands (spec.consumerGroups). */
@JsonInclude(JsonInclude.Include.NON_NULL)
public class ConsumerGroupSyncStatus {

  @JsonPropertyDescription("When the operator last tried to sync (RFC 3339).")
  private String lastAttemptAt;

  @JsonPropertyDescription(
      "When a sync last read the source and committed on the destination without error (RFC 3339)."
          + " After a stop whose source was unreachable, this is the sync that stands.")
  private String lastSuccessfulSyncAt;

  @JsonPropertyDescription(
      "Why the last attempt failed (naming the cluster, group, topic and partition), or absent.")
  private String lastError;

  @JsonPropertyDescription("Groups selected on the source at the last sync.")
  private Integer groupsSelected;

  @JsonPropertyDescription("Selected groups whose offsets are in line on the destination.")
  private Integer groupsSynced;

  @JsonPropertyDescription(
      "Selected groups not written because they have active members on the destination.")
  private Integer groupsSkippedActive;

  @JsonPropertyDescription(
      "Partitions, over all selected groups, whose destination commit differs from the source's"
          + " last seen commit (skipped, clamped or not yet written).")
  private Long partitionsBehind;

  @JsonPropertyDescription(
      "When the stop's final sync ran, before the partitions became writable (RFC 3339).")
  private String finalSyncAt;

  @JsonPropertyDescription(
      "Whether the stop's final sync read the source (false: the source did not answer and the"
          + " commits of the sync at lastSuccessfulSyncAt stand, clamped to the truncated logs).")
  private Boolean finalSyncReadSource;

  @Size(max = 100)
  @JsonPropertyDescription(
      "Per group, at most 100 (skipped and lagging groups first when there are more).")
  private List<GroupSyncStatus> groups = new ArrayList<>();

  public String getLastAttemptAt() {
    return lastAttemptAt;
  }

  public void setLastAttemptAt(String lastAttemptAt) {
    this.lastAttemptAt = lastAttemptAt;
  }

  public String getLastSuccessfulSyncAt() {
    return lastSuccessfulSyncAt;
  }

  public void setLastSuccessfulSyncAt(String lastSuccessfulSyncAt) {
    this.lastSuccessfulSyncAt = lastSuccessfulSyncAt;
  }

  public String getLastError() {
    return lastError;
  }

  public void setLastError(String lastError) {
    this.lastError = lastError;
  }

  public Integer getGroupsSelected() {
    return groupsSelected;
  }

  public void setGroupsSelected(Integer groupsSelected) {
    this.groupsSelected = groupsSelected;
  }

  public Integer getGroupsSynced() {
    return groupsSynced;
  }

  public void setGroupsSynced(Integer groupsSynced) {
    this.groupsSynced = groupsSynced;
  }

  public Integer getGroupsSkippedActive() {
    return groupsSkippedActive;
  }

  public void setGroupsSkippedActive(Integer groupsSkippedActive) {
    this.groupsSkippedActive = groupsSkippedActive;
  }

  public Long getPartitionsBehind() {
    return partitionsBehind;
  }

  public void setPartitionsBehind(Long partitionsBehind) {
    this.partitionsBehind = partitionsBehind;
  }

  public String getFinalSyncAt() {
    return finalSyncAt;
  }

  public void setFinalSyncAt(String finalSyncAt) {
    this.finalSyncAt = finalSyncAt;
  }

  public Boolean getFinalSyncReadSource() {
    return finalSyncReadSource;
  }

  public void setFinalSyncReadSource(Boolean finalSyncReadSource) {
    this.finalSyncReadSource = finalSyncReadSource;
  }

  public List<GroupSyncStatus> getGroups() {
    return groups;
  }

  public void setGroups(List<GroupSyncStatus> groups) {
    this.groups = groups;
  }
}
