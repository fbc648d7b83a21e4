package dev.kafkamirror.operator.reconciler;

import static org.assertj.core.api.Assertions.assertThat;

import dev.kafkamirror.operator.control.ControlResult;
import dev.kafkamirror.operator.core.Action;
import dev.kafkamirror.operator.core.FailoverPlan;
import dev.kafkamirror.operator.core.PartitionDecision;
import dev.kafkamirror.operator.core.PartitionKey;
import dev.kafkamirror.operator.core.PartitionObservation;
import dev.kafkamirror.operator.core.PartitionPhase;
import dev.kafkamirror.operator.core.TopicSelector;
import dev.kafkamirror.operator.kafka.PartitionPlacement;
import java.util.EnumMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** Which broker the driver asks what, and how it reads the answers. */
class MirrorDriverTest {

  private static final String TOPIC = "orders";
  private static final String SOURCE_ID = "SRCSRCSRCSRCSRCSRCSRC1";

  private final Journal journal = new Journal();
  private final TestingBrokerControl control = new TestingBrokerControl(journal);
  private final TestingClusterAdmin destination =
      new TestingClusterAdmin("destination", List.of(1, 2, 3), journal);
  private final ExecutorService executor = Executors.newFixedThreadPool(4);
  private final MirrorDriver driver = new MirrorDriver(control, executor);

  @AfterEach
  void stop() {
    executor.shutdownNow();
  }

  private static ResolvedMirror mirror(Map<Integer, String> overrides) {
    return new ResolvedMirror(
        "orders-mirror",
        "source.example:9092",
        SOURCE_ID,
        TopicSelector.of(List.of(TOPIC), null, null),
        "control-secret-0123456789",
        null,
        9443,
        overrides,
        new Properties(),
        new Properties(),
        Map.of());
  }

  @Test
  void observeDescribesEachLeaderOnceAndWhileMirroringFindsFollowersWithoutRegistration()
      throws Exception {
    // Given two mirroring partitions led by broker 1, and broker 3 that lost the registration
    destination.topic(TOPIC, 2);
    control.mirroring(TOPIC, 0, "orders-mirror", SOURCE_ID);
    control.mirroring(TOPIC, 1, "orders-mirror", SOURCE_ID);
    control.withoutRegistration(3);

    // When observed with followers
    MirrorDriver.Observation o = driver.observe(mirror(Map.of()), destination, true);

    // Then the leader was described once for both partitions, each follower once
    assertThat(control.calls())
        .filteredOn(c -> c.brokerId() == 1)
        .singleElement()
        .satisfies(c -> assertThat(c.keys()).hasSize(2));
    assertThat(control.calls()).extracting(TestingBrokerControl.Call::brokerId).contains(2, 3);
    // And each partition names broker 3 (not 2) as a replica without the mirror
    assertThat(o.partitions())
        .extracting(PartitionObservation::replicasWithoutMirror)
        .containsExactly(List.of(3), List.of(3));
    assertThat(o.partitions()).allSatisfy(p -> assertThat(p.described()).isNotNull());

    // When observed without followers (a stop), Then no follower is described
    control.calls();
    TestingBrokerControl quiet = new TestingBrokerControl(journal);
    quiet.mirroring(TOPIC, 0, "orders-mirror", SOURCE_ID);
    quiet.mirroring(TOPIC, 1, "orders-mirror", SOURCE_ID);
    new MirrorDriver(quiet, executor).observe(mirror(Map.of()), destination, false);
    assertThat(quiet.calls()).extracting(TestingBrokerControl.Call::brokerId).containsOnly(1);
  }

  @Test
  void aBrokerEndpointOnAHostTheDestinationDoesNotVouchForIsNeverCalled() throws Exception {
    // Given broker 1's endpoint overridden onto another host than its advertised 127.0.0.1
    destination.topic(TOPIC, 1);
    control.mirroring(TOPIC, 0, "orders-mirror", SOURCE_ID);

    // When observed
    MirrorDriver.Observation o =
        driver.observe(mirror(Map.of(1, "collector.example:9443")), destination, false);

    // Then broker 1 was not called and the partition is UNREACHABLE, saying why
    assertThat(control.calls()).isEmpty();
    PartitionObservation p = o.partitions().get(0);
    assertThat(p.errorCode()).isEqualTo(ControlResult.UNREACHABLE);
    assertThat(p.errorMessage()).contains("broker 1").contains("brokerEndpoints");
  }

  @Test
  void executeSendsEachActionToItsRouteAndKeepsOnlyLeadersErrors() {
    // Given partition 0 removing fetchers (all replicas) and partition 1 truncating (leader only)
    PartitionKey p0 = new PartitionKey(TOPIC, 0);
    PartitionKey p1 = new PartitionKey(TOPIC, 1);
    Map<PartitionKey, PartitionPlacement> placements = new LinkedHashMap<>();
    placements.put(p0, new PartitionPlacement(p0, 1, List.of(1, 2, 3)));
    placements.put(p1, new PartitionPlacement(p1, 2, List.of(2, 1, 3)));
    MirrorDriver.Observation observation =
        new MirrorDriver.Observation(
            List.of(), placements, Map.of(1, "127.0.0.1", 2, "127.0.0.1", 3, "127.0.0.1"));
    FailoverPlan plan =
        new FailoverPlan(
            List.of(
                new PartitionDecision(
                    p0, Action.REMOVE_FETCHERS, PartitionPhase.MIRRORING, null, null),
                new PartitionDecision(p1, Action.TRUNCATE, PartitionPhase.STOPPING, null, null)),
            List.of(),
            FailoverPlan.CatchUp.NOT_APPLICABLE,
            List.of());
    // And broker 3 unreachable (a follower of both)
    control.unreachable(3);
    Map<Action, Long> calls = new EnumMap<>(Action.class);

    // When executed
    MirrorDriver.RoundResult result =
        driver.execute("ns/orders-mirror", mirror(Map.of()), plan, observation, calls);

    // Then remove-fetchers went to all three replicas of p0, truncate only to p1's leader 2
    assertThat(control.calls())
        .filteredOn(c -> c.what().equals("REMOVE_FETCHERS"))
        .extracting(TestingBrokerControl.Call::brokerId)
        .containsExactlyInAnyOrder(1, 2, 3);
    assertThat(control.calls())
        .filteredOn(c -> c.what().equals("TRUNCATE"))
        .extracting(TestingBrokerControl.Call::brokerId)
        .containsExactly(2);
    // And the unreachable follower is no leader error: both partitions' leaders succeeded
    assertThat(result.leaderErrors()).isEmpty();
    assertThat(result.succeeded()).isEqualTo(3);
    assertThat(calls).containsEntry(Action.REMOVE_FETCHERS, 3L).containsEntry(Action.TRUNCATE, 1L);

    // When the leader itself fails, Then its error is kept for the partition
    control.fail(Action.TRUNCATE, "LEADER_MOVED");
    MirrorDriver.RoundResult failed =
        driver.execute(
            "ns/orders-mirror", mirror(Map.of()), plan, observation, new EnumMap<>(Action.class));
    assertThat(failed.leaderErrors()).containsOnlyKeys(p1);
    assertThat(failed.leaderErrors().get(p1)).startsWith("LEADER_MOVED: ").contains("broker 2");
  }

  @Test
  void aLeaderErrorIsLoggedWithItsPartitionBrokerAndCodeAsFields() {
    // Given partition 1 truncating on its leader 2, which answers LEADER_MOVED
    PartitionKey p1 = new PartitionKey(TOPIC, 1);
    MirrorDriver.Observation observation =
        new MirrorDriver.Observation(
            List.of(),
            Map.of(p1, new PartitionPlacement(p1, 2, List.of(2))),
            Map.of(2, "127.0.0.1"));
    FailoverPlan plan =
        new FailoverPlan(
            List.of(
                new PartitionDecision(p1, Action.TRUNCATE, PartitionPhase.STOPPING, null, null)),
            List.of(),
            FailoverPlan.CatchUp.NOT_APPLICABLE,
            List.of());
    control.fail(Action.TRUNCATE, "LEADER_MOVED");
    org.slf4j.MDC.put("resource.name", "orders-mirror");

    // When executed with the operator's JSON logging
    com.fasterxml.jackson.databind.JsonNode line;
    try (dev.kafkamirror.operator.app.ProductionLogging logging =
        dev.kafkamirror.operator.app.ProductionLogging.start("json", "info")) {
      driver.execute(
          "ns/orders-mirror", mirror(Map.of()), plan, observation, new EnumMap<>(Action.class));
      line =
          logging.jsonLines().stream()
              .filter(l -> l.get("logger").asText().equals(MirrorDriver.class.getName()))
              .findFirst()
              .orElseThrow(
                  () -> new AssertionError("no line of MirrorDriver: " + logging.output()));
    }

    // Then the line names the partition, broker and code as fields of their own, as well as in its
    // text, beside the resource fields of the reconcile
    assertThat(line.path("level").asText()).isEqualTo("INFO");
    assertThat(line.path("message").asText())
        .startsWith("clusterMirror=ns/orders-mirror partition=orders-1 broker=2 code=LEADER_MOVED");
    assertThat(line.path("clusterMirror").asText()).isEqualTo("ns/orders-mirror");
    assertThat(line.path("partition").asText()).isEqualTo("orders-1");
    assertThat(line.path("topic").asText()).isEqualTo(TOPIC);
    assertThat(line.path("partitionNumber").asText()).isEqualTo("1");
    assertThat(line.path("broker").asText()).isEqualTo("2");
    assertThat(line.path("code").asText()).isEqualTo("LEADER_MOVED");
    assertThat(line.path("resource.name").asText()).isEqualTo("orders-mirror");
    // And afterwards the thread's MDC holds only what it held before
    assertThat(org.slf4j.MDC.getCopyOfContextMap())
        .containsExactly(Map.entry("resource.name", "orders-mirror"));
    org.slf4j.MDC.clear();
  }

  @Test
  void aFenceOfManyPartitionsLogsAFewOfThemAndTheirCountAtInfo() {
    // Given eight partitions truncating on their leader 2, which answers LEADER_MOVED for each
    Map<PartitionKey, PartitionPlacement> placements = new LinkedHashMap<>();
    List<PartitionDecision> decisions = new java.util.ArrayList<>();
    for (int p = 0; p < 8; p++) {
      PartitionKey key = new PartitionKey(TOPIC, p);
      placements.put(key, new PartitionPlacement(key, 2, List.of(2)));
      decisions.add(
          new PartitionDecision(key, Action.TRUNCATE, PartitionPhase.STOPPING, null, null));
    }
    MirrorDriver.Observation observation =
        new MirrorDriver.Observation(List.of(), placements, Map.of(2, "127.0.0.1"));
    FailoverPlan plan =
        new FailoverPlan(decisions, List.of(), FailoverPlan.CatchUp.NOT_APPLICABLE, List.of());
    control.fail(Action.TRUNCATE, "LEADER_MOVED");

    // When executed with the operator's JSON logging at info
    List<com.fasterxml.jackson.databind.JsonNode> lines;
    MirrorDriver.RoundResult result;
    try (dev.kafkamirror.operator.app.ProductionLogging logging =
        dev.kafkamirror.operator.app.ProductionLogging.start("json", "info")) {
      result =
          driver.execute(
              "ns/orders-mirror", mirror(Map.of()), plan, observation, new EnumMap<>(Action.class));
      lines =
          logging.jsonLines().stream()
              .filter(l -> l.get("logger").asText().equals(MirrorDriver.class.getName()))
              .toList();
    }

    // Then every partition keeps its error, but the log has five of them and one line with the
    // count, not eight
    assertThat(result.leaderErrors()).hasSize(8);
    assertThat(lines).hasSize(MirrorDriver.LEADER_ERRORS_LOGGED_PER_CODE + 1);
    assertThat(lines.subList(0, 5))
        .allSatisfy(l -> assertThat(l.path("partition").asText()).startsWith(TOPIC + "-"));
    assertThat(lines.get(5).path("message").asText())
        .startsWith("clusterMirror=ns/orders-mirror broker=2 code=LEADER_MOVED: 8 partitions");
  }

  @Test
  void anObservationAfterAFenceEndsItsWaitAtItsBoundWithWhatItRead() throws Exception {
    // Given partition 0 fenced by broker 1, and metadata that goes on naming broker 1
    destination.topic(TOPIC, 2);
    PartitionKey p0 = new PartitionKey(TOPIC, 0);

    // When the driver observes, waiting at most 200 ms for the move
    MirrorDriver.Observation o =
        driver.observe(mirror(Map.of()), destination, false, Map.of(p0, 1), 200);

    // Then it read the metadata more than once, and goes on with broker 1 as the leader it read
    assertThat(destination.placementReads()).isGreaterThan(1);
    assertThat(o.placements().get(p0).leaderId()).isEqualTo(1);
  }

  @Test
  void anObservationAfterAFenceDescribesOnceItsOwnMetadataShowsTheMove() throws Exception {
    // Given partition 0 fenced by broker 1, whose move the second read shows
    destination.topic(TOPIC, 2);
    PartitionKey p0 = new PartitionKey(TOPIC, 0);
    destination.moveLeader(p0, 2, 1);

    // When the driver observes, Then it read twice and described partition 0 on broker 2
    MirrorDriver.Observation o =
        driver.observe(mirror(Map.of()), destination, false, Map.of(p0, 1), 5_000);
    assertThat(destination.placementReads()).isEqualTo(2);
    assertThat(o.placements().get(p0).leaderId()).isEqualTo(2);
    assertThat(
            o.partitions().stream()
                .filter(x -> x.key().equals(p0))
                .findFirst()
                .orElseThrow()
                .leaderId())
        .isEqualTo(2);

    // And when the metadata cannot be read, the observation fails as any other does
    destination.failWith("injected: no broker answers");
    org.assertj.core.api.Assertions.assertThatThrownBy(
            () -> driver.observe(mirror(Map.of()), destination, false, Map.of(p0, 2), 5_000))
        .isInstanceOf(dev.kafkamirror.operator.kafka.ClusterAdmin.KafkaCallException.class);
  }

  @Test
  void aMetadataReadThatFailsWhileWaitingEndsTheWaitWithThePreviousRead() throws Exception {
    // Given partition 0 fenced by broker 1, metadata that goes on naming broker 1, and every read
    // after the first one failing
    destination.topic(TOPIC, 2);
    PartitionKey p0 = new PartitionKey(TOPIC, 0);
    destination.failPlacementsAfter(1);

    // When the driver observes, waiting up to 5 s for the move
    MirrorDriver.Observation o =
        driver.observe(mirror(Map.of()), destination, false, Map.of(p0, 1), 5_000);

    // Then the failed re-read ended the wait instead of failing the observation, which went on
    // with what the first (and only successful) read showed: partition 0 on broker 1
    assertThat(o.placements().get(p0).leaderId()).isEqualTo(1);
    assertThat(destination.placementReads()).isEqualTo(1);
  }

  @Test
  void anInterruptedWaitForFencesFailsTheReconcile() {
    // Given a fence the metadata does not show yet, on an interrupted thread
    destination.topic(TOPIC, 1);
    PartitionKey p0 = new PartitionKey(TOPIC, 0);
    Thread.currentThread().interrupt();
    try {
      // When the driver observes after it, Then it throws and keeps the thread interrupted
      org.assertj.core.api.Assertions.assertThatThrownBy(
              () -> driver.observe(mirror(Map.of()), destination, false, Map.of(p0, 1), 5_000))
          .isInstanceOf(IllegalStateException.class)
          .hasMessageContaining("interrupted");
      assertThat(Thread.currentThread().isInterrupted()).isTrue();
    } finally {
      Thread.interrupted();
    }
  }

  @Test
  void aPartitionWithoutALeaderIsNotCalledAndSaysSo() {
    PartitionKey p0 = new PartitionKey(TOPIC, 0);
    MirrorDriver.Observation observation =
        new MirrorDriver.Observation(
            List.of(),
            Map.of(p0, new PartitionPlacement(p0, null, List.of(1, 2))),
            Map.of(1, "127.0.0.1", 2, "127.0.0.1"));
    FailoverPlan plan =
        new FailoverPlan(
            List.of(
                new PartitionDecision(
                    p0, Action.WRITE_BARRIER, PartitionPhase.STOPPING, null, null)),
            List.of(),
            FailoverPlan.CatchUp.NOT_APPLICABLE,
            List.of());

    MirrorDriver.RoundResult result =
        driver.execute(
            "ns/orders-mirror", mirror(Map.of()), plan, observation, new EnumMap<>(Action.class));

    assertThat(control.calls()).isEmpty();
    assertThat(result.leaderErrors().get(p0)).contains(p0.toString()).contains("no leader");
  }
}
