package dev.kafkamirror.broker.agent;

import static dev.kafkamirror.broker.agent.StopFixtures.barrierOffsets;
import static dev.kafkamirror.broker.agent.StopFixtures.mirrorOnEveryBroker;
import static dev.kafkamirror.broker.agent.StopFixtures.writeWithOpenTransaction;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import dev.kafkamirror.testing.kafka.KafkaCluster;
import dev.kafkamirror.testing.kafka.KafkaClusterConfig;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AlterConfigOp;
import org.apache.kafka.clients.admin.ConfigEntry;
import org.apache.kafka.clients.admin.NewPartitionReassignment;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.TopicPartitionInfo;
import org.apache.kafka.common.config.ConfigResource;
import org.junit.jupiter.api.Test;

/**
 * The barrier counts as replicated only once every in-sync follower has fetched it after the
 * truncation. A leader that truncated itself keeps each follower's log end from its last fetch
 * before the truncation (a diverging fetch does not update it), so Kafka's high watermark jumps
 * over the barrier as soon as it is appended, while a follower still holds the truncated batch at
 * the barrier's offset. The test holds one in-sync follower (SIGSTOP of its JVM, started by this
 * test) from before the truncation until after the barrier call, on the fence path: the new leader
 * recorded that follower's fetch state between its election and its truncation.
 */
class BarrierFollowerConfirmationIT {

  private static final String STATE_TOPIC = "__cluster_mirror_state";

  @Test
  void theBarrierStepAnswersOkOnlyOnceEveryInSyncFollowerHasFetchedTheBarrier() throws Exception {
    String topic = "held-follower";
    TopicPartition tp = new TopicPartition(topic, 0);
    // A follower held for tens of seconds (steps are slow on a loaded machine) stays registered
    // and in the ISR: neither the controller's session nor the leader's lag check drops it.
    try (KafkaCluster destination =
        KafkaCluster.start(
            AgentClusters.withAgent("held-dest")
                .controllerPlusBrokers(3)
                .controllerProperty("broker.session.timeout.ms", "180000")
                .brokerProperty("replica.lag.time.max.ms", "180000")
                .build())) {
      StopFixtures.SourceData data;
      String sourceClusterId;
      // Given A mirrored to B (RF=3), with a transaction still open on A above the LSO
      try (KafkaCluster source =
          KafkaCluster.start(KafkaClusterConfig.builder("held-src").build())) {
        sourceClusterId = source.clusterId();
        source.createTopic(topic, 1, 1, Map.of());
        destination.createTopic(topic, 1, 3, Map.of("min.insync.replicas", "2"));
        data = writeWithOpenTransaction(source, topic, "a");
        mirrorOnEveryBroker(source, destination, "a-to-b", topic, data.logEndOffset());
        data.openTransaction().close(Duration.ZERO);
      }
      long target = data.lastStableOffset();
      StopDriver driver = new StopDriver(destination, sourceClusterId);
      driver.step("remove-fetchers", List.of(tp));

      // And the truncate step fenced: leadership moved to a new leader in a new epoch
      int oldLeader = destination.leaderOf(tp);
      JsonNode fence = step(destination, oldLeader, "truncate", tp, null, 60_000L);
      assertThat(fence.get("error").get("code").asText())
          .as(fence.toString())
          .isEqualTo("LEADER_MOVED");
      await()
          .atMost(Duration.ofSeconds(60))
          .ignoreExceptions()
          .until(() -> destination.leaderOf(tp) != oldLeader);
      int leader = destination.leaderOf(tp);
      // The follower the controller elects first when the leader dies, and the other one
      List<Integer> order = replicaOrder(destination, tp);
      int held = order.stream().filter(b -> b != leader).findFirst().orElseThrow();
      int other = order.stream().filter(b -> b != leader && b != held).findFirst().orElseThrow();
      // And both followers fetched from the new leader (its high watermark is its log end)
      await()
          .atMost(Duration.ofSeconds(60))
          .untilAsserted(
              () -> {
                JsonNode d =
                    MirrorOps.control(destination, leader).describe(topic, 0).result(topic, 0);
                assertThat(d.get("highWatermark").asLong())
                    .as(d.toString())
                    .isEqualTo(d.get("logEndOffset").asLong());
              });
      // And the stop-state topic lives on the leader and the other follower only, so that state
      // writes go on while the held follower is paused (one replica is enough for it)
      keepStateTopicOff(destination, held, List.of(leader, other));

      destination.node(held).suspend();
      try {
        // When the new leader truncates (the held follower has not fetched since), persists, and
        // the barrier step runs while the held follower is still in the ISR
        JsonNode truncated = step(destination, leader, "truncate", tp, null, 60_000L);
        assertThat(truncated.has("error")).as(truncated.toString()).isFalse();
        JsonNode persisted =
            step(destination, leader, "persist-offsets", tp, sourceClusterId, 60_000L);
        assertThat(persisted.has("error")).as(persisted.toString()).isFalse();
        // (the ISR as the leader sees it: an Admin client could pick the paused broker)
        assertThat(isrOnLeader(destination, leader, tp)).contains(held);
        JsonNode barrier = step(destination, leader, "barrier", tp, sourceClusterId, 5_000L);
        // (STATE_STORE_UNAVAILABLE says "repeat the call": the leader's stop-state reader can
        // have a request waiting on the paused broker, which holds it for up to its request
        // timeout, see StopStateReaderHungBrokerIT; on a loaded machine its read can use up the
        // step's 5 s before the follower wait does. A caller repeats, so does the test, a bounded
        // number of times, well inside replica.lag.time.max.ms)
        for (int attempt = 1;
            attempt < 4
                && barrier.has("error")
                && "STATE_STORE_UNAVAILABLE".equals(barrier.get("error").get("code").asText());
            attempt++) {
          System.out.printf(
              "BarrierFollowerConfirmationIT: barrier attempt %d answered %s; repeating%n",
              attempt, barrier);
          barrier = step(destination, leader, "barrier", tp, sourceClusterId, 5_000L);
        }

        // Then it does not answer ok: the held follower has not confirmed the barrier
        List<Long> heldBarriers = barrierOffsets(destination, held, tp);
        JsonNode stopOnLeader =
            MirrorOps.control(destination, leader).describe(topic, 0).result(topic, 0).get("stop");
        assertThat(barrier.has("error"))
            .as(
                "barrier answered %s while in-sync follower %d (ISR %s) holds barriers %s in its"
                    + " log; the leader's stop state is %s",
                barrier, held, isrOnLeader(destination, leader, tp), heldBarriers, stopOnLeader)
            .isTrue();
        assertThat(barrier.get("error").get("code").asText()).isEqualTo("TIMEOUT");
        assertThat(barrier.get("error").get("message").asText())
            .contains(tp.toString())
            .contains("broker " + held);
        assertThat(heldBarriers).isEmpty();
        assertThat(isrOnLeader(destination, leader, tp)).contains(held);
        // And BARRIER_WRITTEN is not recorded
        assertThat(stopOnLeader.get("step").asText()).isEqualTo("OFFSETS_PERSISTED");
      } finally {
        destination.node(held).resume();
      }

      // When the follower runs again and the barrier step is repeated
      JsonNode barrier = step(destination, leader, "barrier", tp, sourceClusterId, 60_000L);

      // Then it answers ok, and at that moment every in-sync replica holds the barrier at the
      // target
      assertThat(barrier.has("error")).as(barrier.toString()).isFalse();
      assertThat(barrier.get("barrierOffset").asLong()).isEqualTo(target);
      for (int broker : destination.isrOf(tp)) {
        assertThat(barrierOffsets(destination, broker, tp))
            .as("barriers in the log of in-sync replica " + broker)
            .containsExactly(target);
      }

      // When the leader goes away (a controlled shutdown: the controller elects at once, the first
      // in-sync replica of the assignment), the follower elected holds the barrier, and the stop
      // ends there
      destination.stopBroker(leader);
      await()
          .atMost(Duration.ofSeconds(120))
          .ignoreExceptions()
          .until(() -> destination.leaderOf(tp) == held);
      assertThat(barrierOffsets(destination, held, tp)).containsExactly(target);
      driver.step("make-writable", List.of(tp));
      JsonNode onHeld = MirrorOps.control(destination, held).describe(topic, 0).result(topic, 0);
      assertThat(onHeld.get("stop").get("step").asText())
          .as(onHeld.toString())
          .isEqualTo("STOPPED");
      assertThat(onHeld.get("openTransactions").asInt()).as(onHeld.toString()).isZero();
      assertThat(onHeld.get("producerEntries").asInt()).as(onHeld.toString()).isZero();
    }
  }

  private static JsonNode step(
      KafkaCluster cluster,
      int broker,
      String step,
      TopicPartition tp,
      String sourceClusterId,
      long timeoutMs) {
    Map<String, Object> p = new LinkedHashMap<>();
    p.put("topic", tp.topic());
    p.put("partition", tp.partition());
    if (sourceClusterId != null) {
      p.put("sourceClusterId", sourceClusterId);
    }
    return MirrorOps.control(cluster, broker)
        .stopStep(step, List.of(p), timeoutMs)
        .result(tp.topic(), tp.partition());
  }

  private static List<Integer> isrOnLeader(KafkaCluster cluster, int leader, TopicPartition tp) {
    List<Integer> out = new ArrayList<>();
    MirrorOps.control(cluster, leader)
        .describe(tp.topic(), tp.partition())
        .result(tp.topic(), tp.partition())
        .get("isr")
        .forEach(n -> out.add(n.asInt()));
    return out;
  }

  private static List<Integer> replicaOrder(KafkaCluster cluster, TopicPartition tp)
      throws Exception {
    try (Admin admin = cluster.admin()) {
      TopicDescription d =
          admin
              .describeTopics(List.of(tp.topic()))
              .allTopicNames()
              .get(30, TimeUnit.SECONDS)
              .get(tp.topic());
      List<Integer> out = new ArrayList<>();
      d.partitions().get(tp.partition()).replicas().forEach(n -> out.add(n.id()));
      return out;
    }
  }

  /** Moves every partition of the stop-state topic onto {@code replicas} (min.insync 1). */
  private static void keepStateTopicOff(KafkaCluster cluster, int excluded, List<Integer> replicas)
      throws Exception {
    try (Admin admin = cluster.admin()) {
      admin
          .incrementalAlterConfigs(
              Map.of(
                  new ConfigResource(ConfigResource.Type.TOPIC, STATE_TOPIC),
                  List.of(
                      new AlterConfigOp(
                          new ConfigEntry("min.insync.replicas", "1"), AlterConfigOp.OpType.SET))))
          .all()
          .get(30, TimeUnit.SECONDS);
      TopicDescription d =
          admin
              .describeTopics(List.of(STATE_TOPIC))
              .allTopicNames()
              .get(30, TimeUnit.SECONDS)
              .get(STATE_TOPIC);
      Map<TopicPartition, Optional<NewPartitionReassignment>> moves = new LinkedHashMap<>();
      for (TopicPartitionInfo info : d.partitions()) {
        moves.put(
            new TopicPartition(STATE_TOPIC, info.partition()),
            Optional.of(new NewPartitionReassignment(replicas)));
      }
      admin.alterPartitionReassignments(moves).all().get(30, TimeUnit.SECONDS);
      await()
          .atMost(Duration.ofSeconds(60))
          .pollInterval(Duration.ofMillis(300))
          .until(
              () ->
                  admin
                      .describeTopics(List.of(STATE_TOPIC))
                      .allTopicNames()
                      .get(30, TimeUnit.SECONDS)
                      .get(STATE_TOPIC)
                      .partitions()
                      .stream()
                      .allMatch(
                          i ->
                              i.replicas().stream().noneMatch(n -> n.id() == excluded)
                                  && i.leader() != null
                                  && i.leader().id() != excluded));
    }
  }
}
