package dev.kafkamirror.broker.agent;

import static dev.kafkamirror.broker.agent.MirrorOps.failOver;
import static dev.kafkamirror.broker.agent.MirrorOps.mirrorAndCatchUp;
import static dev.kafkamirror.broker.agent.MirrorOps.producers;
import static org.assertj.core.api.Assertions.assertThat;

import dev.kafkamirror.testing.kafka.KafkaCluster;
import dev.kafkamirror.testing.kafka.TestClients;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.ProducerState;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.IsolationLevel;
import org.junit.jupiter.api.Test;

/**
 * The three silent corruptions of the seed document, each on fresh real clusters: with the rule
 * switched off (stock Kafka) they happen, with it on they do not. Fresh KRaft clusters hand out
 * producer ids from the same counter, so the first producer on the destination gets the id of the
 * first producer on the source: the collision is natural, and each test checks it.
 */
class SeedScenariosIT {

  private static KafkaCluster cluster(String name, boolean ruleOn) {
    return AgentClusters.withAgent(name)
        .singleNode()
        .brokerProperty(PluginConfig.BARRIER_RULE_ENABLE, Boolean.toString(ruleOn))
        .start();
  }

  /**
   * A cluster on transaction version 1 (markers close whatever transaction the producer id has
   * open); Kafka 4.4 defaults to version 2, whose epoch bump per transaction makes a colliding
   * producer fail visibly.
   */
  private static KafkaCluster clusterOnTransactionVersion1(String name, boolean ruleOn) {
    return AgentClusters.withAgent(name)
        .singleNode()
        .feature("transaction.version", 1)
        .brokerProperty(PluginConfig.BARRIER_RULE_ENABLE, Boolean.toString(ruleOn))
        .start();
  }

  @Test
  void sameEpochCollidingSequenceIsSilentlyDroppedByStockKafkaAndWrittenWithTheRule()
      throws Exception {
    String topic = "seed-1";
    try (KafkaCluster a = cluster("seed1-a", true);
        KafkaCluster stock = cluster("seed1-b-stock", false);
        KafkaCluster ruled = cluster("seed1-b-rule", true)) {
      // Given producer P on A wrote three records, one batch each (sequences 0, 1, 2), mirrored to
      // both Bs
      a.createTopic(topic, 1, 1, Map.of());
      writeEach(a, topic, "a-", 3);
      long sourcePid = producers(a, topic).get(0).producerId();
      for (KafkaCluster b : List.of(stock, ruled)) {
        mirrorAndCatchUp(a, b, "a-to-" + b.name(), topic);
        failOver(b, topic, a.clusterId());
      }

      // When a new local producer on each B writes three records, one batch each
      List<Long> stockOffsets = writeEach(stock, topic, "b-", 3);
      List<Long> ruledOffsets = writeEach(ruled, topic, "b-", 3);

      // Then its producer id collides with P's (same counter on fresh clusters)
      assertThat(producers(ruled, topic))
          .extracting(ProducerState::producerId)
          .containsExactly(sourcePid);
      // And stock Kafka answered "written" with A's old offsets and wrote nothing: silent loss
      assertThat(stockOffsets).containsExactly(0L, 1L, 2L);
      assertThat(values(stock, topic)).containsExactly("a-0", "a-1", "a-2");
      // And with the rule the records are written after the barrier
      assertThat(ruledOffsets).containsExactly(4L, 5L, 6L);
      assertThat(values(ruled, topic)).containsExactly("a-0", "a-1", "a-2", "b-0", "b-1", "b-2");
    }
  }

  @Test
  void lowerEpochOfACollidingProducerIsOnlyAWarningInStockKafkaAndCleanWithTheRule()
      throws Exception {
    String topic = "seed-2";
    try (KafkaCluster a = cluster("seed2-a", true);
        KafkaCluster b = cluster("seed2-b", true);
        KafkaCluster stockC = cluster("seed2-c-stock", false);
        KafkaCluster ruledC = cluster("seed2-c-rule", true)) {
      // Given on A a transactional producer at epoch 1 (re-initialised once) committed three
      // records
      a.createTopic(topic, 1, 1, Map.of());
      try (KafkaProducer<String, String> first =
          TestClients.transactionalProducer(a.bootstrapServers(), "t")) {
        first.initTransactions();
      }
      try (KafkaProducer<String, String> second =
          TestClients.transactionalProducer(a.bootstrapServers(), "t")) {
        second.initTransactions();
        second.beginTransaction();
        for (int i = 0; i < 3; i++) {
          second.send(new ProducerRecord<>(topic, "k", "a-" + i));
        }
        TestClients.commitAndAwaitMarkers(second, a.bootstrapServers(), "t");
      }
      ProducerState onA = producers(a, topic).get(0);
      assertThat(onA.producerEpoch()).isGreaterThan(0);

      // And B mirrored A, failed over, and a new producer on B (same id, epoch 0) wrote three
      // records
      mirrorAndCatchUp(a, b, "a-to-b", topic);
      failOver(b, topic, a.clusterId());
      writeEach(b, topic, "b-", 3);
      assertThat(producers(b, topic))
          .extracting(ProducerState::producerId)
          .containsExactly(onA.producerId());

      // When C mirrors B (chain A -> B -> C), once with the rule off and once with it on
      mirrorAndCatchUp(b, stockC, "b-to-c", topic);
      mirrorAndCatchUp(b, ruledC, "b-to-c", topic);

      // Then stock C accepted the lower epoch with only a WARN and mixes both producers under one
      // id
      // (The epoch in the log may be above what describeProducers reported on A: with transaction
      // version 2
      // the commit marker, written after commitTransaction returns, bumps it once more.)
      String warning = "Epoch of producer " + onA.producerId() + " at offset";
      assertThat(stockC.node(1).outputSinceStart())
          .containsPattern(
              "Epoch of producer "
                  + onA.producerId()
                  + " at offset \\d+ in "
                  + topic
                  + "-0 is 0, which is < the last seen epoch [1-9]");
      // And the ruled C reset at B's barrier: no warning, and the id belongs to B's producer alone,
      // epoch 0
      assertThat(ruledC.node(1).outputSinceStart()).doesNotContain(warning);
      ProducerState onC = producers(ruledC, topic).get(0);
      assertThat(onC.producerId()).isEqualTo(onA.producerId());
      assertThat(onC.producerEpoch()).isZero();
      assertThat(onC.lastSequence()).isEqualTo(2);
    }
  }

  @Test
  void oneProducersCommitClosesTheOthersTransactionInStockKafkaButNotWithTheRule()
      throws Exception {
    String topic = "seed-3";
    try (KafkaCluster a = clusterOnTransactionVersion1("seed3-a", true);
        KafkaCluster stock = clusterOnTransactionVersion1("seed3-b-stock", false);
        KafkaCluster ruled = clusterOnTransactionVersion1("seed3-b-rule", true)) {
      // Given a transaction on A that is still open (never committed) when the Bs fail over
      a.createTopic(topic, 1, 1, Map.of());
      KafkaProducer<String, String> open =
          TestClients.transactionalProducer(a.bootstrapServers(), "a-tx");
      try {
        open.initTransactions();
        open.beginTransaction();
        for (int i = 0; i < 3; i++) {
          open.send(new ProducerRecord<>(topic, "k", "a-never-committed-" + i));
        }
        open.flush();
        long sourcePid = producers(a, topic).get(0).producerId();
        for (KafkaCluster b : List.of(stock, ruled)) {
          mirrorAndCatchUp(a, b, "a-to-" + b.name(), topic);
          failOver(b, topic, a.clusterId());
        }

        // When a new transactional producer on each B (the same producer id) commits three records
        for (KafkaCluster b : List.of(stock, ruled)) {
          try (KafkaProducer<String, String> local =
              TestClients.transactionalProducer(b.bootstrapServers(), "b-tx")) {
            local.initTransactions();
            local.beginTransaction();
            for (int i = 0; i < 3; i++) {
              local.send(new ProducerRecord<>(topic, "k", "b-committed-" + i));
            }
            TestClients.commitAndAwaitMarkers(local, b.bootstrapServers(), "b-tx");
          }
        }
        assertThat(producers(ruled, topic))
            .extracting(ProducerState::producerId)
            .containsExactly(sourcePid);

        // Then on stock B the local COMMIT closed A's transaction: never-committed records are
        // visible, B's lost
        assertThat(values(stock, topic))
            .contains("a-never-committed-0")
            .doesNotContain("b-committed-0");
        // And with the rule A's transaction was aborted before the barrier and B's commit is B's
        // alone
        assertThat(values(ruled, topic))
            .containsExactly("b-committed-0", "b-committed-1", "b-committed-2");
        assertThat(
                MirrorOps.control(ruled).describe(topic, 0).result(topic, 0).get("barrierResets"))
            .allSatisfy(r -> assertThat(r.get("forcedAborts").asInt()).isZero());
      } finally {
        open.close(Duration.ZERO);
      }
    }
  }

  /**
   * Writes {@code count} records from one new idempotent producer, one batch each; returns their
   * offsets.
   */
  private static List<Long> writeEach(KafkaCluster cluster, String topic, String prefix, int count)
      throws Exception {
    List<Long> offsets = new ArrayList<>();
    try (KafkaProducer<String, String> producer =
        TestClients.idempotentProducer(cluster.bootstrapServers())) {
      for (int i = 0; i < count; i++) {
        offsets.add(
            producer
                .send(new ProducerRecord<>(topic, "k", prefix + i))
                .get(30, TimeUnit.SECONDS)
                .offset());
      }
    }
    return offsets;
  }

  private static List<String> values(KafkaCluster cluster, String topic) {
    return TestClients.values(
        TestClients.readAll(
            cluster.bootstrapServers(),
            topic,
            IsolationLevel.READ_COMMITTED,
            Duration.ofSeconds(60)));
  }
}
