package dev.kafkamirror.operator.reconciler;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.Secret;
import io.fabric8.kubernetes.api.model.SecretBuilder;
import java.util.Map;
import org.junit.jupiter.api.Test;

class SecretOptInTest {

  private static Secret secret(Map<String, String> annotations) {
    return new SecretBuilder()
        .withNewMetadata()
        .withName("db-password")
        .withAnnotations(annotations)
        .endMetadata()
        .withStringData(Map.of("password", "hunter2"))
        .build();
  }

  @Test
  void aSecretWithoutTheAnnotationIsNeverReadByAClusterMirror() {
    assertThat(SecretOptIn.allows(secret(Map.of()), "orders")).isFalse();
    assertThat(SecretOptIn.allows(secret(Map.of("other", "orders")), "orders")).isFalse();
    assertThat(new SecretBuilder().withNewMetadata().endMetadata().build())
        .satisfies(s -> assertThat(SecretOptIn.allows(s, "orders")).isFalse());
  }

  @Test
  void aSecretIsReadOnlyByTheClusterMirrorsItNames() {
    Secret named = secret(Map.of(SecretOptIn.ANNOTATION, "payments, orders"));
    assertThat(SecretOptIn.allows(named, "orders")).isTrue();
    assertThat(SecretOptIn.allows(named, "payments")).isTrue();
    assertThat(SecretOptIn.allows(named, "order")).isFalse();
    assertThat(SecretOptIn.allows(secret(Map.of(SecretOptIn.ANNOTATION, "*")), "any")).isTrue();
  }
}
