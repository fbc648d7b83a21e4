package dev.kafkamirror.operator.reconciler;

import static dev.kafkamirror.operator.reconciler.ReconcilerRig.NS;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.kafkamirror.contract.ControlRequest;
import dev.kafkamirror.operator.api.v1alpha1.ClientSecurity;
import dev.kafkamirror.operator.api.v1alpha1.ClusterMirror;
import dev.kafkamirror.operator.api.v1alpha1.DeletionPolicy;
import dev.kafkamirror.operator.api.v1alpha1.MirrorState;
import dev.kafkamirror.operator.api.v1alpha1.SaslMechanism;
import dev.kafkamirror.operator.api.v1alpha1.SecretKeyRef;
import dev.kafkamirror.operator.app.ProductionLogging;
import dev.kafkamirror.testing.tls.TestCertificates;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;

/**
 * No secret reaches the log: a ClusterMirror whose Secrets hold SASL passwords for both clusters, a
 * control secret and a mutual-TLS client key is resolved with the operator's real logging (JSON, at
 * debug), and neither the resolver's debug line nor the string of any holder of a secret shows a
 * secret value.
 */
class SecretsNeverLoggedTest {

  private static final String CONTROL_SECRET = "control-secret-4f1c9e2a77";
  private static final String SOURCE_PASSWORD = "source-pa55word-9c3e";
  private static final String DESTINATION_PASSWORD = "dest-pa55word-71ab";

  private static TestCertificates certs;

  @BeforeAll
  static void makeCertificates() throws Exception {
    Files.createDirectories(Path.of("target"));
    certs = TestCertificates.create(Files.createTempDirectory(Path.of("target"), "no-secrets-log"));
  }

  private static SecretKeyRef ref(String name, String key) {
    SecretKeyRef r = new SecretKeyRef();
    r.setName(name);
    r.setKey(key);
    return r;
  }

  private static ClientSecurity sasl(String secret) {
    ClientSecurity security = new ClientSecurity();
    security.setTls(true);
    security.setSaslMechanism(SaslMechanism.SCRAM_SHA_512);
    security.setSaslCredentials(ref(secret, "credentials"));
    return security;
  }

  /** The PEM's base64 body lines: any of them in a log would leak (part of) the key. */
  private static List<String> pemBodyLines(String pem) {
    return pem.lines().filter(l -> !l.startsWith("-----") && l.length() > 16).toList();
  }

  @Test
  void resolvingAMirrorWithSecretsAtDebugLogsItWithoutAnySecretValue() throws Exception {
    // Given Secrets with SASL credentials for both clusters, the control secret and a client
    // certificate with its private key, each opted in for the ClusterMirror
    String privateKey = certs.privateKeyPem("operator");
    TestingSecrets secrets =
        new TestingSecrets()
            .put(NS, "control", "orders-mirror", Map.of("secret", CONTROL_SECRET + "\n"))
            .put(NS, "control-ca", "orders-mirror", Map.of("ca.crt", certs.caPemText()))
            .put(
                NS,
                "client-cert",
                "orders-mirror",
                Map.of(
                    SpecResolver.TLS_CRT,
                    certs.certificateChainPem("operator"),
                    SpecResolver.TLS_KEY,
                    privateKey))
            .put(NS, "source-sasl", "*", Map.of("credentials", "mirror-user:" + SOURCE_PASSWORD))
            .put(NS, "dest-sasl", "*", Map.of("credentials", "dest-user:" + DESTINATION_PASSWORD));
    ClusterMirror cr = ReconcilerRig.clusterMirror(MirrorState.Mirroring, DeletionPolicy.Retain);
    cr.getSpec().getSource().setSecurity(sasl("source-sasl"));
    cr.getSpec().getDestination().setSecurity(sasl("dest-sasl"));
    cr.getSpec()
        .getDestination()
        .getControl()
        .setTlsTrustedCertificate(ref("control-ca", "ca.crt"));
    cr.getSpec().getDestination().getControl().setTlsClientCertificateSecret("client-cert");

    // When it is resolved with the operator's logging at debug, and every holder of a secret is
    // logged as code might log it
    String output;
    List<JsonNode> lines;
    ResolvedMirror mirror;
    try (ProductionLogging logging = ProductionLogging.start("json", "debug")) {
      mirror = new SpecResolver(secrets).resolve(cr);
      var log = LoggerFactory.getLogger(SecretsNeverLoggedTest.class);
      log.debug("mirror {}", mirror);
      log.debug("channel {}", mirror.controlChannel());
      log.debug("certificate {}", mirror.controlClientCertificate());
      log.debug("source {}", Redaction.of(mirror.sourceProperties()));
      log.debug("destination {}", Redaction.of(mirror.destinationProperties()));
      log.debug(
          "request {}",
          new ControlRequest(
              List.of(new ControlRequest.Partition("orders", 0, "SRC")),
              1000L,
              mirror.mirrorName(),
              new ControlRequest.MirrorSource(
                  mirror.sourceBootstrapServers(),
                  mirror.sourceClusterId(),
                  mirror.sourceClientSecurity())));
      output = logging.output();
      lines = logging.jsonLines();
    }

    // Then the resolver's debug line is there, with the settings' names and non-secret values
    JsonNode resolved =
        lines.stream()
            .filter(l -> l.get("logger").asText().equals(SpecResolver.class.getName()))
            .findFirst()
            .orElseThrow(() -> new AssertionError("no debug line of the resolver in " + output));
    assertThat(resolved.path("level").asText()).isEqualTo("DEBUG");
    assertThat(resolved.path("message").asText())
        .startsWith(
            "clusterMirror=ns/orders-mirror resolved: ResolvedMirror[mirrorName=orders-mirror")
        .contains("controlChannel=Channel[MUTUAL TLS]")
        .contains("sasl.jaas.config=" + Redaction.REDACTED)
        .contains("security.protocol=SASL_SSL")
        .contains("sasl.mechanism=SCRAM-SHA-512");
    // And the secrets the mirror does hold appear nowhere in the output
    assertThat(mirror.controlSecret()).isEqualTo(CONTROL_SECRET);
    assertThat((String) mirror.sourceProperties().get("sasl.jaas.config"))
        .contains(SOURCE_PASSWORD);
    assertThat(output)
        .doesNotContain(CONTROL_SECRET)
        .doesNotContain(SOURCE_PASSWORD)
        .doesNotContain(DESTINATION_PASSWORD)
        .doesNotContain("PRIVATE KEY");
    for (String line : pemBodyLines(privateKey)) {
      assertThat(output).doesNotContain(line);
    }
  }

  @Test
  void clientSettingsThatCanHoldSecretsAreRedactedAndTheOthersKept() {
    // Given Kafka client settings with keys, passwords and a JAAS line
    Map<String, String> settings = new LinkedHashMap<>();
    settings.put("bootstrap.servers", "b:9092");
    settings.put("sasl.jaas.config", "x required password=\"s3cr3t-1\";");
    settings.put("ssl.keystore.key", "-----BEGIN PRIVATE KEY-----s3cr3t-2");
    settings.put("ssl.key.password", "s3cr3t-3");
    settings.put("ssl.truststore.password", "s3cr3t-4");
    settings.put("sasl.oauthbearer.client.credentials.client.secret", "s3cr3t-5");
    Properties properties = new Properties();
    properties.putAll(settings);

    // When rendered for a log, Then no secret is left and every other value is
    String rendered = Redaction.of(properties);
    assertThat(rendered)
        .doesNotContain("s3cr3t")
        .contains("bootstrap.servers=b:9092")
        .contains("ssl.keystore.key=" + Redaction.REDACTED)
        .contains("sasl.jaas.config=" + Redaction.REDACTED);
    assertThat(Redaction.of(settings)).isEqualTo(rendered);
  }
}
