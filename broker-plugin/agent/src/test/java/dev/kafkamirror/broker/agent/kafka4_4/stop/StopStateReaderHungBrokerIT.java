package dev.kafkamirror.broker.agent.kafka4_4.stop;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;
import static org.awaitility.Awaitility.await;

import dev.kafkamirror.testing.kafka.KafkaCluster;
import dev.kafkamirror.testing.kafka.KafkaClusterConfig;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewPartitionReassignment;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.common.ElectionType;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.TopicPartitionInfo;
import org.junit.jupiter.api.Test;

/**
 * The stop-state reader is a Kafka consumer inside the broker. It sends its metadata requests to
 * the broker with the fewest requests in flight, and an open connection to a broker that has gone
 * silent (a long pause, a frozen VM, a one-way network partition) has none. A request sent there
 * stays unanswered until the consumer's request timeout, and while it does the consumer learns no
 * new leader: a state partition that changes leader cannot be read, and every stop step on this
 * broker answers STATE_STORE_UNAVAILABLE. Kafka's default request timeout is 30 s, longer than a
 * stop step's budget. The reader must give up on the silent broker well within a step's budget and
 * ask another one.
 *
 * <p>Real brokers, no agent: the reader and its clients are the plugin's own classes, run in the
 * test's JVM against a three-broker cluster. The reader reaches each broker through a loopback
 * fault proxy; the silent broker is one whose proxy holds every byte (the broker itself, its
 * replication and the test's admin client go on as before).
 */
class StopStateReaderHungBrokerIT {

  private static final String TOPIC = "__cluster_mirror_state_hung_test";

  /** A stop step's own budget for reading the state up to date (fence sync, failback start). */
  private static final long SYNC_BUDGET_MS = 5_000L;

  @Test
  void aSilentBrokerDelaysTheStopStateReaderByLessThanAStepBudget() throws Exception {
    // Given three brokers, the reader reaching them through fault proxies
    try (KafkaCluster cluster =
        KafkaCluster.start(
            KafkaClusterConfig.builder("silent-reader")
                .controllerPlusBrokers(3)
                .proxiedClientListener()
                .build())) {
      List<Integer> brokers = cluster.brokerIds();
      int a = brokers.get(0);
      int b = brokers.get(1);
      int silent = brokers.get(2);
      // And a state topic whose partition 0 the broker that will go silent leads at first
      Map<Integer, List<Integer>> placement = new LinkedHashMap<>();
      placement.put(0, List.of(silent, a));
      placement.put(1, List.of(a, b));
      placement.put(2, List.of(b, a));
      placement.put(3, List.of(a, b));
      try (Admin admin = cluster.admin()) {
        admin.createTopics(List.of(new NewTopic(TOPIC, placement))).all().get(30, TimeUnit.SECONDS);
      }
      // And the plugin's reader on that topic, refreshing its metadata often (a user's
      // cluster.mirror.local.client.* setting), so that a refresh goes out while the broker is
      // silent
      Properties clientProperties = cluster.clientProperties();
      clientProperties.put("bootstrap.servers", cluster.proxiedBootstrapServers());
      clientProperties.put("metadata.max.age.ms", "300");
      StateTopicClients clients = new StateTopicClients(clientProperties, TOPIC, 4, 1_000);
      StopStateReader reader = new StopStateReader(TOPIC, clients, new StopStateTables(TOPIC));
      reader.start();
      try (Admin admin = cluster.admin()) {
        reader.sync(60_000L);
        // And partition 0 has moved off that broker since the reader fetched from it (the
        // reader's connection to it stays open, idle)
        placement.put(0, List.of(a, b));
        moveAndElect(admin, placement);
        reader.sync(60_000L);

        // When that broker goes silent (the reader's next metadata request, due within 300 ms,
        // goes to it: the one broker with nothing in flight, whose connection is open)
        double closedBefore = connectionsClosed(clients);
        cluster.proxy(silent).blackHole();
        Thread.sleep(1_000L);
        for (int round = 1; round <= 3; round++) {
          // And the state partitions change leader between the other two (the first round whose
          // read needs the new leaders meets the request waiting on the silent broker; the later
          // ones check that the reader does not go back to it)
          placement.replaceAll((p, r) -> List.of(r.get(1), r.get(0)));
          moveAndElect(admin, placement);

          // Then the reader reads the topic up to date within a stop step's budget, every time:
          // it learns the new leaders from a broker that answers
          long started = System.nanoTime();
          try {
            reader.sync(SYNC_BUDGET_MS);
          } catch (StopStateUnavailableException e) {
            fail(
                "round %d: the stop-state reader could not read %s within %d ms while broker %d is"
                    + " silent (it leads no state partition): %s",
                round, TOPIC, SYNC_BUDGET_MS, silent, e.getMessage());
          }
          System.out.printf(
              "StopStateReaderHungBrokerIT: round %d synced in %d ms%n",
              round, (System.nanoTime() - started) / 1_000_000L);
        }
        assertThat(reader.lastError()).isEmpty();
        // And the reader did meet the silent broker: it gave up on a connection (the only one
        // that does not answer) within the test
        await()
            .atMost(Duration.ofSeconds(10))
            .pollInterval(Duration.ofMillis(200))
            .untilAsserted(
                () ->
                    assertThat(connectionsClosed(clients))
                        .as(
                            "connections the reader's consumers closed since broker %d went silent",
                            silent)
                        .isGreaterThan(closedBefore));
      } finally {
        cluster.proxy(silent).heal();
        reader.stop();
        assertThat(reader.awaitStopped(30_000L)).as("the reader thread ended").isTrue();
      }
    }
  }

  /**
   * The reader's consumers' count of the connections they closed (Kafka's own client metric): the
   * one that fetches and the one that asks for end offsets.
   */
  private static double connectionsClosed(StateTopicClients clients) {
    return java.util.stream.Stream.of(clients.consumer(), clients.endOffsetsConsumer())
        .flatMap(c -> c.metrics().entrySet().stream())
        .filter(
            e ->
                e.getKey().name().equals("connection-close-total")
                    && e.getKey().group().equals("consumer-metrics"))
        .mapToDouble(e -> ((Number) e.getValue().metricValue()).doubleValue())
        .sum();
  }

  /** Reassigns to {@code placement} and waits until each partition's first replica leads. */
  private static void moveAndElect(Admin admin, Map<Integer, List<Integer>> placement)
      throws Exception {
    Map<TopicPartition, Optional<NewPartitionReassignment>> moves = new LinkedHashMap<>();
    Set<TopicPartition> partitions = new LinkedHashSet<>();
    placement.forEach(
        (p, r) -> {
          TopicPartition tp = new TopicPartition(TOPIC, p);
          moves.put(tp, Optional.of(new NewPartitionReassignment(r)));
          partitions.add(tp);
        });
    admin.alterPartitionReassignments(moves).all().get(60, TimeUnit.SECONDS);
    await()
        .atMost(Duration.ofSeconds(60))
        .pollInterval(Duration.ofMillis(200))
        .until(
            () -> {
              // (an election that is not needed, or not yet possible, answers an error per
              // partition; the wait below decides)
              admin
                  .electLeaders(ElectionType.PREFERRED, partitions)
                  .partitions()
                  .get(30, TimeUnit.SECONDS);
              Map<Integer, TopicPartitionInfo> now = described(admin);
              return placement.entrySet().stream()
                  .allMatch(
                      e -> {
                        TopicPartitionInfo i = now.get(e.getKey());
                        return i.leader() != null
                            && i.leader().id() == e.getValue().get(0)
                            && i.replicas().stream().map(n -> n.id()).toList().equals(e.getValue());
                      });
            });
  }

  private static Map<Integer, TopicPartitionInfo> described(Admin admin) throws Exception {
    TopicDescription d =
        admin.describeTopics(List.of(TOPIC)).allTopicNames().get(30, TimeUnit.SECONDS).get(TOPIC);
    Map<Integer, TopicPartitionInfo> out = new LinkedHashMap<>();
    d.partitions().forEach(i -> out.put(i.partition(), i));
    return out;
  }
}
