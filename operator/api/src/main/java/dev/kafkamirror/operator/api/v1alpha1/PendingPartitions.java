package dev.kafkamirror.operator.api.v1alpha1;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;

/** Partitions a source topic has and its destination topic lacks (not mirrored). */
@JsonInclude(JsonInclude.Include.NON_NULL)
public class PendingPartitions {

  @JsonPropertyDescription("The topic.")
  private String topic;

  @JsonPropertyDescription("The missing partition numbers, e.g. '3' or '2..4'.")
  private String partitions;

  @JsonPropertyDescription("The topic's partition count on the source.")
  private Integer sourcePartitions;

  @JsonPropertyDescription("The topic's partition count on the destination.")
  private Integer destinationPartitions;

  @JsonPropertyDescription("Why they are not mirrored yet, and what happens next.")
  private String message;

  public String getTopic() {
    return topic;
  }

  public void setTopic(String topic) {
    this.topic = topic;
  }

  public String getPartitions() {
    return partitions;
  }

  public void setPartitions(String partitions) {
    this.partitions = partitions;
  }

  public Integer getSourcePartitions() {
    return sourcePartitions;
  }

  public void setSourcePartitions(Integer sourcePartitions) {
    this.sourcePartitions = sourcePartitions;
  }

  public Integer getDestinationPartitions() {
    return destinationPartitions;
  }

  public void setDestinationPartitions(Integer destinationPartitions) {
    this.destinationPartitions = destinationPartitions;
  }

  public String getMessage() {
    return message;
  }

  public void setMessage(String message) {
    this.message = message;
  }
}
