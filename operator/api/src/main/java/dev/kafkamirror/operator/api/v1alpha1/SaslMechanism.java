package dev.kafkamirror.operator.api.v1alpha1;

import com.fasterxml.jackson.annotation.JsonProperty;

/** SASL mechanisms the mirror clients support. */
public enum SaslMechanism {
  @JsonProperty("PLAIN")
  PLAIN,
  @JsonProperty("SCRAM-SHA-256")
  SCRAM_SHA_256,
  @JsonProperty("SCRAM-SHA-512")
  SCRAM_SHA_512
}
