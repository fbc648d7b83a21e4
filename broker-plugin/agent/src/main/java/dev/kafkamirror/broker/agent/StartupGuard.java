package dev.kafkamirror.broker.agent;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What happens when the agent cannot install (an unsupported Kafka version, a hook target missing,
 * a bad plugin setting): a broker that holds no mirror partitions starts unmodified, as stock
 * Kafka; one that does would serve them writable and skip the MIRROR_PID_RESET rule on recovery, so
 * it refuses to start (exit status {@value #EXIT_STATUS}) with a message that says what to fix,
 * unless {@value PluginConfig#ALLOW_UNPROTECTED_START}{@code =true} says otherwise.
 *
 * <p>"Holds mirror partitions": the registry file ({@code cluster-mirror-registry.json}) of one of
 * its log dirs lists a partition not yet STOPPED, which also covers partitions adopted from the
 * cluster's mirror membership; or the file is there but cannot be read (it might list some).
 *
 * <p>Runs in {@code premain}, before any Kafka class loads, or, for a bad plugin setting, when the
 * broker's live configuration is read (see {@link ClusterMirrorAgent}). Stateless.
 */
final class StartupGuard {

  static final int EXIT_STATUS = 78;
  static final String REGISTRY_FILE = "cluster-mirror-registry.json";

  private static final Logger LOG = LoggerFactory.getLogger("dev.kafkamirror.broker.agent");
  private static final ObjectMapper MAPPER = new ObjectMapper();

  private StartupGuard() {}

  /**
   * Why the broker must not start without the agent, or empty when it may.
   *
   * @param notInstalled why the agent does not install
   * @param settings the broker's settings (and the agent arguments, where readable)
   */
  static Optional<String> refusal(String notInstalled, Map<String, String> settings) {
    if ("true"
        .equalsIgnoreCase(settings.getOrDefault(PluginConfig.ALLOW_UNPROTECTED_START, "").trim())) {
      return Optional.empty();
    }
    List<String> held = mirrorsHeld(logDirs(settings));
    if (held.isEmpty()) {
      return Optional.empty();
    }
    return Optional.of(
        "cluster mirror agent: REFUSING TO START this broker: the agent cannot protect it ("
            + notInstalled
            + ") and it holds mirror partitions that would become writable without a"
            + " MIRROR_PID_RESET barrier: "
            + String.join("; ", held)
            + ". Fix the cause (run a supported Kafka version with this agent, or correct the"
            + " plugin settings), or, to start unprotected anyway and accept writes into those"
            + " mirrors, set "
            + PluginConfig.ALLOW_UNPROTECTED_START
            + "=true");
  }

  /** Applies {@link #refusal}: logs and exits the JVM, or returns when the broker may start. */
  static void refuseOrContinue(String notInstalled, Map<String, String> settings) {
    refuseOrContinue(notInstalled, settings, false);
  }

  /**
   * Applies {@link #refusal}: logs and ends the JVM, or returns when the broker may start.
   *
   * @param brokerStarting true when called from inside the broker's start-up (the plugin's settings
   *     are read from the broker's live configuration there): the JVM is halted rather than exited,
   *     because Kafka's shutdown hook would wait for a start-up that this very thread holds;
   *     nothing is lost, as no partition log is loaded yet
   */
  static void refuseOrContinue(
      String notInstalled, Map<String, String> settings, boolean brokerStarting) {
    Optional<String> refusal = refusal(notInstalled, settings);
    if (refusal.isEmpty()) {
      if ("true"
          .equalsIgnoreCase(
              settings.getOrDefault(PluginConfig.ALLOW_UNPROTECTED_START, "").trim())) {
        LOG.error(
            "cluster mirror agent: {}=true: starting UNPROTECTED; any mirror partitions on this"
                + " broker are writable and barriers are not applied",
            PluginConfig.ALLOW_UNPROTECTED_START);
      }
      return;
    }
    LOG.error(refusal.get());
    System.err.println(refusal.get());
    System.err.flush();
    if (brokerStarting) {
      System.out.flush();
      Runtime.getRuntime().halt(EXIT_STATUS);
    }
    System.exit(EXIT_STATUS);
  }

  static List<Path> logDirs(Map<String, String> settings) {
    String dirs = settings.getOrDefault("log.dirs", settings.get("log.dir"));
    List<Path> out = new ArrayList<>();
    if (dirs != null) {
      for (String d : dirs.split(",")) {
        if (!d.isBlank()) {
          out.add(Path.of(d.trim()));
        }
      }
    }
    return out;
  }

  /**
   * The mirror partitions the registry files list as not STOPPED, or the files that are unreadable.
   */
  static List<String> mirrorsHeld(List<Path> logDirs) {
    List<String> held = new ArrayList<>();
    for (Path dir : logDirs) {
      Path file = dir.resolve(REGISTRY_FILE);
      if (!Files.exists(file)) {
        continue;
      }
      try {
        JsonNode rows = Files.size(file) == 0 ? null : MAPPER.readTree(file.toFile());
        if (rows == null || !rows.isArray()) {
          held.add(file + " is unreadable (it may list mirror partitions)");
          continue;
        }
        for (JsonNode row : rows) {
          String state = row.path("state").asText("");
          if (!state.equals("STOPPED")) {
            held.add(
                row.path("topic").asText("?")
                    + "-"
                    + row.path("partition").asText("?")
                    + " (mirror "
                    + row.path("mirrorName").asText("?")
                    + ", "
                    + state
                    + ", in "
                    + file
                    + ")");
          }
        }
      } catch (IOException e) {
        held.add(file + " is unreadable (it may list mirror partitions): " + e.getMessage());
      }
    }
    return held;
  }
}
