package dev.kafkamirror.broker.agent;

import dev.kafkamirror.broker.agent.control.ControlEndpoint;
import dev.kafkamirror.broker.agent.control.ControlTls;
import dev.kafkamirror.broker.agent.control.RotatingSecret;
import dev.kafkamirror.broker.agent.control.SourceSettingsPolicy;
import java.util.HashMap;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.common.config.ConfigDef;
import org.apache.kafka.common.config.SslConfigs;

/**
 * Which {@code cluster.mirror.*} settings may change as a <em>dynamic broker config</em> ({@code
 * kafka-configs --alter --entity-type brokers}, Admin {@code incrementalAlterConfigs} on a BROKER
 * resource) while the broker runs, decided per key:
 *
 * <ul>
 *   <li><b>live</b> ({@link #LIVE}): {@value SourceSettingsPolicy#ALLOWED_CLASS_SETTINGS} and
 *       {@value SourceSettingsPolicy#ALLOWED_LOGIN_MODULES}, the lists a {@code /v1/mirror/start}
 *       is checked against at each call; a change applies to the next call.
 *   <li><b>secret</b> ({@link #isSecret}): the control and stop-state secrets, and every password,
 *       key, client secret or JAAS configuration under {@value PluginConfig#LOCAL_CLIENT_PREFIX}
 *       and {@code cluster.mirror.control.ssl.}. Refused: the plugin reads secrets only at start
 *       (the control secret also from its file), and a KRaft cluster keeps a dynamic value in clear
 *       in its metadata log, on the disks of every controller and broker (DescribeConfigs hides the
 *       value of a key Kafka does not know, as sensitive). They belong in server.properties as
 *       config provider references or in the {@code *.secret.file}s.
 *   <li><b>start-only</b>: everything else (the listener, the stop-state topic and its partition
 *       count, the local client's bootstrap, TLS, the endpoint's threads and limits, the barrier
 *       rule switch, the secret files, the unprotected-start override, a name the plugin does not
 *       know). The plugin builds what they configure once, when the broker starts; refused with
 *       "set it in server.properties and roll the brokers".
 * </ul>
 *
 * <p>A change is judged against the settings the broker started with (its {@code KafkaConfig}):
 * Kafka hands a reconfigurable the whole new configuration, static values included, so a key counts
 * as changed when its new value differs from the start-up one, or it appeared or went away. A
 * dynamic value equal to the start-up one changes nothing, and Kafka does not ask the plugin about
 * it.
 *
 * <p>Stateless and thread-safe.
 */
public final class DynamicSettings {

  /** What the plugin does with a dynamic value of a key. */
  public enum Kind {
    LIVE,
    START_ONLY,
    SECRET
  }

  /** The settings that may change while the broker runs. */
  public static final Set<String> LIVE =
      Set.of(
          SourceSettingsPolicy.ALLOWED_CLASS_SETTINGS, SourceSettingsPolicy.ALLOWED_LOGIN_MODULES);

  /** Every setting of the plugin that has a name of its own (not a prefix). */
  public static final Set<String> KEYS =
      Set.of(
          PluginConfig.BARRIER_RULE_ENABLE,
          PluginConfig.CONTROL_LISTENER,
          PluginConfig.CONTROL_SECRET,
          PluginConfig.CONTROL_SECRET_FILE,
          PluginConfig.STATE_TOPIC,
          PluginConfig.STATE_TOPIC_PARTITIONS,
          PluginConfig.LOCAL_BOOTSTRAP,
          PluginConfig.STATE_SECRET,
          PluginConfig.STATE_SECRET_FILE,
          PluginConfig.ALLOW_UNPROTECTED_START,
          ControlTls.INSECURE_PLAINTEXT,
          RotatingSecret.GRACE_MS,
          ControlEndpoint.THREADS,
          ControlEndpoint.QUEUE_SIZE,
          ControlEndpoint.MAX_CONNECTIONS,
          ControlEndpoint.REQUEST_READ_TIMEOUT_MS,
          ControlEndpoint.IDLE_TIMEOUT_MS,
          SourceSettingsPolicy.ALLOWED_CLASS_SETTINGS,
          SourceSettingsPolicy.ALLOWED_LOGIN_MODULES);

  /** The prefix of the control endpoint's TLS settings (Kafka's {@code ssl.*} below it). */
  public static final String CONTROL_SSL_PREFIX = ControlTls.PREFIX + "ssl.";

  /** Every {@code cluster.mirror.*} key starts with this. */
  public static final String PLUGIN_PREFIX = "cluster.mirror.";

  private DynamicSettings() {}

  /** What the plugin does with a dynamic value of {@code key} (a {@code cluster.mirror.*} key). */
  public static Kind kind(String key) {
    if (LIVE.contains(key)) {
      return Kind.LIVE;
    }
    return isSecret(key) ? Kind.SECRET : Kind.START_ONLY;
  }

  /**
   * Whether {@code key} holds a secret: the control or stop-state secret, or under the local client
   * or control TLS prefix a setting whose name says password, secret, JAAS configuration or private
   * key (Kafka's PASSWORD-typed client settings all do).
   */
  public static boolean isSecret(String key) {
    if (key.equals(PluginConfig.CONTROL_SECRET) || key.equals(PluginConfig.STATE_SECRET)) {
      return true;
    }
    String setting;
    if (key.startsWith(PluginConfig.LOCAL_CLIENT_PREFIX)) {
      setting = key.substring(PluginConfig.LOCAL_CLIENT_PREFIX.length());
    } else if (key.startsWith(CONTROL_SSL_PREFIX)) {
      setting = key.substring(ControlTls.PREFIX.length());
    } else {
      return false;
    }
    setting = setting.toLowerCase(Locale.ROOT);
    return setting.contains("password")
        || setting.contains("secret")
        || setting.endsWith("jaas.config")
        || setting.equals(SslConfigs.SSL_KEYSTORE_KEY_CONFIG);
  }

  /**
   * The keys Kafka must ask the plugin about when a dynamic value of one of them changes: every
   * named setting, and every Kafka client setting under {@value PluginConfig#LOCAL_CLIENT_PREFIX}
   * and {@code ssl.*} setting under {@value #CONTROL_SSL_PREFIX}. Kafka asks a reconfigurable only
   * about the exact names it lists, so a name outside this set (a typo) is stored by Kafka without
   * the plugin being asked; the plugin never reads it.
   */
  public static Set<String> watchedKeys() {
    Set<String> keys = new TreeSet<>(KEYS);
    Set<String> clientSettings = new TreeSet<>();
    clientSettings.addAll(AdminClientConfig.configNames());
    clientSettings.addAll(ProducerConfig.configNames());
    clientSettings.addAll(ConsumerConfig.configNames());
    clientSettings.forEach(k -> keys.add(PluginConfig.LOCAL_CLIENT_PREFIX + k));
    ConfigDef ssl = new ConfigDef();
    SslConfigs.addClientSslSupport(ssl);
    ssl.names().forEach(k -> keys.add(ControlTls.PREFIX + k));
    keys.add(ControlTls.PREFIX + "ssl.client.auth");
    return Set.copyOf(keys);
  }

  /**
   * Why the broker refuses {@code proposed}, a whole new configuration Kafka is about to apply or
   * validate, or empty when every {@code cluster.mirror.*} change in it is live. Names every
   * refused key and what to do, never a value.
   *
   * @param startup the settings the broker started with (its resolved {@code KafkaConfig})
   * @param agentKeys the keys the agent arguments set (they win over any broker setting)
   */
  public static Optional<String> refusal(
      Map<String, String> proposed,
      Map<String, String> startup,
      Set<String> agentKeys,
      int brokerId) {
    Set<String> secrets = new TreeSet<>();
    Set<String> startOnly = new TreeSet<>();
    Set<String> byAgent = new TreeSet<>();
    for (String key : changed(proposed, startup)) {
      switch (kind(key)) {
        case SECRET -> secrets.add(key);
        case START_ONLY -> startOnly.add(key);
        case LIVE -> {
          if (agentKeys.contains(key)) {
            byAgent.add(key);
          }
        }
      }
    }
    if (secrets.isEmpty() && startOnly.isEmpty() && byAgent.isEmpty()) {
      return Optional.empty();
    }
    StringBuilder why =
        new StringBuilder("broker ")
            .append(brokerId)
            .append(" refuses the dynamic broker config of the cluster mirror plugin");
    if (!secrets.isEmpty()) {
      why.append("; ")
          .append(secrets)
          .append(
              " hold secrets, which Kafka would keep in clear in its metadata log on every"
                  + " controller and broker, and which the plugin reads only at start: give them in"
                  + " server.properties as a config provider reference (${file:...}, ${dir:...},"
                  + " ${env:...}) or through ")
          .append(PluginConfig.CONTROL_SECRET_FILE)
          .append(" / ")
          .append(PluginConfig.STATE_SECRET_FILE)
          .append(" and roll the brokers (the control secret rotates without a restart through ")
          .append(PluginConfig.CONTROL_SECRET_FILE)
          .append(")");
    }
    if (!startOnly.isEmpty()) {
      why.append("; ")
          .append(startOnly)
          .append(
              " are read only when the broker starts: set them in server.properties and roll the"
                  + " brokers");
    }
    if (!byAgent.isEmpty()) {
      why.append("; ")
          .append(byAgent)
          .append(
              " are set by the agent arguments (-javaagent:...=key=value), which win over the"
                  + " broker's settings: change them there and restart the broker");
    }
    why.append(
        ". If Kafka stored the value anyway (an alter sent to the controller directly), delete"
            + " it: kafka-configs --alter --entity-type brokers --entity-name <id> (or"
            + " --entity-default) --delete-config <key>");
    if (!secrets.isEmpty()) {
      why.append(
          ", and rotate that secret: it was sent to the cluster, and Kafka's own log of a refused"
              + " alter shows it");
    }
    return Optional.of(why.toString());
  }

  /**
   * The settings the plugin runs with after a dynamic change: the start-up ones with the {@link
   * #LIVE} keys taken from {@code proposed} (a live key absent there falls back to its start-up
   * value), the agent arguments winning over both.
   */
  public static Map<String, String> applied(
      Map<String, String> proposed, Map<String, String> startup, Map<String, String> agent) {
    Map<String, String> out = new HashMap<>(startup);
    for (String key : LIVE) {
      String value = proposed.get(key);
      if (value != null) {
        out.put(key, value);
      } else {
        out.remove(key);
      }
    }
    out.putAll(agent);
    return out;
  }

  /** The {@code cluster.mirror.*} keys whose value in {@code proposed} is not the start-up one. */
  static Set<String> changed(Map<String, String> proposed, Map<String, String> startup) {
    Set<String> keys = new TreeSet<>();
    for (String key : proposed.keySet()) {
      if (key.startsWith(PLUGIN_PREFIX) && !Objects.equals(proposed.get(key), startup.get(key))) {
        keys.add(key);
      }
    }
    for (String key : startup.keySet()) {
      if (key.startsWith(PLUGIN_PREFIX) && !proposed.containsKey(key)) {
        keys.add(key);
      }
    }
    return keys;
  }
}
