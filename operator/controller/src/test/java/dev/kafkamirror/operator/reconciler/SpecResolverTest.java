package dev.kafkamirror.operator.reconciler;

import static dev.kafkamirror.operator.reconciler.ReconcilerRig.NS;
import static dev.kafkamirror.operator.reconciler.ReconcilerRig.ref;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.kafkamirror.operator.api.v1alpha1.BrokerControlEndpoint;
import dev.kafkamirror.operator.api.v1alpha1.ClientSecurity;
import dev.kafkamirror.operator.api.v1alpha1.ClusterMirror;
import dev.kafkamirror.operator.api.v1alpha1.DeletionPolicy;
import dev.kafkamirror.operator.api.v1alpha1.MirrorState;
import dev.kafkamirror.operator.api.v1alpha1.SaslMechanism;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** What the resolver makes of a spec and its Secrets, and what it refuses (naming what to fix). */
class SpecResolverTest {

  private static final String CONTROL_SECRET_VALUE = "control-secret-0123456789";
  private static final String PASSWORD = "pa\"ss\\word";

  private final TestingSecrets secrets =
      new TestingSecrets()
          .put(NS, "control", "orders-mirror", Map.of("secret", CONTROL_SECRET_VALUE + "\n"));
  private final SpecResolver resolver = new SpecResolver(secrets);

  private static ClusterMirror cr() {
    return ReconcilerRig.clusterMirror(MirrorState.Mirroring, DeletionPolicy.Retain);
  }

  @Test
  void aCompleteSpecResolvesToClientSettingsAndTheTrimmedControlSecret() throws Exception {
    // Given SASL_SSL credentials for the source and an endpoint override of broker 2
    secrets.put(NS, "source-sasl", "*", Map.of("credentials", "mirror-user:" + PASSWORD));
    ClusterMirror cr = cr();
    ClientSecurity security = new ClientSecurity();
    security.setTls(true);
    security.setSaslMechanism(SaslMechanism.SCRAM_SHA_512);
    security.setSaslCredentials(ref("source-sasl", "credentials"));
    cr.getSpec().getSource().setSecurity(security);
    cr.getSpec()
        .getDestination()
        .getControl()
        .setBrokerEndpoints(List.of(new BrokerControlEndpoint(2, "127.0.0.1:19443")));

    // When resolved
    ResolvedMirror m = resolver.resolve(cr);

    // Then the source speaks SASL_SSL with a JAAS line that escapes the password
    assertThat(m.sourceProperties())
        .containsEntry("bootstrap.servers", "source.example:9092")
        .containsEntry("security.protocol", "SASL_SSL")
        .containsEntry("sasl.mechanism", "SCRAM-SHA-512");
    assertThat((String) m.sourceProperties().get("sasl.jaas.config"))
        .contains("ScramLoginModule required")
        .contains("username=\"mirror-user\"")
        .contains("password=\"pa\\\"ss\\\\word\"");
    assertThat(m.sourceClientSecurity()).containsEntry("security.protocol", "SASL_SSL");
    // And the destination has no security settings, the control channel is plaintext
    assertThat(m.destinationProperties())
        .containsOnlyKeys("bootstrap.servers")
        .containsEntry("bootstrap.servers", "destination.example:9092");
    assertThat(m.controlSecret()).isEqualTo(CONTROL_SECRET_VALUE);
    assertThat(m.controlChannel().tls()).isFalse();
    assertThat(m.mirrorName()).isEqualTo("orders-mirror");
    assertThat(m.controlAddress(2, Map.of(2, "127.0.0.1"))).isEqualTo("127.0.0.1:19443");
    assertThat(m.controlAddress(1, Map.of(1, "10.0.0.1"))).isEqualTo("10.0.0.1:9443");
    // And the secret is never printed
    assertThat(m.toString()).doesNotContain(CONTROL_SECRET_VALUE).doesNotContain(PASSWORD);
  }

  @Test
  void aMissingSecretIsInvalidSpecNamingTheFieldAndTheSecret() {
    ClusterMirror cr = cr();
    cr.getSpec().getDestination().getControl().setSecretRef(ref("absent", "secret"));
    assertThatThrownBy(() -> resolver.resolve(cr))
        .isInstanceOf(SpecResolver.InvalidSpecException.class)
        .hasMessage("spec.destination.control.secretRef: Secret ns/absent does not exist");
  }

  @Test
  void aSecretThatDidNotOptInIsRefusedWithoutItsValue() {
    // Given a Secret that opted in only for another ClusterMirror
    secrets.put(NS, "payroll", "payroll-mirror", Map.of("secret", "top-secret-value-42"));
    ClusterMirror cr = cr();
    cr.getSpec().getDestination().getControl().setSecretRef(ref("payroll", "secret"));

    // Then it is refused naming the Secret, this ClusterMirror and the annotation, not the value
    assertThatThrownBy(() -> resolver.resolve(cr))
        .isInstanceOf(SpecResolver.InvalidSpecException.class)
        .hasMessageContaining("Secret ns/payroll is not opted in for ClusterMirror orders-mirror")
        .hasMessageContaining(SecretOptIn.ANNOTATION)
        .satisfies(e -> assertThat(e.getMessage()).doesNotContain("top-secret-value-42"));
  }

  @Test
  void aMissingKeyAndMalformedCredentialsAreInvalidSpecNamingTheKey() {
    ClusterMirror missingKey = cr();
    missingKey.getSpec().getDestination().getControl().setSecretRef(ref("control", "token"));
    assertThatThrownBy(() -> resolver.resolve(missingKey))
        .hasMessage("spec.destination.control.secretRef: Secret ns/control has no key token");

    secrets.put(NS, "source-sasl", "*", Map.of("credentials", "no-colon-here"));
    ClusterMirror badCredentials = cr();
    ClientSecurity security = new ClientSecurity();
    security.setSaslMechanism(SaslMechanism.PLAIN);
    security.setSaslCredentials(ref("source-sasl", "credentials"));
    badCredentials.getSpec().getSource().setSecurity(security);
    assertThatThrownBy(() -> resolver.resolve(badCredentials))
        .hasMessageContaining("spec.source.security.saslCredentials: Secret ns/source-sasl key")
        .hasMessageContaining("'username:password'")
        .satisfies(e -> assertThat(e.getMessage()).doesNotContain("no-colon-here"));
  }

  @Test
  void mutualTlsWithoutTlsAndASourceThatIsTheDestinationAreRefusedBeforeAnySecretIsRead() {
    // Given a source and destination listing the same broker
    ClusterMirror itself = cr();
    itself.getSpec().getSource().setBootstrapServers("Destination.Example:9092");
    assertThatThrownBy(() -> resolver.resolve(itself))
        .hasMessageContaining("a cluster cannot mirror itself");
    assertThat(secrets.reads()).isEmpty();

    // Given a client certificate without a trusted CA for the control endpoints
    ClusterMirror mutual = cr();
    mutual.getSpec().getDestination().getControl().setTlsClientCertificateSecret("client-cert");
    assertThatThrownBy(() -> resolver.resolve(mutual))
        .hasMessage(
            "spec.destination.control.tlsClientCertificateSecret requires"
                + " spec.destination.control.tlsTrustedCertificate (mutual TLS needs TLS)");
    assertThat(secrets.reads()).doesNotContain(NS + "/client-cert");
  }

  @Test
  void anIncompleteSpecOrABadPatternIsInvalidSpec() {
    ClusterMirror noTopics = cr();
    noTopics.getSpec().setTopics(null);
    assertThatThrownBy(() -> resolver.resolve(noTopics))
        .hasMessage("ClusterMirror ns/orders-mirror has no complete spec");

    ClusterMirror badPattern = cr();
    badPattern.getSpec().getTopics().setNames(null);
    badPattern.getSpec().getTopics().setInclude(List.of("orders.(["));
    assertThatThrownBy(() -> resolver.resolve(badPattern))
        .isInstanceOf(SpecResolver.InvalidSpecException.class)
        .hasMessageContaining("spec.topics.include[0] 'orders.([' is not a valid pattern");
  }
}
