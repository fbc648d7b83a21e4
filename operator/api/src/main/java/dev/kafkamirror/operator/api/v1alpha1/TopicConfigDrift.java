package dev.kafkamirror.operator.api.v1alpha1;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;

/** One topic config on which the destination differed from the source. */
@JsonInclude(JsonInclude.Include.NON_NULL)
public class TopicConfigDrift {

  @JsonPropertyDescription("The topic.")
  private String topic;

  @JsonPropertyDescription("The topic config name.")
  private String config;

  @JsonPropertyDescription("The source topic's effective value.")
  private String sourceValue;

  @JsonPropertyDescription("The destination topic's effective value before it was corrected.")
  private String destinationValue;

  @JsonPropertyDescription(
      "Corrected (the destination now holds the source's value) or Failed (see lastError).")
  private String state;

  public TopicConfigDrift() {}

  public TopicConfigDrift(
      String topic, String config, String sourceValue, String destinationValue, String state) {
    this.topic = topic;
    this.config = config;
    this.sourceValue = sourceValue;
    this.destinationValue = destinationValue;
    this.state = state;
  }

  public String getTopic() {
    return topic;
  }

  public void setTopic(String topic) {
    this.topic = topic;
  }

  public String getConfig() {
    return config;
  }

  public void setConfig(String config) {
    this.config = config;
  }

  public String getSourceValue() {
    return sourceValue;
  }

  public void setSourceValue(String sourceValue) {
    this.sourceValue = sourceValue;
  }

  public String getDestinationValue() {
    return destinationValue;
  }

  public void setDestinationValue(String destinationValue) {
    this.destinationValue = destinationValue;
  }

  public String getState() {
    return state;
  }

  public void setState(String state) {
    this.state = state;
  }
}
