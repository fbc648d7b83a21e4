package dev.kafkamirror.operator.api.v1alpha1;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import io.fabric8.generator.annotation.Default;

/** How a failback (spec.initialSync TruncateAndRestore) treats what it would discard. */
@JsonInclude(JsonInclude.Include.NON_NULL)
public class FailbackPolicy {

  @Default("false")
  @JsonPropertyDescription(
      "true: plan only. The operator asks the destination's brokers what the alignment would"
          + " discard (a dry run: nothing changes, the partitions stay writable and unmirrored) and"
          + " shows it in status.failback and a Warning Event; set it to false to truncate and"
          + " mirror. false (default): the same report is written to status and an Event first, and"
          + " only the next reconcile, with that report persisted, truncates.")
  private Boolean planOnly = false;

  @JsonPropertyDescription(
      "Set: keep what the alignment discards instead of losing it. Before a partition is"
          + " truncated, its committed records above the alignment point (read_committed: aborted"
          + " ones are not kept) are copied to a side topic on the destination, acknowledged by"
          + " every in-sync replica, and the copy's end is persisted in status.failback; only then"
          + " is the partition truncated. A copy that cannot be made truncates nothing (the"
          + " partition is FAILED with the reason and a Warning Event FailbackKeepFailed).")
  private KeepDiscarded keepDiscarded;

  public KeepDiscarded getKeepDiscarded() {
    return keepDiscarded;
  }

  public void setKeepDiscarded(KeepDiscarded keepDiscarded) {
    this.keepDiscarded = keepDiscarded;
  }

  public Boolean getPlanOnly() {
    return planOnly;
  }

  public void setPlanOnly(Boolean planOnly) {
    this.planOnly = planOnly;
  }
}
