package dev.kafkamirror.operator.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import dev.kafkamirror.operator.api.v1alpha1.ClusterMirror;
import dev.kafkamirror.operator.api.v1alpha1.Condition;
import dev.kafkamirror.operator.api.v1alpha1.Conditions;
import dev.kafkamirror.operator.api.v1alpha1.MirrorState;
import dev.kafkamirror.operator.api.v1alpha1.PartitionStatus;
import dev.kafkamirror.testing.kafka.KafkaCluster;
import dev.kafkamirror.testing.kafka.TestClients;
import dev.kafkamirror.testing.plugin.PluginControlClient;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.admin.RecordsToDelete;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.IsolationLevel;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;

/**
 * What a user sees, through the operator and a real kube-apiserver, when the plugin halts a mirror
 * for good (issue 12): a source topic deleted and created again ({@code SourceTopicRecreated}) and
 * a destination that fell behind the source's retention ({@code SourceRetentionOverrun}) each turn
 * the partition FAILED in status with the plugin's reason and message, {@code Degraded=True} with
 * that reason, and a Warning Event; then a stop of both halted mirrors proceeds as designed ({@code
 * FailoverPlanner}): each partition becomes writable only behind its barrier, with exactly the
 * records the destination held, and not silently: a Warning Event and the partition's status say
 * that it was stopped after its mirror had halted, and why.
 *
 * <p>{@code SourceDiverged} needs an RF 2 source, a broker stopped and an unclean election: it is
 * shown on the plugin by {@code SourceDivergenceIT}; the operator maps every {@code failedReason}
 * through the same path as the two here.
 *
 * <p>One source and one destination (single nodes) and one operator for the ordered tests; each
 * scenario has its own topic and ClusterMirror.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class HaltedMirrorIT {

  private static final String NS = "halted";
  private static final Duration WAIT = Duration.ofSeconds(90);
  private static final String RECREATED = "recreated";
  private static final String OVERRUN = "overrun";

  private static OperatorTestEnvironment env;
  private static KubernetesClient client;
  private static KafkaCluster source;
  private static KafkaCluster destination;
  private static PluginControlClient control;

  /** What the destination held when each mirror halted. */
  private static List<String> recreatedMirrored;

  private static List<String> overrunMirrored;

  @BeforeAll
  static void start() throws Exception {
    env = OperatorTestEnvironment.start();
    client = env.client();
    env.installCrdAndNamespaces(NS);
    source = env.startSource("halted-a");
    destination = env.startDestination("halted-b");
    control = MirrorFixtures.control(destination, destination.brokerIds().get(0));
    env.startOperator(Map.of("CMO_REQUEUE_MS", "300", "CMO_RESYNC_MS", "2000"));
  }

  @AfterAll
  static void stop() {
    if (env != null) {
      env.close();
    }
  }

  @Test
  @Order(1)
  void aSourceTopicCreatedAgainIsFailedSourceTopicRecreatedInStatusWithAWarningEvent()
      throws Exception {
    // Given a mirror of 30 records, caught up
    source.createTopic(RECREATED, 1, 1, Map.of());
    recreatedMirrored = write(RECREATED, "old", 30);
    String oldId = sourceTopicId(RECREATED);
    client.resource(mirror(RECREATED)).create();
    awaitCondition(RECREATED, Conditions.MIRRORING, Conditions.TRUE);
    await().atMost(WAIT).until(() -> logEnd(destination, RECREATED) == 30);

    // When the source topic is deleted, created again under the same name and written to
    try (Admin admin = source.admin()) {
      admin.deleteTopics(List.of(RECREATED)).all().get(30, TimeUnit.SECONDS);
    }
    createAgainWhenDeleted(RECREATED);
    String newId = sourceTopicId(RECREATED);
    assertThat(newId).isNotEqualTo(oldId);
    write(RECREATED, "new", 40);

    // Then the partition is FAILED with the plugin's reason, Degraded names it, the partition and
    // the way out, and a Warning Event says so
    PartitionStatus failed = awaitFailed(RECREATED, "SourceTopicRecreated");
    assertThat(failed.getMessage())
        .contains(RECREATED + "-0", oldId, newId, "Way out", "stop the mirror");
    Condition degraded = awaitCondition(RECREATED, Conditions.DEGRADED, Conditions.TRUE);
    assertThat(degraded.getReason()).isEqualTo("SourceTopicRecreated");
    assertThat(degraded.getMessage()).contains(RECREATED + "-0", "Way out");
    Condition ready = awaitCondition(RECREATED, Conditions.READY, Conditions.FALSE);
    assertThat(ready.getReason()).isEqualTo("SourceTopicRecreated");
    assertThat(get(RECREATED).getStatus().getMaxLagRecords()).isNull();
    assertThat(get(RECREATED).getStatus().getPartitionCounts().getFailed()).isEqualTo(1);
    awaitWarning(RECREATED, "SourceTopicRecreated", RECREATED + "-0");

    // And nothing of the new topic reached the destination
    assertThat(logEnd(destination, RECREATED)).isEqualTo(30);
    assertThat(destinationValues(RECREATED)).containsExactlyElementsOf(recreatedMirrored);
  }

  @Test
  @Order(2)
  void aDestinationBehindTheSourcesRetentionIsFailedSourceRetentionOverrunWithAWarningEvent()
      throws Exception {
    // Given a mirror of 50 records, paused while the source goes on to 100 and deletes below 80
    TopicPartition tp = new TopicPartition(OVERRUN, 0);
    source.createTopic(OVERRUN, 1, 1, Map.of());
    overrunMirrored = write(OVERRUN, "kept", 50);
    client.resource(mirror(OVERRUN)).create();
    awaitCondition(OVERRUN, Conditions.MIRRORING, Conditions.TRUE);
    await().atMost(WAIT).until(() -> logEnd(destination, OVERRUN) == 50);
    setState(OVERRUN, MirrorState.Paused);
    await()
        .atMost(WAIT)
        .pollInterval(Duration.ofMillis(200))
        .until(() -> "PAUSED".equals(describe(OVERRUN).path("mirror").path("state").asText()));
    write(OVERRUN, "lost", 50);
    try (Admin admin = source.admin()) {
      long low =
          admin
              .deleteRecords(Map.of(tp, RecordsToDelete.beforeOffset(80)))
              .lowWatermarks()
              .get(tp)
              .get(30, TimeUnit.SECONDS)
              .lowWatermark();
      assertThat(low).isEqualTo(80);
    }

    // When the user resumes it
    setState(OVERRUN, MirrorState.Mirroring);

    // Then the partition is FAILED SourceRetentionOverrun naming both offsets, Degraded says so,
    // a Warning Event too, and nothing was skipped
    PartitionStatus failed = awaitFailed(OVERRUN, "SourceRetentionOverrun");
    assertThat(failed.getMessage()).contains(OVERRUN + "-0", "50", "80", "Way out");
    Condition degraded = awaitCondition(OVERRUN, Conditions.DEGRADED, Conditions.TRUE);
    assertThat(degraded.getReason()).isEqualTo("SourceRetentionOverrun");
    assertThat(degraded.getMessage()).contains(OVERRUN + "-0");
    awaitWarning(OVERRUN, "SourceRetentionOverrun", OVERRUN + "-0");
    assertThat(logEnd(destination, OVERRUN)).isEqualTo(50);
  }

  @Test
  @Order(3)
  void aStopOfHaltedMirrorsKeepsWhatWasMirroredBehindABarrierAndSaysSo() throws Exception {
    // Given the two halted mirrors of the tests above
    assertThat(recreatedMirrored).as("test 1 ran").hasSize(30);
    assertThat(overrunMirrored).as("test 2 ran").hasSize(50);

    // When both are stopped (a failover)
    setState(RECREATED, MirrorState.Stopped);
    setState(OVERRUN, MirrorState.Stopped);

    // Then each stop completes as designed: STOPPED behind one barrier at the destination's log
    // end, with exactly the records the destination held, and then writable
    for (String topic : List.of(RECREATED, OVERRUN)) {
      long heldEnd = RECREATED.equals(topic) ? 30 : 50;
      awaitCondition(topic, Conditions.STOPPED, Conditions.TRUE);
      JsonNode d = describe(topic);
      assertThat(d.path("mirror").path("state").asText()).as(d.toString()).isEqualTo("STOPPED");
      assertThat(d.get("barrierResets")).as(d.toString()).hasSize(1);
      assertThat(d.path("stop").path("barrierOffset").asLong()).isEqualTo(heldEnd);
      assertThat(destinationValues(topic))
          .containsExactlyElementsOf(RECREATED.equals(topic) ? recreatedMirrored : overrunMirrored);
      write(destination, topic, "after-failover");
      assertThat(logEnd(destination, topic)).isEqualTo(heldEnd + 2);
    }

    // And not silently: a Warning Event names each halted partition and its reason as its stop
    // begins, and the partition's status keeps the reason after it is STOPPED
    awaitWarning(RECREATED, "StoppingHaltedPartitions", RECREATED + "-0", "SourceTopicRecreated");
    awaitWarning(OVERRUN, "StoppingHaltedPartitions", OVERRUN + "-0", "SourceRetentionOverrun");
    for (String topic : List.of(RECREATED, OVERRUN)) {
      PartitionStatus p = partitionStatus(topic);
      assertThat(p.getState()).isEqualTo("STOPPED");
      assertThat(p.getMessage())
          .as("status of %s-0 after the stop", topic)
          .isNotNull()
          .contains(RECREATED.equals(topic) ? "SourceTopicRecreated" : "SourceRetentionOverrun");
    }
  }

  private static ClusterMirror mirror(String name) {
    return MirrorFixtures.clusterMirror(
        NS, name, source, source.clusterId(), destination, MirrorState.Mirroring, List.of(name));
  }

  private static PartitionStatus awaitFailed(String name, String reason) {
    PartitionStatus[] found = new PartitionStatus[1];
    await()
        .atMost(WAIT)
        .pollInterval(Duration.ofMillis(200))
        .untilAsserted(
            () -> {
              PartitionStatus p = partitionStatus(name);
              assertThat(p).as("status.partitions of %s", name).isNotNull();
              assertThat(p.getState())
                  .as("%s: %s", p.getState(), p.getMessage())
                  .isEqualTo("FAILED");
              assertThat(p.getMessage()).startsWith(reason + ":");
              found[0] = p;
            });
    return found[0];
  }

  private static PartitionStatus partitionStatus(String name) {
    ClusterMirror cr = get(name);
    if (cr == null || cr.getStatus() == null || cr.getStatus().getPartitions() == null) {
      return null;
    }
    return cr.getStatus().getPartitions().stream()
        .filter(p -> name.equals(p.getTopic()) && p.getPartition() == 0)
        .findFirst()
        .orElse(null);
  }

  private static void awaitWarning(String name, String reason, String... mentions) {
    await()
        .atMost(WAIT)
        .pollInterval(Duration.ofMillis(200))
        .untilAsserted(
            () ->
                assertThat(client.v1().events().inNamespace(NS).list().getItems())
                    .as("Events of %s/%s", NS, name)
                    .anySatisfy(
                        e -> {
                          assertThat(e.getInvolvedObject().getName()).isEqualTo(name);
                          assertThat(e.getType()).isEqualTo("Warning");
                          assertThat(e.getReason()).isEqualTo(reason);
                          assertThat(e.getMessage()).contains(mentions);
                        }));
  }

  private static Condition awaitCondition(String name, String type, String value) {
    Condition[] found = new Condition[1];
    await()
        .atMost(WAIT)
        .pollInterval(Duration.ofMillis(200))
        .untilAsserted(
            () -> {
              ClusterMirror cr = get(name);
              assertThat(cr.getStatus()).as("status of %s/%s", NS, name).isNotNull();
              Condition c = Conditions.find(cr.getStatus(), type).orElse(null);
              assertThat(c)
                  .as("condition %s of %s in %s", type, name, cr.getStatus().getConditions())
                  .isNotNull();
              assertThat(c.getStatus())
                  .as("%s: %s %s", type, c.getReason(), c.getMessage())
                  .isEqualTo(value);
              assertThat(c.getObservedGeneration()).isEqualTo(cr.getMetadata().getGeneration());
              found[0] = c;
            });
    return found[0];
  }

  private static ClusterMirror get(String name) {
    return client.resources(ClusterMirror.class).inNamespace(NS).withName(name).get();
  }

  private static void setState(String name, MirrorState state) {
    client
        .resources(ClusterMirror.class)
        .inNamespace(NS)
        .withName(name)
        .edit(
            cr -> {
              cr.getSpec().setState(state);
              return cr;
            });
  }

  private static JsonNode describe(String topic) {
    return control.describe(topic, 0).result(topic, 0);
  }

  /** {@code count} idempotent records to the source; their values. */
  private static List<String> write(String topic, String tag, int count) throws Exception {
    List<String> values = new ArrayList<>();
    try (KafkaProducer<String, String> p =
        TestClients.idempotentProducer(source.bootstrapServers())) {
      List<java.util.concurrent.Future<?>> sent = new ArrayList<>();
      for (int i = 0; i < count; i++) {
        String v = tag + "-" + i;
        sent.add(p.send(new ProducerRecord<>(topic, 0, "k", v)));
        values.add(v);
      }
      for (java.util.concurrent.Future<?> f : sent) {
        f.get(30, TimeUnit.SECONDS);
      }
    }
    return values;
  }

  private static void write(KafkaCluster cluster, String topic, String value) throws Exception {
    try (KafkaProducer<String, String> producer =
        TestClients.idempotentProducer(cluster.bootstrapServers())) {
      producer.send(new ProducerRecord<>(topic, 0, "k", value)).get(30, TimeUnit.SECONDS);
    } catch (ExecutionException e) {
      throw new IllegalStateException("write to " + cluster.name() + " failed", e.getCause());
    }
  }

  private static List<String> destinationValues(String topic) throws Exception {
    return TestClients.values(
        TestClients.readAll(
            destination.bootstrapServers(),
            topic,
            IsolationLevel.READ_COMMITTED,
            Duration.ofSeconds(30)));
  }

  private static String sourceTopicId(String topic) throws Exception {
    try (Admin admin = source.admin()) {
      return admin
          .describeTopics(List.of(topic))
          .allTopicNames()
          .get(30, TimeUnit.SECONDS)
          .get(topic)
          .topicId()
          .toString();
    }
  }

  /** Creates {@code topic} on the source once its deletion is complete. */
  private static void createAgainWhenDeleted(String topic) {
    source.createTopicAgainWhenDeleted(topic);
    await()
        .atMost(Duration.ofSeconds(30))
        .ignoreExceptions()
        .until(() -> source.leaderOf(new TopicPartition(topic, 0)) >= 0);
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
}
