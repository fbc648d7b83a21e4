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

  @Default("false")
  @JsonPropertyDescription(
      "Stop even though a mirror topic on the destination allows unclean leader election (the topic's"
          + " unclean.leader.election.enable, or the brokers' default, is true). An unclean election can"
          + " truncate the MIRROR_PID_RESET barrier away and bring mirrored producer state back. By"
          + " default (false) such a stop waits, Degraded with reason UncleanLeaderElectionEnabled, until"
          + " the setting is false or this override is true.")
  private Boolean allowUncleanLeaderElection = false;

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

  public Boolean getAllowUncleanLeaderElection() {
    return allowUncleanLeaderElection;
  }

  public void setAllowUncleanLeaderElection(Boolean allowUncleanLeaderElection) {
    this.allowUncleanLeaderElection = allowUncleanLeaderElection;
  }
}
