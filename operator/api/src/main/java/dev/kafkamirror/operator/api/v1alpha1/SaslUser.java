package dev.kafkamirror.operator.api.v1alpha1;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import io.fabric8.generator.annotation.Pattern;
import io.fabric8.generator.annotation.Required;
import io.fabric8.generator.annotation.ValidationRule;

/**
 * A SASL user whose username and password are apart: a literal username or a Secret key, and the
 * password from a Secret key (a {@code kubernetes.io/basic-auth} Secret, or the Secret Strimzi
 * makes for a KafkaUser, whose username is the KafkaUser's name).
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
@ValidationRule(
    value = "has(self.username) != has(self.usernameSecretKeyRef)",
    message =
        "saslUser needs exactly one of username (the name itself) and usernameSecretKeyRef (a Secret"
            + " key holding it)")
public class SaslUser {

  @Pattern("^[^\\s]{1,253}$")
  @JsonPropertyDescription(
      "The username itself, such as the name of a Strimzi KafkaUser. Not with usernameSecretKeyRef.")
  private String username;

  @JsonPropertyDescription(
      "A Secret key holding the username, such as key 'username' of a kubernetes.io/basic-auth"
          + " Secret. Not with username.")
  private SecretKeyRef usernameSecretKeyRef;

  @Required
  @JsonPropertyDescription(
      "A Secret key holding the password, such as key 'password' of a kubernetes.io/basic-auth"
          + " Secret or of the Secret Strimzi makes for a KafkaUser. A trailing line break is"
          + " ignored.")
  private SecretKeyRef passwordSecretKeyRef;

  public String getUsername() {
    return username;
  }

  public void setUsername(String username) {
    this.username = username;
  }

  public SecretKeyRef getUsernameSecretKeyRef() {
    return usernameSecretKeyRef;
  }

  public void setUsernameSecretKeyRef(SecretKeyRef usernameSecretKeyRef) {
    this.usernameSecretKeyRef = usernameSecretKeyRef;
  }

  public SecretKeyRef getPasswordSecretKeyRef() {
    return passwordSecretKeyRef;
  }

  public void setPasswordSecretKeyRef(SecretKeyRef passwordSecretKeyRef) {
    this.passwordSecretKeyRef = passwordSecretKeyRef;
  }
}
