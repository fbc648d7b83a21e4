package dev.kafkamirror.operator.api.v1alpha1;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import io.fabric8.generator.annotation.Size;
import java.util.ArrayList;
import java.util.List;

/** How the topic config sync stands (spec.topicConfigs). */
@JsonInclude(JsonInclude.Include.NON_NULL)
public class TopicConfigSyncStatus {

  @JsonPropertyDescription(
      "When the operator last compared the topic configs (RFC 3339)."
          + " While nothing else in the status changes, refreshed at most every 5 minutes (an idle mirror's status is not rewritten on every check).")
  private String lastAttemptAt;

  @JsonPropertyDescription(
      "When a comparison last read both clusters and left every compared topic in line (RFC"
          + " 3339).")
  private String lastSuccessfulSyncAt;

  @JsonPropertyDescription(
      "Why the last attempt failed (naming the cluster, topic and config), or absent.")
  private String lastError;

  @JsonPropertyDescription("Mirrored topics compared at the last attempt.")
  private Integer topicsChecked;

  @JsonPropertyDescription("Compared topics whose synced configs equal the source's.")
  private Integer topicsInSync;

  @JsonPropertyDescription(
      "Mirror topics not compared because they are stopping or stopped (their configs are the"
          + " destination's from then on).")
  private Integer topicsFrozen;

  @JsonPropertyDescription("The topic config names synced.")
  private List<String> configs = new ArrayList<>();

  @Size(max = 100)
  @JsonPropertyDescription(
      "The differences found at the last attempt that found any, at most 100, with what was done"
          + " about each.")
  private List<TopicConfigDrift> lastDrift = new ArrayList<>();

  @JsonPropertyDescription("When lastDrift was found (RFC 3339).")
  private String lastDriftAt;

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

  public Integer getTopicsChecked() {
    return topicsChecked;
  }

  public void setTopicsChecked(Integer topicsChecked) {
    this.topicsChecked = topicsChecked;
  }

  public Integer getTopicsInSync() {
    return topicsInSync;
  }

  public void setTopicsInSync(Integer topicsInSync) {
    this.topicsInSync = topicsInSync;
  }

  public Integer getTopicsFrozen() {
    return topicsFrozen;
  }

  public void setTopicsFrozen(Integer topicsFrozen) {
    this.topicsFrozen = topicsFrozen;
  }

  public List<String> getConfigs() {
    return configs;
  }

  public void setConfigs(List<String> configs) {
    this.configs = configs;
  }

  public List<TopicConfigDrift> getLastDrift() {
    return lastDrift;
  }

  public void setLastDrift(List<TopicConfigDrift> lastDrift) {
    this.lastDrift = lastDrift;
  }

  public String getLastDriftAt() {
    return lastDriftAt;
  }

  public void setLastDriftAt(String lastDriftAt) {
    this.lastDriftAt = lastDriftAt;
  }
}
