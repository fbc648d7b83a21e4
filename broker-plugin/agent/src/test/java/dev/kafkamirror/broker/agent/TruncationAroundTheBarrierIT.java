package dev.kafkamirror.broker.agent;

import static dev.kafkamirror.broker.agent.ProducerWrites.newProducerWrites;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import dev.kafkamirror.testing.kafka.KafkaCluster;
import java.time.Duration;
import java.util.Map;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.Test;

/**
 * Kafka truncates a replica (and rebuilds its producer state from the log) when it rejoins behind a
 * leader elected without it. Truncated below the barrier, the barrier is gone and the producers
 * before it come back; truncated above it, they stay gone.
 */
class TruncationAroundTheBarrierIT {

  @Test
  void truncationBelowTheBarrierRestoresEarlierProducersAndAboveKeepsThemGone() throws Exception {
    try (KafkaCluster cluster =
        AgentClusters.withAgent("truncation").controllerPlusBrokers(2).start()) {
      // Below: the follower misses the barrier and the producer after it, then becomes leader
      // uncleanly
      JsonNode below = truncateAfterUncleanElection(cluster, "below", false);
      assertThat(below.get("producerEntries").asInt()).as(below.toString()).isEqualTo(2);

      // Above: the follower has the barrier but misses the producer after it
      JsonNode above = truncateAfterUncleanElection(cluster, "above", true);
      assertThat(above.get("producerEntries").asInt()).as(above.toString()).isZero();
      assertThat(above.get("barrierResets"))
          .anySatisfy(r -> assertThat(r.get("path").asText()).isEqualTo("REBUILD"));
    }
  }

  /**
   * Two producers write to a partition on brokers 1 and 2; a barrier; the follower stops either
   * after the barrier reached it ({@code followerHasBarrier}) or before; a third producer writes;
   * the leader stops; the follower comes back and is elected uncleanly; the old leader comes back
   * and truncates to the new leader's log end. Returns the old leader's describe after it caught
   * up.
   */
  private static JsonNode truncateAfterUncleanElection(
      KafkaCluster cluster, String topic, boolean followerHasBarrier) throws Exception {
    TopicPartition tp = new TopicPartition(topic, 0);
    cluster.createTopic(
        topic, 1, 2, Map.of("min.insync.replicas", "1", "unclean.leader.election.enable", "true"));
    await().atMost(Duration.ofSeconds(60)).until(() -> cluster.isrOf(tp).size() == 2);
    int leader = cluster.leaderOf(tp);
    int follower = leader == 1 ? 2 : 1;
    newProducerWrites(cluster.bootstrapServers(), topic, 3, 10);
    newProducerWrites(cluster.bootstrapServers(), topic, 3, 10);
    if (!followerHasBarrier) {
      cluster.stopBroker(follower);
      await().atMost(Duration.ofSeconds(60)).until(() -> !cluster.isrOf(tp).contains(follower));
    }
    long barrierOffset =
        MirrorOps.control(cluster, leader)
            .barrier(topic, "cluster-A", 0)
            .result(topic, 0)
            .get("barrierOffset")
            .asLong();
    if (followerHasBarrier) {
      await()
          .atMost(Duration.ofSeconds(30))
          .until(
              () ->
                  MirrorOps.control(cluster, follower)
                          .describe(topic, 0)
                          .result(topic, 0)
                          .get("logEndOffset")
                          .asLong()
                      > barrierOffset);
      cluster.stopBroker(follower);
      await().atMost(Duration.ofSeconds(60)).until(() -> !cluster.isrOf(tp).contains(follower));
    }
    newProducerWrites(cluster.bootstrapServers(), topic, 3, 10);
    long leaderEnd =
        MirrorOps.control(cluster, leader)
            .describe(topic, 0)
            .result(topic, 0)
            .get("logEndOffset")
            .asLong();

    cluster.stopBroker(leader);
    cluster.restartBroker(follower);
    cluster.electUncleanly(tp, follower, Duration.ofSeconds(60));
    long newLeaderEnd =
        MirrorOps.control(cluster, follower)
            .describe(topic, 0)
            .result(topic, 0)
            .get("logEndOffset")
            .asLong();
    assertThat(newLeaderEnd).isLessThan(leaderEnd);

    cluster.restartBroker(leader);
    await()
        .atMost(Duration.ofSeconds(60))
        .untilAsserted(
            () ->
                assertThat(
                        MirrorOps.control(cluster, leader)
                            .describe(topic, 0)
                            .result(topic, 0)
                            .get("logEndOffset")
                            .asLong())
                    .isEqualTo(newLeaderEnd));
    return MirrorOps.control(cluster, leader).describe(topic, 0).result(topic, 0);
  }
}
