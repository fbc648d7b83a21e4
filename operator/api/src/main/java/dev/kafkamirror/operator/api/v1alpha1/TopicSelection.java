package dev.kafkamirror.operator.api.v1alpha1;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import io.fabric8.generator.annotation.Size;
import io.fabric8.generator.annotation.ValidationRule;
import java.util.List;

/** Which topics to mirror. */
@JsonInclude(JsonInclude.Include.NON_NULL)
@ValidationRule(
    value =
        "(has(self.names) && size(self.names) > 0) || (has(self.include) && size(self.include) > 0)",
    message = "spec.topics must name at least one topic or one include pattern")
@ValidationRule(
    value = "!has(self.names) || self.names.all(n, !n.startsWith('__'))",
    message = "spec.topics.names: internal topics (starting with __) are never mirrored")
public class TopicSelection {

  @Size(max = 1000)
  @JsonPropertyDescription(
      "Exact topic names (at most 1,000; use include patterns for more). Names that are not legal Kafka topic"
          + " names are reported in status.")
  private List<String> names;

  @Size(max = 100)
  @JsonPropertyDescription("Regular expressions (RE2) of topics to mirror.")
  private List<String> include;

  @Size(max = 100)
  @JsonPropertyDescription(
      "Regular expressions (RE2) of topics never to mirror; they win over names and include.")
  private List<String> exclude;

  public List<String> getNames() {
    return names;
  }

  public void setNames(List<String> names) {
    this.names = names;
  }

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
}
