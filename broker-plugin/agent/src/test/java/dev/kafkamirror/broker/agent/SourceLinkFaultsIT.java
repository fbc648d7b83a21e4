package dev.kafkamirror.broker.agent;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import dev.kafkamirror.testing.kafka.KafkaCluster;
import dev.kafkamirror.testing.kafka.KafkaClusterConfig;
import dev.kafkamirror.testing.kafka.TestClients;
import dev.kafkamirror.testing.net.FaultProxy;
import dev.kafkamirror.testing.plugin.PluginControlClient;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.kafka.common.InvalidRecordException;
import org.apache.kafka.common.IsolationLevel;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The link between the destination's mirror fetcher and the source, through a {@link FaultProxy} in
 * front of every source broker (the source advertises the proxies to clients that bootstrap from
 * them): the source's identity is verified before anything is fetched and on every new connection
 * (issue 9 item 11), and a black-holed link stalls mirroring without making anything writable, does
 * not stop a stop, and heals (item 10).
 *
 * <p>Clusters: A, the source, single node behind a proxy; C, another cluster with the same topic
 * names and other data (the wrong source); B, the destination with the agent.
 */
class SourceLinkFaultsIT {

  private static KafkaCluster source;
  private static KafkaCluster other;
  private static KafkaCluster destination;
  private static PluginControlClient control;
  private static String proxyUpstream;

  @BeforeAll
  static void start() {
    source = KafkaClusterConfig.builder("link-a").singleNode().proxiedClientListener().start();
    other = KafkaClusterConfig.builder("link-c").singleNode().start();
    destination = AgentClusters.withAgent("link-b").singleNode().start();
    control = MirrorOps.control(destination);
    proxyUpstream = source.proxy(1).upstream();
  }

  @AfterAll
  static void stop() {
    for (KafkaCluster cluster : new KafkaCluster[] {destination, other, source}) {
      if (cluster != null) {
        cluster.close();
      }
    }
  }

  @AfterEach
  void healTheLink() {
    FaultProxy proxy = source.proxy(1);
    if (!proxy.upstream().equals(proxyUpstream)) {
      proxy.swapUpstream(proxyUpstream);
    }
    proxy.heal();
  }

  @Test
  void aSourceThatReportsAnotherClusterIdFromTheStartHasNothingFetched() throws Exception {
    // Given records on A, and a mirror on B that expects cluster C's id at A's address
    String topic = "identity-from-start";
    source.createTopic(topic, 1, 1, Map.of());
    destination.createTopic(topic, 1, 1, Map.of());
    ProducerWrites.idempotent(source, topic, "a", 20);

    // When B registers the mirror
    JsonNode started =
        control
            .startMirroring(
                "wrong-from-start", source.proxiedBootstrapServers(), other.clusterId(), topic, 0)
            .result(topic, 0);
    assertThat(started.has("error")).as(started.toString()).isFalse();
    await()
        .atMost(Duration.ofSeconds(60))
        .until(
            () ->
                describe(topic).get("logEndOffset").asLong() > 0
                    || "SOURCE_MISMATCH".equals(mirror(topic).path("state").asText()));
    // a few fetch rounds (500 ms error back-off) to show the refusal is not one round
    Thread.sleep(3_000);

    // Then not one batch from A was appended, and the partition is never reported MIRRORING
    JsonNode d = describe(topic);
    assertThat(d.get("logEndOffset").asLong()).as(d.toString()).isZero();
    assertThat(d.get("mirror").get("batchesAppended").asLong()).as(d.toString()).isZero();
    assertThat(d.get("mirror").get("state").asText()).isEqualTo("SOURCE_MISMATCH");
    assertThat(d.get("mirror").get("registeredState").asText()).isEqualTo("MIRRORING");
    assertThat(d.get("mirror").get("observedSourceClusterId").asText())
        .isEqualTo(source.clusterId());
    assertThat(d.get("mirror").get("sourceMismatch").asText())
        .contains(source.clusterId(), other.clusterId(), topic + "-0", "wrong-from-start");
    // And the partition stays read-only
    assertThatThrownBy(() -> ProducerWrites.idempotent(destination, topic, "b", 1))
        .hasRootCauseInstanceOf(InvalidRecordException.class);
  }

  @Test
  void aSourceSwappedUnderARunningMirrorHasNothingFetchedFromTheOtherCluster() throws Exception {
    // Given B mirroring A's 10 records through the proxy, and C holding 40 other records under the
    // same topic name
    String topic = "identity-swap";
    source.createTopic(topic, 1, 1, Map.of());
    other.createTopic(topic, 1, 1, Map.of());
    destination.createTopic(topic, 1, 1, Map.of());
    ProducerWrites.idempotent(source, topic, "a", 10);
    ProducerWrites.idempotent(other, topic, "c", 40);
    startAndCatchUp("swap", topic, 10);
    List<String> mirroredBatches = LogBatches.signatures(source, topic);

    // When the address B fetches from suddenly leads to cluster C (same address, another cluster)
    source.proxy(1).swapUpstream(other.bootstrapServers());
    await()
        .atMost(Duration.ofSeconds(90))
        .until(
            () ->
                describe(topic).get("logEndOffset").asLong() > 10
                    || "SOURCE_MISMATCH".equals(mirror(topic).path("state").asText()));
    Thread.sleep(3_000);

    // Then B appended nothing from C: its log is A's, batch by batch
    JsonNode d = describe(topic);
    assertThat(d.get("logEndOffset").asLong()).as(d.toString()).isEqualTo(10);
    assertThat(LogBatches.signatures(destination, topic)).isEqualTo(mirroredBatches);
    assertThat(d.get("mirror").get("state").asText()).isEqualTo("SOURCE_MISMATCH");
    assertThat(d.get("mirror").get("observedSourceClusterId").asText())
        .isEqualTo(other.clusterId());
    assertThatThrownBy(() -> ProducerWrites.idempotent(destination, topic, "b", 1))
        .hasRootCauseInstanceOf(InvalidRecordException.class);

    // And the refusal is for good: with A back behind the address, B still does not fetch
    source.proxy(1).swapUpstream(proxyUpstream);
    ProducerWrites.idempotent(source, topic, "a-after", 5);
    Thread.sleep(3_000);
    assertThat(describe(topic).get("logEndOffset").asLong()).isEqualTo(10);
    assertThat(mirror(topic).get("state").asText()).isEqualTo("SOURCE_MISMATCH");
  }

  @Test
  void aBlackHoledSourceLinkStallsMirroringReadOnlyAndItResumesWhenHealed() throws Exception {
    // Given B mirroring A through the proxy, caught up at 10
    String topic = "link-mid-fetch";
    source.createTopic(topic, 1, 1, Map.of());
    destination.createTopic(topic, 1, 1, Map.of());
    List<String> written = new ArrayList<>(ProducerWrites.idempotent(source, topic, "a", 10));
    startAndCatchUp("black-hole-fetch", topic, 10);

    // When the link goes silent in both directions (no FIN, no RST) while A takes more records
    source.proxy(1).blackHole();
    written.addAll(ProducerWrites.idempotent(source, topic, "a-during", 10));
    Thread.sleep(3_000);

    // Then B has not moved, stays MIRRORING and read-only
    assertThat(describe(topic).get("logEndOffset").asLong()).isEqualTo(10);
    assertThat(mirror(topic).get("state").asText()).isEqualTo("MIRRORING");
    assertThatThrownBy(() -> ProducerWrites.idempotent(destination, topic, "b", 1))
        .hasRootCauseInstanceOf(InvalidRecordException.class);

    // When the link heals, B catches up with A batch by batch
    source.proxy(1).heal();
    await()
        .atMost(Duration.ofSeconds(120))
        .untilAsserted(
            () -> assertThat(describe(topic).get("logEndOffset").asLong()).isEqualTo(20));
    assertThat(LogBatches.signatures(destination, topic))
        .isEqualTo(LogBatches.signatures(source, topic));
    assertThat(
            TestClients.values(
                TestClients.readAll(
                    destination.bootstrapServers(),
                    topic,
                    IsolationLevel.READ_COMMITTED,
                    Duration.ofSeconds(60))))
        .containsExactlyElementsOf(written);
  }

  @Test
  void aSilentSourceIsReportedSinceWhenAndTheReportEndsWithItsFirstAnswer() throws Exception {
    // Given B mirroring A through the proxy, caught up at 10, with nothing more to copy
    String topic = "link-silence";
    source.createTopic(topic, 1, 1, Map.of());
    destination.createTopic(topic, 1, 1, Map.of());
    ProducerWrites.idempotent(source, topic, "a", 10);
    startAndCatchUp("silent-source", topic, 10);
    assertThat(mirror(topic).get("lagRecords").asLong()).isZero();
    java.time.Instant beforeSilence = java.time.Instant.now();

    // When the link goes silent for longer than the plugin's silence bound (30 s)
    source.proxy(1).blackHole();

    // Then describe says since when the source is silent, the lag is unknown (never 0), and the
    // error says so in words that do not change while the silence lasts
    JsonNode silent =
        await()
            .atMost(Duration.ofSeconds(90))
            .pollInterval(Duration.ofSeconds(1))
            .until(() -> mirror(topic), m -> m.has("sourceSilentSince"));
    java.time.Instant since = java.time.Instant.parse(silent.get("sourceSilentSince").asText());
    assertThat(since).isBetween(beforeSilence.minusSeconds(5), java.time.Instant.now());
    assertThat(silent.get("lagRecords").asLong()).isEqualTo(-1L);
    assertThat(silent.get("lastError").asText()).startsWith("no answer from the source since ");
    Thread.sleep(1_500);
    assertThat(mirror(topic).get("lastError").asText()).isEqualTo(silent.get("lastError").asText());

    // When the link heals and the source answers, with no record to append
    source.proxy(1).heal();

    // Then the silence and every error reported during it are over, and the lag is 0 again
    await()
        .atMost(Duration.ofSeconds(90))
        .pollInterval(Duration.ofSeconds(1))
        .untilAsserted(
            () -> {
              JsonNode m = mirror(topic);
              assertThat(m.has("sourceSilentSince")).as(m.toString()).isFalse();
              assertThat(m.has("lastError")).as(m.toString()).isFalse();
              assertThat(m.get("lagRecords").asLong()).as(m.toString()).isZero();
            });
    assertThat(describe(topic).get("logEndOffset").asLong()).isEqualTo(10);
  }

  @Test
  void aStopCompletesWhileTheSourceLinkIsBlackHoledAndNothingArrivesAfterIt() throws Exception {
    // Given B mirroring A through the proxy, caught up at 10
    String topic = "link-mid-stop";
    source.createTopic(topic, 1, 1, Map.of());
    destination.createTopic(topic, 1, 1, Map.of());
    List<String> mirrored = ProducerWrites.idempotent(source, topic, "a", 10);
    startAndCatchUp("black-hole-stop", topic, 10);
    List<String> mirroredBatches = LogBatches.signatures(source, topic);

    // When the link goes silent, A takes more records, and B is failed over meanwhile
    source.proxy(1).blackHole();
    ProducerWrites.idempotent(source, topic, "a-late", 10);
    long barrier = MirrorOps.failOver(destination, topic, source.clusterId());

    // Then the stop completed without the source: barrier right after the mirrored records
    assertThat(barrier).isEqualTo(10);
    assertThat(mirror(topic).get("state").asText()).isEqualTo("STOPPED");

    // And when the link heals, nothing more arrives from A; B's own writes follow the barrier
    source.proxy(1).heal();
    List<String> own = ProducerWrites.idempotent(destination, topic, "b", 3);
    Thread.sleep(3_000);
    assertThat(LogBatches.signatures(destination, topic).subList(0, mirroredBatches.size()))
        .isEqualTo(mirroredBatches);
    List<String> expected = new ArrayList<>(mirrored);
    expected.addAll(own);
    assertThat(
            TestClients.values(
                TestClients.readAll(
                    destination.bootstrapServers(),
                    topic,
                    IsolationLevel.READ_COMMITTED,
                    Duration.ofSeconds(60))))
        .containsExactlyElementsOf(expected);
  }

  private static void startAndCatchUp(String mirrorName, String topic, long end) {
    JsonNode started =
        control
            .startMirroring(
                mirrorName, source.proxiedBootstrapServers(), source.clusterId(), topic, 0)
            .result(topic, 0);
    assertThat(started.has("error")).as(started.toString()).isFalse();
    await()
        .atMost(Duration.ofSeconds(60))
        .untilAsserted(
            () -> {
              JsonNode d = describe(topic);
              assertThat(d.get("highWatermark").asLong()).as(d.toString()).isEqualTo(end);
            });
    assertThat(mirror(topic).get("sourceClusterId").asText()).isEqualTo(source.clusterId());
  }

  private static JsonNode describe(String topic) {
    return control.describe(topic, 0).result(topic, 0);
  }

  private static JsonNode mirror(String topic) {
    return describe(topic).path("mirror");
  }
}
