package dev.kafkamirror.operator.api.v1alpha1;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import io.fabric8.generator.annotation.Default;
import io.fabric8.generator.annotation.Max;
import io.fabric8.generator.annotation.Min;

/** How a stop proceeds. */
@JsonInclude(JsonInclude.Include.NON_NULL)
public class StopPolicy {

  @Default("Immediate")
  @JsonPropertyDescription(
      "Immediate (the source may be gone) or AfterCatchUp (planned switchover).")
  private StopMode mode = StopMode.Immediate;

  @Min(1)
  @Max(86400)
  @Default("300")
  @JsonPropertyDescription(
      "AfterCatchUp only: how long to wait for zero lag before reporting, in seconds.")
  private Integer catchUpTimeoutSeconds = 300;

  public StopMode getMode() {
    return mode;
  }

  public void setMode(StopMode mode) {
    this.mode = mode;
  }

  public Integer getCatchUpTimeoutSeconds() {
    return catchUpTimeoutSeconds;
  }

  public void setCatchUpTimeoutSeconds(Integer catchUpTimeoutSeconds) {
    this.catchUpTimeoutSeconds = catchUpTimeoutSeconds;
  }
}
