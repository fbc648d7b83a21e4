package dev.kafkamirror.operator.api.v1alpha1;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import io.fabric8.generator.annotation.Min;
import io.fabric8.generator.annotation.Pattern;
import io.fabric8.generator.annotation.Required;

/**
 * Where one destination broker's control endpoint listens, when it is not at the broker's
 * advertised host and {@code control.port} (several brokers on one host, a port-forward, loopback
 * tests).
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public class BrokerControlEndpoint {

  @Required
  @Min(0)
  @JsonPropertyDescription("The broker's node.id.")
  private Integer brokerId;

  @Required
  @Pattern(Patterns.HOST_PORT)
  @JsonPropertyDescription("host:port of that broker's control endpoint.")
  private String address;

  public BrokerControlEndpoint() {}

  public BrokerControlEndpoint(Integer brokerId, String address) {
    this.brokerId = brokerId;
    this.address = address;
  }

  public Integer getBrokerId() {
    return brokerId;
  }

  public void setBrokerId(Integer brokerId) {
    this.brokerId = brokerId;
  }

  public String getAddress() {
    return address;
  }

  public void setAddress(String address) {
    this.address = address;
  }
}
