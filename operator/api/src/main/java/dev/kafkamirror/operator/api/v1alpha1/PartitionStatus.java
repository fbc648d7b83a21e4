package dev.kafkamirror.operator.api.v1alpha1;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;

/** Where one mirrored partition stands. */
@JsonInclude(JsonInclude.Include.NON_NULL)
public class PartitionStatus {

  private String topic;
  private Integer partition;

  @JsonPropertyDescription("MIRRORING, PAUSED, STOPPING, STOPPED or FAILED.")
  private String state;

  @JsonPropertyDescription("The stop step reached, while STOPPING.")
  private String step;

  private Long lastMirroredOffset;
  private Long truncatedToOffset;
  private Long barrierOffset;
  private Long lagRecords;
  private String message;

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

  public String getState() {
    return state;
  }

  public void setState(String state) {
    this.state = state;
  }

  public String getStep() {
    return step;
  }

  public void setStep(String step) {
    this.step = step;
  }

  public Long getLastMirroredOffset() {
    return lastMirroredOffset;
  }

  public void setLastMirroredOffset(Long lastMirroredOffset) {
    this.lastMirroredOffset = lastMirroredOffset;
  }

  public Long getTruncatedToOffset() {
    return truncatedToOffset;
  }

  public void setTruncatedToOffset(Long truncatedToOffset) {
    this.truncatedToOffset = truncatedToOffset;
  }

  public Long getBarrierOffset() {
    return barrierOffset;
  }

  public void setBarrierOffset(Long barrierOffset) {
    this.barrierOffset = barrierOffset;
  }

  public Long getLagRecords() {
    return lagRecords;
  }

  public void setLagRecords(Long lagRecords) {
    this.lagRecords = lagRecords;
  }

  public String getMessage() {
    return message;
  }

  public void setMessage(String message) {
    this.message = message;
  }
}
