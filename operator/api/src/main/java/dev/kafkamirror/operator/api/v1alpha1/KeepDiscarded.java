package dev.kafkamirror.operator.api.v1alpha1;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import io.fabric8.generator.annotation.Default;
import io.fabric8.generator.annotation.Pattern;

/**
 * A failback keeps what its alignment discards: before a partition of the destination is truncated,
 * its committed records above the alignment point are copied into a side topic on the destination.
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public class KeepDiscarded {

  @Default(".cmo-discarded")
  @Pattern("^[a-zA-Z0-9._-]{1,40}$")
  @JsonPropertyDescription(
      "The side topic of topic T is T followed by this suffix (default .cmo-discarded), on the"
          + " destination, with T's partition count: partition n's committed records above the"
          + " alignment point go to its partition n, with key, value, headers and timestamp, plus"
          + " headers cmo.discarded.* naming the original topic, partition and offset. Created when"
          + " missing (the broker's default replication factor); an existing one must have at"
          + " least T's partition count.")
  private String topicSuffix = ".cmo-discarded";

  public String getTopicSuffix() {
    return topicSuffix;
  }

  public void setTopicSuffix(String topicSuffix) {
    this.topicSuffix = topicSuffix;
  }
}
