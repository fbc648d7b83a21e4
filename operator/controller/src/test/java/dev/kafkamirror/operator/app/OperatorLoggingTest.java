package dev.kafkamirror.operator.app;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.slf4j.MDC;

/**
 * The operator's log output through its real configuration (log4j2.xml, cmo-log-event.json): JSON
 * lines with JOSDK's resource fields, a plain format for humans, levels re-read from a file at run
 * time, and refused settings named.
 */
class OperatorLoggingTest {

  /** A logger of the operator's own, as its classes get them. */
  private static final Logger LOG =
      LoggerFactory.getLogger("dev.kafkamirror.operator.reconciler.ClusterMirrorReconciler");

  @Test
  void aJsonLineCarriesTimestampLevelLoggerThreadMessageExceptionAndJosdksResourceFields() {
    JsonNode line;
    try (ProductionLogging logging = ProductionLogging.start("json", "info")) {
      // Given the MDC JOSDK sets around a reconcile (MDCUtils.addResourceInfo)
      MDC.put("resource.name", "orders");
      MDC.put("resource.namespace", "team-a");
      MDC.put("resource.kind", "ClusterMirror");
      MDC.put("resource.apiVersion", "kafkamirror.dev/v1alpha1");
      MDC.put("resource.resourceVersion", "4711");
      MDC.put("resource.generation", "3");
      MDC.put("resource.uid", "0b5e-uid");
      try {
        // When the operator logs a failure with its exception
        LOG.warn(
            "clusterMirror={} reconcile failed: {}",
            "team-a/orders",
            "boom \"quoted\"",
            new IllegalStateException("broken pipe"));
      } finally {
        MDC.clear();
      }
      List<JsonNode> lines = logging.jsonLines();
      assertThat(lines).hasSize(1);
      line = lines.get(0);
    }

    // Then it is one JSON object with each field
    assertThat(Instant.parse(line.path("timestamp").asText()))
        .isBetween(Instant.now().minusSeconds(60), Instant.now());
    assertThat(line.path("level").asText()).isEqualTo("WARN");
    assertThat(line.path("logger").asText())
        .isEqualTo("dev.kafkamirror.operator.reconciler.ClusterMirrorReconciler");
    assertThat(line.path("thread").asText()).isEqualTo(Thread.currentThread().getName());
    assertThat(line.path("message").asText())
        .isEqualTo("clusterMirror=team-a/orders reconcile failed: boom \"quoted\"");
    assertThat(line.path("exception").asText())
        .startsWith("java.lang.IllegalStateException: broken pipe")
        .contains("at dev.kafkamirror.operator.app.OperatorLoggingTest");
    // And JOSDK's resource fields as fields of their own
    assertThat(line.path("resource.name").asText()).isEqualTo("orders");
    assertThat(line.path("resource.namespace").asText()).isEqualTo("team-a");
    assertThat(line.path("resource.kind").asText()).isEqualTo("ClusterMirror");
    assertThat(line.path("resource.apiVersion").asText()).isEqualTo("kafkamirror.dev/v1alpha1");
    assertThat(line.path("resource.resourceVersion").asText()).isEqualTo("4711");
    assertThat(line.path("resource.generation").asText()).isEqualTo("3");
    assertThat(line.path("resource.uid").asText()).isEqualTo("0b5e-uid");
  }

  @Test
  void aLineWithoutExceptionOrMdcHasNoSuchFields() {
    JsonNode line;
    try (ProductionLogging logging = ProductionLogging.start("json", "info")) {
      LOG.info("started");
      line = logging.jsonLines().get(0);
    }
    assertThat(line.path("message").asText()).isEqualTo("started");
    assertThat(line.has("exception")).isFalse();
    assertThat(line.has("resource.name")).isFalse();
  }

  @Test
  void thePlainFormatWritesOneTextLineWithTheResourceForHumans() {
    List<String> lines;
    try (ProductionLogging logging = ProductionLogging.start("plain", "info")) {
      MDC.put("resource.name", "orders");
      MDC.put("resource.namespace", "team-a");
      try {
        LOG.info("clusterMirror={} condition Mirroring=True", "team-a/orders");
      } finally {
        MDC.clear();
      }
      LOG.info("no resource here");
      lines = logging.lines();
    }
    assertThat(lines).hasSize(2);
    assertThat(lines.get(0))
        .matches(
            "\\d{4}-\\d\\d-\\d\\dT\\d\\d:\\d\\d:\\d\\d\\.\\d{3}Z INFO  \\[[^]]+\\]"
                + " d\\.k\\.o\\.r\\.ClusterMirrorReconciler \\[team-a/orders\\] -"
                + " clusterMirror=team-a/orders condition Mirroring=True");
    assertThat(lines.get(1)).endsWith("ClusterMirrorReconciler - no resource here");
    assertThat(lines.get(0)).doesNotStartWith("{");
  }

  @Test
  void theStartLevelHidesDebugLines() {
    try (ProductionLogging logging = ProductionLogging.start("json", "info")) {
      LOG.debug("hidden at info");
      LOG.info("shown at info");
      assertThat(logging.output()).doesNotContain("hidden at info").contains("shown at info");
    }
    try (ProductionLogging logging = ProductionLogging.start("json", "debug")) {
      LOG.debug("shown at debug");
      assertThat(logging.output()).contains("shown at debug");
    }
  }

  @Test
  void aLevelWrittenToTheLevelsFileTakesEffectWithoutARestart(@TempDir Path dir)
      throws IOException {
    // Given the operator at info with a levels file Log4j re-reads every second
    Path levels = dir.resolve("levels.properties");
    writeLevels(levels, "rootLogger.level = info\n");
    try (ProductionLogging logging = ProductionLogging.start("json", "info", levels)) {
      LOG.debug("debug-before");
      LOG.info("info-before");
      assertThat(logging.output()).doesNotContain("debug-before").contains("info-before");

      // When the file sets the operator's loggers to debug
      writeLevels(
          levels,
          "rootLogger.level = info\n"
              + "logger.cmo.name = dev.kafkamirror.operator\n"
              + "logger.cmo.level = debug\n");

      // Then its debug lines appear, without a restart, and other loggers stay at info
      AtomicInteger n = new AtomicInteger();
      await()
          .atMost(Duration.ofSeconds(20))
          .pollInterval(Duration.ofMillis(200))
          .until(
              () -> {
                String marker = "debug-after-" + n.incrementAndGet();
                LOG.debug(marker);
                return logging.output().contains("\"" + marker + "\"");
              });
      LoggerFactory.getLogger("org.apache.kafka.clients.admin.AdminClient").debug("kafka-debug");
      assertThat(logging.output()).doesNotContain("kafka-debug");

      // When the file is set back to info
      writeLevels(levels, "rootLogger.level = info\n");

      // Then the debug lines disappear again
      await()
          .atMost(Duration.ofSeconds(20))
          .pollInterval(Duration.ofMillis(200))
          .until(
              () -> {
                String marker = "debug-reverted-" + n.incrementAndGet();
                LOG.debug(marker);
                return !logging.output().contains("\"" + marker + "\"");
              });
      LOG.debug("debug-final");
      LOG.info("info-final");
      assertThat(logging.output()).doesNotContain("debug-final").contains("info-final");
    }
  }

  /** The file's new content, with a later modification time (Log4j compares it). */
  private static void writeLevels(Path file, String levels) throws IOException {
    FileTime before =
        Files.exists(file) ? Files.getLastModifiedTime(file) : FileTime.from(Instant.EPOCH);
    Files.writeString(file, "monitorInterval = 1\n" + levels, StandardCharsets.UTF_8);
    Instant later = before.toInstant().plusSeconds(2);
    if (Files.getLastModifiedTime(file).toInstant().isBefore(later)) {
      Files.setLastModifiedTime(file, FileTime.from(later));
    }
  }

  @Test
  void configureSetsWhatLog4jReadsAndRefusesUnknownValuesNamingTheVariable(@TempDir Path dir)
      throws IOException {
    String format = System.getProperty(OperatorLogging.FORMAT_PROPERTY);
    String level = System.getProperty(OperatorLogging.LEVEL_PROPERTY);
    String sources = System.getProperty(OperatorLogging.LOG4J_CONFIGURATION);
    Path levels = Files.writeString(dir.resolve("levels.properties"), "rootLogger.level = info\n");
    try {
      // Given valid settings in any case, When applied, Then Log4j's inputs are set
      OperatorLogging.configure(
          Map.of(
              "CMO_LOG_FORMAT",
              "PLAIN",
              "CMO_LOG_LEVEL",
              "Debug",
              "CMO_LOG_LEVELS_FILE",
              levels.toString()));
      assertThat(System.getProperty(OperatorLogging.FORMAT_PROPERTY)).isEqualTo("plain");
      assertThat(System.getProperty(OperatorLogging.LEVEL_PROPERTY)).isEqualTo("debug");
      assertThat(System.getProperty(OperatorLogging.LOG4J_CONFIGURATION))
          .isEqualTo("classpath:log4j2.xml," + levels);
      // And the defaults are json and info
      assertThat(OperatorLogging.format(Map.of())).isEqualTo("json");
      assertThat(OperatorLogging.level(Map.of("CMO_LOG_LEVEL", " "))).isEqualTo("info");
      assertThat(OperatorConfig.fromEnvironment(Map.of("CMO_LOG_LEVEL", "WARN")).logLevel())
          .isEqualTo("warn");
    } finally {
      restore(OperatorLogging.FORMAT_PROPERTY, format);
      restore(OperatorLogging.LEVEL_PROPERTY, level);
      restore(OperatorLogging.LOG4J_CONFIGURATION, sources);
    }

    // And unknown values are refused naming the variable, the value and what is accepted
    assertThatThrownBy(() -> OperatorLogging.configure(Map.of("CMO_LOG_FORMAT", "xml")))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("CMO_LOG_FORMAT must be one of [json, plain] (any case), got 'xml'");
    assertThatThrownBy(() -> OperatorLogging.configure(Map.of("CMO_LOG_LEVEL", "verbose")))
        .hasMessage(
            "CMO_LOG_LEVEL must be one of [debug, error, info, off, trace, warn] (any case), got"
                + " 'verbose'");
    Path absent = dir.resolve("absent.properties");
    assertThatThrownBy(
            () -> OperatorLogging.configure(Map.of("CMO_LOG_LEVELS_FILE", absent.toString())))
        .hasMessage(
            "CMO_LOG_LEVELS_FILE names '"
                + absent
                + "', which is not a readable file; unset CMO_LOG_LEVELS_FILE or mount the levels"
                + " file there");
  }

  private static void restore(String property, String value) {
    if (value == null) {
      System.clearProperty(property);
    } else {
      System.setProperty(property, value);
    }
  }
}
