package dev.kafkamirror.operator.it;

import static dev.kafkamirror.operator.it.MirrorFixtures.ref;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.kafkamirror.operator.api.v1alpha1.ClientSecurity;
import dev.kafkamirror.operator.api.v1alpha1.ClusterMirror;
import dev.kafkamirror.operator.api.v1alpha1.ClusterMirrorSpec;
import dev.kafkamirror.operator.api.v1alpha1.ControlEndpoint;
import dev.kafkamirror.operator.api.v1alpha1.DestinationCluster;
import dev.kafkamirror.operator.api.v1alpha1.SaslMechanism;
import dev.kafkamirror.operator.api.v1alpha1.SourceCluster;
import dev.kafkamirror.operator.api.v1alpha1.TopicSelection;
import dev.kafkamirror.operator.reconciler.ResolvedMirror;
import dev.kafkamirror.operator.reconciler.SecretOptIn;
import dev.kafkamirror.operator.reconciler.SpecResolver;
import dev.kafkamirror.testing.kube.KubeApiServerHarness;
import dev.kafkamirror.testing.tls.TestCertificates;
import io.fabric8.kubernetes.api.model.NamespaceBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * No confused deputy: a ClusterMirror that names a Secret of its namespace which did not opt in (an
 * application's database password, say) as SASL credentials or as the control secret, with the
 * source bootstrap at a host of the author's, gets InvalidSpec naming the Secret, and the Secret's
 * value never leaves the operator. Against a real kube-apiserver.
 */
class SecretOptInIT {

  private static final String NS = "secret-opt-in";
  private static final String VALUE = "app-user:db-password-5d1e0c";

  private static KubeApiServerHarness kube;
  private static KubernetesClient client;

  @BeforeAll
  static void start() {
    kube = KubeApiServerHarness.start();
    client = kube.newClient();
    client
        .namespaces()
        .resource(new NamespaceBuilder().withNewMetadata().withName(NS).endMetadata().build())
        .create();
    MirrorFixtures.secret(
        client, NS, "app-db", null, null, Map.of("credentials", VALUE, "secret", VALUE));
  }

  @AfterAll
  static void stop() {
    if (client != null) {
      client.close();
    }
    if (kube != null) {
      kube.close();
    }
  }

  @Test
  void aSecretThatDidNotOptInIsNeverReadAndItsValueNeverLeaves() throws Exception {
    SpecResolver resolver = new SpecResolver(client);
    // Given a ClusterMirror that names the application's Secret as SASL credentials of a source at
    // the author's host, and as the control secret
    ClusterMirror asSasl = mirror("exfil", "app-db", "credentials", "app-db", "secret");
    // When the operator resolves it
    // Then it is InvalidSpec naming the field, the Secret and the annotation, never the value
    assertThatThrownBy(() -> resolver.resolve(asSasl))
        .isInstanceOf(SpecResolver.InvalidSpecException.class)
        .hasMessageContaining("spec.destination.control.secretRef")
        .hasMessageContaining(NS + "/app-db")
        .hasMessageContaining(SecretOptIn.ANNOTATION)
        .hasMessageNotContaining("db-password");
    // And with the control secret from an opted-in Secret, the SASL one is still refused
    createOptedIn("control", "exfil");
    ClusterMirror viaSource = mirror("exfil", "app-db", "credentials", "control", "secret");
    assertThatThrownBy(() -> resolver.resolve(viaSource))
        .isInstanceOf(SpecResolver.InvalidSpecException.class)
        .hasMessageContaining("spec.source.security.saslCredentials")
        .hasMessageContaining("not opted in for ClusterMirror exfil")
        .hasMessageNotContaining("db-password");
    // And a Secret that opted in for another ClusterMirror only is refused to this one
    createOptedIn("other-only", "payments");
    assertThatThrownBy(
            () -> resolver.resolve(mirror("exfil", "other-only", "secret", "control", "secret")))
        .isInstanceOf(SpecResolver.InvalidSpecException.class)
        .hasMessageContaining(NS + "/other-only");
    // And once the Secret's owner opts in, the same spec resolves
    client
        .secrets()
        .inNamespace(NS)
        .withName("app-db")
        .edit(
            s -> {
              s.getMetadata().setAnnotations(Map.of(SecretOptIn.ANNOTATION, "exfil"));
              return s;
            });
    ResolvedMirror resolved = resolver.resolve(viaSource);
    assertThat(resolved.sourceClientSecurity()).containsKey("sasl.jaas.config");
  }

  @Test
  void theClientCertificateSecretIsReadOnlyWhenOptedInAndItsKeyNeverLeaves() throws Exception {
    SpecResolver resolver = new SpecResolver(client);
    TestCertificates certs =
        TestCertificates.create(
            java.nio.file.Files.createTempDirectory(
                java.nio.file.Files.createDirectories(java.nio.file.Path.of("target")),
                "opt-in-tls"));
    String key = certs.privateKeyPem("operator");
    String keyBody = key.replaceAll("-----[A-Z ]+-----", "").replaceAll("\\s", "");
    createOptedIn("mtls-control", "mtls");
    MirrorFixtures.secret(client, NS, "mtls-ca", null, "mtls", Map.of("ca.crt", certs.caPemText()));
    // Given a kubernetes.io/tls Secret holding the operator's certificate, without the opt-in
    MirrorFixtures.secret(
        client,
        NS,
        "operator-tls",
        "kubernetes.io/tls",
        null,
        Map.of("tls.crt", certs.certificateChainPem("operator"), "tls.key", key));
    ClusterMirror cr = mirror("mtls", "mtls-control", "secret", "mtls-control", "secret");
    cr.getSpec().getSource().setSecurity(null);
    cr.getSpec().getDestination().getControl().setTlsTrustedCertificate(ref("mtls-ca", "ca.crt"));
    cr.getSpec().getDestination().getControl().setTlsClientCertificateSecret("operator-tls");
    // When the operator resolves the ClusterMirror naming it
    // Then it is InvalidSpec naming the field, the Secret and the annotation, never the key
    assertThatThrownBy(() -> resolver.resolve(cr))
        .isInstanceOf(SpecResolver.InvalidSpecException.class)
        .hasMessageContaining("spec.destination.control.tlsClientCertificateSecret")
        .hasMessageContaining(NS + "/operator-tls")
        .hasMessageContaining(SecretOptIn.ANNOTATION)
        .hasMessageNotContaining(keyBody.substring(0, 40));
    // And once opted in with a tls.key that is no PKCS#8 PEM, the error names tls.key, not its text
    client
        .secrets()
        .inNamespace(NS)
        .withName("operator-tls")
        .edit(
            s -> {
              s.getMetadata().setAnnotations(Map.of(SecretOptIn.ANNOTATION, "mtls"));
              s.setStringData(Map.of("tls.key", "-----BEGIN RSA PRIVATE KEY-----\n" + keyBody));
              return s;
            });
    assertThatThrownBy(() -> resolver.resolve(cr))
        .isInstanceOf(SpecResolver.InvalidSpecException.class)
        .hasMessageContaining("Secret " + NS + "/operator-tls key tls.key")
        .hasMessageNotContaining(keyBody.substring(0, 40));
    // And with the right key the mirror resolves to a mutual TLS channel that does not print it
    client
        .secrets()
        .inNamespace(NS)
        .withName("operator-tls")
        .edit(
            s -> {
              s.setStringData(Map.of("tls.key", key));
              return s;
            });
    ResolvedMirror resolved = resolver.resolve(cr);
    assertThat(resolved.controlChannel().clientCertificate().privateKeyPem()).isEqualTo(key);
    assertThat(resolved.controlChannel().toString()).isEqualTo("Channel[MUTUAL TLS]");
    assertThat(resolved.toString()).doesNotContain(keyBody.substring(0, 40));
  }

  private static void createOptedIn(String name, String mirrors) {
    MirrorFixtures.secret(
        client, NS, name, null, mirrors, Map.of("secret", "control-secret-0123456789abcdef"));
  }

  private static ClusterMirror mirror(
      String name, String saslSecret, String saslKey, String controlSecret, String controlKey) {
    ClusterMirror cr = new ClusterMirror();
    cr.getMetadata().setName(name);
    cr.getMetadata().setNamespace(NS);
    ClusterMirrorSpec spec = new ClusterMirrorSpec();
    SourceCluster source = new SourceCluster();
    source.setBootstrapServers("attacker.example.com:9092");
    ClientSecurity security = new ClientSecurity();
    security.setSaslMechanism(SaslMechanism.PLAIN);
    security.setSaslCredentials(ref(saslSecret, saslKey));
    source.setSecurity(security);
    spec.setSource(source);
    DestinationCluster destination = new DestinationCluster();
    destination.setBootstrapServers("127.0.0.1:9092");
    ControlEndpoint control = new ControlEndpoint();
    control.setPort(9095);
    control.setSecretRef(ref(controlSecret, controlKey));
    destination.setControl(control);
    spec.setDestination(destination);
    TopicSelection topics = new TopicSelection();
    topics.setNames(List.of("orders"));
    spec.setTopics(topics);
    cr.setSpec(spec);
    return cr;
  }
}
