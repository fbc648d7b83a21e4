package dev.kafkamirror.broker.agent;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import java.util.Properties;

/**
 * The Kafka versions this agent supports, declared as data in {@code
 * META-INF/cmo/supported-kafka-versions.properties} (patterns such as {@code 4.4.*}), and the
 * version of the broker it is attached to, read from kafka-clients' own {@code
 * kafka/kafka-version.properties} without loading any Kafka class.
 */
public final class SupportedKafkaVersions {

  static final String RESOURCE = "META-INF/cmo/supported-kafka-versions.properties";
  static final String KAFKA_VERSION_RESOURCE = "kafka/kafka-version.properties";

  private final List<String> patterns;

  SupportedKafkaVersions(List<String> patterns) {
    this.patterns = List.copyOf(patterns);
  }

  /** The declared patterns, from the agent's own resource. */
  public static SupportedKafkaVersions declared() {
    try (InputStream in =
        SupportedKafkaVersions.class.getClassLoader().getResourceAsStream(RESOURCE)) {
      if (in == null) {
        throw new IllegalStateException("the agent jar lacks " + RESOURCE);
      }
      Properties props = new Properties();
      props.load(in);
      String value = props.getProperty("supported.kafka.versions", "");
      return new SupportedKafkaVersions(
          Arrays.stream(value.split(",")).map(String::trim).filter(s -> !s.isEmpty()).toList());
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read " + RESOURCE, e);
    }
  }

  /** The Kafka version found on {@code loader}'s classpath, if any. */
  public static Optional<String> kafkaVersionOn(ClassLoader loader) {
    try (InputStream in = loader.getResourceAsStream(KAFKA_VERSION_RESOURCE)) {
      if (in == null) {
        return Optional.empty();
      }
      Properties props = new Properties();
      props.load(in);
      return Optional.ofNullable(props.getProperty("version")).map(String::trim);
    } catch (IOException e) {
      return Optional.empty();
    }
  }

  /** Whether {@code version} matches a declared pattern. */
  public boolean supports(String version) {
    for (String pattern : patterns) {
      if (pattern.endsWith("*")
          ? version.startsWith(pattern.substring(0, pattern.length() - 1))
          : version.equals(pattern)) {
        return true;
      }
    }
    return false;
  }

  public List<String> patterns() {
    return patterns;
  }
}
