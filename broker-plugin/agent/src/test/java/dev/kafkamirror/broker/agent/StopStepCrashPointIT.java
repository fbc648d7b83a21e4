package dev.kafkamirror.broker.agent;

import static dev.kafkamirror.broker.agent.StopFixtures.awaitReplicasConverged;
import static dev.kafkamirror.broker.agent.StopFixtures.barrierOffsets;
import static dev.kafkamirror.broker.agent.StopFixtures.replicaBytes;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import dev.kafkamirror.broker.agent.TestFaults.CrashPoint;
import dev.kafkamirror.testing.kafka.KafkaCluster;
import dev.kafkamirror.testing.kafka.KafkaClusterConfig;
import dev.kafkamirror.testing.kafka.TestClients;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.kafka.common.IsolationLevel;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Crash safety <em>inside</em> a stop step (issue 9 item 7): the leader halts (like kill -9, at a
 * test-only crash point of {@link TestFaults}) between the TRUNCATING record and the truncation,
 * between the barrier's append and BARRIER_WRITTEN, and between STOPPED and the partition turning
 * writable. Driving the whole sequence again from the start must reach STOPPED with one barrier,
 * the same log on every replica, and nothing committed below the LSO lost: the assertions of {@link
 * StopSequenceCrashIT}.
 */
class StopStepCrashPointIT {

  private static Path crashPointFile;
  private static KafkaCluster source;
  private static KafkaCluster destination;

  @BeforeAll
  static void start() throws Exception {
    crashPointFile = Files.createTempDirectory("cmo-crash-points").resolve("crash-point");
    source = KafkaCluster.start(KafkaClusterConfig.builder("crashpoint-src").build());
    destination =
        KafkaCluster.start(
            AgentClusters.withAgent("crashpoint-dest")
                .controllerPlusBrokers(3)
                .jvmArg("-D" + TestFaults.CRASH_POINT_FILE + "=" + crashPointFile)
                .build());
  }

  @AfterAll
  static void stop() throws Exception {
    if (destination != null) {
      destination.close();
    }
    if (source != null) {
      source.close();
    }
    if (crashPointFile != null) {
      Files.deleteIfExists(crashPointFile);
      Files.deleteIfExists(crashPointFile.getParent());
    }
  }

  @ParameterizedTest(name = "{0}")
  @EnumSource(
      value = CrashPoint.class,
      mode = EnumSource.Mode.EXCLUDE,
      names = {"INSIDE_FOLLOWER_TRUNCATION_BATCH", "INSIDE_LEADER_TRUNCATION_BATCH"})
  void aLeaderThatCrashesInsideAStepLeavesAStopThatResumesToStoppedWithOneBarrier(CrashPoint point)
      throws Exception {
    String topic = "crashpoint-" + point.fileContent();
    TopicPartition tp = new TopicPartition(topic, 0);
    // Given a mirrored partition (RF=3) with a transaction open on the source
    StopFixtures.SourceData data =
        StopFixtures.mirroredWithOpenTransaction(source, destination, topic);
    StopDriver driver = new StopDriver(destination, source.clusterId());
    String crashingStep = stepOf(point);
    String stepBefore = StopDriver.STEPS.get(StopDriver.STEPS.indexOf(crashingStep) - 1);
    driver.stopUpTo(List.of(tp), stepBefore);

    // When the leader halts inside the step, at the crash point
    Files.writeString(crashPointFile, point.fileContent(), StandardCharsets.UTF_8);
    assertThatThrownBy(() -> driver.step(crashingStep, List.of(tp)))
        .as("the call that reached " + point)
        .hasMessageContaining("failed");
    int crashed = awaitHaltedAt(point, Duration.ofSeconds(30), List.of(tp));
    // And the whole sequence is driven again from the start, then the broker comes back
    driver.stop(List.of(tp));
    destination.restartBroker(crashed);

    // Then the partition is STOPPED with one barrier at the source's LSO on identical replicas,
    // and exactly the records committed below the LSO are visible
    assertStoppedWithOneBarrierOnEqualReplicas(driver, tp, data);
  }

  /**
   * The agent writes the recovery-point checkpoint of a batch of follower truncations once, at the
   * end of the batch ({@code TruncationBatches}); a follower that dies inside the batch restarts
   * with recovery points above its truncated log ends. Without the batch the crash point does not
   * exist (no broker halts and the test fails); it was seen failing that way while the advice's
   * helper was not public and the batch therefore never opened.
   */
  @Test
  void aFollowerThatCrashesInsideABatchOfTruncationsRestartsIntoEqualReplicas() throws Exception {
    // Given four mirrored partitions (RF=3), each with a transaction open on the source
    List<TopicPartition> tps = new ArrayList<>();
    Map<String, StopFixtures.SourceData> data = new LinkedHashMap<>();
    for (int i = 0; i < 4; i++) {
      String topic = "crashpoint-follower-batch-" + i;
      tps.add(new TopicPartition(topic, 0));
      data.put(topic, StopFixtures.mirroredWithOpenTransaction(source, destination, topic));
    }
    StopDriver driver = new StopDriver(destination, source.clusterId());
    driver.stopUpTo(tps, "remove-fetchers");

    // When the truncate step fences and truncates the leaders, and a follower halts after it
    // truncated in a batch and before that batch's recovery-point checkpoint
    Files.writeString(
        crashPointFile,
        CrashPoint.INSIDE_FOLLOWER_TRUNCATION_BATCH.fileContent(),
        StandardCharsets.UTF_8);
    try {
      driver.step("truncate", tps);
    } catch (AssertionError | RuntimeException e) {
      // the halted broker may have been one the step was calling: the rerun below resumes
    }
    int crashed =
        awaitHaltedAt(CrashPoint.INSIDE_FOLLOWER_TRUNCATION_BATCH, Duration.ofSeconds(60), tps);
    // And the whole sequence is driven again from the start, then the follower comes back
    driver.stop(tps);
    destination.restartBroker(crashed);

    // Then every partition is STOPPED with its barrier at the source's LSO, and every replica,
    // the restarted one's too, holds the same bytes and exactly one barrier
    for (TopicPartition tp : tps) {
      assertStoppedWithOneBarrierOnEqualReplicas(driver, tp, data.get(tp.topic()));
    }
  }

  /**
   * A leader's truncations of a stop call are one batch whose producer-state snapshots are written
   * without a sync and synced together at its end ({@code TruncationBatches}). A leader that dies
   * inside the batch loses nothing on a process crash (the page cache keeps the files), but an
   * operating-system crash could leave the snapshot without its contents: the test zeroes it before
   * the restart, as such a crash could, and checks that Kafka notices, rebuilds the producer state
   * from the log, and that the replicas converge. Without the batch the crash point does not exist
   * (no broker halts and the test fails).
   */
  @Test
  void aLeaderThatCrashesInsideItsTruncationBatchRestartsFromALostSnapshotIntoEqualReplicas()
      throws Exception {
    String topic = "crashpoint-leader-batch";
    TopicPartition tp = new TopicPartition(topic, 0);
    // Given a mirrored partition (RF=3) with a transaction open on the source
    StopFixtures.SourceData data =
        StopFixtures.mirroredWithOpenTransaction(source, destination, topic);
    StopDriver driver = new StopDriver(destination, source.clusterId());
    driver.stopUpTo(List.of(tp), "remove-fetchers");

    // When the truncate step fences, and the new leader halts after its truncation and before
    // the batch has synced the producer-state snapshot the truncation wrote
    Files.writeString(
        crashPointFile,
        CrashPoint.INSIDE_LEADER_TRUNCATION_BATCH.fileContent(),
        StandardCharsets.UTF_8);
    try {
      driver.step("truncate", List.of(tp));
    } catch (AssertionError | RuntimeException e) {
      // the halted broker was the one the step was calling: the rerun below resumes
    }
    int crashed =
        awaitHaltedAt(
            CrashPoint.INSIDE_LEADER_TRUNCATION_BATCH, Duration.ofSeconds(60), List.of(tp));
    // (the batch had deferred the sync of at least one snapshot when it halted)
    java.util.regex.Matcher deferred =
        java.util.regex.Pattern.compile(
                "inside-leader-truncation-batch reached \\((\\d+) snapshots and")
            .matcher(Files.readString(destination.node(crashed).outputFile()));
    assertThat(deferred.find()).as("the crash point's line names the deferred snapshots").isTrue();
    assertThat(Integer.parseInt(deferred.group(1)))
        .as("snapshot syncs deferred in the batch")
        .isPositive();
    // And that snapshot's contents are lost, as an operating-system crash could lose them
    java.nio.file.Path snapshot =
        destination
            .node(crashed)
            .logDir()
            .resolve(topic + "-0")
            .resolve(String.format("%020d.snapshot", data.lastStableOffset()));
    assertThat(snapshot).as("the snapshot the truncation wrote").exists();
    Files.write(snapshot, new byte[(int) Files.size(snapshot)]);
    // And the whole sequence is driven again from the start, then the broker comes back
    driver.stop(List.of(tp));
    destination.restartBroker(crashed);

    // Then the partition is STOPPED with one barrier at the source's LSO on identical replicas,
    // the restarted one's too, and exactly the records committed below the LSO are visible
    assertStoppedWithOneBarrierOnEqualReplicas(driver, tp, data);
    // And the restarted broker did not use the lost snapshot: its unclean start deleted it (a
    // snapshot above the recovery point) or refused it by its CRC, and rebuilt the producer
    // state from the log; if the file is there again, it is one Kafka wrote anew
    String log = Files.readString(destination.node(crashed).outputFile());
    assertThat(
            log.contains("Deleted producer state snapshot " + snapshot)
                || log.contains("Failed to load producer snapshot from '" + snapshot + "'"))
        .as("the restarted broker deleted or refused " + snapshot)
        .isTrue();
    if (Files.exists(snapshot)) {
      byte[] now = Files.readAllBytes(snapshot);
      assertThat(now).as("the snapshot at the truncation offset after the restart").isNotEmpty();
      assertThat(now).isNotEqualTo(new byte[now.length]);
    }
  }

  /**
   * Waits until a destination broker halted at {@code point} (it said so, and the crash-point file
   * is gone: a point fires once) and every partition of {@code tps} has another leader; the halted
   * broker's id.
   */
  private static int awaitHaltedAt(CrashPoint point, Duration within, List<TopicPartition> tps)
      throws Exception {
    int crashed =
        await()
            .atMost(within)
            .until(
                () ->
                    destination.brokerIds().stream()
                        .filter(b -> !destination.node(b).isRunning())
                        .findFirst()
                        .orElse(-1),
                b -> b > 0);
    assertThat(crashPointFile).as("a crash point fires once").doesNotExist();
    assertThat(Files.readString(destination.node(crashed).outputFile()))
        .contains("test crash point " + point.fileContent() + " reached");
    for (TopicPartition tp : tps) {
      await()
          .atMost(Duration.ofSeconds(60))
          .ignoreExceptions()
          .until(() -> destination.leaderOf(tp) != crashed);
    }
    return crashed;
  }

  /**
   * {@code tp} is STOPPED with its barrier at the source's LSO, every replica holds the same bytes
   * and exactly that one barrier, and a read-committed reader sees exactly the records committed
   * below the LSO.
   */
  private static void assertStoppedWithOneBarrierOnEqualReplicas(
      StopDriver driver, TopicPartition tp, StopFixtures.SourceData data) throws Exception {
    JsonNode stop = driver.describeOnLeaders(List.of(tp)).get(tp).get("stop");
    assertThat(stop.get("step").asText()).as(tp.toString()).isEqualTo("STOPPED");
    assertThat(stop.get("truncatedToOffset").asLong()).isEqualTo(data.lastStableOffset());
    assertThat(stop.get("barrierOffset").asLong()).isEqualTo(data.lastStableOffset());
    awaitReplicasConverged(destination, tp);
    byte[] reference = replicaBytes(destination, destination.leaderOf(tp), tp);
    for (int broker : destination.brokerIds()) {
      assertThat(replicaBytes(destination, broker, tp))
          .as(tp + " replica on broker " + broker)
          .isEqualTo(reference);
      assertThat(barrierOffsets(destination, broker, tp))
          .as(tp + " barriers on broker " + broker)
          .containsExactly(data.lastStableOffset());
    }
    assertThat(
            TestClients.values(
                TestClients.readAll(
                    destination.bootstrapServers(),
                    tp.topic(),
                    IsolationLevel.READ_COMMITTED,
                    Duration.ofSeconds(60))))
        .containsExactlyElementsOf(data.committedBelowLso());
  }

  private static String stepOf(CrashPoint point) {
    return switch (point) {
      case AFTER_TRUNCATING_RECORDED -> "truncate";
      case AFTER_BARRIER_APPENDED -> "barrier";
      case AFTER_STOPPED_RECORDED -> "make-writable";
      case INSIDE_FOLLOWER_TRUNCATION_BATCH, INSIDE_LEADER_TRUNCATION_BATCH ->
          throw new IllegalArgumentException(point + " is not inside a stop step");
    };
  }
}
