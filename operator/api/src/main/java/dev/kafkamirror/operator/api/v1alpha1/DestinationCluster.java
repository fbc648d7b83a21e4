package dev.kafkamirror.operator.api.v1alpha1;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import io.fabric8.generator.annotation.Pattern;
import io.fabric8.generator.annotation.Required;

/** The cluster that holds the mirror. */
@JsonInclude(JsonInclude.Include.NON_NULL)
public class DestinationCluster {

  @Required
  @Pattern(Patterns.BOOTSTRAP_SERVERS)
  @JsonPropertyDescription("host:port[,host:port...] of the destination brokers.")
  private String bootstrapServers;

  @JsonPropertyDescription("TLS and SASL settings for the destination.")
  private ClientSecurity security;

  @Required
  @JsonPropertyDescription(
      "How the operator reaches the plugin's control endpoint on each destination broker.")
  private ControlEndpoint control;

  public String getBootstrapServers() {
    return bootstrapServers;
  }

  public void setBootstrapServers(String bootstrapServers) {
    this.bootstrapServers = bootstrapServers;
  }

  public ClientSecurity getSecurity() {
    return security;
  }

  public void setSecurity(ClientSecurity security) {
    this.security = security;
  }

  public ControlEndpoint getControl() {
    return control;
  }

  public void setControl(ControlEndpoint control) {
    this.control = control;
  }
}
