package dev.kafkamirror.operator.api.v1alpha1;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;

/** How the offset sync of one consumer group stands. */
@JsonInclude(JsonInclude.Include.NON_NULL)
public class GroupSyncStatus {

  @JsonPropertyDescription("The consumer group id.")
  private String group;

  @JsonPropertyDescription(
      "Synced (the destination holds the source's commits, clamped where needed), SkippedActive"
          + " (members on the destination: not written), or Failed (see message).")
  private String state;

  @JsonPropertyDescription("When this group's commits were last in line on the destination.")
  private String lastSyncedAt;

  @JsonPropertyDescription(
      "Partitions whose destination commit differs from the source's last seen commit.")
  private Integer partitionsBehind;

  @JsonPropertyDescription(
      "Partitions whose source commit lay outside the destination's log range at the last sync"
          + " and were committed at the range's bound instead.")
  private Integer partitionsClamped;

  @JsonPropertyDescription("Why the group was skipped or failed, or which partitions were clamped.")
  private String message;

  public String getGroup() {
    return group;
  }

  public void setGroup(String group) {
    this.group = group;
  }

  public String getState() {
    return state;
  }

  public void setState(String state) {
    this.state = state;
  }

  public String getLastSyncedAt() {
    return lastSyncedAt;
  }

  public void setLastSyncedAt(String lastSyncedAt) {
    this.lastSyncedAt = lastSyncedAt;
  }

  public Integer getPartitionsBehind() {
    return partitionsBehind;
  }

  public void setPartitionsBehind(Integer partitionsBehind) {
    this.partitionsBehind = partitionsBehind;
  }

  public Integer getPartitionsClamped() {
    return partitionsClamped;
  }

  public void setPartitionsClamped(Integer partitionsClamped) {
    this.partitionsClamped = partitionsClamped;
  }

  public String getMessage() {
    return message;
  }

  public void setMessage(String message) {
    this.message = message;
  }
}
