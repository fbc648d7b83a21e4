package dev.kafkamirror.broker.agent;

import static dev.kafkamirror.broker.agent.StopFixtures.awaitReplicasConverged;
import static dev.kafkamirror.broker.agent.StopFixtures.barrierOffsets;
import static dev.kafkamirror.broker.agent.StopFixtures.replicaBytes;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import dev.kafkamirror.testing.kafka.KafkaCluster;
import dev.kafkamirror.testing.kafka.KafkaClusterConfig;
import dev.kafkamirror.testing.kafka.TestClients;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.stream.Stream;
import org.apache.kafka.common.IsolationLevel;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Crash safety of the stop sequence: after each step in turn, the partition's leader is killed
 * (kill -9) or its leadership moves; driving the whole sequence again from the start must reach
 * STOPPED with one barrier, the same log on every replica, and nothing committed below the LSO
 * lost.
 */
class StopSequenceCrashIT {

  enum Disruption {
    KILL_LEADER,
    MOVE_LEADERSHIP
  }

  private static KafkaCluster source;
  private static KafkaCluster destination;
  private static final Map<String, Integer> BARRIERS_PER_STOP = new ConcurrentHashMap<>();

  @BeforeAll
  static void start() {
    source = KafkaCluster.start(KafkaClusterConfig.builder("crash-src").build());
    destination =
        KafkaCluster.start(AgentClusters.withAgent("crash-dest").controllerPlusBrokers(3).build());
  }

  @AfterAll
  static void stop() {
    System.out.println(
        "effective barriers per stop: " + new java.util.TreeMap<>(BARRIERS_PER_STOP));
    if (destination != null) {
      destination.close();
    }
    if (source != null) {
      source.close();
    }
  }

  static Stream<Arguments> stepsAndDisruptions() {
    return StopDriver.STEPS.stream()
        .flatMap(step -> Stream.of(Disruption.values()).map(d -> Arguments.of(step, d)));
  }

  @ParameterizedTest(name = "{1} after {0}")
  @MethodSource("stepsAndDisruptions")
  void drivingTheSequenceAgainAfterADisruptionReachesStoppedWithOneBarrierAndEqualReplicas(
      String lastStep, Disruption disruption) throws Exception {
    String topic = "crash-" + lastStep + "-" + disruption.name().toLowerCase().replace('_', '-');
    TopicPartition tp = new TopicPartition(topic, 0);
    // Given a mirrored partition (RF=3) with a transaction open on the source
    StopFixtures.SourceData data =
        StopFixtures.mirroredWithOpenTransaction(source, destination, topic);
    StopDriver driver = new StopDriver(destination, source.clusterId());

    // When the stop runs up to a step, and then the leader dies or leadership moves
    driver.stopUpTo(List.of(tp), lastStep);
    int leader = destination.leaderOf(tp);
    if (disruption == Disruption.KILL_LEADER) {
      destination.killBroker(leader);
      await()
          .atMost(Duration.ofSeconds(60))
          .ignoreExceptions()
          .until(() -> destination.leaderOf(tp) != leader);
    } else {
      StopFixtures.moveLeadership(destination, tp);
    }
    // And the whole sequence is driven again from the start
    driver.stop(List.of(tp));
    if (disruption == Disruption.KILL_LEADER) {
      destination.restartBroker(leader);
    }

    // Then the partition is STOPPED, with the barrier at the LSO of the source
    JsonNode stop = driver.describeOnLeaders(List.of(tp)).get(tp).get("stop");
    assertThat(stop.get("step").asText()).isEqualTo("STOPPED");
    assertThat(stop.get("truncatedToOffset").asLong()).isEqualTo(data.lastStableOffset());
    assertThat(stop.get("barrierOffset").asLong()).isEqualTo(data.lastStableOffset());
    // And every replica holds the same bytes and exactly one barrier
    awaitReplicasConverged(destination, tp);
    byte[] reference = replicaBytes(destination, destination.leaderOf(tp), tp);
    for (int broker : destination.brokerIds()) {
      assertThat(replicaBytes(destination, broker, tp))
          .as("replica on broker " + broker)
          .isEqualTo(reference);
      List<Long> barriers = barrierOffsets(destination, broker, tp);
      assertThat(barriers)
          .as("barriers on broker " + broker)
          .containsExactly(data.lastStableOffset());
      BARRIERS_PER_STOP.put(topic, barriers.size());
    }
    // And nothing committed below the LSO is missing, nothing else is visible
    assertThat(
            TestClients.values(
                TestClients.readAll(
                    destination.bootstrapServers(),
                    topic,
                    IsolationLevel.READ_COMMITTED,
                    Duration.ofSeconds(60))))
        .containsExactlyElementsOf(data.committedBelowLso());
  }
}
