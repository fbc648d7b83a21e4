package dev.kafkamirror.broker.agent;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;

class SupportedKafkaVersionsTest {

  @Test
  void declaredVersionsCoverKafka44PatchReleasesOnly() {
    SupportedKafkaVersions declared = SupportedKafkaVersions.declared();
    assertThat(declared.patterns()).containsExactly("4.4.*");
    assertThat(declared.supports("4.4.0")).isTrue();
    assertThat(declared.supports("4.4.3")).isTrue();
    assertThat(declared.supports("4.3.1")).isFalse();
    assertThat(declared.supports("4.5.0")).isFalse();
    assertThat(declared.supports("4.40.0")).isFalse();
    assertThat(declared.supports("3.9.0")).isFalse();
  }

  @Test
  void exactPatternsMatchExactly() {
    SupportedKafkaVersions exact = new SupportedKafkaVersions(List.of("4.4.0"));
    assertThat(exact.supports("4.4.0")).isTrue();
    assertThat(exact.supports("4.4.1")).isFalse();
  }

  @Test
  void readsTheKafkaVersionFromKafkaClientsWithoutLoadingClasses() {
    assertThat(SupportedKafkaVersions.kafkaVersionOn(getClass().getClassLoader()))
        .hasValue("4.4.0");
    assertThat(SupportedKafkaVersions.kafkaVersionOn(new ClassLoader(null) {})).isEmpty();
  }
}
