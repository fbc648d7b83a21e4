package dev.kafkamirror.operator.app;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.URISyntaxException;
import java.net.URL;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.logging.log4j.LogManager;
import org.apache.logging.log4j.core.LoggerContext;
import org.apache.logging.log4j.core.config.AbstractConfiguration;
import org.apache.logging.log4j.core.config.Configuration;
import org.apache.logging.log4j.core.config.ConfigurationFactory;
import org.apache.logging.log4j.core.config.composite.CompositeConfiguration;

/**
 * The operator's own logging for one test: the sources {@link OperatorLogging} gives Log4j (the
 * module's {@code log4j2.xml}, then the levels file if any) become this JVM's configuration, with
 * the format and level system properties {@link OperatorLogging#configure} sets, and standard
 * output is captured. What code logs through slf4j then comes out exactly as the operator writes
 * it. {@link #close} restores the configuration the JVM had (the tests' {@code log4j2-test.xml},
 * from its source), the system properties and {@code System.out}, and echoes what was captured.
 *
 * <p>Not thread-safe across tests: one at a time per JVM (Surefire runs test classes one after the
 * other).
 */
public final class ProductionLogging implements AutoCloseable {

  private static final ObjectMapper JSON = new ObjectMapper();

  private final LoggerContext context;
  private final URI originalSource;
  private final PrintStream originalOut;
  private final ByteArrayOutputStream captured = new ByteArrayOutputStream();
  private final Map<String, String> previousProperties = new LinkedHashMap<>();

  private ProductionLogging(String format, String level, Path levelsFile) {
    for (Map.Entry<String, String> p :
        Map.of(
                OperatorLogging.FORMAT_PROPERTY, format,
                OperatorLogging.LEVEL_PROPERTY, level)
            .entrySet()) {
      previousProperties.put(p.getKey(), System.getProperty(p.getKey()));
      System.setProperty(p.getKey(), p.getValue());
    }
    originalOut = System.out;
    System.setOut(new PrintStream(captured, true, StandardCharsets.UTF_8));
    context = (LoggerContext) LogManager.getContext(false);
    originalSource = context.getConfiguration().getConfigurationSource().getURI();
    String sources =
        levelsFile == null
            ? OperatorLogging.BASE_CONFIGURATION
            : OperatorLogging.configurationSources(levelsFile.toString());
    List<AbstractConfiguration> parts = new ArrayList<>();
    for (String source : sources.split(",")) {
      parts.add(
          (AbstractConfiguration)
              ConfigurationFactory.getInstance()
                  .getConfiguration(context, "cluster-mirror-operator", uri(source)));
    }
    Configuration configuration =
        parts.size() == 1 ? parts.get(0) : new CompositeConfiguration(parts);
    context.reconfigure(configuration);
  }

  /** The operator's logging with {@code format} (json, plain) and root {@code level}. */
  public static ProductionLogging start(String format, String level) {
    return new ProductionLogging(format, level, null);
  }

  /** The operator's logging with the levels file {@code levelsFile} (CMO_LOG_LEVELS_FILE). */
  public static ProductionLogging start(String format, String level, Path levelsFile) {
    return new ProductionLogging(format, level, levelsFile);
  }

  private static URI uri(String source) {
    if (!source.startsWith("classpath:")) {
      return Path.of(source).toUri();
    }
    URL resource =
        ProductionLogging.class
            .getClassLoader()
            .getResource(source.substring("classpath:".length()));
    if (resource == null) {
      throw new IllegalStateException("no " + source + " on the test class path");
    }
    try {
      return resource.toURI();
    } catch (URISyntaxException e) {
      throw new IllegalStateException("bad URL of " + source + ": " + resource, e);
    }
  }

  /** Everything written to standard output since the start. */
  public String output() {
    return captured.toString(StandardCharsets.UTF_8);
  }

  /** The output's lines. */
  public List<String> lines() {
    return output().lines().filter(l -> !l.isBlank()).toList();
  }

  /** The output's lines parsed as JSON objects (fails on a line that is not one). */
  public List<JsonNode> jsonLines() {
    List<JsonNode> nodes = new ArrayList<>();
    for (String line : lines()) {
      try {
        nodes.add(JSON.readTree(line));
      } catch (IOException e) {
        throw new UncheckedIOException("not a JSON line: " + line, e);
      }
    }
    return nodes;
  }

  @Override
  public void close() {
    System.setOut(originalOut);
    previousProperties.forEach(
        (k, v) -> {
          if (v == null) {
            System.clearProperty(k);
          } else {
            System.setProperty(k, v);
          }
        });
    if (originalSource != null) {
      context.setConfigLocation(originalSource);
    } else {
      context.reconfigure();
    }
    originalOut.print(output());
    URI restored = context.getConfiguration().getConfigurationSource().getURI();
    if (originalSource != null && !originalSource.equals(restored)) {
      throw new IllegalStateException(
          "the logging configuration " + originalSource + " was not restored: " + restored);
    }
  }
}
