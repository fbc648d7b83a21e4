package dev.kafkamirror.operator.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.kafkamirror.operator.api.v1alpha1.ClusterMirror;
import dev.kafkamirror.operator.api.v1alpha1.ClusterMirrorStatus;
import dev.kafkamirror.operator.api.v1alpha1.Condition;
import dev.kafkamirror.operator.api.v1alpha1.Conditions;
import dev.kafkamirror.operator.api.v1alpha1.MirrorState;
import dev.kafkamirror.operator.api.v1alpha1.PendingPartitions;
import dev.kafkamirror.testing.kafka.KafkaCluster;
import dev.kafkamirror.testing.kafka.TestClients;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.Watch;
import io.fabric8.kubernetes.client.Watcher;
import io.fabric8.kubernetes.client.WatcherException;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewPartitions;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.IsolationLevel;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;

/**
 * The destination topics follow the source's through the operator (in-process, a real
 * kube-apiserver, a real source and a real plugin destination, shared by the ordered methods):
 * partitions added on the source are added on the destination and mirrored at identical offsets,
 * and the status names them as not mirrored until then.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class SourceTopicSyncIT {

  private static final String NS = "topics";
  private static final String NAME = "orders-mirror";
  private static final String TOPIC = "orders";
  private static final Duration WAIT = Duration.ofSeconds(90);

  private static OperatorTestEnvironment env;
  private static KubernetesClient client;
  private static KafkaCluster source;
  private static KafkaCluster destination;
  private static final List<ClusterMirrorStatus> statuses = new CopyOnWriteArrayList<>();
  private static Watch watch;

  @BeforeAll
  static void start() throws Exception {
    env = OperatorTestEnvironment.start();
    client = env.client();
    env.installCrdAndNamespaces(NS);
    source = env.startSource("topics-a");
    destination = env.startDestination("topics-b");
    env.startOperator(Map.of("CMO_REQUEUE_MS", "300", "CMO_RESYNC_MS", "1000"));
    source.createTopic(TOPIC, 1, 1, Map.of());
    ClusterMirror cr =
        MirrorFixtures.clusterMirror(
            NS,
            NAME,
            source,
            source.clusterId(),
            destination,
            MirrorState.Mirroring,
            List.of(TOPIC));
    client.resource(cr).create();
    // Every status the operator writes, to see the ones between two polls
    watch =
        client
            .resources(ClusterMirror.class)
            .inNamespace(NS)
            .withName(NAME)
            .watch(
                new Watcher<>() {
                  @Override
                  public void eventReceived(Action action, ClusterMirror resource) {
                    if (resource.getStatus() != null) {
                      statuses.add(resource.getStatus());
                    }
                  }

                  @Override
                  public void onClose(WatcherException cause) {}
                });
  }

  @AfterAll
  static void stop() {
    if (watch != null) {
      watch.close();
    }
    if (env != null) {
      env.close();
    }
  }

  @Test
  @Order(1)
  void partitionsAddedOnTheSourceAreAddedOnTheDestinationAndMirroredAtIdenticalOffsets()
      throws Exception {
    // Given orders with one partition, mirrored
    write(1, "before");
    awaitMirroringAtLagZero(1);

    // When the source's orders grows to 3 partitions and records go to every partition
    statuses.clear();
    try (Admin admin = source.admin()) {
      admin
          .createPartitions(Map.of(TOPIC, NewPartitions.increaseTo(3)))
          .all()
          .get(30, TimeUnit.SECONDS);
    }
    write(3, "after");

    // Then the destination's orders gets 3 partitions, every one MIRRORING at lag 0 again
    awaitMirroringAtLagZero(3);
    try (Admin admin = destination.admin()) {
      assertThat(
              admin
                  .describeTopics(List.of(TOPIC))
                  .allTopicNames()
                  .get(30, TimeUnit.SECONDS)
                  .get(TOPIC)
                  .partitions())
          .hasSize(3);
    }

    // And before that, a status named partitions 1..2 of orders as not mirrored, with Mirroring
    // False (SourcePartitionsPending) and no maxLagRecords
    ClusterMirrorStatus pending =
        statuses.stream()
            .filter(
                s -> s.getTopicSync() != null && !s.getTopicSync().getPartitionsPending().isEmpty())
            .findFirst()
            .orElseThrow(() -> new AssertionError("no status listed pending partitions"));
    PendingPartitions row = pending.getTopicSync().getPartitionsPending().get(0);
    assertThat(row.getTopic()).isEqualTo(TOPIC);
    assertThat(row.getPartitions()).isEqualTo("1..2");
    assertThat(row.getSourcePartitions()).isEqualTo(3);
    assertThat(row.getDestinationPartitions()).isEqualTo(1);
    Condition mirroring = condition(pending, Conditions.MIRRORING);
    assertThat(mirroring.getStatus()).isEqualTo(Conditions.FALSE);
    assertThat(mirroring.getReason()).isEqualTo("SourcePartitionsPending");
    assertThat(mirroring.getMessage()).contains("topic orders partitions 1..2");
    assertThat(pending.getMaxLagRecords()).isNull();

    // And every record is on the destination at the source's partition and offset
    assertThat(records(destination)).isEqualTo(records(source));
    assertThat(records(source)).hasSize(1 * 5 + 3 * 5);
  }

  private static void write(int partitions, String tag) throws Exception {
    try (KafkaProducer<String, String> producer =
        TestClients.idempotentProducer(source.bootstrapServers())) {
      for (int p = 0; p < partitions; p++) {
        for (int i = 0; i < 5; i++) {
          producer
              .send(new ProducerRecord<>(TOPIC, p, "k", tag + "-" + p + "-" + i))
              .get(30, TimeUnit.SECONDS);
        }
      }
    }
  }

  /** partition:offset:value of every record of {@link #TOPIC}, sorted. */
  private static List<String> records(KafkaCluster cluster) {
    return TestClients.readAll(
            cluster.bootstrapServers(), TOPIC, IsolationLevel.READ_UNCOMMITTED, WAIT)
        .stream()
        .map(
            (ConsumerRecord<String, String> r) ->
                r.partition() + ":" + r.offset() + ":" + r.value())
        .sorted()
        .toList();
  }

  private static void awaitMirroringAtLagZero(int partitions) {
    await()
        .atMost(WAIT)
        .pollInterval(Duration.ofMillis(200))
        .untilAsserted(
            () -> {
              ClusterMirrorStatus s = status();
              assertThat(s).isNotNull();
              assertThat(condition(s, Conditions.MIRRORING).getStatus())
                  .as("Mirroring: %s", condition(s, Conditions.MIRRORING).getMessage())
                  .isEqualTo(Conditions.TRUE);
              assertThat(s.getPartitions()).hasSize(partitions);
              assertThat(s.getMaxLagRecords()).isZero();
              assertThat(s.getPartitions())
                  .allSatisfy(p -> assertThat(p.getLagRecords()).isEqualTo(0L));
            });
  }

  private static ClusterMirrorStatus status() {
    ClusterMirror cr = client.resources(ClusterMirror.class).inNamespace(NS).withName(NAME).get();
    return cr == null ? null : cr.getStatus();
  }

  private static Condition condition(ClusterMirrorStatus s, String type) {
    return s.getConditions().stream()
        .filter(c -> type.equals(c.getType()))
        .findFirst()
        .orElseThrow(() -> new AssertionError("no condition " + type + " in " + s));
  }
}
