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

  @JsonPropertyDescription(
      "spec.failback.keepDiscarded: the side topic on the destination the discarded committed"
          + " records are copied to (same partition number); absent when nothing is kept.")
  private String keptIn;

  @JsonPropertyDescription(
      "spec.failback.keepDiscarded: every committed record below this offset (exclusive) of the"
          + " discarded range is in keptIn; the partition is truncated only once it reaches"
          + " discardedToOffset.")
  private Long copiedThrough;

  @JsonPropertyDescription(
      "spec.failback.keepDiscarded: records in keptIn copied from this partition by this failback"
          + " (aborted records and transaction markers are not copied, so it can be less than"
          + " discardedRecords).")
  private Long copiedRecords;

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

  public String getKeptIn() {
    return keptIn;
  }

  public void setKeptIn(String keptIn) {
    this.keptIn = keptIn;
  }

  public Long getCopiedThrough() {
    return copiedThrough;
  }

  public void setCopiedThrough(Long copiedThrough) {
    this.copiedThrough = copiedThrough;
  }

  public Long getCopiedRecords() {
    return copiedRecords;
  }

  public void setCopiedRecords(Long copiedRecords) {
    this.copiedRecords = copiedRecords;
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
