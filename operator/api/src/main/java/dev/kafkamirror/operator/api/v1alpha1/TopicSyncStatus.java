package dev.kafkamirror.operator.api.v1alpha1;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import io.fabric8.generator.annotation.Size;
import java.util.ArrayList;
import java.util.List;

/** How the destination topics' shape stands against the source's (partitions added there). */
@JsonInclude(JsonInclude.Include.NON_NULL)
public class TopicSyncStatus {

  @JsonPropertyDescription(
      "When the operator last compared the source's topics (RFC 3339)."
          + " While nothing else in the status changes, refreshed at most every 5 minutes (an idle mirror's status is not rewritten on every check).")
  private String lastCheckAt;

  @JsonPropertyDescription(
      "When a comparison last read the source and the destination without error (RFC 3339).")
  private String lastSuccessfulCheckAt;

  @JsonPropertyDescription(
      "Why the last comparison or change failed (naming the cluster, topic and what to do), or"
          + " absent. While the source cannot be read, partitionsPending is the last known.")
  private String lastError;

  @Size(max = 100)
  @JsonPropertyDescription(
      "Source partitions the destination lacks, per topic (at most 100 topics): they are not"
          + " mirrored, and Mirroring is not True while any is listed.")
  private List<PendingPartitions> partitionsPending = new ArrayList<>();

  public String getLastCheckAt() {
    return lastCheckAt;
  }

  public void setLastCheckAt(String lastCheckAt) {
    this.lastCheckAt = lastCheckAt;
  }

  public String getLastSuccessfulCheckAt() {
    return lastSuccessfulCheckAt;
  }

  public void setLastSuccessfulCheckAt(String lastSuccessfulCheckAt) {
    this.lastSuccessfulCheckAt = lastSuccessfulCheckAt;
  }

  public String getLastError() {
    return lastError;
  }

  public void setLastError(String lastError) {
    this.lastError = lastError;
  }

  public List<PendingPartitions> getPartitionsPending() {
    return partitionsPending;
  }

  public void setPartitionsPending(List<PendingPartitions> partitionsPending) {
    this.partitionsPending = partitionsPending;
  }
}
