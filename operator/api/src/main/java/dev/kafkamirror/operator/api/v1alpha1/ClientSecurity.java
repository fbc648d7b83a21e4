package dev.kafkamirror.operator.api.v1alpha1;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import io.fabric8.generator.annotation.ValidationRule;

/**
 * TLS and SASL settings of the clients that talk to a cluster; secrets come from Secret references.
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
@ValidationRule(
    value = "!has(self.saslMechanism) || has(self.saslCredentials)",
    message = "saslCredentials is required when saslMechanism is set")
public class ClientSecurity {

  @JsonPropertyDescription(
      "Use TLS. With tlsTrustedCertificate unset, the platform's trust store is used.")
  private Boolean tls;

  @JsonPropertyDescription(
      "A Secret key holding the PEM certificates of the cluster's certificate authority.")
  private SecretKeyRef tlsTrustedCertificate;

  @JsonPropertyDescription("PLAIN, SCRAM-SHA-256 or SCRAM-SHA-512.")
  private SaslMechanism saslMechanism;

  @JsonPropertyDescription("A Secret key holding 'username:password'.")
  private SecretKeyRef saslCredentials;

  public Boolean getTls() {
    return tls;
  }

  public void setTls(Boolean tls) {
    this.tls = tls;
  }

  public SecretKeyRef getTlsTrustedCertificate() {
    return tlsTrustedCertificate;
  }

  public void setTlsTrustedCertificate(SecretKeyRef tlsTrustedCertificate) {
    this.tlsTrustedCertificate = tlsTrustedCertificate;
  }

  public SaslMechanism getSaslMechanism() {
    return saslMechanism;
  }

  public void setSaslMechanism(SaslMechanism saslMechanism) {
    this.saslMechanism = saslMechanism;
  }

  public SecretKeyRef getSaslCredentials() {
    return saslCredentials;
  }

  public void setSaslCredentials(SecretKeyRef saslCredentials) {
    this.saslCredentials = saslCredentials;
  }
}
