package dev.kafkamirror.broker.agent;

import static dev.kafkamirror.broker.agent.StopFixtures.mirrorOnEveryBroker;
import static dev.kafkamirror.broker.agent.StopFixtures.writeWithOpenTransaction;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import dev.kafkamirror.testing.kafka.KafkaCluster;
import dev.kafkamirror.testing.kafka.KafkaClusterConfig;
import dev.kafkamirror.testing.kafka.TestClients;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewPartitionReassignment;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.ProducerState;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.ElectionType;
import org.apache.kafka.common.InvalidRecordException;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * A reset that did not happen is never reported as done (issue 9 item 5). Broker {@value #FAULTY}
 * of the destination runs with the test-only switch {@code cmo.test.fault.resetThrows}: its
 * producer-state reset on the append path throws, so the barrier lands in its log while the
 * source's producer entries stay. Before a partition turns writable each replica verifies its
 * reset: the leader refuses make-writable naming the producer ids, and a follower stays read-only
 * (also once it becomes leader) and says why in describe.
 */
class FailedResetIT {

  private static final int FAULTY = 2;
  private static final Pattern PRODUCER_IDS = Pattern.compile("producer ids \\[([0-9, ]+)]");

  private static KafkaCluster source;
  private static KafkaCluster destination;

  @BeforeAll
  static void start() {
    source = KafkaCluster.start(KafkaClusterConfig.builder("reset-src").build());
    destination =
        KafkaCluster.start(
            AgentClusters.withAgent("reset-dest")
                .controllerPlusBrokers(3)
                .jvmArg("-Dcmo.test.fault.resetThrows=" + FAULTY)
                .build());
  }

  @AfterAll
  static void stop() {
    if (destination != null) {
      destination.close();
    }
    if (source != null) {
      source.close();
    }
  }

  @Test
  void aLeaderWhoseResetFailedRefusesMakeWritableNamingTheBarrierAndTheProducerIds()
      throws Exception {
    // Given a mirrored partition whose replicas are [1, 2, 3]: the truncate step fences the
    // replicas by moving leadership from 1 to the next in-sync replica, the faulty broker 2
    String topic = "reset-leader";
    TopicPartition tp = new TopicPartition(topic, 0);
    StopFixtures.SourceData data = mirrored(topic, List.of(1, FAULTY, 3));
    Set<Long> sourceProducers = producerIds(source, tp);
    StopDriver driver = new StopDriver(destination, source.clusterId());

    // When the stop runs up to the barrier, which broker 2 appends as leader and fails to reset
    driver.stopUpTo(List.of(tp), "barrier");
    assertThat(destination.leaderOf(tp)).as("the leader that appended the barrier").isEqualTo(2);
    JsonNode answer = makeWritable(FAULTY, topic);

    // Then make-writable is refused, naming the partition, the barrier, the broker and the
    // source's producer ids that remain
    assertThat(answer.has("error")).as(answer.toString()).isTrue();
    assertThat(answer.path("error").path("code").asText()).isEqualTo("INVALID_STATE");
    String message = answer.path("error").path("message").asText();
    assertThat(message)
        .contains(tp.toString())
        .contains("barrier at offset " + data.lastStableOffset())
        .contains("broker " + FAULTY);
    assertThat(producerIdsIn(message)).isNotEmpty().isSubsetOf(sourceProducers);
    // And nothing reports the stop done: the partition stays STOPPING at BARRIER_WRITTEN on every
    // replica, with the reason on the faulty one
    JsonNode onFaulty = describe(FAULTY, topic);
    assertThat(onFaulty.path("mirror").path("state").asText()).isEqualTo("STOPPING");
    assertThat(onFaulty.path("stop").path("step").asText()).isEqualTo("BARRIER_WRITTEN");
    assertThat(onFaulty.path("stop").path("resetCheckError").asText()).isEqualTo(message);
    assertThat(onFaulty.path("producerEntries").asInt()).isPositive();
    // And the healthy replicas did reset (the fault is only on broker 2)
    for (int broker : List.of(1, 3)) {
      assertThat(describe(broker, topic).path("producerEntries").asInt())
          .as("producer entries on broker " + broker)
          .isZero();
    }
    // And a client write is refused
    assertClientWriteRefused(topic);
  }

  @Test
  void aFollowerWhoseResetFailedStaysReadOnlyAlsoAsLeaderAndSaysWhyInDescribe() throws Exception {
    // Given a mirrored partition whose replicas are [1, 3, 2]: the fence moves leadership from 1
    // to 3, and the faulty broker 2 follows
    String topic = "reset-follower";
    TopicPartition tp = new TopicPartition(topic, 0);
    StopFixtures.SourceData data = mirrored(topic, List.of(1, 3, FAULTY));
    Set<Long> sourceProducers = producerIds(source, tp);
    StopDriver driver = new StopDriver(destination, source.clusterId());

    // When the whole stop runs: the leader (3) resets, records STOPPED and turns writable
    driver.stop(List.of(tp));
    assertThat(destination.leaderOf(tp)).isEqualTo(3);
    assertThat(describe(3, topic).path("mirror").path("state").asText()).isEqualTo("STOPPED");

    // Then the follower whose reset failed does not follow STOPPED: it refuses make-writable and
    // stays STOPPING, saying why in describe
    JsonNode answer = makeWritable(FAULTY, topic);
    assertThat(answer.path("error").path("code").asText())
        .as(answer.toString())
        .isEqualTo("INVALID_STATE");
    String message = answer.path("error").path("message").asText();
    assertThat(message)
        .contains(tp.toString())
        .contains("barrier at offset " + data.lastStableOffset())
        .contains("broker " + FAULTY);
    assertThat(producerIdsIn(message)).isNotEmpty().isSubsetOf(sourceProducers);
    await()
        .atMost(Duration.ofSeconds(30))
        .untilAsserted(
            () -> {
              JsonNode d = describe(FAULTY, topic);
              assertThat(d.path("stop").path("step").asText()).isEqualTo("STOPPED");
              assertThat(d.path("mirror").path("state").asText()).isEqualTo("STOPPING");
              assertThat(d.path("stop").path("resetCheckError").asText()).contains("producer ids");
            });

    // And when it becomes the leader, clients still cannot write
    moveLeadershipTo(tp, FAULTY);
    Thread.sleep(2_000); // rounds of the stop-state reader, each of which re-runs the adoption
    assertThat(describe(FAULTY, topic).path("mirror").path("state").asText()).isEqualTo("STOPPING");
    assertClientWriteRefused(topic);
  }

  private static StopFixtures.SourceData mirrored(String topic, List<Integer> replicas)
      throws Exception {
    source.createTopic(topic, 1, 1, Map.of());
    try (Admin admin = destination.admin()) {
      admin
          .createTopics(
              List.of(
                  new NewTopic(topic, Map.of(0, replicas))
                      .configs(Map.of("min.insync.replicas", "2"))))
          .all()
          .get(30, TimeUnit.SECONDS);
    }
    TopicPartition tp = new TopicPartition(topic, 0);
    await()
        .atMost(Duration.ofSeconds(30))
        .ignoreExceptions()
        .until(() -> destination.leaderOf(tp) == replicas.get(0));
    StopFixtures.SourceData data = writeWithOpenTransaction(source, topic, topic);
    try {
      mirrorOnEveryBroker(source, destination, "m-" + topic, topic, data.logEndOffset());
    } finally {
      data.openTransaction().close(Duration.ZERO);
    }
    // The fence moves leadership to the first other replica, in assignment order, that is in sync
    // and holds the mirror membership: wait until every replica is both, so that the move is the
    // one the test names (the leader's high watermark alone says nothing of the third replica)
    await()
        .atMost(Duration.ofSeconds(60))
        .ignoreExceptions()
        .untilAsserted(
            () -> {
              assertThat(destination.isrOf(tp)).containsExactlyInAnyOrderElementsOf(replicas);
              JsonNode membership =
                  describe(replicas.get(0), topic).path("clusterMembership").path("holders");
              Set<Integer> holders = new java.util.HashSet<>();
              membership.forEach(h -> holders.add(h.asInt()));
              assertThat(holders).as(membership.toString()).containsAll(replicas);
            });
    return data;
  }

  private static JsonNode makeWritable(int broker, String topic) {
    return MirrorOps.control(destination, broker)
        .stopStep(
            "make-writable",
            List.of(Map.<String, Object>of("topic", topic, "partition", 0)),
            30_000L)
        .result(topic, 0);
  }

  private static JsonNode describe(int broker, String topic) {
    return MirrorOps.control(destination, broker).describe(topic, 0).result(topic, 0);
  }

  private static void assertClientWriteRefused(String topic) {
    assertThatThrownBy(
            () -> {
              try (KafkaProducer<String, String> p =
                  TestClients.idempotentProducer(destination.bootstrapServers())) {
                p.send(new ProducerRecord<>(topic, 0, "k", "client-write"))
                    .get(60, TimeUnit.SECONDS);
              }
            })
        .hasRootCauseInstanceOf(InvalidRecordException.class);
  }

  private static Set<Long> producerIds(KafkaCluster cluster, TopicPartition tp) throws Exception {
    try (Admin admin = cluster.admin()) {
      return admin
          .describeProducers(List.of(tp))
          .partitionResult(tp)
          .get(30, TimeUnit.SECONDS)
          .activeProducers()
          .stream()
          .map(ProducerState::producerId)
          .collect(Collectors.toSet());
    }
  }

  private static List<Long> producerIdsIn(String message) {
    Matcher m = PRODUCER_IDS.matcher(message);
    List<Long> ids = new ArrayList<>();
    if (m.find()) {
      for (String id : m.group(1).split(",")) {
        ids.add(Long.parseLong(id.trim()));
      }
    }
    return ids;
  }

  private static void moveLeadershipTo(TopicPartition tp, int broker) throws Exception {
    try (Admin admin = destination.admin()) {
      List<Integer> replicas = new ArrayList<>();
      replicas.add(broker);
      destination.brokerIds().stream().filter(b -> b != broker).forEach(replicas::add);
      admin
          .alterPartitionReassignments(
              Map.of(tp, java.util.Optional.of(new NewPartitionReassignment(replicas))))
          .all()
          .get(30, TimeUnit.SECONDS);
      admin.electLeaders(ElectionType.PREFERRED, Set.of(tp)).all().get(30, TimeUnit.SECONDS);
    }
    await()
        .atMost(Duration.ofSeconds(30))
        .ignoreExceptions()
        .until(() -> destination.leaderOf(tp) == broker);
  }
}
