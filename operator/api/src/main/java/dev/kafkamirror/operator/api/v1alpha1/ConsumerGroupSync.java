package dev.kafkamirror.operator.api.v1alpha1;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import io.fabric8.generator.annotation.Default;
import io.fabric8.generator.annotation.Max;
import io.fabric8.generator.annotation.Min;
import io.fabric8.generator.annotation.Size;
import io.fabric8.generator.annotation.ValidationRule;
import java.util.List;

/**
 * Which consumer groups' committed offsets are carried from the source to the destination. Offsets
 * are identical on both clusters (the mirror preserves them), so a source commit is committed on
 * the destination as it is, clamped to the destination's log range.
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
@ValidationRule(
    value = "!has(self.include) || self.include.all(p, size(p) > 0)",
    message = "spec.consumerGroups.include: a pattern must not be empty")
@ValidationRule(
    value = "!has(self.exclude) || self.exclude.all(p, size(p) > 0)",
    message = "spec.consumerGroups.exclude: a pattern must not be empty")
public class ConsumerGroupSync {

  @Size(max = 100)
  @JsonPropertyDescription(
      "Regular expressions of consumer group ids whose offsets are synced (the whole id must"
          + " match; '.*' selects every group). No pattern: no group is synced.")
  private List<String> include;

  @Size(max = 100)
  @JsonPropertyDescription(
      "Regular expressions of consumer group ids never synced; they win over include.")
  private List<String> exclude;

  @Min(1)
  @Max(3600)
  @Default("30")
  @JsonPropertyDescription(
      "How often the committed offsets of the selected groups are read on the source and committed"
          + " on the destination while mirroring or paused, in seconds. The stop syncs once more"
          + " before the partitions become writable.")
  private Integer syncIntervalSeconds = 30;

  public List<String> getInclude() {
    return include;
  }

  public void setInclude(List<String> include) {
    this.include = include;
  }

  public List<String> getExclude() {
    return exclude;
  }

  public void setExclude(List<String> exclude) {
    this.exclude = exclude;
  }

  public Integer getSyncIntervalSeconds() {
    return syncIntervalSeconds;
  }

  public void setSyncIntervalSeconds(Integer syncIntervalSeconds) {
    this.syncIntervalSeconds = syncIntervalSeconds;
  }
}
