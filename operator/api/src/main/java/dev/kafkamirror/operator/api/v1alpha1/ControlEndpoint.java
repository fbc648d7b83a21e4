package dev.kafkamirror.operator.api.v1alpha1;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import io.fabric8.generator.annotation.Max;
import io.fabric8.generator.annotation.Min;
import io.fabric8.generator.annotation.Required;
import io.fabric8.generator.annotation.Size;
import io.fabric8.generator.annotation.ValidationRule;
import java.util.List;

/**
 * The plugin's control endpoint: on every destination broker, at the broker's advertised host and
 * this port ({@code cluster.mirror.control.listener} in the broker's configuration).
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
@ValidationRule(
    value = "!has(self.tlsClientCertificateSecret) || has(self.tlsTrustedCertificate)",
    message =
        "spec.destination.control.tlsClientCertificateSecret requires tlsTrustedCertificate (mutual"
            + " TLS needs TLS)")
public class ControlEndpoint {

  @Required
  @Min(1)
  @Max(65535)
  @JsonPropertyDescription("The control endpoint's port on each broker.")
  private Integer port;

  @Required
  @JsonPropertyDescription(
      "A Secret key holding the shared secret the brokers require (at least 16 characters).")
  private SecretKeyRef secretRef;

  @JsonPropertyDescription(
      "A Secret key holding the PEM CA certificate(s) that signed the brokers' control endpoint"
          + " certificates (cluster.mirror.control.ssl.* on the brokers): the operator calls the endpoints"
          + " over HTTPS and verifies them against it. Without it the operator uses plain HTTP, which the"
          + " brokers serve only with cluster.mirror.control.insecure.plaintext=true, and reports"
          + " status.controlChannel InsecurePlaintext: the bearer secret and the source's passwords then"
          + " cross the network in clear text.")
  private SecretKeyRef tlsTrustedCertificate;

  @io.fabric8.generator.annotation.Pattern("^[a-z0-9]([-a-z0-9.]{0,251}[a-z0-9])?$")
  @JsonPropertyDescription(
      "The name of a Secret (kubernetes.io/tls style) whose key tls.crt holds the PEM certificate"
          + " chain (leaf first) and tls.key the PEM PKCS#8 private key (unencrypted) the operator"
          + " presents as its client certificate to the control endpoints (mutual TLS, for brokers with"
          + " cluster.mirror.control.ssl.client.auth=required). Requires tlsTrustedCertificate. Like every"
          + " Secret a ClusterMirror reads, it must carry the annotation kafkamirror.dev/cluster-mirrors"
          + " naming this ClusterMirror (or *).")
  private String tlsClientCertificateSecret;

  @Size(max = 100)
  @ValidationRule(
      value = "self.all(a, self.exists_one(b, b.brokerId == a.brokerId))",
      message = "spec.destination.control.brokerEndpoints: each brokerId may appear only once")
  @JsonPropertyDescription(
      "Per-broker overrides of where the control endpoint listens (brokerId and host:port); brokers not"
          + " listed are reached at their advertised host and port.")
  private List<BrokerControlEndpoint> brokerEndpoints;

  public List<BrokerControlEndpoint> getBrokerEndpoints() {
    return brokerEndpoints;
  }

  public void setBrokerEndpoints(List<BrokerControlEndpoint> brokerEndpoints) {
    this.brokerEndpoints = brokerEndpoints;
  }

  public SecretKeyRef getTlsTrustedCertificate() {
    return tlsTrustedCertificate;
  }

  public void setTlsTrustedCertificate(SecretKeyRef tlsTrustedCertificate) {
    this.tlsTrustedCertificate = tlsTrustedCertificate;
  }

  public String getTlsClientCertificateSecret() {
    return tlsClientCertificateSecret;
  }

  public void setTlsClientCertificateSecret(String tlsClientCertificateSecret) {
    this.tlsClientCertificateSecret = tlsClientCertificateSecret;
  }

  public Integer getPort() {
    return port;
  }

  public void setPort(Integer port) {
    this.port = port;
  }

  public SecretKeyRef getSecretRef() {
    return secretRef;
  }

  public void setSecretRef(SecretKeyRef secretRef) {
    this.secretRef = secretRef;
  }
}
