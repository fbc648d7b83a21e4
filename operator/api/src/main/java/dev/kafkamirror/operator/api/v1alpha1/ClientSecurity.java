package dev.kafkamirror.operator.api.v1alpha1;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import io.fabric8.generator.annotation.ValidationRule;

/**
 * TLS and SASL settings of the clients that talk to a cluster; secrets come from Secret references.
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
@ValidationRule(
    value = "!has(self.saslMechanism) || has(self.saslCredentials) || has(self.saslUser)",
    message = "saslCredentials or saslUser is required when saslMechanism is set")
@ValidationRule(
    value = "!(has(self.saslCredentials) && has(self.saslUser))",
    message =
        "saslCredentials and saslUser are mutually exclusive: give the user either as one"
            + " 'username:password' Secret key (saslCredentials) or as separate keys (saslUser)")
@ValidationRule(
    value = "!has(self.saslUser) || has(self.saslMechanism)",
    message = "saslUser requires saslMechanism (PLAIN, SCRAM-SHA-256 or SCRAM-SHA-512)")
@ValidationRule(
    value = "!has(self.tlsClientCertificate) || (has(self.tls) && self.tls)",
    message = "tlsClientCertificate requires tls: true (mutual TLS needs TLS)")
public class ClientSecurity {

  @JsonPropertyDescription(
      "Use TLS. With tlsTrustedCertificate unset, the platform's trust store is used.")
  private Boolean tls;

  @JsonPropertyDescription(
      "A Secret key holding the PEM certificates of the cluster's certificate authority (for a"
          + " Strimzi cluster: Secret <cluster>-cluster-ca-cert, key ca.crt).")
  private SecretKeyRef tlsTrustedCertificate;

  @JsonPropertyDescription("PLAIN, SCRAM-SHA-256 or SCRAM-SHA-512.")
  private SaslMechanism saslMechanism;

  @JsonPropertyDescription(
      "A Secret key holding 'username:password'. Not with saslUser, which reads the two from"
          + " separate keys.")
  private SecretKeyRef saslCredentials;

  @JsonPropertyDescription(
      "The SASL user with username and password apart: the shape of kubernetes.io/basic-auth"
          + " Secrets (keys username and password) and of Strimzi KafkaUser Secrets (key password;"
          + " the username is the KafkaUser's name). Requires saslMechanism; not with"
          + " saslCredentials.")
  private SaslUser saslUser;

  @JsonPropertyDescription(
      "The client certificate and key for mutual TLS (brokers with ssl.client.auth=required), from a"
          + " Secret: kubernetes.io/tls (tls.crt, tls.key) or a Strimzi KafkaUser with TLS"
          + " authentication (certificateKey user.crt, keyKey user.key). Requires tls: true.")
  private TlsClientCertificate tlsClientCertificate;

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

  public SaslUser getSaslUser() {
    return saslUser;
  }

  public void setSaslUser(SaslUser saslUser) {
    this.saslUser = saslUser;
  }

  public TlsClientCertificate getTlsClientCertificate() {
    return tlsClientCertificate;
  }

  public void setTlsClientCertificate(TlsClientCertificate tlsClientCertificate) {
    this.tlsClientCertificate = tlsClientCertificate;
  }
}
