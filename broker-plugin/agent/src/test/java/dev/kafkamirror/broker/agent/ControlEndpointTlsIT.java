package dev.kafkamirror.broker.agent;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.kafkamirror.testing.kafka.KafkaCluster;
import dev.kafkamirror.testing.kafka.KafkaClusterConfig;
import dev.kafkamirror.testing.plugin.PluginControlClient;
import dev.kafkamirror.testing.tls.ControlEndpointTls;
import dev.kafkamirror.testing.tls.TestCertificates;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyStore;
import java.util.Map;
import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SSLContext;
import javax.net.ssl.TrustManagerFactory;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The control endpoint over TLS on real brokers, configured like Kafka's own TLS: a PKCS12 keystore
 * with client certificates required (mTLS), and an inline PEM key and chain. The mTLS broker gets
 * its secret-bearing settings (control secret, keystore, key and truststore passwords) through
 * Kafka's file config provider ({@code ${file:path:key}}), as platforms that mount secrets do: the
 * plugin must read them from the broker's resolved configuration, not from server.properties.
 */
class ControlEndpointTlsIT {

  private static final String TOPIC = "tls-orders";
  private static final String PREFIX = ControlEndpointTls.PREFIX;

  private static TestCertificates certs;
  private static KafkaCluster mtls;
  private static KafkaCluster pem;
  private static Path secretsFile;

  @BeforeAll
  static void start() throws Exception {
    Path dir = Files.createTempDirectory(Path.of("target"), "control-tls");
    certs = TestCertificates.create(dir);
    secretsFile = dir.resolve("control-secrets.properties").toAbsolutePath();
    Files.writeString(
        secretsFile,
        "control.secret="
            + PluginControlClient.TEST_SECRET
            + "\nstore.password="
            + TestCertificates.PASSWORD
            + "\n");
    mtls =
        ControlEndpointTls.clientCertificatesRequired(
                tlsBroker("tls-mtls")
                    .brokerProperty(
                        PREFIX + "ssl.keystore.location", certs.keystore("broker").toString())
                    .brokerProperty(PREFIX + "ssl.keystore.type", "PKCS12"),
                certs)
            .brokerProperty("config.providers", "file")
            .brokerProperty(
                "config.providers.file.class",
                "org.apache.kafka.common.config.provider.FileConfigProvider")
            .brokerProperty(PluginControlClient.SECRET_PROPERTY, fromFile("control.secret"))
            .brokerProperty(PREFIX + "ssl.keystore.password", fromFile("store.password"))
            .brokerProperty(PREFIX + "ssl.key.password", fromFile("store.password"))
            .brokerProperty(PREFIX + "ssl.truststore.password", fromFile("store.password"))
            .singleNode()
            .start();
    mtls.createTopic(TOPIC, 1, 1, Map.of());
    pem = ControlEndpointTls.pemKeyAndChain(tlsBroker("tls-pem"), certs).singleNode().start();
    pem.createTopic(TOPIC, 1, 1, Map.of());
  }

  /** A reference to {@code key} of the secrets file, resolved by Kafka's file config provider. */
  private static String fromFile(String key) {
    return "${file:" + secretsFile + ":" + key + "}";
  }

  /** A broker with the agent, its control listener and secret, and no plaintext allowance. */
  private static KafkaClusterConfig.Builder tlsBroker(String name) {
    return ControlEndpointTls.withControlEndpoint(name, AgentClusters.agentJar());
  }

  @AfterAll
  static void stop() {
    if (mtls != null) {
      mtls.close();
    }
    if (pem != null) {
      pem.close();
    }
  }

  @Test
  void withMutualTlsOnlyAClientWithACertificateOfTheCaIsServed() throws Exception {
    String hostPort = mtls.listenerOf(1, PluginControlClient.LISTENER_PROPERTY);
    // Given a client that trusts the CA and presents a certificate it signed
    PluginControlClient withCert =
        new PluginControlClient(hostPort, PluginControlClient.TEST_SECRET, context(true));
    // Then it is served
    PluginControlClient.Response ok = withCert.describe(TOPIC, 0);
    assertThat(ok.status()).isEqualTo(200);
    assertThat(ok.result(TOPIC, 0).get("role").asText()).isEqualTo("LEADER");
    // And a client that trusts the CA but has no certificate, even with the secret, is not
    PluginControlClient noCert =
        new PluginControlClient(hostPort, PluginControlClient.TEST_SECRET, context(false));
    assertThatThrownBy(() -> noCert.describe(TOPIC, 0))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("failed");
    // And plain HTTP gets no answer at all
    PluginControlClient plain = new PluginControlClient(hostPort, PluginControlClient.TEST_SECRET);
    assertThatThrownBy(() -> plain.describe(TOPIC, 0)).isInstanceOf(IllegalStateException.class);
  }

  @Test
  void secretsGivenThroughAConfigProviderAreReadFromTheBrokersResolvedConfiguration()
      throws Exception {
    String hostPort = mtls.listenerOf(1, PluginControlClient.LISTENER_PROPERTY);
    // Given a broker whose control secret and keystore passwords are ${file:...} references
    // (server.properties holds only the references; see start())
    // When a client presents the secret the file holds, over mutual TLS
    PluginControlClient client =
        new PluginControlClient(hostPort, PluginControlClient.TEST_SECRET, context(true));
    // Then the endpoint (its keystore opened with the resolved password) serves it
    PluginControlClient.Response ok = client.describe(TOPIC, 0);
    assertThat(ok.status()).isEqualTo(200);
    assertThat(ok.result(TOPIC, 0).get("role").asText()).isEqualTo("LEADER");
    // And the unresolved reference itself is not a secret that opens the endpoint
    String reference = fromFile("control.secret");
    assertThat(
            new PluginControlClient(hostPort, reference, context(true)).describe(TOPIC, 0).status())
        .isEqualTo(401);
    // And the broker's output, which shows the plugin read its settings, holds neither the
    // resolved control secret nor the resolved store password
    assertThat(mtls.node(1).outputSinceStart())
        .contains("settings read from the broker's configuration")
        .doesNotContain(PluginControlClient.TEST_SECRET)
        .doesNotContain(TestCertificates.PASSWORD);
  }

  @Test
  void aPemKeyAndChainServeTlsThatTheCaVerifies() throws Exception {
    String hostPort = pem.listenerOf(1, PluginControlClient.LISTENER_PROPERTY);
    // Given a client trusting only the CA, with host name verification (127.0.0.1 in the SAN)
    PluginControlClient client =
        new PluginControlClient(hostPort, PluginControlClient.TEST_SECRET, context(false));
    // Then describe works, and a wrong secret is still refused over TLS
    assertThat(client.describe(TOPIC, 0).status()).isEqualTo(200);
    assertThat(
            new PluginControlClient(hostPort, "wrong-secret-0123456789", context(false))
                .describe(TOPIC, 0)
                .status())
        .isEqualTo(401);
    // And a client that does not trust the CA cannot connect
    PluginControlClient untrusting =
        new PluginControlClient(hostPort, PluginControlClient.TEST_SECRET, SSLContext.getDefault());
    assertThatThrownBy(() -> untrusting.describe(TOPIC, 0))
        .isInstanceOf(IllegalStateException.class);
  }

  /** Trusts the test CA; with {@code withCertificate}, presents the "client" certificate. */
  private static SSLContext context(boolean withCertificate) throws Exception {
    KeyStore trust = KeyStore.getInstance("PKCS12");
    try (InputStream in = Files.newInputStream(certs.truststore())) {
      trust.load(in, TestCertificates.PASSWORD.toCharArray());
    }
    TrustManagerFactory tmf =
        TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
    tmf.init(trust);
    KeyManagerFactory kmf = null;
    if (withCertificate) {
      KeyStore keys = KeyStore.getInstance("PKCS12");
      try (InputStream in = Files.newInputStream(certs.keystore("client"))) {
        keys.load(in, TestCertificates.PASSWORD.toCharArray());
      }
      kmf = KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
      kmf.init(keys, TestCertificates.PASSWORD.toCharArray());
    }
    SSLContext context = SSLContext.getInstance("TLS");
    context.init(kmf == null ? null : kmf.getKeyManagers(), tmf.getTrustManagers(), null);
    return context;
  }
}
