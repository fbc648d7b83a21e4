package dev.kafkamirror.operator.api.v1alpha1;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import io.fabric8.generator.annotation.Required;

/**
 * A status condition, keyed by {@code type}, with positive polarity (True is the good or the
 * asked-for state), so that {@code kubectl wait --for=condition=Stopped} works. Types: Ready,
 * Mirroring, Stopped, Degraded.
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public class Condition {

  @Required
  @JsonPropertyDescription("Ready, Mirroring, Stopped, Degraded, Reconciling or Stalled.")
  private String type;

  @Required
  @JsonPropertyDescription("True, False or Unknown.")
  private String status;

  @Required
  @JsonPropertyDescription("A CamelCase reason.")
  private String reason;

  @Required
  @JsonPropertyDescription("A human-readable explanation.")
  private String message;

  @JsonPropertyDescription("The metadata.generation this condition was computed from.")
  private Long observedGeneration;

  @Required
  @JsonPropertyDescription("When status last changed (RFC 3339).")
  private String lastTransitionTime;

  public String getType() {
    return type;
  }

  public void setType(String type) {
    this.type = type;
  }

  public String getStatus() {
    return status;
  }

  public void setStatus(String status) {
    this.status = status;
  }

  public String getReason() {
    return reason;
  }

  public void setReason(String reason) {
    this.reason = reason;
  }

  public String getMessage() {
    return message;
  }

  public void setMessage(String message) {
    this.message = message;
  }

  public Long getObservedGeneration() {
    return observedGeneration;
  }

  public void setObservedGeneration(Long observedGeneration) {
    this.observedGeneration = observedGeneration;
  }

  public String getLastTransitionTime() {
    return lastTransitionTime;
  }

  public void setLastTransitionTime(String lastTransitionTime) {
    this.lastTransitionTime = lastTransitionTime;
  }
}
