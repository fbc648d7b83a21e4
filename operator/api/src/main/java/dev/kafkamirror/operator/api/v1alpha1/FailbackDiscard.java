package dev.kafkamirror.operator.api.v1alpha1;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;

/** What a failback's alignment of one partition discards (or, planned, would discard). */
@JsonInclude(JsonInclude.Include.NON_NULL)
public class FailbackDiscard {

  private String topic;
  private Integer partition;

  @JsonPropertyDescription(
      "The last offset both clusters agree on (exclusive): the log is cut here and mirroring"
          + " starts here.")
  private Long alignmentOffset;

  @JsonPropertyDescription("First discarded offset (inclusive).")
  private Long discardedFromOffset;

  @JsonPropertyDescription("End of the discarded offsets (exclusive).")
  private Long discardedToOffset;

  @JsonPropertyDescription("Records (not offsets) in the discarded range.")
  private Long discardedRecords;

  @JsonPropertyDescription("Their size on disk, batch headers included.")
  private Long discardedBytes;

  @JsonPropertyDescription(
      "false: a plan (dry run), nothing discarded yet; true: the log was truncated.")
  private Boolean truncated;

  @JsonPropertyDescription("The broker's accounting in words.")
  private String message;

  @JsonPropertyDescription("When the broker reported it (RFC 3339).")
  private String reportedAt;

  public String getTopic() {
    return topic;
  }

  public void setTopic(String topic) {
    this.topic = topic;
  }

  public Integer getPartition() {
    return partition;
  }

  public void setPartition(Integer partition) {
    this.partition = partition;
  }

  public Long getAlignmentOffset() {
    return alignmentOffset;
  }

  public void setAlignmentOffset(Long alignmentOffset) {
    this.alignmentOffset = alignmentOffset;
  }

  public Long getDiscardedFromOffset() {
    return discardedFromOffset;
  }

  public void setDiscardedFromOffset(Long discardedFromOffset) {
    this.discardedFromOffset = discardedFromOffset;
  }

  public Long getDiscardedToOffset() {
    return discardedToOffset;
  }

  public void setDiscardedToOffset(Long discardedToOffset) {
    this.discardedToOffset = discardedToOffset;
  }

  public Long getDiscardedRecords() {
    return discardedRecords;
  }

  public void setDiscardedRecords(Long discardedRecords) {
    this.discardedRecords = discardedRecords;
  }

  public Long getDiscardedBytes() {
    return discardedBytes;
  }

  public void setDiscardedBytes(Long discardedBytes) {
    this.discardedBytes = discardedBytes;
  }

  public Boolean getTruncated() {
    return truncated;
  }

  public void setTruncated(Boolean truncated) {
    this.truncated = truncated;
  }

  public String getMessage() {
    return message;
  }

  public void setMessage(String message) {
    this.message = message;
  }

  public String getReportedAt() {
    return reportedAt;
  }

  public void setReportedAt(String reportedAt) {
    this.reportedAt = reportedAt;
  }
}
