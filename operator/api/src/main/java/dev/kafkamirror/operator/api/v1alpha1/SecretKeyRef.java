package dev.kafkamirror.operator.api.v1alpha1;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import io.fabric8.generator.annotation.Pattern;
import io.fabric8.generator.annotation.Required;

/** A key of a Secret in the ClusterMirror's namespace. */
@JsonInclude(JsonInclude.Include.NON_NULL)
public class SecretKeyRef {

  @Required
  @Pattern("^[a-z0-9]([-a-z0-9.]{0,251}[a-z0-9])?$")
  @JsonPropertyDescription("The Secret's name.")
  private String name;

  @Required
  @Pattern("^[-._a-zA-Z0-9]{1,253}$")
  @JsonPropertyDescription("The key within the Secret.")
  private String key;

  public String getName() {
    return name;
  }

  public void setName(String name) {
    this.name = name;
  }

  public String getKey() {
    return key;
  }

  public void setKey(String key) {
    this.key = key;
  }
}
