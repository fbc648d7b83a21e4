package dev.kafkamirror.broker.agent;

import static dev.kafkamirror.broker.agent.MirrorOps.control;
import static dev.kafkamirror.broker.agent.MirrorOps.failOver;
import static dev.kafkamirror.broker.agent.MirrorOps.logEnd;
import static dev.kafkamirror.broker.agent.MirrorOps.producers;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import dev.kafkamirror.contract.ControlRequest;
import dev.kafkamirror.testing.kafka.KafkaCluster;
import dev.kafkamirror.testing.kafka.TestClients;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.ProducerState;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.IsolationLevel;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;

/**
 * Failback by truncate-and-restore on real brokers with the plugin on both clusters: A→B, fail over
 * to B while A also takes writes (split brain), B→A with {@code initialSync: TRUNCATE_AND_RESTORE}
 * (A discards what B never had, reported first, becomes a read-only mirror of B and receives B's
 * barrier), fail over back to A, then A→B again the same way. New producers write on each side each
 * time; every record is checked on both clusters, and no producer of an earlier cluster is left in
 * producer state after a stop.
 *
 * <p>One pair of single-broker clusters for the whole class; the tests are the legs, in order.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class FailbackIT {

  private static final String TOPIC = "failback";

  private static KafkaCluster a;
  private static KafkaCluster b;

  /** Every committed value, in log order, that the cluster that is writable now must hold. */
  private static final List<String> expected = new ArrayList<>();

  /** Values written on a side whose writes a failback discards. */
  private static final List<String> discarded = new ArrayList<>();

  private static JsonNode bStop;
  private static JsonNode aStop;

  @BeforeAll
  static void startClusters() {
    a = AgentClusters.withAgent("failback-a").singleNode().start();
    try {
      b = AgentClusters.withAgent("failback-b").singleNode().start();
    } catch (RuntimeException e) {
      a.close();
      throw e;
    }
  }

  @AfterAll
  static void stopClusters() {
    try {
      if (b != null) {
        b.close();
      }
    } finally {
      if (a != null) {
        a.close();
      }
    }
  }

  @Test
  @Order(1)
  void leg1MirrorsAToBAndFailsOverWhileBothSidesTakeNewWrites() throws Exception {
    // Given A holds idempotent records, a committed and an aborted transaction
    a.createTopic(TOPIC, 1, 1, Map.of());
    expected.addAll(ProducerWrites.idempotent(a, TOPIC, "a1", 20));
    expected.addAll(transaction(a, "ta1", "a1-txn", 10, true));
    transaction(a, "ta1", "a1-aborted", 5, false);

    // When B mirrors A, catches up and fails over
    MirrorOps.mirrorAndCatchUp(a, b, "a-to-b", TOPIC);
    failOver(b, TOPIC, a.clusterId());
    bStop = control(b).describe(TOPIC, 0).result(TOPIC, 0).get("stop");

    // Then B recorded where it stopped and the source epoch of A's last batch it kept
    assertThat(bStop.get("lastMirroredOffset").asLong()).isEqualTo(logEnd(a, TOPIC));
    assertThat(bStop.get("lastMirroredSourceEpoch").asInt()).as(bStop.toString()).isEqualTo(0);
    // And B holds no producer of A after its barrier
    assertThat(producers(b, TOPIC)).isEmpty();

    // And new producers write on B, and (split brain) on A too
    expected.addAll(ProducerWrites.idempotent(b, TOPIC, "b1", 15));
    expected.addAll(transaction(b, "tb1", "b1-txn", 6, true));
    discarded.addAll(ProducerWrites.idempotent(a, TOPIC, "a1-split", 7));
    assertThat(producers(b, TOPIC)).hasSize(2);
  }

  @Test
  @Order(2)
  void leg2FailbackPlansThenTruncatesAReportingWhatItDiscardsBeforeMirroringB() throws Exception {
    long aEndBefore = logEnd(a, TOPIC);
    long lmo = bStop.get("lastMirroredOffset").asLong();
    Map<Integer, ControlRequest.AlignTo> alignTo =
        Map.of(0, new ControlRequest.AlignTo(lmo, bStop.get("lastMirroredSourceEpoch").asInt()));

    // When the failback B→A is planned (dry run)
    JsonNode plan =
        control(a)
            .startFailback("b-to-a", b.bootstrapServers(), b.clusterId(), true, TOPIC, alignTo)
            .result(TOPIC, 0);

    // Then it reports A's split-brain records (offsets, count, bytes) and changes nothing
    assertThat(plan.has("error")).as(plan.toString()).isFalse();
    JsonNode planned = plan.get("alignment");
    assertThat(planned.get("alignmentOffset").asLong()).isEqualTo(lmo);
    assertThat(planned.get("discardedFromOffset").asLong()).isEqualTo(lmo);
    assertThat(planned.get("discardedToOffset").asLong()).isEqualTo(aEndBefore);
    assertThat(planned.get("discardedRecords").asLong()).isEqualTo(discarded.size());
    assertThat(planned.get("discardedBytes").asLong()).isPositive();
    assertThat(planned.get("dryRun").asBoolean()).isTrue();
    assertThat(logEnd(a, TOPIC)).isEqualTo(aEndBefore);
    assertThat(control(a).describe(TOPIC, 0).result(TOPIC, 0).has("mirror")).isFalse();

    // When a client writes on A after that report, and the real start names the reported end
    writeWithShortTimeout(a, "a-after-report");
    discarded.add("a-after-report");
    long aEndAfterReport = logEnd(a, TOPIC);
    assertThat(aEndAfterReport).isGreaterThan(aEndBefore);
    JsonNode refused =
        control(a)
            .startFailback(
                "b-to-a",
                b.bootstrapServers(),
                b.clusterId(),
                false,
                TOPIC,
                withExpectedEnd(alignTo, planned.get("discardedToOffset").asLong()))
            .result(TOPIC, 0);

    // Then it is refused INVALID_STATE naming the partition and both ends; nothing is truncated
    assertThat(refused.has("error")).as(refused.toString()).isTrue();
    assertThat(refused.get("error").get("code").asText()).isEqualTo("INVALID_STATE");
    assertThat(refused.get("error").get("message").asText())
        .contains(
            "FailbackLogMovedAfterReport",
            TOPIC + "-0",
            "b-to-a",
            "up to offset " + aEndBefore,
            "ends at " + aEndAfterReport);
    assertThat(logEnd(a, TOPIC)).isEqualTo(aEndAfterReport);
    // And A is no mirror and takes client writes again (the registration was rolled back)
    assertThat(control(a).describe(TOPIC, 0).result(TOPIC, 0).has("mirror")).isFalse();
    writeWithShortTimeout(a, "a-after-refusal");
    discarded.add("a-after-refusal");
    long aEndReported = logEnd(a, TOPIC);

    // When the failback is planned again, reporting the new records
    JsonNode replanned =
        control(a)
            .startFailback("b-to-a", b.bootstrapServers(), b.clusterId(), true, TOPIC, alignTo)
            .result(TOPIC, 0);
    assertThat(replanned.has("error")).as(replanned.toString()).isFalse();
    planned = replanned.get("alignment");
    assertThat(planned.get("discardedToOffset").asLong()).isEqualTo(aEndReported);
    assertThat(planned.get("discardedRecords").asLong()).isEqualTo(discarded.size());

    // When it runs, naming the log end that report covered
    JsonNode started =
        control(a)
            .startFailback(
                "b-to-a",
                b.bootstrapServers(),
                b.clusterId(),
                false,
                TOPIC,
                withExpectedEnd(alignTo, planned.get("discardedToOffset").asLong()))
            .result(TOPIC, 0);

    // Then A was truncated to B's last mirrored offset, with the same accounting, and mirrors B
    assertThat(started.has("error")).as(started.toString()).isFalse();
    assertThat(started.get("state").asText()).isEqualTo("MIRRORING");
    JsonNode done = started.get("alignment");
    assertThat(done.get("alignmentOffset").asLong()).isEqualTo(lmo);
    assertThat(done.get("discardedRecords").asLong()).isEqualTo(discarded.size());
    assertThat(done.get("discardedBytes").asLong())
        .isEqualTo(planned.get("discardedBytes").asLong());
    assertThat(done.get("truncated").asBoolean()).isTrue();

    // And A catches up with B, batch for batch, B's barrier included
    long bEnd = logEnd(b, TOPIC);
    await()
        .atMost(Duration.ofSeconds(60))
        .untilAsserted(
            () -> {
              JsonNode d = control(a).describe(TOPIC, 0).result(TOPIC, 0);
              assertThat(d.get("highWatermark").asLong()).as(d.toString()).isEqualTo(bEnd);
            });
    assertThat(LogBatches.signatures(a, TOPIC)).isEqualTo(LogBatches.signatures(b, TOPIC));
    JsonNode described = control(a).describe(TOPIC, 0).result(TOPIC, 0);
    assertThat(described.get("mirror").get("alignment").get("alignmentOffset").asLong())
        .isEqualTo(lmo);
    assertThat(described.get("barrierResets").toString())
        .contains("\"barrierOffset\":" + bStop.get("barrierOffset").asLong());

    // And A refuses client writes while it is a mirror
    assertThatThrownBy(() -> writeWithShortTimeout(a, "a-refused"))
        .isInstanceOf(ExecutionException.class);

    // And a repeated start changes nothing (idempotent)
    JsonNode again =
        control(a)
            .startFailback("b-to-a", b.bootstrapServers(), b.clusterId(), false, TOPIC, alignTo)
            .result(TOPIC, 0);
    assertThat(again.get("state").asText()).as(again.toString()).isEqualTo("MIRRORING");
    assertThat(logEnd(a, TOPIC)).isEqualTo(bEnd);

    // And every committed record is on A once, the split-brain ones and the aborted ones never
    assertThat(committedValues(a)).containsExactlyElementsOf(expected);
  }

  @Test
  @Order(3)
  void leg2SwitchesBackToAWhichWritesItsBarrierAndTakesNewProducers() throws Exception {
    // When the B→A mirror stops on A (planned switchover: A is caught up)
    failOver(a, TOPIC, b.clusterId());
    aStop = control(a).describe(TOPIC, 0).result(TOPIC, 0).get("stop");

    // Then A holds no producer of A's or B's earlier producers
    assertThat(producers(a, TOPIC)).isEmpty();
    assertThat(aStop.get("lastMirroredOffset").asLong()).isEqualTo(logEnd(b, TOPIC));

    // And new producers on A (whose ids may collide with earlier ones) write
    expected.addAll(ProducerWrites.idempotent(a, TOPIC, "a2", 12));
    expected.addAll(transaction(a, "ta2", "a2-txn", 4, true));
    assertThat(producers(a, TOPIC)).extracting(ProducerState::producerId).hasSize(2);
    assertThat(committedValues(a)).containsExactlyElementsOf(expected);

    // And B, the old side, took writes again after A's stop (split brain once more)
    discarded.addAll(ProducerWrites.idempotent(b, TOPIC, "b1-split", 3));
  }

  @Test
  @Order(4)
  void leg3FailsBackToBTheSameWay() throws Exception {
    long lmo = aStop.get("lastMirroredOffset").asLong();
    Map<Integer, ControlRequest.AlignTo> alignTo =
        Map.of(0, new ControlRequest.AlignTo(lmo, aStop.get("lastMirroredSourceEpoch").asInt()));

    // When B becomes a mirror of A again (a new mirror name: a-to-b is stopped on B)
    JsonNode started =
        control(b)
            .startFailback("a-to-b-2", a.bootstrapServers(), a.clusterId(), false, TOPIC, alignTo)
            .result(TOPIC, 0);

    // Then B discards its second split-brain writes, mirrors A and catches up
    assertThat(started.has("error")).as(started.toString()).isFalse();
    assertThat(started.get("alignment").get("alignmentOffset").asLong()).isEqualTo(lmo);
    assertThat(started.get("alignment").get("discardedRecords").asLong()).isEqualTo(3);
    long aEnd = logEnd(a, TOPIC);
    await()
        .atMost(Duration.ofSeconds(60))
        .untilAsserted(
            () -> {
              JsonNode d = control(b).describe(TOPIC, 0).result(TOPIC, 0);
              assertThat(d.get("highWatermark").asLong()).as(d.toString()).isEqualTo(aEnd);
            });
    assertThat(LogBatches.signatures(b, TOPIC)).isEqualTo(LogBatches.signatures(a, TOPIC));

    // When B fails over again, and new producers write on B
    failOver(b, TOPIC, a.clusterId());
    assertThat(producers(b, TOPIC)).isEmpty();
    expected.addAll(ProducerWrites.idempotent(b, TOPIC, "b3", 5));
    expected.addAll(transaction(b, "tb1", "b3-txn", 3, true));

    // Then every committed record of every leg is on B once, in order, nothing discarded or
    // aborted visible
    List<String> onB = committedValues(b);
    assertThat(onB).containsExactlyElementsOf(expected);
    assertThat(onB).doesNotContainAnyElementsOf(discarded);
    assertThat(producers(b, TOPIC)).hasSize(2);
  }

  /** {@code alignTo} with the log end a failback report covered. */
  private static Map<Integer, ControlRequest.AlignTo> withExpectedEnd(
      Map<Integer, ControlRequest.AlignTo> alignTo, long expectedLogEndOffset) {
    Map<Integer, ControlRequest.AlignTo> out = new java.util.HashMap<>();
    alignTo.forEach(
        (p, t) ->
            out.put(
                p,
                new ControlRequest.AlignTo(
                    t.lastMirroredOffset(), t.lastMirroredSourceEpoch(), expectedLogEndOffset)));
    return out;
  }

  private static List<String> committedValues(KafkaCluster cluster) {
    return TestClients.values(
        TestClients.readAll(
            cluster.bootstrapServers(),
            TOPIC,
            IsolationLevel.READ_COMMITTED,
            Duration.ofSeconds(60)));
  }

  /** One transaction of {@code count} records, committed (markers awaited) or aborted. */
  private static List<String> transaction(
      KafkaCluster cluster, String transactionalId, String prefix, int count, boolean commit) {
    List<String> values = new ArrayList<>();
    try (KafkaProducer<String, String> producer =
        TestClients.transactionalProducer(cluster.bootstrapServers(), transactionalId)) {
      producer.initTransactions();
      producer.beginTransaction();
      for (int i = 0; i < count; i++) {
        producer.send(new ProducerRecord<>(TOPIC, "k", prefix + "-" + i));
        values.add(prefix + "-" + i);
      }
      if (commit) {
        TestClients.commitAndAwaitMarkers(producer, cluster.bootstrapServers(), transactionalId);
      } else {
        producer.abortTransaction();
        TestClients.awaitTransactionCompleted(
            cluster.bootstrapServers(), transactionalId, Duration.ofSeconds(60));
      }
    }
    return values;
  }

  private static void writeWithShortTimeout(KafkaCluster cluster, String value) throws Exception {
    Properties props = new Properties();
    props.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, cluster.bootstrapServers());
    props.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
    props.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
    props.put(ProducerConfig.ACKS_CONFIG, "all");
    props.put(ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG, "5000");
    props.put(ProducerConfig.REQUEST_TIMEOUT_MS_CONFIG, "4000");
    props.put(ProducerConfig.LINGER_MS_CONFIG, "0");
    try (KafkaProducer<String, String> producer = new KafkaProducer<>(props)) {
      producer.send(new ProducerRecord<>(TOPIC, "k", value)).get(30, TimeUnit.SECONDS);
    }
  }
}
