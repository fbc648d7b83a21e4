package dev.kafkamirror.broker.agent;

import static dev.kafkamirror.broker.agent.MirrorOps.control;
import static dev.kafkamirror.broker.agent.MirrorOps.failOver;
import static dev.kafkamirror.broker.agent.MirrorOps.mirrorAndCatchUp;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.kafkamirror.testing.kafka.KafkaCluster;
import dev.kafkamirror.testing.kafka.TestClients;
import java.time.Duration;
import java.util.Map;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.IsolationLevel;
import org.junit.jupiter.api.Test;

/**
 * A barrier this plugin did not write, arriving with a transaction still open: B runs stock
 * behaviour (the rule off, so no ABORT markers), and C mirrors B with the rule on. C must not leave
 * its last stable offset stuck and must not show the never-committed records.
 */
class OpenTransactionAtForeignBarrierIT {

  @Test
  void aMirroredBarrierOverAnOpenTransactionAbortsItInTheIndexAndFreesTheLastStableOffset()
      throws Exception {
    String topic = "foreign-barrier";
    try (KafkaCluster a = AgentClusters.withAgent("foreign-a").singleNode().start();
        KafkaCluster b =
            AgentClusters.withAgent("foreign-b")
                .singleNode()
                .brokerProperty(PluginConfig.BARRIER_RULE_ENABLE, "false")
                .start();
        KafkaCluster c = AgentClusters.withAgent("foreign-c").singleNode().start()) {
      // Given committed data, then a transaction left open on A, mirrored to B
      a.createTopic(topic, 1, 1, Map.of());
      KafkaProducer<String, String> open =
          TestClients.transactionalProducer(a.bootstrapServers(), "left-open");
      try {
        open.initTransactions();
        open.beginTransaction();
        open.send(new ProducerRecord<>(topic, "k", "committed-0"));
        TestClients.commitAndAwaitMarkers(open, a.bootstrapServers(), "left-open");
        open.beginTransaction();
        for (int i = 0; i < 3; i++) {
          open.send(new ProducerRecord<>(topic, "k", "never-committed-" + i));
        }
        open.flush();
        mirrorAndCatchUp(a, b, "a-to-b", topic);

        // And B fails over with stock behaviour: a barrier, no ABORT marker, the transaction still
        // open in B's log
        long barrierOffset = failOver(b, topic, a.clusterId());

        // When C mirrors B, barrier included
        mirrorAndCatchUp(b, c, "b-to-c", topic);

        // Then C recorded the open transaction as aborted at the barrier and reset its producers
        JsonNode onC = control(c).describe(topic, 0).result(topic, 0);
        assertThat(onC.get("barrierResets"))
            .anySatisfy(
                r -> {
                  assertThat(r.get("barrierOffset").asLong()).isEqualTo(barrierOffset);
                  assertThat(r.get("forcedAborts").asInt()).isEqualTo(1);
                });
        assertThat(onC.get("openTransactions").asInt()).isZero();
        // And its last stable offset is not stuck at the open transaction: it reaches the high
        // watermark
        assertThat(onC.get("lastStableOffset").asLong())
            .isEqualTo(onC.get("highWatermark").asLong());
        // And read_committed consumers on C see the committed record and none of the
        // never-committed ones
        assertThat(
                TestClients.values(
                    TestClients.readAll(
                        c.bootstrapServers(),
                        topic,
                        IsolationLevel.READ_COMMITTED,
                        Duration.ofSeconds(60))))
            .containsExactly("committed-0");
        // While B, stock, keeps its last stable offset stuck below the open transaction
        JsonNode onB = control(b).describe(topic, 0).result(topic, 0);
        assertThat(onB.get("lastStableOffset").asLong())
            .isLessThan(onB.get("highWatermark").asLong());
      } finally {
        open.close(Duration.ZERO);
      }
    }
  }
}
