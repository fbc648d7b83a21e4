package dev.kafkamirror.operator.reconciler;

import static dev.kafkamirror.operator.reconciler.ReconcilerRig.NS;
import static dev.kafkamirror.operator.reconciler.ReconcilerRig.ref;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.kafkamirror.operator.api.v1alpha1.ClientSecurity;
import dev.kafkamirror.operator.api.v1alpha1.ClusterMirror;
import dev.kafkamirror.operator.api.v1alpha1.DeletionPolicy;
import dev.kafkamirror.operator.api.v1alpha1.MirrorState;
import dev.kafkamirror.operator.api.v1alpha1.SaslMechanism;
import dev.kafkamirror.operator.api.v1alpha1.SaslUser;
import dev.kafkamirror.operator.api.v1alpha1.SecretKeyRef;
import dev.kafkamirror.operator.api.v1alpha1.TlsClientCertificate;
import dev.kafkamirror.testing.tls.TestCertificates;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.Properties;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The credential shapes users already have (issue 14 item 4): SASL users whose username and
 * password sit in separate keys (kubernetes.io/basic-auth, Strimzi KafkaUser), and client
 * certificates for mutual TLS (kubernetes.io/tls, Strimzi TLS KafkaUser), turned into the Kafka
 * client settings; each missing key refused naming the field, the Secret and the key.
 */
class ClientCredentialsResolutionTest {

  private static final String PASSWORD = "pa\"ss\\word-7e1";

  private static TestCertificates certs;
  private static String chain;
  private static String key;

  private final TestingSecrets secrets =
      new TestingSecrets()
          .put(NS, "control", "orders-mirror", Map.of("secret", "control-secret-0123456789"));
  private final SpecResolver resolver = new SpecResolver(secrets);

  @BeforeAll
  static void makeCertificates() throws Exception {
    Files.createDirectories(Path.of("target"));
    certs =
        TestCertificates.create(Files.createTempDirectory(Path.of("target"), "client-credentials"));
    chain = certs.certificateChainPem("mirror-user");
    key = certs.privateKeyPem("mirror-user");
  }

  private static ClusterMirror cr() {
    return ReconcilerRig.clusterMirror(MirrorState.Mirroring, DeletionPolicy.Retain);
  }

  private static ClientSecurity saslUser(
      SaslMechanism mechanism, String username, SecretKeyRef usernameRef, SecretKeyRef password) {
    SaslUser user = new SaslUser();
    user.setUsername(username);
    user.setUsernameSecretKeyRef(usernameRef);
    user.setPasswordSecretKeyRef(password);
    ClientSecurity security = new ClientSecurity();
    security.setTls(true);
    security.setSaslMechanism(mechanism);
    security.setSaslUser(user);
    return security;
  }

  private static ClientSecurity mutualTls(String secret, String certificateKey, String keyKey) {
    TlsClientCertificate certificate = new TlsClientCertificate();
    certificate.setSecretName(secret);
    if (certificateKey != null) {
      certificate.setCertificateKey(certificateKey);
      certificate.setKeyKey(keyKey);
    }
    ClientSecurity security = new ClientSecurity();
    security.setTls(true);
    security.setTlsTrustedCertificate(ref("cluster-ca", "ca.crt"));
    security.setTlsClientCertificate(certificate);
    return security;
  }

  @Test
  void aBasicAuthSecretGivesTheUsernameAndPasswordOfItsTwoKeys() throws Exception {
    // Given a kubernetes.io/basic-auth shaped Secret whose password ends in a line break
    secrets.put(
        NS, "source-user", "*", Map.of("username", "mirror-user\n", "password", PASSWORD + "\n"));
    ClusterMirror cr = cr();
    cr.getSpec()
        .getSource()
        .setSecurity(
            saslUser(
                SaslMechanism.SCRAM_SHA_512,
                null,
                ref("source-user", "username"),
                ref("source-user", "password")));

    // When resolved
    ResolvedMirror m = resolver.resolve(cr);

    // Then the source speaks SASL_SSL SCRAM-SHA-512 as that user, the password escaped and
    // without the line break, for the operator's clients and the plugin's fetchers alike
    assertSasl(
        m.sourceProperties(),
        "SASL_SSL",
        "SCRAM-SHA-512",
        "org.apache.kafka.common.security.scram.ScramLoginModule required"
            + " username=\"mirror-user\" password=\"pa\\\"ss\\\\word-7e1\";");
    assertThat(m.sourceClientSecurity())
        .containsEntry("sasl.jaas.config", (String) m.sourceProperties().get("sasl.jaas.config"));
    assertThat(m.toString()).doesNotContain("word-7e1");
  }

  @Test
  void aStrimziKafkaUserGivesTheUsernameLiterallyAndThePasswordOfItsSecret() throws Exception {
    // Given the Secret Strimzi makes for KafkaUser "mirror-user" (keys password, sasl.jaas.config)
    // and a PLAIN destination user
    secrets.put(
        NS,
        "mirror-user",
        "orders-mirror",
        Map.of("password", "strimzi-generated-4f2", "sasl.jaas.config", "ignored"));
    ClusterMirror cr = cr();
    ClientSecurity plain =
        saslUser(SaslMechanism.PLAIN, "mirror-user", null, ref("mirror-user", "password"));
    plain.setTls(null);
    cr.getSpec().getDestination().setSecurity(plain);

    // When resolved
    ResolvedMirror m = resolver.resolve(cr);

    // Then the destination speaks SASL_PLAINTEXT PLAIN as the KafkaUser
    assertSasl(
        m.destinationProperties(),
        "SASL_PLAINTEXT",
        "PLAIN",
        "org.apache.kafka.common.security.plain.PlainLoginModule required"
            + " username=\"mirror-user\" password=\"strimzi-generated-4f2\";");
    assertThat(m.sourceProperties()).doesNotContainKey("sasl.jaas.config");
  }

  @Test
  void aKubernetesTlsSecretBecomesAPemKeystoreBesideTheTrustedCa() throws Exception {
    // Given a kubernetes.io/tls Secret (tls.crt, tls.key) and the cluster's CA
    secrets.put(NS, "mirror-tls", "*", Map.of("tls.crt", chain, "tls.key", key));
    secrets.put(NS, "cluster-ca", "*", Map.of("ca.crt", certs.caPemText()));
    ClusterMirror cr = cr();
    cr.getSpec().getSource().setSecurity(mutualTls("mirror-tls", null, null));

    // When resolved
    ResolvedMirror m = resolver.resolve(cr);

    // Then the source clients present that certificate and key over SSL and trust the CA
    assertThat(m.sourceClientSecurity())
        .containsEntry("security.protocol", "SSL")
        .containsEntry("ssl.keystore.type", "PEM")
        .containsEntry("ssl.keystore.certificate.chain", chain)
        .containsEntry("ssl.keystore.key", key)
        .containsEntry("ssl.truststore.type", "PEM")
        .containsEntry("ssl.truststore.certificates", certs.caPemText())
        .doesNotContainKey("sasl.mechanism");
    assertThat(m.sourceProperties()).containsEntry("ssl.keystore.key", key);
    // And the key is never printed
    assertThat(m.toString()).doesNotContain("PRIVATE KEY");
  }

  @Test
  void aStrimziTlsUserIsReadFromItsUserCrtAndUserKeyKeys() throws Exception {
    // Given the Secret of a Strimzi KafkaUser with TLS authentication and the cluster CA Secret
    secrets.put(
        NS,
        "mirror-user",
        "*",
        Map.of("user.crt", chain, "user.key", key, "ca.crt", "the clients CA, not read"));
    secrets.put(NS, "cluster-ca", "*", Map.of("ca.crt", certs.caPemText()));
    ClusterMirror cr = cr();
    cr.getSpec().getDestination().setSecurity(mutualTls("mirror-user", "user.crt", "user.key"));

    // When resolved
    ResolvedMirror m = resolver.resolve(cr);

    // Then the destination clients present user.crt with user.key
    assertThat(m.destinationProperties())
        .containsEntry("security.protocol", "SSL")
        .containsEntry("ssl.keystore.certificate.chain", chain)
        .containsEntry("ssl.keystore.key", key);
  }

  @Test
  void eachMissingKeyIsInvalidSpecNamingTheFieldTheSecretAndTheKey() {
    // Given Secrets each lacking one of the keys a shape reads
    secrets.put(NS, "no-password", "*", Map.of("username", "mirror-user"));
    secrets.put(NS, "no-username", "*", Map.of("password", "p"));
    secrets.put(NS, "empty-password", "*", Map.of("password", "\n"));
    secrets.put(NS, "no-key", "*", Map.of("tls.crt", chain));
    secrets.put(NS, "no-crt", "*", Map.of("user.key", key));
    secrets.put(NS, "cluster-ca", "*", Map.of("ca.crt", certs.caPemText()));

    // Then each is refused naming the field, the Secret and the key
    assertThatThrownBy(
            () ->
                resolveSource(
                    saslUser(
                        SaslMechanism.SCRAM_SHA_512,
                        null,
                        ref("no-password", "username"),
                        ref("no-password", "password"))))
        .isInstanceOf(SpecResolver.InvalidSpecException.class)
        .hasMessage(
            "spec.source.security.saslUser.passwordSecretKeyRef: Secret ns/no-password has no key"
                + " password");
    assertThatThrownBy(
            () ->
                resolveSource(
                    saslUser(
                        SaslMechanism.SCRAM_SHA_256,
                        null,
                        ref("no-username", "username"),
                        ref("no-username", "password"))))
        .hasMessage(
            "spec.source.security.saslUser.usernameSecretKeyRef: Secret ns/no-username has no key"
                + " username");
    assertThatThrownBy(
            () ->
                resolveSource(
                    saslUser(
                        SaslMechanism.PLAIN,
                        "mirror-user",
                        null,
                        ref("empty-password", "password"))))
        .hasMessage(
            "spec.source.security.saslUser.passwordSecretKeyRef: Secret ns/empty-password key"
                + " password is empty; put the password there");
    assertThatThrownBy(
            () ->
                resolveSource(
                    saslUser(
                        SaslMechanism.PLAIN, "mirror-user", null, ref("absent-user", "password"))))
        .hasMessage(
            "spec.source.security.saslUser.passwordSecretKeyRef: Secret ns/absent-user does not"
                + " exist");
    assertThatThrownBy(() -> resolveSource(mutualTls("no-key", null, null)))
        .hasMessage(
            "spec.source.security.tlsClientCertificate: Secret ns/no-key has no key tls.key");
    assertThatThrownBy(() -> resolveSource(mutualTls("no-crt", "user.crt", "user.key")))
        .hasMessage(
            "spec.source.security.tlsClientCertificate: Secret ns/no-crt has no key user.crt");
    assertThatThrownBy(() -> resolveSource(mutualTls("absent-tls", null, null)))
        .hasMessage(
            "spec.source.security.tlsClientCertificate: Secret ns/absent-tls does not exist");
  }

  @Test
  void aKeyThatIsNotTheCertificatesIsRefusedNamingTheKeyWithoutPrintingEither() {
    // Given a Secret whose tls.key belongs to another certificate
    String otherKey = certs.privateKeyPem("someone-else");
    secrets.put(NS, "mismatched", "*", Map.of("tls.crt", chain, "tls.key", otherKey));
    secrets.put(NS, "cluster-ca", "*", Map.of("ca.crt", certs.caPemText()));

    // Then it is refused naming the field, the Secret and what to put under which key
    assertThatThrownBy(() -> resolveSource(mutualTls("mismatched", null, null)))
        .isInstanceOf(SpecResolver.InvalidSpecException.class)
        .hasMessageContaining("spec.source.security.tlsClientCertificate: Secret ns/mismatched key")
        .hasMessageContaining("PKCS#8 PEM private key (BEGIN PRIVATE KEY) under tls.key")
        .message()
        .doesNotContain("PRIVATE KEY-----")
        .doesNotContain(otherKey.substring(40, 80));
  }

  @Test
  void conflictingOrIncompleteShapesAreRefusedBeforeAnySecretIsRead() {
    // saslUser next to saslCredentials
    ClientSecurity both = saslUser(SaslMechanism.PLAIN, "u", null, ref("source-user", "password"));
    both.setSaslCredentials(ref("source-sasl", "credentials"));
    assertThatThrownBy(() -> resolveSource(both))
        .hasMessageStartingWith(
            "spec.source.security.saslCredentials and spec.source.security.saslUser are mutually"
                + " exclusive");
    // saslUser without a mechanism
    ClientSecurity noMechanism = saslUser(null, "u", null, ref("source-user", "password"));
    assertThatThrownBy(() -> resolveSource(noMechanism))
        .hasMessageStartingWith(
            "spec.source.security.saslUser requires spec.source.security.saslMechanism");
    // a username and a username key
    ClientSecurity twoNames =
        saslUser(SaslMechanism.PLAIN, "u", ref("source-user", "username"), ref("source-user", "p"));
    assertThatThrownBy(() -> resolveSource(twoNames))
        .hasMessage(
            "spec.source.security.saslUser.username and"
                + " spec.source.security.saslUser.usernameSecretKeyRef are mutually exclusive:"
                + " keep one");
    // a client certificate without TLS
    ClientSecurity noTls = mutualTls("mirror-tls", null, null);
    noTls.setTls(false);
    assertThatThrownBy(() -> resolveSource(noTls))
        .hasMessage(
            "spec.source.security.tlsClientCertificate requires spec.source.security.tls: true"
                + " (mutual TLS needs TLS)");
    assertThat(secrets.reads())
        .doesNotContain(NS + "/source-user", NS + "/source-sasl", NS + "/mirror-tls");
  }

  /** Asserts the SASL {@code mechanism} over {@code protocol} with JAAS line {@code jaasConfig}. */
  private static void assertSasl(
      Properties settings, String protocol, String mechanism, String jaasConfig) {
    assertThat(settings)
        .containsEntry("security.protocol", protocol)
        .containsEntry("sasl.mechanism", mechanism)
        .containsEntry("sasl.jaas.config", jaasConfig);
  }

  private ResolvedMirror resolveSource(ClientSecurity security)
      throws SpecResolver.InvalidSpecException {
    ClusterMirror cr = cr();
    cr.getSpec().getSource().setSecurity(security);
    return resolver.resolve(cr);
  }
}
