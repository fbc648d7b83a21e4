package dev.kafkamirror.operator.it;

import static org.assertj.core.api.Assertions.assertThat;

import dev.kafkamirror.contract.ControlRequest;
import dev.kafkamirror.operator.control.ControlClient;
import dev.kafkamirror.operator.control.ControlResult;
import dev.kafkamirror.operator.core.Action;
import dev.kafkamirror.operator.core.PartitionKey;
import dev.kafkamirror.testing.kafka.KafkaCluster;
import dev.kafkamirror.testing.kafka.KafkaClusterConfig;
import dev.kafkamirror.testing.plugin.PluginControlClient;
import dev.kafkamirror.testing.tls.ControlEndpointTls;
import dev.kafkamirror.testing.tls.TestCertificates;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * What crosses the network between the operator and a broker's control endpoint: the operator's
 * {@link ControlClient} calls a real TLS broker through a loopback proxy that records every byte
 * both ways, starts a mirror whose source settings hold a SASL password, and stops it. Neither the
 * bearer secret nor the password may appear in the capture.
 */
class ControlChannelCaptureIT {

  private static final String TOPIC = "capture-orders";
  private static final String PASSWORD = "source-sasl-password-7f3a9c";

  private static TestCertificates certs;
  private static KafkaCluster source;
  private static KafkaCluster destination;
  private static KafkaCluster mutualTlsDestination;

  @BeforeAll
  static void start() throws Exception {
    Files.createDirectories(Path.of("target"));
    certs = TestCertificates.create(Files.createTempDirectory(Path.of("target"), "capture-tls"));
    source = KafkaClusterConfig.builder("capture-a").singleNode().start();
    source.createTopic(TOPIC, 1, 1, Map.of());
    destination =
        ControlEndpointTls.pemKeyAndChain(
                ControlEndpointTls.withControlEndpoint("capture-b", MirrorFixtures.agentJar()),
                certs)
            .singleNode()
            .start();
    destination.createTopic(TOPIC, 1, 1, Map.of());
    mutualTlsDestination =
        ControlEndpointTls.clientCertificatesRequired(
                ControlEndpointTls.pemKeyAndChain(
                    ControlEndpointTls.withControlEndpoint(
                        "capture-mtls", MirrorFixtures.agentJar()),
                    certs),
                certs)
            .singleNode()
            .start();
    mutualTlsDestination.createTopic(TOPIC, 1, 1, Map.of());
  }

  @AfterAll
  static void stop() {
    if (mutualTlsDestination != null) {
      mutualTlsDestination.close();
    }
    if (destination != null) {
      destination.close();
    }
    if (source != null) {
      source.close();
    }
  }

  @Test
  void aCaptureOfAMirrorsWholeLifeShowsNeitherTheBearerNorThePassword() throws Exception {
    String broker = destination.listenerOf(1, PluginControlClient.LISTENER_PROPERTY);
    List<PartitionKey> keys = List.of(new PartitionKey(TOPIC, 0));
    // The source settings carry a password; PLAINTEXT makes the source clients ignore it.
    ControlRequest.MirrorSource mirrorSource =
        new ControlRequest.MirrorSource(
            source.bootstrapServers(),
            source.clusterId(),
            Map.of(
                "security.protocol",
                "PLAINTEXT",
                "sasl.jaas.config",
                "org.apache.kafka.common.security.plain.PlainLoginModule required"
                    + " username=\"mirror\" password=\""
                    + PASSWORD
                    + "\";"));
    try (RecordingProxy proxy = new RecordingProxy(broker)) {
      // Given the operator's client trusting the CA from the Secret, through the proxy
      ControlClient client = new ControlClient(5_000L, 30_000L);
      ControlClient.Channel channel =
          new ControlClient.Channel(PluginControlClient.TEST_SECRET, certs.caPemText());
      String via = proxy.address();
      // When it starts mirroring, describes, and runs the whole stop sequence
      assertOk(
          client.act(Action.START_MIRRORING, 1, via, channel, keys, null, "capture", mirrorSource));
      List<ControlResult> described = client.describe(1, via, channel, keys);
      assertOk(described);
      assertThat(described.get(0).described().mirror().mirrorName()).isEqualTo("capture");
      for (Action step :
          List.of(
              Action.REMOVE_FETCHERS,
              Action.TRUNCATE,
              Action.PERSIST_OFFSETS,
              Action.WRITE_BARRIER,
              Action.MAKE_WRITABLE)) {
        assertOk(client.act(step, 1, via, channel, keys, source.clusterId(), null, null));
      }
      assertThat(client.describe(1, via, channel, keys).get(0).described().stop().step())
          .isEqualTo("STOPPED");
      // Then the capture holds TLS records only: no secret, no password, not even the paths
      byte[] captured = proxy.captured();
      assertThat(captured.length).isGreaterThan(1_000);
      assertThat(captured[0]).as("a TLS handshake record").isEqualTo((byte) 0x16);
      assertNotIn(captured, PluginControlClient.TEST_SECRET);
      assertNotIn(captured, PASSWORD);
      assertNotIn(captured, "/v1/");
    }
    // And the same capture does see a call made in clear text (the check can fail)
    try (RecordingProxy proxy = new RecordingProxy(broker)) {
      ControlClient client = new ControlClient(5_000L, 30_000L);
      client.describe(
          1,
          proxy.address(),
          new ControlClient.Channel(PluginControlClient.TEST_SECRET, null),
          keys);
      assertThat(new String(proxy.captured(), StandardCharsets.ISO_8859_1))
          .contains(PluginControlClient.TEST_SECRET);
    }
  }

  @Test
  void aBrokerRequiringClientCertificatesIsDrivenWithTheOperatorsCertificateAndRefusesItsAbsence()
      throws Exception {
    String broker = mutualTlsDestination.listenerOf(1, PluginControlClient.LISTENER_PROPERTY);
    List<PartitionKey> keys = List.of(new PartitionKey(TOPIC, 0));
    ControlClient client = new ControlClient(5_000L, 30_000L);
    // Given a broker with cluster.mirror.control.ssl.client.auth=required, and the operator's
    // client certificate (signed by the CA the broker trusts) as a kubernetes.io/tls Secret holds
    // it
    ControlClient.Channel mutual =
        new ControlClient.Channel(
            PluginControlClient.TEST_SECRET,
            certs.caPemText(),
            new ControlClient.ClientCertificate(
                certs.certificateChainPem("operator"), certs.privateKeyPem("operator")));
    try (RecordingProxy proxy = new RecordingProxy(broker)) {
      // When the operator's client starts mirroring, describes and drives a stop step with it
      String via = proxy.address();
      assertOk(
          client.act(
              Action.START_MIRRORING,
              1,
              via,
              mutual,
              keys,
              null,
              "capture-mtls",
              new ControlRequest.MirrorSource(
                  source.bootstrapServers(),
                  source.clusterId(),
                  Map.of("security.protocol", "PLAINTEXT"))));
      List<ControlResult> described = client.describe(1, via, mutual, keys);
      // Then the broker carries out every call, over TLS only
      assertOk(described);
      assertThat(described.get(0).described().mirror().mirrorName()).isEqualTo("capture-mtls");
      assertOk(
          client.act(Action.REMOVE_FETCHERS, 1, via, mutual, keys, source.clusterId(), null, null));
      byte[] captured = proxy.captured();
      assertThat(captured[0]).as("a TLS handshake record").isEqualTo((byte) 0x16);
      assertNotIn(captured, PluginControlClient.TEST_SECRET);
    }
    // And the same call without a client certificate is refused in the handshake
    List<ControlResult> refused =
        client.describe(
            1,
            broker,
            new ControlClient.Channel(PluginControlClient.TEST_SECRET, certs.caPemText()),
            keys);
    assertThat(refused)
        .singleElement()
        .satisfies(r -> assertThat(r.errorCode()).isEqualTo(ControlResult.UNREACHABLE));
  }

  private static void assertOk(List<ControlResult> results) {
    assertThat(results).allSatisfy(r -> assertThat(r.ok()).as(r.toString()).isTrue());
  }

  private static void assertNotIn(byte[] captured, String text) {
    assertThat(new String(captured, StandardCharsets.ISO_8859_1))
        .as("capture contains '%s'", text)
        .doesNotContain(text);
  }

  /** A loopback TCP proxy that forwards to {@code target} and records every byte both ways. */
  private static final class RecordingProxy implements AutoCloseable {
    private final ServerSocket server;
    private final String targetHost;
    private final int targetPort;
    private final ByteArrayOutputStream recorded = new ByteArrayOutputStream();
    private final Thread acceptor;

    RecordingProxy(String target) throws IOException {
      int colon = target.lastIndexOf(':');
      this.targetHost = target.substring(0, colon);
      this.targetPort = Integer.parseInt(target.substring(colon + 1));
      this.server = new ServerSocket(0, 16, InetAddress.getLoopbackAddress());
      this.acceptor = new Thread(this::accept, "recording-proxy");
      acceptor.setDaemon(true);
      acceptor.start();
    }

    String address() {
      return "127.0.0.1:" + server.getLocalPort();
    }

    byte[] captured() {
      synchronized (recorded) {
        return recorded.toByteArray();
      }
    }

    private void accept() {
      while (!server.isClosed()) {
        try {
          Socket client = server.accept();
          Socket upstream = new Socket();
          upstream.connect(new InetSocketAddress(targetHost, targetPort), 5_000);
          pump(client, upstream);
          pump(upstream, client);
        } catch (IOException e) {
          return;
        }
      }
    }

    private void pump(Socket from, Socket to) {
      Thread t =
          new Thread(
              () -> {
                byte[] buffer = new byte[8192];
                try (InputStream in = from.getInputStream()) {
                  OutputStream out = to.getOutputStream();
                  int n;
                  while ((n = in.read(buffer)) >= 0) {
                    synchronized (recorded) {
                      recorded.write(buffer, 0, n);
                    }
                    out.write(buffer, 0, n);
                    out.flush();
                  }
                } catch (IOException e) {
                  // one side closed
                } finally {
                  try {
                    to.close();
                    from.close();
                  } catch (IOException e) {
                    // closing anyway
                  }
                }
              },
              "recording-proxy-pump");
      t.setDaemon(true);
      t.start();
    }

    @Override
    public void close() throws IOException {
      server.close();
    }
  }
}
