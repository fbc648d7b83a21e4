package dev.kafkamirror.operator.api.v1alpha1;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import io.fabric8.generator.annotation.Default;
import io.fabric8.generator.annotation.Pattern;
import io.fabric8.generator.annotation.Required;

/**
 * The client certificate and private key the clients present for mutual TLS, from one Secret: a
 * {@code kubernetes.io/tls} Secret (tls.crt, tls.key) or the Secret Strimzi makes for a KafkaUser
 * with TLS authentication (user.crt, user.key).
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public class TlsClientCertificate {

  /** The default key of the PEM certificate chain. */
  public static final String DEFAULT_CERTIFICATE_KEY = "tls.crt";

  /** The default key of the PEM private key. */
  public static final String DEFAULT_KEY_KEY = "tls.key";

  @Required
  @Pattern("^[a-z0-9]([-a-z0-9.]{0,251}[a-z0-9])?$")
  @JsonPropertyDescription("The Secret's name.")
  private String secretName;

  @Default(DEFAULT_CERTIFICATE_KEY)
  @Pattern("^[-._a-zA-Z0-9]{1,253}$")
  @JsonPropertyDescription(
      "The key holding the PEM certificate chain, leaf first: tls.crt (kubernetes.io/tls, the"
          + " default) or user.crt (a Strimzi KafkaUser).")
  private String certificateKey = DEFAULT_CERTIFICATE_KEY;

  @Default(DEFAULT_KEY_KEY)
  @Pattern("^[-._a-zA-Z0-9]{1,253}$")
  @JsonPropertyDescription(
      "The key holding the unencrypted PKCS#8 PEM private key (BEGIN PRIVATE KEY) of the"
          + " certificate: tls.key (the default) or user.key (a Strimzi KafkaUser).")
  private String keyKey = DEFAULT_KEY_KEY;

  public String getSecretName() {
    return secretName;
  }

  public void setSecretName(String secretName) {
    this.secretName = secretName;
  }

  /** The key of the certificate chain; tls.crt when unset. */
  public String getCertificateKey() {
    return certificateKey == null ? DEFAULT_CERTIFICATE_KEY : certificateKey;
  }

  public void setCertificateKey(String certificateKey) {
    this.certificateKey = certificateKey;
  }

  /** The key of the private key; tls.key when unset. */
  public String getKeyKey() {
    return keyKey == null ? DEFAULT_KEY_KEY : keyKey;
  }

  public void setKeyKey(String keyKey) {
    this.keyKey = keyKey;
  }
}
