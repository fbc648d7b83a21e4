package dev.kafkamirror.broker.agent.kafka4_4.mirror;

import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
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
 * <p>Writes replace the file atomically and durably (fsync of the file and its directory). An empty
 * or unreadable file is reported as such, never read as "no mirrors". Not thread-safe: the registry
 * calls it under its own lock.
 */
final class MirrorRegistryFile {

  static final String FILE_NAME = "cluster-mirror-registry.json";

  /**
   * One persisted partition.
   *
   * @param sourceTopicId the source topic id recorded before the first mirrored append; null in
   *     files written before it was recorded
   * @param sourceTopicIdFor the destination topic id it was recorded for
   */
  record Row(
      String topic,
      int partition,
      String mirrorName,
      String state,
      String expectedSourceClusterId,
      Map<String, String> clientProperties,
      String knownFrom,
      String sourceTopicId,
      String sourceTopicIdFor) {

    /** A row without a recorded source topic id. */
    Row(
        String topic,
        int partition,
        String mirrorName,
        String state,
        String expectedSourceClusterId,
        Map<String, String> clientProperties,
        String knownFrom) {
      this(
          topic,
          partition,
          mirrorName,
          state,
          expectedSourceClusterId,
          clientProperties,
          knownFrom,
          null,
          null);
    }
  }

  /** The file exists but cannot be read: empty, cut short or not the registry's JSON. */
  static final class UnreadableRegistryException extends Exception {
    private static final long serialVersionUID = 1L;

    UnreadableRegistryException(String message, Throwable cause) {
      super(message, cause);
    }
  }

  private final Path file;

  MirrorRegistryFile(Path logDir) {
    this.file = logDir.resolve(FILE_NAME);
  }

  Path path() {
    return file;
  }

  /**
   * The rows of the file; none when there is no file.
   *
   * @throws UnreadableRegistryException when the file exists but is empty or does not parse (a
   *     write cut short by power loss on a file system that did not keep the rename's order): the
   *     caller must not take that as "no mirrors"
   */
  List<Row> read() throws UnreadableRegistryException {
    if (!Files.exists(file)) {
      return List.of();
    }
    try {
      if (Files.size(file) == 0) {
        throw new UnreadableRegistryException("the mirror registry " + file + " is empty", null);
      }
      List<Row> rows = Json.MAPPER.readValue(file.toFile(), new TypeReference<List<Row>>() {});
      if (rows == null) {
        throw new UnreadableRegistryException("the mirror registry " + file + " is null", null);
      }
      return rows;
    } catch (IOException e) {
      throw new UnreadableRegistryException(
          "the mirror registry " + file + " cannot be read: " + e.getMessage(), e);
    }
  }

  /**
   * Keeps a copy of an unreadable file beside it, for inspection, before it is replaced.
   *
   * @return the copy
   */
  Path keepUnreadableCopy() throws IOException {
    Path copy = file.resolveSibling(FILE_NAME + ".unreadable-" + System.currentTimeMillis());
    Files.copy(file, copy, StandardCopyOption.REPLACE_EXISTING);
    return copy;
  }

  /**
   * Replaces the file atomically and durably: the new content is fsynced before the rename, and the
   * directory after it, so that after power loss the file is either the old or the new one, whole.
   */
  void write(List<Row> rows) {
    try {
      Path tmp = file.resolveSibling(FILE_NAME + ".tmp");
      byte[] bytes = Json.MAPPER.writerWithDefaultPrettyPrinter().writeValueAsBytes(rows);
      try (FileChannel ch =
          FileChannel.open(
              tmp,
              StandardOpenOption.CREATE,
              StandardOpenOption.WRITE,
              StandardOpenOption.TRUNCATE_EXISTING)) {
        ByteBuffer buffer = ByteBuffer.wrap(bytes);
        while (buffer.hasRemaining()) {
          ch.write(buffer);
        }
        ch.force(true);
      }
      Files.move(tmp, file, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
      try (FileChannel dir = FileChannel.open(file.getParent(), StandardOpenOption.READ)) {
        dir.force(true);
      }
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
                    e.persistableClientProperties(),
                    e.knownFrom(),
                    e.sourceTopicId(),
                    e.sourceTopicIdPinnedFor())));
    return rows;
  }

  /**
   * Jackson, created when a registry file is read or written rather than when the broker starts: a
   * broker without a registry file (no mirror partitions) does not load its some 370 classes on its
   * start-up thread (docs/benchmarks.md, "Restart after kill -9").
   */
  private static final class Json {
    static final ObjectMapper MAPPER = new ObjectMapper();

    private Json() {}
  }
}
