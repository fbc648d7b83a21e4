package dev.kafkamirror.operator.api.v1alpha1;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import io.fabric8.generator.annotation.Pattern;
import io.fabric8.generator.annotation.Required;
import io.fabric8.generator.annotation.ValidationRule;

/** The cluster whose topics are mirrored. */
@JsonInclude(JsonInclude.Include.NON_NULL)
public class SourceCluster {

  @Required
  @Pattern(Patterns.BOOTSTRAP_SERVERS)
  @JsonPropertyDescription("host:port[,host:port...] of the source brokers.")
  private String bootstrapServers;

  @Required
  @Pattern(Patterns.KAFKA_CLUSTER_ID)
  @ValidationRule(value = "self == oldSelf", message = "spec.source.clusterId is immutable")
  @JsonPropertyDescription(
      "The cluster id the source must report (22 characters, as kafka-storage prints it). Mirroring refuses a"
          + " source that reports another id, and the barrier records it. Immutable.")
  private String clusterId;

  @JsonPropertyDescription("TLS and SASL settings for the source.")
  private ClientSecurity security;

  @JsonPropertyDescription(
      "The plugin's control endpoint on the source's brokers (the source is a former mirror"
          + " destination). Required by initialSync TruncateAndRestore: the operator reads each"
          + " partition's recorded stop there (last mirrored offset and source epoch) and aligns the"
          + " destination to it; it is never guessed.")
  private ControlEndpoint control;

  public ControlEndpoint getControl() {
    return control;
  }

  public void setControl(ControlEndpoint control) {
    this.control = control;
  }

  public String getBootstrapServers() {
    return bootstrapServers;
  }

  public void setBootstrapServers(String bootstrapServers) {
    this.bootstrapServers = bootstrapServers;
  }

  public String getClusterId() {
    return clusterId;
  }

  public void setClusterId(String clusterId) {
    this.clusterId = clusterId;
  }

  public ClientSecurity getSecurity() {
    return security;
  }

  public void setSecurity(ClientSecurity security) {
    this.security = security;
  }
}
