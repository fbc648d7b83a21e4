package dev.kafkamirror.broker.agent;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import dev.kafkamirror.contract.ControlCall;
import dev.kafkamirror.testing.kafka.KafkaCluster;
import dev.kafkamirror.testing.kafka.KafkaClusterConfig;
import dev.kafkamirror.testing.kafka.TestClients;
import dev.kafkamirror.testing.plugin.PluginControlClient;
import dev.kafkamirror.testing.process.Commands;
import dev.kafkamirror.testing.process.FreePorts;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import javax.management.MBeanServerConnection;
import javax.management.ObjectName;
import javax.management.remote.JMXConnector;
import javax.management.remote.JMXConnectorFactory;
import javax.management.remote.JMXServiceURL;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.InvalidRecordException;
import org.apache.kafka.common.IsolationLevel;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Offset-preserving mirroring A to B on real brokers: as-is copies, read-only, pause and resume,
 * failover; and the plugin's MBeans read by a JMX client from the broker.
 */
class MirroringIT {

  private static KafkaCluster source;
  private static KafkaCluster destination;
  private static PluginControlClient control;
  private static int jmxPort;

  @BeforeAll
  static void start() {
    source = AgentClusters.withAgent("mirror-a").singleNode().start();
    // B's JVM serves JMX on a loopback port, for a JMX client to read the plugin's MBeans
    jmxPort = FreePorts.pick(1).get(0);
    KafkaClusterConfig.Builder b = AgentClusters.withAgent("mirror-b").singleNode();
    for (String arg :
        List.of(
            "-Dcom.sun.management.jmxremote.port=" + jmxPort,
            "-Dcom.sun.management.jmxremote.rmi.port=" + jmxPort,
            "-Dcom.sun.management.jmxremote.host=127.0.0.1",
            "-Djava.rmi.server.hostname=127.0.0.1",
            "-Dcom.sun.management.jmxremote.authenticate=false",
            "-Dcom.sun.management.jmxremote.ssl=false")) {
      b.jvmArg(arg);
    }
    destination = b.start();
    control =
        new PluginControlClient(
            destination.listenerOf(1, PluginControlClient.LISTENER_PROPERTY),
            PluginControlClient.TEST_SECRET);
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
  void mirrorsAsIsStaysReadOnlyPausesAndFailsOverWithABarrier() throws Exception {
    // Given idempotent and transactional (committed and aborted) data on A
    String topic = "orders";
    source.createTopic(topic, 1, 1, Map.of());
    destination.createTopic(topic, 1, 1, Map.of());
    List<String> committed = new ArrayList<>(writeIdempotent(topic, "a-idem", 20));
    try (KafkaProducer<String, String> tx =
        TestClients.transactionalProducer(source.bootstrapServers(), "a-tx")) {
      tx.initTransactions();
      tx.beginTransaction();
      for (int i = 0; i < 10; i++) {
        tx.send(new ProducerRecord<>(topic, "t", "a-committed-" + i));
        committed.add("a-committed-" + i);
      }
      TestClients.commitAndAwaitMarkers(tx, source.bootstrapServers(), "a-tx");
      tx.beginTransaction();
      for (int i = 0; i < 5; i++) {
        tx.send(new ProducerRecord<>(topic, "t", "a-aborted-" + i));
      }
      tx.flush();
      tx.abortTransaction();
      TestClients.awaitTransactionCompleted(
          source.bootstrapServers(), "a-tx", Duration.ofSeconds(60));
    }

    // When B mirrors A
    JsonNode started =
        control
            .startMirroring("a-to-b", source.bootstrapServers(), source.clusterId(), topic, 0)
            .result(topic, 0);
    assertThat(started.get("state").asText()).as(started.toString()).isEqualTo("MIRRORING");
    awaitCaughtUp(topic);

    // Then B holds the same batches at the same offsets: producer ids, epochs, sequences and CRCs
    assertThat(LogBatches.signatures(destination, topic))
        .isEqualTo(LogBatches.signatures(source, topic));
    assertThat(read(destination, topic, IsolationLevel.READ_COMMITTED))
        .containsExactlyElementsOf(committed);
    JsonNode mirror = control.describe(topic, 0).result(topic, 0).get("mirror");
    assertThat(mirror.get("sourceClusterId").asText()).isEqualTo(source.clusterId());
    assertThat(mirror.get("lagRecords").asLong()).isZero();

    // And client writes to B are refused, clearly and without retries
    assertThatThrownBy(() -> ProducerWrites.idempotent(destination, topic, "b-too-early", 1))
        .hasRootCauseInstanceOf(InvalidRecordException.class)
        .rootCause()
        .hasMessageContaining("read-only mirror of a-to-b");

    // And paused, B does not follow A; resumed, it catches up
    control.call(ControlCall.PAUSE, topic, null, 0);
    committed.addAll(writeIdempotent(topic, "a-during-pause", 5));
    Thread.sleep(1_000);
    assertThat(describe(topic).get("logEndOffset").asLong()).isLessThan(sourceLogEnd(topic));
    control.call(ControlCall.RESUME, topic, null, 0);
    awaitCaughtUp(topic);

    // When B fails over: fetchers removed, barrier naming A, writable
    assertThat(
            control
                .call(ControlCall.REMOVE_FETCHERS, topic, null, 0)
                .result(topic, 0)
                .get("state")
                .asText())
        .isEqualTo("STOPPING");
    JsonNode truncated = control.stopStep("truncate", topic, null, 0).result(topic, 0);
    assertThat(truncated.has("error")).as(truncated.toString()).isFalse();
    JsonNode wrongSource =
        control.stopStep("persist-offsets", topic, "not-the-source", 0).result(topic, 0);
    assertThat(wrongSource.get("error").get("code").asText()).isEqualTo("INVALID_STATE");
    assertThat(wrongSource.get("error").get("message").asText()).contains(source.clusterId());
    JsonNode persisted =
        control.stopStep("persist-offsets", topic, source.clusterId(), 0).result(topic, 0);
    assertThat(persisted.has("error")).as(persisted.toString()).isFalse();
    JsonNode barrier = control.barrier(topic, source.clusterId(), 0).result(topic, 0);
    assertThat(barrier.has("error")).as(barrier.toString()).isFalse();
    assertThat(
            control
                .call(ControlCall.MAKE_WRITABLE, topic, null, 0)
                .result(topic, 0)
                .get("state")
                .asText())
        .isEqualTo("STOPPED");

    // Then a new producer on B writes, and consumers on B see A's committed data then B's, once
    // each
    assertThat(describe(topic).get("producerEntries").asInt()).isZero();
    List<String> written = ProducerWrites.idempotent(destination, topic, "b-after-failover", 5);
    committed.addAll(written);
    try (KafkaProducer<String, String> tx =
        TestClients.transactionalProducer(destination.bootstrapServers(), "b-tx")) {
      tx.initTransactions();
      tx.beginTransaction();
      for (int i = 0; i < 3; i++) {
        tx.send(new ProducerRecord<>(topic, "t", "b-committed-" + i));
        committed.add("b-committed-" + i);
      }
      TestClients.commitAndAwaitMarkers(tx, destination.bootstrapServers(), "b-tx");
    }
    assertThat(read(destination, topic, IsolationLevel.READ_COMMITTED))
        .containsExactlyElementsOf(committed);
    assertThat(describe(topic).get("producerEntries").asInt()).isEqualTo(2);

    // And kcat (librdkafka) reads the same records from B, barrier and markers unseen
    Commands.Result kcat =
        Commands.run(
                Duration.ofSeconds(60),
                List.of(
                    "kcat",
                    "-C",
                    "-b",
                    destination.bootstrapServers(),
                    "-t",
                    topic,
                    "-o",
                    "beginning",
                    "-e",
                    "-q",
                    "-X",
                    "isolation.level=read_committed",
                    "-f",
                    "%s\\n"))
            .requireSuccess();
    assertThat(kcat.stdout().lines().toList()).containsExactlyElementsOf(committed);
  }

  @Test
  void aJmxClientReadsTheMirrorsMBeansFromTheBrokerWhileMirroringAndAfterTheStop()
      throws Exception {
    // Given records on A and a JMX connection to B
    String topic = "metered";
    String mirror = "metered-a-to-b";
    source.createTopic(topic, 1, 1, Map.of());
    destination.createTopic(topic, 1, 1, Map.of());
    writeIdempotent(topic, "metered", 20);
    try (JMXConnector jmx =
        JMXConnectorFactory.connect(
            new JMXServiceURL("service:jmx:rmi:///jndi/rmi://127.0.0.1:" + jmxPort + "/jmxrmi"))) {
      MBeanServerConnection beans = jmx.getMBeanServerConnection();
      ObjectName broker = new ObjectName("kafka.server:type=ClusterMirror,name=Broker");
      ObjectName mirrorBean =
          new ObjectName("kafka.server:type=ClusterMirror,name=Mirror,mirror=" + mirror);
      long barriersBefore = (Long) beans.getAttribute(broker, "BarrierWritesTotal");
      long resetsBefore = (Long) beans.getAttribute(broker, "ProducerStateResetsTotal");

      // When B mirrors A and has caught up
      control.startMirroring(mirror, source.bootstrapServers(), source.clusterId(), topic, 0);
      awaitCaughtUp(topic);

      // Then the mirror's MBean shows one partition mirroring, caught up, with what it fetched
      await()
          .atMost(Duration.ofSeconds(30))
          .untilAsserted(
              () -> {
                assertThat(beans.isRegistered(mirrorBean)).isTrue();
                assertThat(beans.getAttribute(mirrorBean, "PartitionsMirroring")).isEqualTo(1);
                assertThat(beans.getAttribute(mirrorBean, "MaxLagRecords")).isEqualTo(0L);
                assertThat(beans.getAttribute(mirrorBean, "MaxLagSeconds")).isEqualTo(0.0);
                assertThat(beans.getAttribute(mirrorBean, "PartitionsLagUnknown")).isEqualTo(0);
              });
      assertThat((Long) beans.getAttribute(mirrorBean, "FetchesTotal")).isPositive();
      assertThat((Long) beans.getAttribute(mirrorBean, "FetchedBytesTotal")).isPositive();
      assertThat((Long) beans.getAttribute(mirrorBean, "BatchesAppendedTotal")).isPositive();
      assertThat(beans.getAttribute(mirrorBean, "BarrierWritesTotal")).isEqualTo(0L);

      // When B stops the mirror: fetchers removed, truncated, offsets persisted, barrier, writable
      control.call(ControlCall.REMOVE_FETCHERS, topic, null, 0);
      control.stopStep("truncate", topic, null, 0);
      control.stopStep("persist-offsets", topic, source.clusterId(), 0);
      JsonNode barrier = control.barrier(topic, source.clusterId(), 0).result(topic, 0);
      assertThat(barrier.has("error")).as(barrier.toString()).isFalse();
      control.call(ControlCall.MAKE_WRITABLE, topic, null, 0);

      // Then the partition counts as STOPPED, and one more barrier and reset are counted
      assertThat(beans.getAttribute(mirrorBean, "PartitionsStopped")).isEqualTo(1);
      assertThat(beans.getAttribute(mirrorBean, "PartitionsMirroring")).isEqualTo(0);
      assertThat(beans.getAttribute(mirrorBean, "BarrierWritesTotal")).isEqualTo(1L);
      assertThat(beans.getAttribute(broker, "BarrierWritesTotal")).isEqualTo(barriersBefore + 1);
      assertThat((Long) beans.getAttribute(broker, "ProducerStateResetsTotal"))
          .isGreaterThan(resetsBefore);
      assertThat(beans.getAttribute(broker, "ProducerStateResetFailuresTotal")).isEqualTo(0L);
    }
  }

  private static JsonNode describe(String topic) {
    return control.describe(topic, 0).result(topic, 0);
  }

  private static long sourceLogEnd(String topic) throws Exception {
    try (var admin = source.admin()) {
      return admin
          .listOffsets(
              Map.of(
                  new TopicPartition(topic, 0), org.apache.kafka.clients.admin.OffsetSpec.latest()))
          .all()
          .get(30, TimeUnit.SECONDS)
          .get(new TopicPartition(topic, 0))
          .offset();
    }
  }

  private static void awaitCaughtUp(String topic) throws Exception {
    long end = sourceLogEnd(topic);
    await()
        .atMost(Duration.ofSeconds(60))
        .untilAsserted(
            () -> {
              JsonNode d = describe(topic);
              assertThat(d.get("logEndOffset").asLong()).as(d.toString()).isEqualTo(end);
              assertThat(d.get("highWatermark").asLong()).isEqualTo(end);
            });
  }

  private static List<String> writeIdempotent(String topic, String prefix, int count)
      throws Exception {
    return ProducerWrites.idempotent(source, topic, prefix, count);
  }

  private static List<String> read(KafkaCluster cluster, String topic, IsolationLevel isolation) {
    return TestClients.values(
        TestClients.readAll(cluster.bootstrapServers(), topic, isolation, Duration.ofSeconds(60)));
  }
}
