package dev.kafkamirror.testing.kafka;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.URISyntaxException;
import java.net.URL;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * The classpath of a stock Apache Kafka broker, as resolved by the {@code cmo-kafka-broker-runtime}
 * module from Maven Central, with that module's own {@code KafkaBrokerMain} in front.
 */
final class BrokerRuntime {

  /** The Kafka version of the product's brokers. */
  static final String DEFAULT_KAFKA_VERSION = "4.4.0";

  static final String MAIN_CLASS = "dev.kafkamirror.testing.broker.KafkaBrokerMain";
  static final String KAFKA_MAIN_CLASS = "kafka.Kafka";
  static final String STORAGE_TOOL_CLASS = "kafka.tools.StorageTool";

  private BrokerRuntime() {}

  /** The classpath of a {@value #DEFAULT_KAFKA_VERSION} broker. */
  static String classpath() {
    return classpath(DEFAULT_KAFKA_VERSION);
  }

  /**
   * The classpath of a broker of {@code kafkaVersion}, entries separated by ':'. Every entry is
   * checked to exist. A version needs its runtime module on the test classpath
   * (cmo-kafka-broker-runtime for 4.4.0, cmo-kafka-broker-runtime-4.3 for 4.3.1).
   */
  static String classpath(String kafkaVersion) {
    String resource = "META-INF/cmo/kafka-broker-" + kafkaVersion + ".classpath";
    ClassLoader loader = BrokerRuntime.class.getClassLoader();
    URL listing = loader.getResource(resource);
    URL mainClass = loader.getResource(MAIN_CLASS.replace('.', '/') + ".class");
    if (listing == null || mainClass == null) {
      throw new IllegalStateException(
          "the Kafka broker runtime is not on the test classpath: resource "
              + resource
              + " or class "
              + MAIN_CLASS
              + " is missing; depend on dev.kafkamirror:cmo-kafka-broker-runtime");
    }
    List<String> entries = new ArrayList<>();
    entries.add(codeSourceOf(mainClass, MAIN_CLASS));
    try (InputStream in = listing.openStream()) {
      String text = new String(in.readAllBytes(), StandardCharsets.UTF_8).trim();
      for (String entry : text.split(":")) {
        if (!entry.isBlank()) {
          entries.add(entry);
        }
      }
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read " + listing, e);
    }
    for (String entry : entries) {
      if (!Files.exists(Path.of(entry))) {
        throw new IllegalStateException(
            "broker classpath entry "
                + entry
                + " does not exist; rebuild cmo-kafka-broker-runtime");
      }
    }
    return String.join(":", entries);
  }

  /**
   * Writes {@code classpath} as a java argument file ({@code java @file}), so that command lines
   * stay short enough for ps and /proc readers to show the main class.
   */
  static Path writeClasspathArgFile(Path argFile, String classpath) {
    try {
      Files.writeString(argFile, "-cp \"" + classpath + "\"\n", StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot write " + argFile, e);
    }
    return argFile;
  }

  /** The java executable of the JVM running the tests, for the JVMs they start. */
  static String javaExecutable() {
    return Path.of(System.getProperty("java.home"), "bin", "java").toString();
  }

  private static String codeSourceOf(URL classUrl, String className) {
    String url = classUrl.toString();
    String classPath = className.replace('.', '/') + ".class";
    try {
      if (url.startsWith("jar:file:")) {
        String jar = url.substring("jar:".length(), url.indexOf("!/"));
        return Path.of(new URL(jar).toURI()).toString();
      }
      if (url.startsWith("file:")) {
        Path classFile = Path.of(classUrl.toURI());
        Path root = classFile;
        for (int i = 0; i < classPath.split("/").length; i++) {
          root = root.getParent();
        }
        return root.toString();
      }
    } catch (IOException | URISyntaxException e) {
      throw new IllegalStateException(
          "cannot locate the code source of " + className + " at " + url, e);
    }
    throw new IllegalStateException("unsupported code source for " + className + ": " + url);
  }
}
