package dev.kafkamirror.broker.agent;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.kafkamirror.broker.agent.control.SourceSettingsPolicy;
import dev.kafkamirror.testing.kafka.KafkaCluster;
import dev.kafkamirror.testing.plugin.PluginControlClient;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.AlterConfigOp;
import org.apache.kafka.clients.admin.Config;
import org.apache.kafka.clients.admin.ConfigEntry;
import org.apache.kafka.common.config.ConfigResource;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;

/**
 * Dynamic broker configs ({@code kafka-configs --alter --entity-type brokers}, that is {@link
 * Admin#incrementalAlterConfigs} on a BROKER resource) of {@code cluster.mirror.*} keys on a real
 * Kafka 4.4 cluster (a controller and two brokers) with the agent: a live setting takes effect at
 * once and again after a restart, set per broker or for all brokers, a per-broker value winning
 * over the cluster default; a setting read only at start and a secret are refused with an error
 * naming the key, and nothing of the refused alter is stored; a refused setting sent straight to
 * the controller, which does not ask the broker, is never used by the plugin, neither live nor when
 * the broker starts with it stored.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class DynamicPluginConfigIT {

  private static final String ABSENT_TOPIC = "dyn-absent";
  private static final String CLASS_SETTING = "sasl.login.callback.handler.class";
  private static final String A_CLASS =
      "org.apache.kafka.common.security.authenticator.SaslClientCallbackHandler";
  private static final String OTHER_SETTING = "ssl.engine.factory.class";
  private static final Duration WAIT = Duration.ofSeconds(30);
  private static final ConfigResource BROKER_1 =
      new ConfigResource(ConfigResource.Type.BROKER, "1");
  private static final ConfigResource BROKER_2 =
      new ConfigResource(ConfigResource.Type.BROKER, "2");
  private static final ConfigResource ALL_BROKERS =
      new ConfigResource(ConfigResource.Type.BROKER, "");

  private static KafkaCluster cluster;

  @BeforeAll
  static void start() {
    // Two brokers, so that a setting for all brokers is seen on each, and a per-broker value on one
    // only
    cluster = AgentClusters.withAgent("dyn-config").controllerPlusBrokers(2).start();
  }

  @AfterAll
  static void stop() {
    if (cluster != null) {
      cluster.close();
    }
  }

  @Test
  @Order(1)
  void aLiveSettingSetAsADynamicBrokerConfigTakesEffectAtOnceAndAgainAfterARestart()
      throws Exception {
    // Given a broker that refuses a mirror start passing a source setting that names a class
    assertThat(startNamingAClass().status()).isEqualTo(403);
    assertThat(startNamingAClass().body().toString())
        .contains(SourceSettingsPolicy.ALLOWED_CLASS_SETTINGS);
    try (Admin admin = cluster.admin()) {
      // When the setting that allows it is set as a dynamic config of this broker
      alter(admin, BROKER_1, AlterConfigOp.OpType.SET, Map.of(allowedClasses(), CLASS_SETTING));
      // Then the broker no longer refuses the setting, without a restart
      PluginControlClient.Response live = awaitStart(r -> r.status() != 403);
      assertThat(live.body().toString()).doesNotContain("FORBIDDEN_SETTING");
      assertThat(live.status()).isEqualTo(200);
      // And after a restart the dynamic value is applied again at start-up
      cluster.stopBroker(1);
      cluster.restartBroker(1);
      PluginControlClient.Response afterRestart = awaitStart(r -> r.status() != 403);
      assertThat(afterRestart.status()).isEqualTo(200);
      // And deleting the dynamic value brings the refusal back, live
      alter(admin, BROKER_1, AlterConfigOp.OpType.DELETE, Map.of(allowedClasses(), ""));
      assertThat(awaitStart(r -> r.status() == 403).body().toString())
          .contains(SourceSettingsPolicy.ALLOWED_CLASS_SETTINGS);
    }
  }

  @Test
  @Order(2)
  void aSettingReadOnlyAtStartIsRefusedAsADynamicConfigNamingTheKeyAndTheFix() throws Exception {
    try (Admin admin = cluster.admin()) {
      for (ConfigResource resource : List.of(BROKER_1, ALL_BROKERS)) {
        // When a setting the plugin reads only at start is set dynamically, per broker or for all
        // Then the alter fails naming the key, and saying to set it in server.properties and roll
        assertThatThrownBy(
                () ->
                    alter(
                        admin,
                        resource,
                        AlterConfigOp.OpType.SET,
                        Map.of(PluginConfig.STATE_TOPIC_PARTITIONS, "3")))
            .isInstanceOf(ExecutionException.class)
            .hasMessageContaining(PluginConfig.STATE_TOPIC_PARTITIONS)
            .hasMessageContaining("server.properties")
            .hasMessageContaining("roll the brokers");
        // And nothing is stored
        assertThat(dynamicKeys(admin, resource))
            .doesNotContain(PluginConfig.STATE_TOPIC_PARTITIONS);
      }
    }
  }

  @Test
  @Order(3)
  void aSecretIsRefusedAsADynamicConfigAndNoneOfTheRefusedAlterIsStored() throws Exception {
    String newSecret = "dynamic-secret-0123456789";
    try (Admin admin = cluster.admin()) {
      for (String secretKey :
          List.of(
              PluginConfig.CONTROL_SECRET,
              PluginConfig.STATE_SECRET,
              PluginConfig.LOCAL_CLIENT_PREFIX + "sasl.jaas.config",
              "cluster.mirror.control.ssl.keystore.password")) {
        // When a secret-bearing key is set dynamically, in one alter with a live setting
        assertThatThrownBy(
                () ->
                    alter(
                        admin,
                        BROKER_1,
                        AlterConfigOp.OpType.SET,
                        Map.of(secretKey, newSecret, allowedClasses(), CLASS_SETTING)))
            // Then the alter fails naming the key and where a secret goes instead
            .isInstanceOf(ExecutionException.class)
            .hasMessageContaining(secretKey)
            .hasMessageContaining("config provider")
            .hasMessageNotContaining(newSecret);
        // And neither the secret nor the live setting of the same alter is stored
        Config described = describe(admin, BROKER_1);
        assertThat(dynamicKeys(described)).doesNotContain(secretKey, allowedClasses());
        assertThat(described.entries().stream().map(ConfigEntry::value)).doesNotContain(newSecret);
      }
      // And the plugin never logs the refused value: the only broker log lines that hold it are
      // Kafka's own ConfigAdminManager error (documented in broker-plugin.md)
      List<String> linesWithTheSecret =
          cluster.node(1).outputSinceStart().lines().filter(l -> l.contains(newSecret)).toList();
      assertThat(linesWithTheSecret)
          .allSatisfy(l -> assertThat(l).contains("validation of configProps"));
      // And the live setting was not applied either
      assertThat(startNamingAClass().status()).isEqualTo(403);
    }
  }

  @Test
  @Order(4)
  void aRefusedSettingSentStraightToTheControllerIsNeverUsedByThePlugin() throws Exception {
    String bypassSecret = "controller-secret-0123456789";
    String hostPort = cluster.listenerOf(1, PluginControlClient.LISTENER_PROPERTY);
    try (Admin controller = controllerAdmin();
        Admin admin = cluster.admin()) {
      // Given a new control secret set as a dynamic config through the controller, which does not
      // ask the broker to validate it (Kafka stores it)
      long refusalsBefore = refusalsLogged();
      alter(
          controller,
          BROKER_1,
          AlterConfigOp.OpType.SET,
          Map.of(PluginConfig.CONTROL_SECRET, bypassSecret));
      // When the broker applies it: the plugin refuses it (logging the key, not the value) and
      // Kafka keeps the broker's previous dynamic configuration
      awaitOutput(
          out ->
              out.contains("Per-broker configs of 1 could not be applied")
                  && refusalsLogged() > refusalsBefore);
      assertThat(cluster.node(1).outputSinceStart()).doesNotContain(bypassSecret);
      // And Kafka stored it: DescribeConfigs lists the key as a dynamic config of the broker
      awaitStored(admin, PluginConfig.CONTROL_SECRET);
      ConfigEntry stored = describe(admin, BROKER_1).get(PluginConfig.CONTROL_SECRET);
      // (its value hidden: Kafka 4.4 treats a key it does not know as sensitive)
      assertThat(stored.isSensitive()).isTrue();
      assertThat(stored.value()).isNull();
      // Then the control endpoint still takes only the secret of server.properties
      assertOnlyTheStaticSecretIsTaken(hostPort, bypassSecret);
      // And while it is stored, an alter through the broker is refused naming it
      assertThatThrownBy(
              () ->
                  alter(
                      admin,
                      BROKER_1,
                      AlterConfigOp.OpType.SET,
                      Map.of(allowedClasses(), CLASS_SETTING)))
          .hasMessageContaining(PluginConfig.CONTROL_SECRET);
      // And once it is deleted, live settings apply again
      alter(
          controller,
          BROKER_1,
          AlterConfigOp.OpType.DELETE,
          Map.of(PluginConfig.CONTROL_SECRET, ""));
      awaitNotStored(admin, PluginConfig.CONTROL_SECRET);
      alter(admin, BROKER_1, AlterConfigOp.OpType.SET, Map.of(allowedClasses(), CLASS_SETTING));
      assertThat(awaitStart(r -> r.status() != 403).status()).isEqualTo(200);
      alter(admin, BROKER_1, AlterConfigOp.OpType.DELETE, Map.of(allowedClasses(), ""));
    }
  }

  @Test
  @Order(5)
  void aLiveSettingSetForAllBrokersTakesEffectAtOnceOnEachAndAPerBrokerValueOverridesIt()
      throws Exception {
    // Given brokers that refuse a mirror start passing a source setting that names a class
    for (int broker : cluster.brokerIds()) {
      awaitStart(broker, r -> r.status() == 403);
    }
    try (Admin admin = cluster.admin()) {
      // When the setting that allows it is set as the cluster-wide default of every broker
      // (kafka-configs --alter --entity-type brokers --entity-default)
      alter(admin, ALL_BROKERS, AlterConfigOp.OpType.SET, Map.of(allowedClasses(), CLASS_SETTING));
      // Then no broker refuses the setting any more, without a restart
      for (int broker : cluster.brokerIds()) {
        assertThat(awaitStart(broker, r -> r.status() != 403).status()).isEqualTo(200);
      }
      // And each broker shows it as the cluster default
      for (ConfigResource broker : List.of(BROKER_1, BROKER_2)) {
        assertThat(describe(admin, broker).get(allowedClasses()).source())
            .isEqualTo(ConfigEntry.ConfigSource.DYNAMIC_DEFAULT_BROKER_CONFIG);
      }
      // When broker 1 gets a value of its own that does not allow the class setting
      alter(admin, BROKER_1, AlterConfigOp.OpType.SET, Map.of(allowedClasses(), OTHER_SETTING));
      // Then on broker 1 it wins over the cluster default (Kafka's precedence): refused again
      assertThat(awaitStart(1, r -> r.status() == 403).body().toString())
          .contains(SourceSettingsPolicy.ALLOWED_CLASS_SETTINGS);
      assertThat(describe(admin, BROKER_1).get(allowedClasses()).source())
          .isEqualTo(ConfigEntry.ConfigSource.DYNAMIC_BROKER_CONFIG);
      // And broker 2 keeps the cluster default
      assertThat(startNamingAClass(2).status()).isEqualTo(200);
      // When broker 1's own value is deleted, the cluster default is in force there again
      alter(admin, BROKER_1, AlterConfigOp.OpType.DELETE, Map.of(allowedClasses(), ""));
      assertThat(awaitStart(1, r -> r.status() != 403).status()).isEqualTo(200);
      // And when the cluster default is deleted too, server.properties is in force: refused
      alter(admin, ALL_BROKERS, AlterConfigOp.OpType.DELETE, Map.of(allowedClasses(), ""));
      for (int broker : cluster.brokerIds()) {
        assertThat(awaitStart(broker, r -> r.status() == 403).body().toString())
            .contains(SourceSettingsPolicy.ALLOWED_CLASS_SETTINGS);
      }
    }
  }

  @Test
  @Order(6)
  void aRefusedSettingStoredBeforeTheBrokerStartsIsNotUsedAtStartUpAndTheLogSaysWhatToDo()
      throws Exception {
    String storedSecret = "stored-secret-0123456789";
    try (Admin controller = controllerAdmin()) {
      // Given a control secret and a live setting stored as dynamic configs of the broker through
      // the controller, which does not ask the broker (the plugin refuses the update live)
      alter(
          controller,
          BROKER_1,
          AlterConfigOp.OpType.SET,
          Map.of(PluginConfig.CONTROL_SECRET, storedSecret, allowedClasses(), CLASS_SETTING));
      try (Admin admin = cluster.admin()) {
        awaitStored(admin, PluginConfig.CONTROL_SECRET);
      }
      // When the broker restarts with them in the cluster metadata
      cluster.stopBroker(1);
      cluster.restartBroker(1);
      String hostPort = cluster.listenerOf(1, PluginControlClient.LISTENER_PROPERTY);
      // Then the plugin refuses them at start-up too, in the broker log naming the key and how to
      // remove it, never the value
      awaitOutput(out -> refusalsLogged() > 0);
      String refusal =
          cluster
              .node(1)
              .outputSinceStart()
              .lines()
              .filter(l -> l.contains("refuses the dynamic broker config"))
              .findFirst()
              .orElseThrow();
      assertThat(refusal)
          .contains(PluginConfig.CONTROL_SECRET)
          .contains("--delete-config")
          .contains("rotate that secret");
      assertThat(cluster.node(1).outputSinceStart()).doesNotContain(storedSecret);
      // And the control endpoint takes only the secret of server.properties
      assertOnlyTheStaticSecretIsTaken(hostPort, storedSecret);
      // And the live setting stored in the same refused update is not in force either: the
      // static value of server.properties is (fail closed)
      assertThat(startNamingAClass().status()).isEqualTo(403);
      // And once the stored keys are deleted, the refusal is gone without a restart
      alter(
          controller,
          BROKER_1,
          AlterConfigOp.OpType.DELETE,
          Map.of(PluginConfig.CONTROL_SECRET, "", allowedClasses(), ""));
      try (Admin admin = cluster.admin()) {
        awaitNotStored(admin, PluginConfig.CONTROL_SECRET);
        alter(admin, BROKER_1, AlterConfigOp.OpType.SET, Map.of(allowedClasses(), CLASS_SETTING));
        assertThat(awaitStart(r -> r.status() != 403).status()).isEqualTo(200);
        alter(admin, BROKER_1, AlterConfigOp.OpType.DELETE, Map.of(allowedClasses(), ""));
      }
    }
  }

  private static String allowedClasses() {
    return SourceSettingsPolicy.ALLOWED_CLASS_SETTINGS;
  }

  /**
   * A mirror start on broker 1 whose source settings name a class; see {@link
   * #startNamingAClass(int)}.
   */
  private static PluginControlClient.Response startNamingAClass() {
    return startNamingAClass(1);
  }

  /** A mirror start whose source settings name a class; refused unless {@code broker} allows it. */
  private static PluginControlClient.Response startNamingAClass(int broker) {
    return new PluginControlClient(
            cluster.listenerOf(broker, PluginControlClient.LISTENER_PROPERTY),
            PluginControlClient.TEST_SECRET)
        .startMirroring(
            "dyn-mirror",
            cluster.bootstrapServers(),
            cluster.clusterId(),
            Map.of(CLASS_SETTING, A_CLASS),
            ABSENT_TOPIC,
            0);
  }

  /** {@link #awaitStart(int, Predicate)} on broker 1. */
  private static PluginControlClient.Response awaitStart(
      Predicate<PluginControlClient.Response> done) throws InterruptedException {
    return awaitStart(1, done);
  }

  /** Repeats {@link #startNamingAClass(int)} until {@code done}, for at most {@link #WAIT}. */
  private static PluginControlClient.Response awaitStart(
      int broker, Predicate<PluginControlClient.Response> done) throws InterruptedException {
    long deadline = System.nanoTime() + WAIT.toNanos();
    PluginControlClient.Response last = startNamingAClass(broker);
    while (!done.test(last)) {
      if (System.nanoTime() > deadline) {
        throw new AssertionError(
            "no expected answer from broker " + broker + " within " + WAIT + "; last: " + last);
      }
      Thread.sleep(200);
      last = startNamingAClass(broker);
    }
    return last;
  }

  /** Waits until the broker's DescribeConfigs shows a dynamic value of {@code key}. */
  /**
   * The control endpoint at {@code hostPort} refuses {@code refusedSecret} (401) and takes the
   * secret of server.properties.
   */
  private static void assertOnlyTheStaticSecretIsTaken(String hostPort, String refusedSecret) {
    assertThat(new PluginControlClient(hostPort, refusedSecret).describe(ABSENT_TOPIC).status())
        .isEqualTo(401);
    assertThat(
            new PluginControlClient(hostPort, PluginControlClient.TEST_SECRET)
                .describe(ABSENT_TOPIC)
                .status())
        .isNotEqualTo(401);
  }

  private static void awaitStored(Admin admin, String key) throws Exception {
    long deadline = System.nanoTime() + WAIT.toNanos();
    while (!dynamicKeys(admin, BROKER_1).contains(key)) {
      if (System.nanoTime() > deadline) {
        throw new AssertionError("broker 1 shows no dynamic " + key + " after " + WAIT);
      }
      Thread.sleep(200);
    }
  }

  /** Waits until the broker's DescribeConfigs no longer shows a dynamic value of {@code key}. */
  private static void awaitNotStored(Admin admin, String key) throws Exception {
    long deadline = System.nanoTime() + WAIT.toNanos();
    while (dynamicKeys(admin, BROKER_1).contains(key)) {
      if (System.nanoTime() > deadline) {
        throw new AssertionError("broker 1 still shows a dynamic " + key + " after " + WAIT);
      }
      Thread.sleep(200);
    }
  }

  /** How many refusals of a dynamic config the plugin has logged on broker 1 so far. */
  private static long refusalsLogged() {
    return cluster
        .node(1)
        .outputSinceStart()
        .lines()
        .filter(l -> l.contains("cluster mirror agent: broker 1 refuses the dynamic broker config"))
        .filter(l -> l.contains(PluginConfig.CONTROL_SECRET))
        .count();
  }

  private static void awaitOutput(Predicate<String> done) throws InterruptedException {
    long deadline = System.nanoTime() + WAIT.toNanos();
    while (!done.test(cluster.node(1).outputSinceStart())) {
      if (System.nanoTime() > deadline) {
        throw new AssertionError("the broker's output did not show it within " + WAIT);
      }
      Thread.sleep(200);
    }
  }

  private static void alter(
      Admin admin, ConfigResource resource, AlterConfigOp.OpType op, Map<String, String> settings)
      throws Exception {
    List<AlterConfigOp> ops = new ArrayList<>();
    settings.forEach((k, v) -> ops.add(new AlterConfigOp(new ConfigEntry(k, v), op)));
    admin.incrementalAlterConfigs(Map.of(resource, ops)).all().get(30, TimeUnit.SECONDS);
  }

  private static Config describe(Admin admin, ConfigResource resource) throws Exception {
    return admin.describeConfigs(List.of(resource)).all().get(30, TimeUnit.SECONDS).get(resource);
  }

  private static List<String> dynamicKeys(Admin admin, ConfigResource resource) throws Exception {
    return dynamicKeys(describe(admin, resource));
  }

  private static List<String> dynamicKeys(Config config) {
    return config.entries().stream()
        .filter(
            e ->
                e.source() == ConfigEntry.ConfigSource.DYNAMIC_BROKER_CONFIG
                    || e.source() == ConfigEntry.ConfigSource.DYNAMIC_DEFAULT_BROKER_CONFIG)
        .map(ConfigEntry::name)
        .toList();
  }

  /** An Admin client that talks to the controller directly, not through a broker. */
  private static Admin controllerAdmin() {
    Properties props = new Properties();
    props.put(AdminClientConfig.BOOTSTRAP_CONTROLLERS_CONFIG, cluster.controllerBootstrap());
    props.put(AdminClientConfig.REQUEST_TIMEOUT_MS_CONFIG, "15000");
    props.put(AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, "30000");
    return Admin.create(props);
  }
}
