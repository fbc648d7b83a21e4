package dev.kafkamirror.broker.agent;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;

/**
 * The plugin's settings, read from the broker's own {@code server.properties} (and its {@code
 * --override} arguments), so that operators configure the plugin where they configure the broker.
 * Agent arguments ({@code -javaagent:agent.jar=key=value,key=value}) win over the file.
 *
 * <ul>
 *   <li>{@value #BARRIER_RULE_ENABLE}: apply the MIRROR_PID_RESET rule (default {@code true});
 *       {@code false} shows stock Kafka's behaviour, for tests and comparisons only.
 *   <li>{@value #CONTROL_LISTENER}: {@code host:port} of the control endpoint, such as {@code
 *       127.0.0.1:9095}; unset means no endpoint.
 *   <li>{@value #CONTROL_SECRET_FILE} or {@value #CONTROL_SECRET}: the shared secret callers must
 *       present.
 * </ul>
 *
 * <p>Immutable.
 */
public record PluginConfig(
    boolean barrierRuleEnabled,
    Optional<String> controlListener,
    Optional<String> controlSecret,
    Map<String, String> raw) {

  public static final String BARRIER_RULE_ENABLE = "cluster.mirror.barrier.rule.enable";
  public static final String CONTROL_LISTENER = "cluster.mirror.control.listener";
  public static final String CONTROL_SECRET = "cluster.mirror.control.secret";
  public static final String CONTROL_SECRET_FILE = "cluster.mirror.control.secret.file";

  public PluginConfig {
    raw = Map.copyOf(raw);
  }

  /** Settings from key/value pairs; unknown keys are kept in {@link #raw()} and ignored. */
  public static PluginConfig from(Map<String, String> settings) {
    String rule = settings.getOrDefault(BARRIER_RULE_ENABLE, "true").trim();
    if (!rule.equals("true") && !rule.equals("false")) {
      throw new IllegalArgumentException(
          BARRIER_RULE_ENABLE + " must be true or false, got '" + rule + "'");
    }
    Optional<String> listener =
        Optional.ofNullable(settings.get(CONTROL_LISTENER))
            .map(String::trim)
            .filter(s -> !s.isEmpty());
    Optional<String> secret = Optional.ofNullable(settings.get(CONTROL_SECRET)).map(String::trim);
    String secretFile = settings.get(CONTROL_SECRET_FILE);
    if (secretFile != null && !secretFile.isBlank()) {
      try {
        secret = Optional.of(Files.readString(Path.of(secretFile.trim())).trim());
      } catch (IOException e) {
        throw new IllegalArgumentException(
            CONTROL_SECRET_FILE + "=" + secretFile + " cannot be read: " + e.getMessage(), e);
      }
    }
    if (listener.isPresent() && secret.filter(s -> s.length() >= 16).isEmpty()) {
      throw new IllegalArgumentException(
          CONTROL_LISTENER
              + " is set but no secret of at least 16 characters is configured in "
              + CONTROL_SECRET
              + " or "
              + CONTROL_SECRET_FILE
              + ": the control endpoint never accepts anonymous calls");
    }
    return new PluginConfig(Boolean.parseBoolean(rule), listener, secret, settings);
  }

  /**
   * Reads the broker's configuration from its command line ({@code kafka.Kafka server.properties
   * [--override k=v]...}, as the JVM reports it in {@code sun.java.command}), then applies the
   * agent arguments.
   */
  public static PluginConfig fromBrokerCommandLine(String javaCommand, String agentArgs) {
    Map<String, String> settings = new HashMap<>();
    List<String> words =
        javaCommand == null ? List.of() : List.of(javaCommand.trim().split("\\s+"));
    for (int i = 0; i < words.size(); i++) {
      String word = words.get(i);
      if (word.endsWith(".properties") && Files.isRegularFile(Path.of(word))) {
        Properties props = new Properties();
        try (InputStream in = Files.newInputStream(Path.of(word))) {
          props.load(in);
        } catch (IOException e) {
          throw new IllegalArgumentException("cannot read broker config " + word + ": " + e, e);
        }
        props.stringPropertyNames().forEach(k -> settings.put(k, props.getProperty(k)));
      } else if (word.equals("--override") && i + 1 < words.size()) {
        String[] kv = words.get(++i).split("=", 2);
        if (kv.length == 2) {
          settings.put(kv[0], kv[1]);
        }
      }
    }
    settings.putAll(parseAgentArgs(agentArgs));
    return from(settings);
  }

  static Map<String, String> parseAgentArgs(String agentArgs) {
    Map<String, String> settings = new HashMap<>();
    if (agentArgs == null || agentArgs.isBlank()) {
      return settings;
    }
    List<String> bad = new ArrayList<>();
    for (String pair : agentArgs.split(",")) {
      String[] kv = pair.split("=", 2);
      if (kv.length != 2 || kv[0].isBlank()) {
        bad.add(pair);
      } else {
        settings.put(kv[0].trim(), kv[1].trim());
      }
    }
    if (!bad.isEmpty()) {
      throw new IllegalArgumentException(
          "agent arguments must be key=value pairs; cannot read " + bad);
    }
    return settings;
  }
}
