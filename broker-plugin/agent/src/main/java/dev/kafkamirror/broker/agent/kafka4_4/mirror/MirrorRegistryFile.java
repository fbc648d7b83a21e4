package dev.kafkamirror.broker.agent.kafka4_4.mirror;

import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Properties;

/**
 * The broker-local copy of the mirror registry, {@code <first log
 * dir>/cluster-mirror-registry.json}, so that a restarted broker keeps refusing client writes to
 * its mirror partitions (and resumes plain-text mirrors) before the operator registers them again.
 *
 * <p>Secrets never reach the file: client properties whose key names a password, a JAAS
 * configuration or a key are dropped, so a mirror of a secured source resumes only when the
 * operator registers it again; until then it stays read-only and describe says why.
 *
 * <p>Writes replace the file atomically. Not thread-safe: the registry calls it under its own lock.
 */
final class MirrorRegistryFile {

  static final String FILE_NAME = "cluster-mirror-registry.json";

  private static final ObjectMapper MAPPER = new ObjectMapper();

  /** One persisted partition. */
  record Row(
      String topic,
      int partition,
      String mirrorName,
      String state,
      String expectedSourceClusterId,
      Map<String, String> clientProperties) {}

  private final Path file;

  MirrorRegistryFile(Path logDir) {
    this.file = logDir.resolve(FILE_NAME);
  }

  Path path() {
    return file;
  }

  List<Row> read() {
    if (!Files.exists(file)) {
      return List.of();
    }
    try {
      return MAPPER.readValue(file.toFile(), new TypeReference<List<Row>>() {});
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read the mirror registry " + file, e);
    }
  }

  void write(List<Row> rows) {
    try {
      Path tmp = file.resolveSibling(FILE_NAME + ".tmp");
      MAPPER.writerWithDefaultPrettyPrinter().writeValue(tmp.toFile(), rows);
      Files.move(tmp, file, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot write the mirror registry " + file, e);
    }
  }

  /** The client properties without anything secret. */
  static Map<String, String> withoutSecrets(Properties props) {
    Map<String, String> out = new LinkedHashMap<>();
    for (String key : props.stringPropertyNames()) {
      String lower = key.toLowerCase(Locale.ROOT);
      if (lower.contains("password")
          || lower.contains("jaas")
          || lower.contains(".key")
          || lower.contains("secret")) {
        continue;
      }
      out.put(key, props.getProperty(key));
    }
    return out;
  }

  static Properties toProperties(Map<String, String> map) {
    Properties props = new Properties();
    props.putAll(map);
    return props;
  }

  static List<Row> rows(Map<org.apache.kafka.common.TopicPartition, MirrorEntry> entries) {
    List<Row> rows = new ArrayList<>();
    entries.forEach(
        (tp, e) ->
            rows.add(
                new Row(
                    tp.topic(),
                    tp.partition(),
                    e.mirrorName(),
                    e.state().name(),
                    e.expectedSourceClusterId(),
                    e.persistableClientProperties())));
    return rows;
  }
}
