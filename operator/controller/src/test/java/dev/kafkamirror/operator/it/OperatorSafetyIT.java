package dev.kafkamirror.operator.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import dev.kafkamirror.operator.api.v1alpha1.BrokerControlEndpoint;
import dev.kafkamirror.operator.api.v1alpha1.ClusterMirror;
import dev.kafkamirror.operator.api.v1alpha1.Condition;
import dev.kafkamirror.operator.api.v1alpha1.Conditions;
import dev.kafkamirror.operator.api.v1alpha1.MirrorState;
import dev.kafkamirror.testing.kafka.KafkaCluster;
import dev.kafkamirror.testing.kafka.TestClients;
import dev.kafkamirror.testing.net.FaultProxy;
import dev.kafkamirror.testing.plugin.PluginControlClient;
import io.fabric8.kubernetes.api.model.Event;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AlterConfigOp;
import org.apache.kafka.clients.admin.Config;
import org.apache.kafka.clients.admin.ConfigEntry;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.InvalidRecordException;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.config.ConfigResource;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The operator, a real kube-apiserver, a source and a destination whose broker runs the plugin,
 * against the faults of issue 9 items 8, 10 and 11: a source that is another cluster than the spec
 * names, a mirror topic that allows unclean leader election, and the operator cut from the broker's
 * control endpoint in the middle of a stop.
 */
class OperatorSafetyIT {

  private static final Duration WAIT = Duration.ofSeconds(120);
  private static final String OTHER_CLUSTER_ID = "ZZZZZZZZZZZZZZZZZZZZZZ";

  private static OperatorTestEnvironment env;
  private static KubernetesClient client;
  private static KafkaCluster source;
  private static KafkaCluster destination;

  /**
   * One client for every describe of the test: each client keeps its own keep-alive connection, and
   * the endpoint closes connections beyond its limit (64) at once.
   */
  private static PluginControlClient control;

  @BeforeAll
  static void start() throws Exception {
    env = OperatorTestEnvironment.start();
    client = env.client();
    env.installCrdAndNamespaces("identity", "readdress", "unclean", "cut", "exfil", "flap");
    source = env.startSource("safety-a");
    destination = env.startDestination("safety-b");
    control = MirrorFixtures.control(destination, 1);
    env.startOperator(
        Map.of(
            "CMO_REQUEUE_MS", "300",
            "CMO_RESYNC_MS", "2000",
            // a black-holed control call gives up after this plus 15 s
            "CMO_CONTROL_STEP_TIMEOUT_MS", "5000"));
  }

  @AfterAll
  static void stop() {
    if (env != null) {
      env.close();
    }
  }

  @Test
  void aSourceThatIsAnotherClusterIsDegradedNeverMirroringAndNothingIsCopied() throws Exception {
    // Given 30 records on the source, and a ClusterMirror whose spec names another cluster id
    String topic = "identity-check";
    source.createTopic(topic, 1, 1, Map.of());
    SourceData.write(source, topic, 1, 30, 0, "a");
    Set<String> mirroringSeen = ConcurrentHashMap.newKeySet();

    // When it is applied (the operator creates the destination topic and registers the mirror)
    client
        .resource(
            MirrorFixtures.clusterMirror(
                "identity",
                "wrong",
                source,
                OTHER_CLUSTER_ID,
                destination,
                MirrorState.Mirroring,
                List.of(topic)))
        .create();

    // Then it turns Degraded with SourceClusterMismatch and a Warning Event, and is never Mirroring
    await()
        .atMost(WAIT)
        .pollInterval(Duration.ofMillis(100))
        .untilAsserted(
            () -> {
              condition("identity", "wrong", Conditions.MIRRORING)
                  .ifPresent(c -> mirroringSeen.add(c.getStatus()));
              Condition degraded = condition("identity", "wrong", Conditions.DEGRADED).orElse(null);
              assertThat(degraded).isNotNull();
              assertThat(degraded.getStatus()).as(degraded.getMessage()).isEqualTo(Conditions.TRUE);
              assertThat(degraded.getReason()).isEqualTo("SourceClusterMismatch");
              assertThat(degraded.getMessage()).contains(OTHER_CLUSTER_ID, source.clusterId());
            });
    await()
        .atMost(WAIT)
        .untilAsserted(
            () ->
                assertThat(events("identity"))
                    .anySatisfy(
                        e -> {
                          assertThat(e.getType()).isEqualTo("Warning");
                          assertThat(e.getReason()).isEqualTo("SourceClusterMismatch");
                        }));
    long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
    while (System.nanoTime() < until) {
      condition("identity", "wrong", Conditions.MIRRORING)
          .ifPresent(c -> mirroringSeen.add(c.getStatus()));
      Thread.sleep(200);
    }
    // (Unknown is the first-visit status, written before anything was observed)
    assertThat(mirroringSeen).doesNotContain(Conditions.TRUE).contains(Conditions.FALSE);
    assertThat(mirroringSeen).isSubsetOf(Conditions.FALSE, Conditions.UNKNOWN);
    assertThat(condition("identity", "wrong", Conditions.MIRRORING).orElseThrow().getStatus())
        .isEqualTo(Conditions.FALSE);
    ClusterMirror cr = get("identity", "wrong");
    assertThat(cr.getStatus().getPartitionCounts().getMirroring()).isZero();
    assertThat(cr.getStatus().getPartitionCounts().getFailed()).isEqualTo(1);

    // And not one record of the wrong cluster reached the destination
    assertThat(logEnd(destination, topic)).isZero();
    assertThat(describe(topic).path("mirror").path("state").asText()).isEqualTo("SOURCE_MISMATCH");

    // And the topic the operator created forbids unclean leader election
    ConfigEntry unclean = topicConfig(destination, topic, "unclean.leader.election.enable");
    assertThat(unclean.value()).isEqualTo("false");
    assertThat(unclean.source()).isEqualTo(ConfigEntry.ConfigSource.DYNAMIC_TOPIC_CONFIG);
  }

  @Test
  void aMirrorHaltedAtTheWrongAddressResumesWhenTheSpecNamesTheRightOne() throws Exception {
    // Given a ClusterMirror that names the source's cluster id but, by mistake, the bootstrap
    // address of another cluster that has a topic of the same name
    String topic = "readdress-check";
    KafkaCluster other = env.startSource("safety-other");
    other.createTopic(topic, 1, 1, Map.of());
    SourceData.write(other, topic, 1, 40, 0, "other");
    source.createTopic(topic, 1, 1, Map.of());
    List<String> committed = SourceData.write(source, topic, 1, 30, 0, "a");
    client
        .resource(
            MirrorFixtures.clusterMirror(
                "readdress",
                "misaddressed",
                other,
                source.clusterId(),
                destination,
                MirrorState.Mirroring,
                List.of(topic)))
        .create();
    awaitCondition("readdress", "misaddressed", Conditions.DEGRADED, Conditions.TRUE);
    await()
        .atMost(WAIT)
        .untilAsserted(
            () ->
                assertThat(
                        condition("readdress", "misaddressed", Conditions.DEGRADED)
                            .get()
                            .getReason())
                    .isEqualTo("SourceClusterMismatch"));
    assertThat(logEnd(destination, topic)).isZero();

    // When the user corrects the bootstrap address in the spec
    client
        .resources(ClusterMirror.class)
        .inNamespace("readdress")
        .withName("misaddressed")
        .edit(
            cr -> {
              cr.getSpec().getSource().setBootstrapServers(source.bootstrapServers());
              return cr;
            });

    // Then the mirror verifies the new source, copies its log and nothing of the other cluster,
    // and reports Mirroring without Degraded
    awaitCondition("readdress", "misaddressed", Conditions.MIRRORING, Conditions.TRUE);
    awaitCondition("readdress", "misaddressed", Conditions.DEGRADED, Conditions.FALSE);
    long sourceEnd = logEnd(source, topic);
    await()
        .atMost(WAIT)
        .untilAsserted(() -> assertThat(logEnd(destination, topic)).isEqualTo(sourceEnd));
    assertThat(describe(topic).path("mirror").path("sourceClusterId").asText())
        .isEqualTo(source.clusterId());
    assertThat(
            TestClients.values(
                TestClients.readAll(
                    destination.bootstrapServers(),
                    topic,
                    org.apache.kafka.common.IsolationLevel.READ_COMMITTED,
                    Duration.ofSeconds(30))))
        .containsExactlyElementsOf(committed);
  }

  @Test
  void aClusterMirrorCannotReadASecretThatDidNotOptInNorSendItToAHostOfItsAuthor()
      throws Exception {
    // Given a Secret of another workload (no kafkamirror.dev/cluster-mirrors annotation), and a
    // listener of the ClusterMirror's author on another loopback address
    String value = "victim-password-" + System.nanoTime();
    client
        .secrets()
        .inNamespace("exfil")
        .resource(
            new io.fabric8.kubernetes.api.model.SecretBuilder()
                .withNewMetadata()
                .withName("victim")
                .endMetadata()
                .addToStringData("credentials", "victim:" + value)
                .build())
        .create();
    try (Listener attacker = Listener.on("127.0.0.2")) {
      // When a ClusterMirror points its source's SASL credentials at that Secret and its source
      // bootstrap at the author's listener
      ClusterMirror cr =
          MirrorFixtures.clusterMirror(
              "exfil",
              "thief",
              source,
              source.clusterId(),
              destination,
              MirrorState.Mirroring,
              List.of("exfil-topic"));
      cr.getSpec().getSource().setBootstrapServers(attacker.address());
      dev.kafkamirror.operator.api.v1alpha1.ClientSecurity security =
          new dev.kafkamirror.operator.api.v1alpha1.ClientSecurity();
      security.setSaslMechanism(dev.kafkamirror.operator.api.v1alpha1.SaslMechanism.PLAIN);
      dev.kafkamirror.operator.api.v1alpha1.SecretKeyRef ref =
          new dev.kafkamirror.operator.api.v1alpha1.SecretKeyRef();
      ref.setName("victim");
      ref.setKey("credentials");
      security.setSaslCredentials(ref);
      cr.getSpec().getSource().setSecurity(security);
      client.resource(cr).create();

      // Then it is Degraded InvalidSpec naming the Secret and the annotation, with a Warning Event
      Condition degraded = awaitCondition("exfil", "thief", Conditions.DEGRADED, Conditions.TRUE);
      assertThat(degraded.getReason()).isEqualTo("InvalidSpec");
      assertThat(degraded.getMessage()).contains("victim", "kafkamirror.dev/cluster-mirrors");
      await()
          .atMost(WAIT)
          .untilAsserted(
              () ->
                  assertThat(events("exfil"))
                      .anySatisfy(
                          e -> {
                            assertThat(e.getType()).isEqualTo("Warning");
                            assertThat(e.getInvolvedObject().getName()).isEqualTo("thief");
                            assertThat(e.getReason()).isEqualTo("InvalidSpec");
                          }));
      // And the Secret's value is nowhere: not in status, not in any Event, and nothing connected
      // to the author's listener
      Thread.sleep(3_000);
      assertThat(get("exfil", "thief").getStatus().toString()).doesNotContain(value);
      assertThat(events("exfil")).allSatisfy(e -> assertThat(e.getMessage()).doesNotContain(value));
      assertThat(attacker.connections()).isZero();
    }
  }

  @Test
  void aBrokerEndpointOnAHostOfTheAuthorsIsNeverCalled() throws Exception {
    // Given a listener of the ClusterMirror's author on another loopback address
    String topic = "exfil-endpoint";
    source.createTopic(topic, 1, 1, Map.of());
    try (Listener attacker = Listener.on("127.0.0.2")) {
      // When a ClusterMirror sends the destination broker's control calls (the bearer secret, and
      // with a start the source's settings) to that listener
      ClusterMirror cr =
          MirrorFixtures.clusterMirror(
              "exfil",
              "redirect",
              source,
              source.clusterId(),
              destination,
              MirrorState.Mirroring,
              List.of(topic));
      BrokerControlEndpoint endpoint = new BrokerControlEndpoint();
      endpoint.setBrokerId(destination.brokerIds().get(0));
      endpoint.setAddress(attacker.address());
      cr.getSpec().getDestination().getControl().setBrokerEndpoints(List.of(endpoint));
      client.resource(cr).create();

      // Then the partition is unreachable with a reason naming brokerEndpoints, a Warning Event is
      // recorded, and nothing ever connected to the listener
      Condition degraded =
          awaitCondition("exfil", "redirect", Conditions.DEGRADED, Conditions.TRUE);
      assertThat(degraded.getMessage()).contains("brokerEndpoints");
      await()
          .atMost(WAIT)
          .untilAsserted(
              () ->
                  assertThat(events("exfil"))
                      .anySatisfy(
                          e -> {
                            assertThat(e.getType()).isEqualTo("Warning");
                            assertThat(e.getInvolvedObject().getName()).isEqualTo("redirect");
                          }));
      Thread.sleep(3_000);
      assertThat(attacker.connections()).isZero();
      assertThat(get("exfil", "redirect").getStatus().getPartitionCounts().getMirroring()).isZero();
    }
  }

  @Test
  void aDegradedThatFlapsIsOneWarningEventWhoseCountGrows() throws Exception {
    // Given a mirroring ClusterMirror
    String topic = "flap-topic";
    source.createTopic(topic, 1, 1, Map.of());
    client
        .resource(
            MirrorFixtures.clusterMirror(
                "flap",
                "flapping",
                source,
                source.clusterId(),
                destination,
                MirrorState.Mirroring,
                List.of(topic)))
        .create();
    awaitCondition("flap", "flapping", Conditions.MIRRORING, Conditions.TRUE);

    // When its spec flaps three times between credentials in a Secret that does not exist
    // (Degraded InvalidSpec, same message each time) and none (Degraded False): a GitOps tool and
    // a human fighting over the spec
    for (int flap = 0; flap < 3; flap++) {
      setSourceCredentials("flap", "flapping", "missing-credentials");
      Condition degraded = awaitCondition("flap", "flapping", Conditions.DEGRADED, Conditions.TRUE);
      assertThat(degraded.getReason()).isEqualTo("InvalidSpec");
      assertThat(degraded.getMessage()).contains("missing-credentials");
      setSourceCredentials("flap", "flapping", null);
      awaitCondition("flap", "flapping", Conditions.DEGRADED, Conditions.FALSE);
    }

    // Then the three identical Warnings are one Event object whose count says 3, first and last
    // timestamps spanning the flaps (issue 15 item 7: no object per repeat)
    await()
        .atMost(WAIT)
        .untilAsserted(
            () -> {
              List<Event> warnings =
                  events("flap").stream()
                      .filter(e -> "Warning".equals(e.getType()))
                      .filter(e -> "InvalidSpec".equals(e.getReason()))
                      .toList();
              assertThat(warnings).as("InvalidSpec Warning Events").hasSize(1);
              Event warning = warnings.get(0);
              assertThat(warning.getInvolvedObject().getName()).isEqualTo("flapping");
              assertThat(warning.getMessage()).contains("missing-credentials");
              assertThat(warning.getCount()).as(warning.toString()).isEqualTo(3);
              assertThat(Instant.parse(warning.getLastTimestamp()))
                  .isAfterOrEqualTo(Instant.parse(warning.getFirstTimestamp()));
            });
  }

  /** Source SASL PLAIN credentials from the Secret {@code secret}, or no security for null. */
  private static void setSourceCredentials(String ns, String name, String secret) {
    client
        .resources(ClusterMirror.class)
        .inNamespace(ns)
        .withName(name)
        .edit(
            cr -> {
              if (secret == null) {
                cr.getSpec().getSource().setSecurity(null);
                return cr;
              }
              dev.kafkamirror.operator.api.v1alpha1.ClientSecurity security =
                  new dev.kafkamirror.operator.api.v1alpha1.ClientSecurity();
              security.setSaslMechanism(dev.kafkamirror.operator.api.v1alpha1.SaslMechanism.PLAIN);
              dev.kafkamirror.operator.api.v1alpha1.SecretKeyRef ref =
                  new dev.kafkamirror.operator.api.v1alpha1.SecretKeyRef();
              ref.setName(secret);
              ref.setKey("credentials");
              security.setSaslCredentials(ref);
              cr.getSpec().getSource().setSecurity(security);
              return cr;
            });
  }

  /** A TCP listener that only counts who connects. */
  private static final class Listener implements AutoCloseable {
    private final java.net.ServerSocket socket;
    private final java.util.concurrent.atomic.AtomicInteger connections =
        new java.util.concurrent.atomic.AtomicInteger();

    private Listener(java.net.ServerSocket socket) {
      this.socket = socket;
      Thread t =
          new Thread(
              () -> {
                while (!socket.isClosed()) {
                  try (java.net.Socket s = socket.accept()) {
                    connections.incrementAndGet();
                  } catch (java.io.IOException e) {
                    // closed
                  }
                }
              },
              "exfil-listener");
      t.setDaemon(true);
      t.start();
    }

    static Listener on(String host) throws java.io.IOException {
      return new Listener(new java.net.ServerSocket(0, 50, java.net.InetAddress.getByName(host)));
    }

    String address() {
      return socket.getInetAddress().getHostAddress() + ":" + socket.getLocalPort();
    }

    int connections() {
      return connections.get();
    }

    @Override
    public void close() throws java.io.IOException {
      socket.close();
    }
  }

  @Test
  void aStopOnATopicThatAllowsUncleanElectionWaitsDegradedUntilTheSettingIsOff() throws Exception {
    // Given a mirrored topic whose destination config allows unclean leader election
    String topic = "unclean-topic";
    source.createTopic(topic, 1, 1, Map.of());
    destination.createTopic(topic, 1, 1, Map.of("unclean.leader.election.enable", "true"));
    SourceData.write(source, topic, 1, 10, 0, "a");
    client
        .resource(
            MirrorFixtures.clusterMirror(
                "unclean",
                "risky",
                source,
                source.clusterId(),
                destination,
                MirrorState.Mirroring,
                List.of(topic)))
        .create();
    awaitCondition("unclean", "risky", Conditions.MIRRORING, Conditions.TRUE);

    // When the spec asks to stop
    setState("unclean", "risky", MirrorState.Stopped);

    // Then the stop waits, Degraded with its own reason and a Warning Event, nothing touched
    Condition degraded = awaitCondition("unclean", "risky", Conditions.DEGRADED, Conditions.TRUE);
    assertThat(degraded.getReason()).isEqualTo("UncleanLeaderElectionEnabled");
    assertThat(degraded.getMessage())
        .contains(topic, "unclean.leader.election.enable", "allowUncleanLeaderElection");
    await()
        .atMost(WAIT)
        .untilAsserted(
            () ->
                assertThat(events("unclean"))
                    .anySatisfy(
                        e -> {
                          assertThat(e.getType()).isEqualTo("Warning");
                          assertThat(e.getReason()).isEqualTo("UncleanLeaderElectionEnabled");
                        }));
    Thread.sleep(3_000);
    JsonNode d = describe(topic);
    assertThat(d.has("stop")).as(d.toString()).isFalse();
    assertThat(d.path("mirror").path("state").asText()).isEqualTo("MIRRORING");
    assertThat(get("unclean", "risky").getStatus().getStopStartedAt()).isNull();
    assertThatThrownBy(() -> write(destination, topic, "b"))
        .hasRootCauseInstanceOf(InvalidRecordException.class);

    // When the user turns unclean election off, the stop completes behind one barrier
    try (Admin admin = destination.admin()) {
      admin
          .incrementalAlterConfigs(
              Map.of(
                  new ConfigResource(ConfigResource.Type.TOPIC, topic),
                  List.of(
                      new AlterConfigOp(
                          new ConfigEntry("unclean.leader.election.enable", "false"),
                          AlterConfigOp.OpType.SET))))
          .all()
          .get(30, TimeUnit.SECONDS);
    }
    awaitCondition("unclean", "risky", Conditions.STOPPED, Conditions.TRUE);
    assertThat(describe(topic).get("barrierResets")).hasSize(1);
    write(destination, topic, "b");
  }

  @Test
  void theOperatorCutFromTheBrokerMidStopNeverHalfAppliesAndFinishesWhenHealed() throws Exception {
    // Given a mirror whose control calls go through a proxy in front of the broker's endpoint,
    // slowed so that the stop takes several seconds
    String topic = "cut-topic";
    source.createTopic(topic, 1, 1, Map.of());
    SourceData.write(source, topic, 1, 10, 0, "a");
    try (FaultProxy proxy =
        env.register(
            FaultProxy.start(
                "control-1", destination.listenerOf(1, PluginControlClient.LISTENER_PROPERTY)))) {
      ClusterMirror cr =
          MirrorFixtures.clusterMirror(
              "cut",
              "cut",
              source,
              source.clusterId(),
              destination,
              MirrorState.Mirroring,
              List.of(topic));
      cr.getSpec()
          .getDestination()
          .getControl()
          .setBrokerEndpoints(List.of(new BrokerControlEndpoint(1, proxy.address())));
      client.resource(cr).create();
      awaitCondition("cut", "cut", Conditions.MIRRORING, Conditions.TRUE);
      await()
          .atMost(WAIT)
          .untilAsserted(() -> assertThat(logEnd(destination, topic)).isEqualTo(10));

      // When the stop begins and the operator is cut from the broker in the middle of it
      proxy.delay(Duration.ofMillis(1_500));
      setState("cut", "cut", MirrorState.Stopped);
      await()
          .atMost(WAIT)
          .pollInterval(Duration.ofMillis(50))
          .until(() -> describe(topic).has("stop"));
      proxy.blackHole();
      JsonNode cutAt = describe(topic);

      // Then while cut, the partition is STOPPED behind its barrier or still read-only: never
      // writable without a barrier; the resource does not claim Stopped, and says why it waits
      await()
          .atMost(WAIT)
          .pollInterval(Duration.ofMillis(500))
          .untilAsserted(
              () -> {
                JsonNode d = describe(topic);
                if ("STOPPED".equals(d.path("mirror").path("state").asText())) {
                  assertThat(d.get("barrierResets")).as(d.toString()).hasSize(1);
                  assertThat(d.path("stop").path("step").asText()).isEqualTo("STOPPED");
                } else {
                  assertThatThrownBy(() -> write(destination, topic, "b-too-early"))
                      .hasRootCauseInstanceOf(InvalidRecordException.class);
                }
                assertThat(stoppedCondition("cut", "cut"))
                    .as("Stopped while the operator cannot reach the broker (cut at %s)", cutAt)
                    .isNotEqualTo(Conditions.TRUE);
                Condition degraded = condition("cut", "cut", Conditions.DEGRADED).orElseThrow();
                assertThat(degraded.getStatus())
                    .as("%s %s", degraded.getReason(), degraded.getMessage())
                    .isEqualTo(Conditions.TRUE);
                assertThat(degraded.getMessage()).contains("broker 1", proxy.address());
              });
      assertThat(stoppedCondition("cut", "cut")).isNotEqualTo(Conditions.TRUE);

      // When the link heals, the stop completes with one barrier and the partition is writable
      proxy.heal();
      awaitCondition("cut", "cut", Conditions.STOPPED, Conditions.TRUE);
      JsonNode done = describe(topic);
      assertThat(done.get("barrierResets")).as(done.toString()).hasSize(1);
      assertThat(done.path("stop").path("barrierOffset").asLong()).isEqualTo(10);
      write(destination, topic, "b");
      assertThat(logEnd(destination, topic)).isEqualTo(12);
    }
  }

  private static String stoppedCondition(String ns, String name) {
    return condition(ns, name, Conditions.STOPPED).map(Condition::getStatus).orElse(null);
  }

  private static java.util.Optional<Condition> condition(String ns, String name, String type) {
    ClusterMirror cr = get(ns, name);
    return Conditions.find(cr == null ? null : cr.getStatus(), type);
  }

  private static Condition awaitCondition(String ns, String name, String type, String value) {
    Condition[] found = new Condition[1];
    await()
        .atMost(WAIT)
        .pollInterval(Duration.ofMillis(200))
        .untilAsserted(
            () -> {
              ClusterMirror cr = get(ns, name);
              assertThat(cr.getStatus()).as("status of %s/%s", ns, name).isNotNull();
              Condition c = condition(ns, name, type).orElse(null);
              assertThat(c)
                  .as("condition %s of %s/%s in %s", type, ns, name, cr.getStatus().getConditions())
                  .isNotNull();
              assertThat(c.getStatus())
                  .as("%s: %s %s", type, c.getReason(), c.getMessage())
                  .isEqualTo(value);
              assertThat(c.getObservedGeneration()).isEqualTo(cr.getMetadata().getGeneration());
              found[0] = c;
            });
    return found[0];
  }

  private static ClusterMirror get(String ns, String name) {
    return client.resources(ClusterMirror.class).inNamespace(ns).withName(name).get();
  }

  private static void setState(String ns, String name, MirrorState state) {
    client
        .resources(ClusterMirror.class)
        .inNamespace(ns)
        .withName(name)
        .edit(
            cr -> {
              cr.getSpec().setState(state);
              return cr;
            });
  }

  private static List<Event> events(String namespace) {
    return client.v1().events().inNamespace(namespace).list().getItems();
  }

  private static JsonNode describe(String topic) {
    return control.describe(topic, 0).result(topic, 0);
  }

  private static long logEnd(KafkaCluster cluster, String topic) throws Exception {
    TopicPartition tp = new TopicPartition(topic, 0);
    try (Admin admin = cluster.admin()) {
      return admin
          .listOffsets(Map.of(tp, OffsetSpec.latest()))
          .all()
          .get(30, TimeUnit.SECONDS)
          .get(tp)
          .offset();
    }
  }

  private static ConfigEntry topicConfig(KafkaCluster cluster, String topic, String key)
      throws Exception {
    ConfigResource resource = new ConfigResource(ConfigResource.Type.TOPIC, topic);
    try (Admin admin = cluster.admin()) {
      Map<ConfigResource, Config> configs =
          admin.describeConfigs(List.of(resource)).all().get(30, TimeUnit.SECONDS);
      return configs.get(resource).get(key);
    }
  }

  private static void write(KafkaCluster cluster, String topic, String value) throws Exception {
    try (KafkaProducer<String, String> producer =
        TestClients.idempotentProducer(cluster.bootstrapServers())) {
      producer.send(new ProducerRecord<>(topic, 0, "k", value)).get(30, TimeUnit.SECONDS);
    } catch (ExecutionException e) {
      throw new IllegalStateException("write to " + cluster.name() + " failed", e.getCause());
    }
  }
}
