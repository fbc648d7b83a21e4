package dev.kafkamirror.broker.agent;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/**
 * The plugin's settings, read from the broker's own live configuration (Kafka's {@code
 * KafkaConfig}: {@code server.properties} and its {@code --override} arguments, with config
 * provider references such as {@code ${file:/path:key}} resolved by Kafka), so that operators
 * configure the plugin where and how they configure the broker. Agent arguments ({@code
 * -javaagent:agent.jar=key=value,...}) win over the broker's settings. Read once, when the broker
 * builds its ReplicaManager, which Kafka 4.4 does before it applies the dynamic broker configs of
 * the metadata log. A dynamic {@code cluster.mirror.*} key ({@code kafka-configs --alter}) is
 * refused, except the few {@link DynamicSettings#LIVE} ones, which change live without a new
 * PluginConfig (see {@link DynamicSettings}).
 *
 * <ul>
 *   <li>{@value #BARRIER_RULE_ENABLE}: apply the MIRROR_PID_RESET rule (default {@code true});
 *       {@code false} shows stock Kafka's behaviour, for tests and comparisons only.
 *   <li>{@value #CONTROL_LISTENER}: {@code host:port} of the control endpoint, such as {@code
 *       127.0.0.1:9095}; unset means no endpoint.
 *   <li>{@value #CONTROL_SECRET_FILE} or {@value #CONTROL_SECRET}: the shared secret callers must
 *       present.
 *   <li>{@value #STATE_TOPIC} (default {@value #DEFAULT_STATE_TOPIC}) and {@value
 *       #STATE_TOPIC_PARTITIONS} (default 10): the compacted topic on this (the destination)
 *       cluster that holds the durable stop progress of every mirror partition.
 *   <li>{@value #LOCAL_BOOTSTRAP}: how the plugin's own clients (stop state, leader fencing) reach
 *       this cluster; by default this broker's advertised listener named by {@code
 *       inter.broker.listener.name}. Client settings such as {@code security.protocol} or {@code
 *       sasl.jaas.config} go under the prefix {@value #LOCAL_CLIENT_PREFIX}.
 *   <li>{@value #STATE_SECRET_FILE} or {@value #STATE_SECRET}: the key (at least 16 characters, the
 *       same on every broker of the cluster) that authenticates the records of the stop-state
 *       topic; by default a key derived from the control secret. See {@link #stateRecordKey()}.
 *   <li>{@value #ALLOW_UNPROTECTED_START} (default {@code false}): when the agent cannot install
 *       (unsupported Kafka, missing hook, bad setting) on a broker that holds mirror partitions,
 *       start the broker anyway, unmodified, with those partitions writable and no barriers
 *       applied. Without it such a broker refuses to start (see {@link StartupGuard}).
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
  public static final String STATE_TOPIC = "cluster.mirror.state.topic";
  public static final String DEFAULT_STATE_TOPIC = "__cluster_mirror_state";
  public static final String STATE_TOPIC_PARTITIONS = "cluster.mirror.state.topic.partitions";
  public static final String LOCAL_BOOTSTRAP = "cluster.mirror.local.bootstrap.servers";
  public static final String LOCAL_CLIENT_PREFIX = "cluster.mirror.local.client.";
  public static final String STATE_SECRET = "cluster.mirror.state.secret";
  public static final String STATE_SECRET_FILE = "cluster.mirror.state.secret.file";
  public static final String ALLOW_UNPROTECTED_START =
      "cluster.mirror.agent.allow.unprotected.start";

  public PluginConfig {
    raw = Map.copyOf(raw);
  }

  /**
   * Names the settings but shows no value: {@link #raw()} holds the broker's resolved secrets
   * (passwords, the control secret, JAAS configurations), which never go to a log.
   */
  @Override
  public String toString() {
    return "PluginConfig[barrierRuleEnabled="
        + barrierRuleEnabled
        + ", controlListener="
        + controlListener.orElse("none")
        + ", settings="
        + new java.util.TreeSet<>(raw.keySet())
        + "]";
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
   * The broker's own settings from its command line (properties file and {@code --override}s),
   * without the agent arguments and without validating anything. Only a fallback for {@link
   * StartupGuard} when the agent cannot install or the broker's live configuration cannot be read:
   * config provider references ({@code ${file:...}}) stay unresolved here.
   *
   * @throws IllegalArgumentException when the properties file cannot be read
   */
  public static Map<String, String> brokerSettings(String javaCommand) {
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
    return settings;
  }

  /**
   * The agent arguments ({@code key=value,key=value}).
   *
   * @throws IllegalArgumentException naming the pairs that are not {@code key=value}
   */
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

  /** This broker's id ({@code node.id}, or {@code broker.id}), -1 when absent. */
  public int brokerId() {
    String id = raw.getOrDefault("node.id", raw.getOrDefault("broker.id", "-1")).trim();
    try {
      return Integer.parseInt(id);
    } catch (NumberFormatException e) {
      return -1;
    }
  }

  /** The stop-state topic's name. */
  public String stateTopic() {
    return raw.getOrDefault(STATE_TOPIC, DEFAULT_STATE_TOPIC).trim();
  }

  /** The stop-state topic's partition count when the plugin creates it. */
  public int stateTopicPartitions() {
    String value = raw.getOrDefault(STATE_TOPIC_PARTITIONS, "10").trim();
    try {
      int n = Integer.parseInt(value);
      if (n >= 1 && n <= 1000) {
        return n;
      }
    } catch (NumberFormatException e) {
      // reported below
    }
    throw new IllegalArgumentException(
        STATE_TOPIC_PARTITIONS + " must be an integer from 1 to 1000, got '" + value + "'");
  }

  /**
   * Client properties for the plugin's clients of this (the destination) cluster: {@value
   * #LOCAL_BOOTSTRAP} or this broker's inter-broker advertised listener, plus every {@value
   * #LOCAL_CLIENT_PREFIX}{@code *} setting.
   *
   * @throws IllegalArgumentException when no bootstrap can be derived, or the derived listener is
   *     secured and no {@code security.protocol} is given, naming the settings to set
   */
  public Properties localClientProperties() {
    Properties props = new Properties();
    raw.forEach(
        (k, v) -> {
          if (k.startsWith(LOCAL_CLIENT_PREFIX)) {
            props.put(k.substring(LOCAL_CLIENT_PREFIX.length()), v.trim());
          }
        });
    String bootstrap = raw.get(LOCAL_BOOTSTRAP);
    if (bootstrap != null && !bootstrap.isBlank()) {
      props.put("bootstrap.servers", bootstrap.trim());
      return props;
    }
    String listenerName = raw.getOrDefault("inter.broker.listener.name", "PLAINTEXT").trim();
    String advertised = raw.getOrDefault("advertised.listeners", raw.get("listeners"));
    String address = null;
    if (advertised != null) {
      for (String entry : advertised.split(",")) {
        String[] parts = entry.trim().split("://", 2);
        if (parts.length == 2 && parts[0].equalsIgnoreCase(listenerName)) {
          address = parts[1];
        }
      }
    }
    if (address == null || address.startsWith(":") || address.startsWith("0.0.0.0:")) {
      throw new IllegalArgumentException(
          "cannot derive how the plugin reaches this cluster from listener "
              + listenerName
              + " in advertised.listeners="
              + advertised
              + "; set "
              + LOCAL_BOOTSTRAP);
    }
    String protocol = listenerName;
    String map = raw.get("listener.security.protocol.map");
    if (map != null) {
      for (String entry : map.split(",")) {
        String[] kv = entry.trim().split(":", 2);
        if (kv.length == 2 && kv[0].equalsIgnoreCase(listenerName)) {
          protocol = kv[1].trim();
        }
      }
    }
    if (!protocol.equalsIgnoreCase("PLAINTEXT") && !props.containsKey("security.protocol")) {
      throw new IllegalArgumentException(
          "listener "
              + listenerName
              + " uses "
              + protocol
              + "; give the plugin's client settings under "
              + LOCAL_CLIENT_PREFIX
              + " (security.protocol, sasl.*, ssl.*) or set "
              + LOCAL_BOOTSTRAP);
    }
    props.put("bootstrap.servers", address);
    return props;
  }

  /**
   * The key that authenticates the stop-state topic's records: {@value #STATE_SECRET_FILE} or
   * {@value #STATE_SECRET} when set, else a key derived from the control secret; empty when neither
   * is configured (then the plugin writes no stop state and trusts none). The one place the key
   * comes from.
   *
   * @throws IllegalArgumentException when a state secret is set but shorter than 16 characters, or
   *     its file cannot be read
   */
  public Optional<byte[]> stateRecordKey() {
    Optional<String> secret = Optional.ofNullable(raw.get(STATE_SECRET)).map(String::trim);
    String file = raw.get(STATE_SECRET_FILE);
    if (file != null && !file.isBlank()) {
      try {
        secret = Optional.of(Files.readString(Path.of(file.trim())).trim());
      } catch (IOException e) {
        throw new IllegalArgumentException(
            STATE_SECRET_FILE + "=" + file + " cannot be read: " + e.getMessage(), e);
      }
    }
    if (secret.isPresent()) {
      if (secret.get().length() < 16) {
        throw new IllegalArgumentException(
            "the stop-state secret in "
                + STATE_SECRET
                + " or "
                + STATE_SECRET_FILE
                + " must have at least 16 characters");
      }
      return Optional.of(deriveStateRecordKey(secret.get()));
    }
    return controlSecret().filter(s -> s.length() >= 16).map(PluginConfig::deriveStateRecordKey);
  }

  /**
   * Derives the stop-state MAC key from a secret (the state secret, or the control secret), for
   * that one purpose only: HMAC-SHA256 keyed by the secret over a fixed label. Here, not in the
   * Kafka-version package that uses the key, because the settings are version-neutral.
   */
  public static byte[] deriveStateRecordKey(String secret) {
    try {
      Mac mac = Mac.getInstance("HmacSHA256");
      mac.init(new SecretKeySpec(secret.getBytes(StandardCharsets.UTF_8), "HmacSHA256"));
      return mac.doFinal("cluster-mirror stop-state MAC key v1".getBytes(StandardCharsets.UTF_8));
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException("HmacSHA256 is not available in this JVM", e);
    }
  }
}
