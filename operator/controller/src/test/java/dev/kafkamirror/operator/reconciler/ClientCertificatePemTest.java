package dev.kafkamirror.operator.reconciler;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.kafkamirror.operator.control.ControlClient;
import dev.kafkamirror.testing.tls.TestCertificates;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.cert.X509Certificate;
import java.util.Base64;
import javax.net.ssl.KeyManager;
import javax.net.ssl.X509KeyManager;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The operator's client certificate from a kubernetes.io/tls style Secret: the key manager built
 * from PEM presents the chain and its key; malformed PEM is a typed error naming the Secret and the
 * key, never the PEM text.
 */
class ClientCertificatePemTest {

  private static TestCertificates certs;

  @BeforeAll
  static void makeCertificates() throws Exception {
    Files.createDirectories(Path.of("target"));
    certs = TestCertificates.create(Files.createTempDirectory(Path.of("target"), "client-pem"));
  }

  @Test
  void aPemChainAndPkcs8KeyBecomeAKeyManagerPresentingTheLeaf() throws Exception {
    // Given the PEM chain and PKCS#8 key of a certificate the CA signed for "operator"
    String chain = certs.certificateChainPem("operator");
    String key = certs.privateKeyPem("operator");
    // When the key managers are built
    ControlClient.ClientCertificate certificate =
        SpecResolver.clientCertificate("ns", "operator-tls", chain, key);
    KeyManager[] managers = ControlClient.keyManagers(certificate);
    // Then they offer that chain, leaf first, with its key, for an EC handshake
    X509KeyManager manager = (X509KeyManager) managers[0];
    String[] aliases = manager.getClientAliases("EC", null);
    assertThat(aliases).hasSize(1);
    X509Certificate[] presented = manager.getCertificateChain(aliases[0]);
    assertThat(presented).hasSize(2);
    assertThat(presented[0].getSubjectX500Principal().getName()).isEqualTo("CN=operator");
    assertThat(presented[1].getSubjectX500Principal().getName())
        .isEqualTo("CN=cluster-mirror-test-ca");
    assertThat(manager.getPrivateKey(aliases[0]).getEncoded()).isEqualTo(pemBody(key));
    // And neither the record nor a channel prints the key
    assertThat(certificate.toString()).doesNotContain("PRIVATE").doesNotContain(pemText(key));
    assertThat(new ControlClient.Channel("s", certs.caPemText(), certificate).toString())
        .isEqualTo("Channel[MUTUAL TLS]");
  }

  @Test
  void aKeyThatIsNotPkcs8PemIsRefusedNamingTheSecretAndKeyWithoutPrintingIt() {
    // Given a tls.key whose PEM body is not base64 (it carries a recognisable marker)
    String chain = certs.certificateChainPem("operator");
    String broken =
        "-----BEGIN PRIVATE KEY-----\nMIG!!secret-marker-4711!!\n-----END PRIVATE KEY-----\n";
    // When / Then: a typed error naming the Secret and key, without the PEM
    assertThatThrownBy(() -> SpecResolver.clientCertificate("ns", "operator-tls", chain, broken))
        .isInstanceOf(SpecResolver.InvalidSpecException.class)
        .hasMessageContaining("spec.destination.control.tlsClientCertificateSecret")
        .hasMessageContaining("Secret ns/operator-tls key tls.key")
        .message()
        .doesNotContain("secret-marker-4711")
        .doesNotContain("MIG");
  }

  @Test
  void base64ThatIsNoKeyIsRefusedNamingTheKeyWithoutPrintingIt() {
    String chain = certs.certificateChainPem("operator");
    String body = Base64.getEncoder().encodeToString("secret-marker-4712 is no key".getBytes());
    String broken = "-----BEGIN PRIVATE KEY-----\n" + body + "\n-----END PRIVATE KEY-----\n";
    assertThatThrownBy(() -> SpecResolver.clientCertificate("ns", "operator-tls", chain, broken))
        .isInstanceOf(SpecResolver.InvalidSpecException.class)
        .hasMessageContaining("Secret ns/operator-tls key tls.key")
        .message()
        .doesNotContain(body);
  }

  @Test
  void aKeyOfAnotherCertificateIsRefused() {
    // Given the chain of "operator" with the key of "other"
    String chain = certs.certificateChainPem("operator");
    String otherKey = certs.privateKeyPem("other");
    assertThatThrownBy(() -> SpecResolver.clientCertificate("ns", "operator-tls", chain, otherKey))
        .isInstanceOf(SpecResolver.InvalidSpecException.class)
        .hasMessageContaining("Secret ns/operator-tls key tls.key")
        .hasMessageContaining("does not belong")
        .message()
        .doesNotContain(pemText(otherKey));
  }

  @Test
  void aChainThatIsNotPemIsRefusedNamingTlsCrt() {
    String key = certs.privateKeyPem("operator");
    String broken =
        "-----BEGIN CERTIFICATE-----\nc2VjcmV0LW1hcmtlcg==\n-----END CERTIFICATE-----\n";
    assertThatThrownBy(() -> SpecResolver.clientCertificate("ns", "operator-tls", broken, key))
        .isInstanceOf(SpecResolver.InvalidSpecException.class)
        .hasMessageContaining("Secret ns/operator-tls key tls.crt")
        .message()
        .doesNotContain("c2VjcmV0LW1hcmtlcg");
    assertThatThrownBy(() -> SpecResolver.clientCertificate("ns", "operator-tls", "", key))
        .isInstanceOf(SpecResolver.InvalidSpecException.class)
        .hasMessageContaining("key tls.crt");
  }

  private static String pemText(String pem) {
    return pem.replaceAll("-----[A-Z ]+-----", "").replaceAll("\\s", "").substring(0, 40);
  }

  private static byte[] pemBody(String pem) {
    return Base64.getMimeDecoder()
        .decode(pem.replaceAll("-----[A-Z ]+-----", "").replaceAll("\\s", ""));
  }
}
