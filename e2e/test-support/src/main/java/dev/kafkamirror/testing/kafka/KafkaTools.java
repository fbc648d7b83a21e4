package dev.kafkamirror.testing.kafka;

import dev.kafkamirror.testing.process.Commands;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * Runs a command-line tool (Kafka's {@code DumpLogSegments}, the plugin's log dump) as its own JVM
 * on the stock broker classpath, the way {@code kafka-run-class.sh} does, with optional extra jars
 * in front.
 */
public final class KafkaTools {

  private KafkaTools() {}

  /** Runs {@code mainClass} with {@code args}; waits at most {@code timeout}. */
  public static Commands.Result run(
      Duration timeout, List<Path> extraClasspath, String mainClass, String... args) {
    StringBuilder classpath = new StringBuilder();
    for (Path extra : extraClasspath) {
      classpath.append(extra.toAbsolutePath()).append(':');
    }
    classpath.append(BrokerRuntime.classpath());
    try {
      Path argFile = Files.createTempFile("cmo-tool-classpath-", ".args");
      try {
        BrokerRuntime.writeClasspathArgFile(argFile, classpath.toString());
        List<String> command = new ArrayList<>();
        command.add(BrokerRuntime.javaExecutable());
        command.add("-Xmx256m");
        command.add("@" + argFile);
        command.add(mainClass);
        command.addAll(List.of(args));
        return Commands.run(timeout, command);
      } finally {
        Files.deleteIfExists(argFile);
      }
    } catch (IOException e) {
      throw new UncheckedIOException("cannot run " + mainClass, e);
    }
  }
}
