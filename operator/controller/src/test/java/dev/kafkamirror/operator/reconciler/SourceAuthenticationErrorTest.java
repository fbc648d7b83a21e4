package dev.kafkamirror.operator.reconciler;

import static dev.kafkamirror.operator.reconciler.ReconcilerRig.NS;
import static org.assertj.core.api.Assertions.assertThat;

import dev.kafkamirror.operator.api.v1alpha1.DeletionPolicy;
import dev.kafkamirror.operator.api.v1alpha1.MirrorState;
import dev.kafkamirror.operator.kafka.ClusterAdmin;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import org.apache.kafka.common.errors.SaslAuthenticationException;
import org.apache.kafka.common.errors.SslAuthenticationException;
import org.apache.kafka.common.errors.TimeoutException;
import org.junit.jupiter.api.Test;

/**
 * A source call refused for its credentials becomes a message naming the ClusterMirror, the source
 * cluster and what to check; any other failure is not one.
 */
class SourceAuthenticationErrorTest {

  private static ResolvedMirror mirror() throws Exception {
    TestingSecrets secrets =
        new TestingSecrets()
            .put(NS, "control", "orders-mirror", Map.of("secret", "control-secret-0123456789"));
    return new SpecResolver(secrets)
        .resolve(ReconcilerRig.clusterMirror(MirrorState.Mirroring, DeletionPolicy.Retain));
  }

  @Test
  void aSaslOrTlsRefusalNamesTheMirrorTheSourceAndWhatToCheck() throws Exception {
    // Given source calls refused by SASL and by the TLS handshake, wrapped as the admin wraps them
    ClusterAdmin.KafkaCallException sasl =
        new ClusterAdmin.KafkaCallException(
            "cannot list topics on source",
            new ExecutionException(
                new SaslAuthenticationException(
                    "Authentication failed during authentication due to invalid credentials with"
                        + " SASL mechanism SCRAM-SHA-512")));
    ClusterAdmin.KafkaCallException tls =
        new ClusterAdmin.KafkaCallException(
            "cannot list topics on source", new SslAuthenticationException("SSL handshake failed"));

    // When described
    String saslMessage = TopicSync.authenticationError("ns/orders-mirror", mirror(), sasl);
    String tlsMessage = TopicSync.authenticationError("ns/orders-mirror", mirror(), tls);

    // Then each names the ClusterMirror, the source cluster, Kafka's reason and the fields to check
    assertThat(saslMessage)
        .startsWith(
            "ClusterMirror ns/orders-mirror: the source cluster source.example:9092 refused the"
                + " credentials of spec.source.security (SaslAuthenticationException:"
                + " Authentication failed")
        .contains("saslUser or saslCredentials")
        .contains("tlsClientCertificate");
    assertThat(tlsMessage).contains("(SslAuthenticationException: SSL handshake failed)");
  }

  @Test
  void aTimeoutIsNoAuthenticationError() throws Exception {
    ClusterAdmin.KafkaCallException timeout =
        new ClusterAdmin.KafkaCallException("timed out", new TimeoutException("timed out"));
    assertThat(TopicSync.authenticationError("ns/orders-mirror", mirror(), timeout)).isNull();
  }
}
