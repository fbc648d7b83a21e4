package dev.kafkamirror.broker.agent;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.kafkamirror.testing.kafka.KafkaCluster;
import dev.kafkamirror.testing.plugin.PluginControlClient;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The control endpoint against its own callers, on a real broker: connections that trickle a
 * request one byte a second, and a 100 MB body without the secret, must not hold up the operator's
 * calls, and change nothing.
 */
class ControlEndpointHardeningIT {

  private static final String TOPIC = "hardening";
  private static final long HUNDRED_MB = 100L * 1024 * 1024;

  private static KafkaCluster source;
  private static KafkaCluster destination;
  private static PluginControlClient control;
  private static String hostPort;

  private final List<Socket> attackers = new ArrayList<>();
  private final AtomicBoolean trickling = new AtomicBoolean(true);

  @BeforeAll
  static void start() throws Exception {
    source = AgentClusters.withAgent("hardening-a").singleNode().start();
    destination = AgentClusters.withAgent("hardening-b").singleNode().start();
    hostPort = destination.listenerOf(1, PluginControlClient.LISTENER_PROPERTY);
    control = new PluginControlClient(hostPort, PluginControlClient.TEST_SECRET);
    source.createTopic(TOPIC, 1, 1, java.util.Map.of());
    ProducerWrites.newProducerWrites(source.bootstrapServers(), TOPIC, 50, 10);
    MirrorOps.mirrorAndCatchUp(source, destination, "hardening", TOPIC);
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

  @AfterEach
  void closeAttackers() {
    trickling.set(false);
    for (Socket s : attackers) {
      try {
        s.close();
      } catch (IOException e) {
        // closing anyway
      }
    }
  }

  @Test
  void twoSlowUnauthenticatedConnectionsDoNotDelayAValidDescribe() throws Exception {
    // Given two connections without the secret that send their request one byte a second
    startTrickling(2);
    Thread.sleep(2_000L);
    JsonNode before = control.describe(TOPIC, 0).result(TOPIC, 0);
    // When the operator describes the partition, three times while they trickle
    for (int i = 0; i < 3; i++) {
      long started = System.nanoTime();
      PluginControlClient.Response response = control.describe(TOPIC, 0);
      long ms = (System.nanoTime() - started) / 1_000_000L;
      // Then each answer arrives within 2 s, and it is the partition's description
      assertThat(response.status()).isEqualTo(200);
      assertThat(ms).as("describe took %d ms", ms).isLessThan(2_000L);
      assertThat(response.result(TOPIC, 0).get("mirror").get("state").asText())
          .isEqualTo("MIRRORING");
    }
    // And the partition is unchanged
    JsonNode after = control.describe(TOPIC, 0).result(TOPIC, 0);
    assertThat(after.get("logEndOffset")).isEqualTo(before.get("logEndOffset"));
    assertThat(after.get("mirror").get("state")).isEqualTo(before.get("mirror").get("state"));
  }

  @Test
  void aHundredMegabyteBodyWithoutTheSecretIsCutOffWithinASecond() throws Exception {
    // Given a call without the secret that announces and starts sending 100 MB
    Socket socket = new Socket();
    attackers.add(socket);
    socket.connect(address(), 5_000);
    socket.setSoTimeout(10_000);
    OutputStream out = socket.getOutputStream();
    AtomicLong written = new AtomicLong();
    AtomicLong writerEndedNanos = new AtomicLong();
    long started = System.nanoTime();
    out.write(
        ("POST /v1/stop/barrier HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
                + "Content-Length: "
                + HUNDRED_MB
                + "\r\n\r\n")
            .getBytes(StandardCharsets.US_ASCII));
    Thread writer =
        new Thread(
            () -> {
              byte[] chunk = new byte[64 * 1024];
              try {
                while (written.get() < HUNDRED_MB) {
                  out.write(chunk);
                  written.addAndGet(chunk.length);
                }
              } catch (IOException e) {
                // cut off: what the test wants
              } finally {
                writerEndedNanos.set(System.nanoTime());
              }
            });
    writer.setDaemon(true);
    writer.start();
    // When the broker answers
    String answer = readUntilClosed(socket.getInputStream());
    long closedMs = (System.nanoTime() - started) / 1_000_000L;
    writer.join(5_000L);
    // Then it is a 401, the connection is closed within 1 s, and far less than 100 MB was taken
    assertThat(answer).startsWith("HTTP/1.1 401");
    assertThat(closedMs).as("connection closed after %d ms", closedMs).isLessThan(1_000L);
    assertThat(writer.isAlive()).as("the sender is still sending").isFalse();
    assertThat((writerEndedNanos.get() - started) / 1_000_000L)
        .as("sending was cut off after that many ms")
        .isLessThan(2_000L);
    assertThat(written.get()).isLessThan(HUNDRED_MB);
    // And with the secret, the same announcement is refused before the body: 413
    try (Socket authed = new Socket()) {
      authed.connect(address(), 5_000);
      authed.setSoTimeout(10_000);
      long t0 = System.nanoTime();
      authed
          .getOutputStream()
          .write(
              ("POST /v1/stop/barrier HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer "
                      + PluginControlClient.TEST_SECRET
                      + "\r\nContent-Length: "
                      + HUNDRED_MB
                      + "\r\n\r\n")
                  .getBytes(StandardCharsets.US_ASCII));
      String tooLarge = readUntilClosed(authed.getInputStream());
      assertThat(tooLarge).startsWith("HTTP/1.1 413");
      assertThat((System.nanoTime() - t0) / 1_000_000L).isLessThan(1_000L);
    }
    // And the partition still mirrors
    assertThat(control.describe(TOPIC, 0).result(TOPIC, 0).get("mirror").get("state").asText())
        .isEqualTo("MIRRORING");
  }

  @Test
  void aValidStopGoesThroughWhileSlowConnectionsHang() throws Exception {
    // Given a second mirrored topic and four connections trickling without the secret
    String topic = "hardening-stop";
    source.createTopic(topic, 1, 1, java.util.Map.of());
    ProducerWrites.newProducerWrites(source.bootstrapServers(), topic, 20, 10);
    MirrorOps.mirrorAndCatchUp(source, destination, "hardening-stop", topic);
    startTrickling(4);
    Thread.sleep(1_000L);
    // When the operator runs the whole stop sequence
    long started = System.nanoTime();
    long barrierOffset = MirrorOps.failOver(destination, topic, source.clusterId());
    long ms = (System.nanoTime() - started) / 1_000_000L;
    // Then it completed (STOPPED with a barrier) without waiting for them
    assertThat(barrierOffset).isGreaterThanOrEqualTo(20L);
    assertThat(ms).as("the stop took %d ms", ms).isLessThan(30_000L);
  }

  private static InetSocketAddress address() {
    int colon = hostPort.lastIndexOf(':');
    return new InetSocketAddress(
        hostPort.substring(0, colon), Integer.parseInt(hostPort.substring(colon + 1)));
  }

  /** Opens {@code n} connections that send a describe request without secret, a byte a second. */
  private void startTrickling(int n) throws IOException {
    byte[] request =
        ("POST /v1/describe HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
                + "Content-Length: 60\r\n\r\n"
                + "{\"partitions\":[{\"topic\":\"hardening\",\"partition\":0}]}        ")
            .getBytes(StandardCharsets.US_ASCII);
    for (int i = 0; i < n; i++) {
      Socket socket = new Socket();
      attackers.add(socket);
      socket.connect(address(), 5_000);
      Thread t =
          new Thread(
              () -> {
                try {
                  OutputStream out = socket.getOutputStream();
                  for (int b = 0; b < request.length && trickling.get(); b++) {
                    out.write(request[b]);
                    out.flush();
                    Thread.sleep(1_000L);
                  }
                } catch (IOException | InterruptedException e) {
                  // the broker closed it, or the test is over
                }
              },
              "trickle-" + i);
      t.setDaemon(true);
      t.start();
    }
  }

  private static String readUntilClosed(InputStream in) {
    StringBuilder text = new StringBuilder();
    byte[] buffer = new byte[4096];
    try {
      int n;
      while ((n = in.read(buffer)) >= 0) {
        text.append(new String(buffer, 0, n, StandardCharsets.ISO_8859_1));
      }
    } catch (IOException e) {
      // reset after the answer: the connection is closed all the same
    }
    return text.toString();
  }
}
