package dev.kafkamirror.operator.it;

import static dev.kafkamirror.operator.it.MirrorFixtures.ref;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.kafkamirror.operator.api.v1alpha1.ClientSecurity;
import dev.kafkamirror.operator.api.v1alpha1.ClusterMirror;
import dev.kafkamirror.operator.api.v1alpha1.ClusterMirrorStatus;
import dev.kafkamirror.operator.api.v1alpha1.Condition;
import dev.kafkamirror.operator.api.v1alpha1.Conditions;
import dev.kafkamirror.operator.api.v1alpha1.MirrorState;
import dev.kafkamirror.operator.api.v1alpha1.SaslMechanism;
import dev.kafkamirror.operator.api.v1alpha1.SaslUser;
import dev.kafkamirror.operator.api.v1alpha1.TlsClientCertificate;
import dev.kafkamirror.testing.kafka.KafkaCluster;
import dev.kafkamirror.testing.kafka.KafkaClusterConfig;
import dev.kafkamirror.testing.kafka.TestClients;
import dev.kafkamirror.testing.tls.TestCertificates;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.ScramCredentialInfo;
import org.apache.kafka.clients.admin.ScramMechanism;
import org.apache.kafka.clients.admin.UserScramCredentialUpsertion;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.IsolationLevel;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The credentials users already have (issue 14 item 4) on real brokers: a source whose client
 * listener is TLS with client certificates required, read with a Strimzi TLS KafkaUser shaped
 * Secret (user.crt, user.key) and the cluster CA; a source with SCRAM-SHA-512 over TLS, read with a
 * kubernetes.io/basic-auth Secret; and a wrong password, which fails closed naming the source and
 * what to check, without a secret in status or Events. The operator's own clients and the plugin's
 * fetchers on the destination both use the credentials: Mirroring is True only once the plugin has
 * read the source's cluster id through them.
 *
 * <p>Three single-node clusters (two sources, one destination with the plugin); the keystores are
 * made in the test by the JDK's keytool while the API server and the destination start.
 */
class SourceCredentialsIT {

  private static final String NS = "credentials";
  private static final Duration WAIT = Duration.ofSeconds(90);
  private static final String ADMIN_JAAS =
      "org.apache.kafka.common.security.plain.PlainLoginModule required username=\"admin\""
          + " password=\"admin-secret\"";
  private static final String SCRAM_USER = "mirror-scram-user";
  private static final String SCRAM_PASSWORD = "scram-password-8d41c";
  private static final String WRONG_PASSWORD = "wrong-password-55e0a";

  private static OperatorTestEnvironment env;
  private static KubernetesClient client;
  private static TestCertificates certs;
  private static KafkaCluster mtlsSource;
  private static KafkaCluster scramSource;
  private static KafkaCluster destination;

  @BeforeAll
  static void start() throws Exception {
    // The API server and the destination start while keytool makes the keystores (one at a time).
    CompletableFuture<KafkaCluster> destinationStarted =
        CompletableFuture.supplyAsync(
            () -> {
              OperatorTestEnvironment started = OperatorTestEnvironment.start();
              try {
                started.installCrdAndNamespaces(NS);
                env = started;
                return started.startCluster(MirrorFixtures.destination("cred-dest"));
              } catch (RuntimeException | Error e) {
                started.close();
                throw e;
              }
            });
    try {
      certs =
          TestCertificates.create(
              Path.of(
                  System.getProperty("cmo.test.workdir", "target/test-work"),
                  "source-credentials-" + System.nanoTime()));
      certs.certificateChainPem("broker");
      certs.certificateChainPem("mirror-user");
    } finally {
      destination = destinationStarted.join();
      client = env.client();
    }
    KafkaClusterConfig.Builder mtls =
        tlsListener(KafkaClusterConfig.builder("mtls-source").singleNode(), "SSL")
            .brokerProperty("ssl.client.auth", "required")
            // the test's own clients present the broker's certificate (signed by the same CA)
            .clientProperty("security.protocol", "SSL")
            .clientProperty("ssl.keystore.type", "PEM")
            .clientProperty("ssl.keystore.certificate.chain", certs.certificateChainPem("broker"))
            .clientProperty("ssl.keystore.key", certs.privateKeyPem("broker"));
    KafkaClusterConfig.Builder scram =
        tlsListener(KafkaClusterConfig.builder("scram-source").singleNode(), "SASL_SSL")
            // PLAIN for the broker itself and the test's admin, SCRAM for the mirror's user
            .brokerProperty("sasl.enabled.mechanisms", "PLAIN,SCRAM-SHA-512")
            .brokerProperty("sasl.mechanism.inter.broker.protocol", "PLAIN")
            .brokerProperty(
                "listener.name.plaintext.plain.sasl.jaas.config",
                ADMIN_JAAS + " user_admin=\"admin-secret\";")
            .brokerProperty(
                "listener.name.plaintext.scram-sha-512.sasl.jaas.config",
                "org.apache.kafka.common.security.scram.ScramLoginModule required;")
            .clientProperty("security.protocol", "SASL_SSL")
            .clientProperty("sasl.mechanism", "PLAIN")
            .clientProperty("sasl.jaas.config", ADMIN_JAAS + ";");
    CompletableFuture<KafkaCluster> a = startOwned(mtls);
    CompletableFuture<KafkaCluster> b = startOwned(scram);
    CompletableFuture.allOf(a, b).join();
    mtlsSource = a.join();
    scramSource = b.join();
    // The mirror's SCRAM user, made through the admin's PLAIN login
    try (Admin admin = scramSource.admin()) {
      admin
          .alterUserScramCredentials(
              List.of(
                  new UserScramCredentialUpsertion(
                      SCRAM_USER,
                      new ScramCredentialInfo(ScramMechanism.SCRAM_SHA_512, 4096),
                      SCRAM_PASSWORD)))
          .all()
          .get(30, TimeUnit.SECONDS);
    }
    env.startOperator(Map.of("CMO_REQUEUE_MS", "300", "CMO_RESYNC_MS", "2000"));
  }

  @AfterAll
  static void stop() {
    if (env != null) {
      env.close();
    }
  }

  /** The harness's client listener on {@code protocol}, with the broker's PEM key pair and CA. */
  private static KafkaClusterConfig.Builder tlsListener(
      KafkaClusterConfig.Builder builder, String protocol) {
    return builder
        .brokerProperty(
            "listener.security.protocol.map", "PLAINTEXT:" + protocol + ",CONTROLLER:PLAINTEXT")
        .brokerProperty("ssl.keystore.type", "PEM")
        .brokerProperty("ssl.keystore.key", inline(certs.privateKeyPem("broker")))
        .brokerProperty(
            "ssl.keystore.certificate.chain", inline(certs.certificateChainPem("broker")))
        .brokerProperty("ssl.truststore.type", "PEM")
        .brokerProperty("ssl.truststore.certificates", inline(certs.caPemText()))
        .clientProperty("ssl.truststore.type", "PEM")
        .clientProperty("ssl.truststore.certificates", certs.caPemText());
  }

  /** PEM text as one server.properties line (keytool ends the CA's base64 lines with CR LF). */
  private static String inline(String pem) {
    return pem.replace("\r", "").replace("\n", "\\n");
  }

  private static CompletableFuture<KafkaCluster> startOwned(KafkaClusterConfig.Builder cluster) {
    return CompletableFuture.supplyAsync(() -> env.startCluster(cluster));
  }

  @Test
  void aSourceRequiringClientCertificatesIsMirroredWithAStrimziTlsUserSecretAndFailsOver()
      throws Exception {
    // Given records on a source whose listener requires client certificates, and the Secret of a
    // Strimzi TLS KafkaUser (user.crt, user.key, ca.crt) and the cluster CA's Secret
    String topic = "mtls-orders";
    mtlsSource.createTopic(topic, 2, 1, Map.of());
    Map<String, String> written = produce(mtlsSource, topic, 2, 20);
    secret(
        "mirror-user",
        "Opaque",
        Map.of(
            "user.crt", certs.certificateChainPem("mirror-user"),
            "user.key", certs.privateKeyPem("mirror-user"),
            "ca.crt", certs.caPemText()));
    secret("mtls-source-cluster-ca-cert", "Opaque", Map.of("ca.crt", certs.caPemText()));
    ClientSecurity security = new ClientSecurity();
    security.setTls(true);
    security.setTlsTrustedCertificate(ref("mtls-source-cluster-ca-cert", "ca.crt"));
    TlsClientCertificate certificate = new TlsClientCertificate();
    certificate.setSecretName("mirror-user");
    certificate.setCertificateKey("user.crt");
    certificate.setKeyKey("user.key");
    security.setTlsClientCertificate(certificate);

    // When a ClusterMirror reads it with them
    create("mtls-mirror", mtlsSource, topic, security);

    // Then Mirroring turns True (the plugin read the source's id through mutual TLS) and every
    // record is on the destination at its source offset
    awaitCondition("mtls-mirror", Conditions.MIRRORING, Conditions.TRUE);
    awaitRecords(topic, written);

    // When it fails over
    MirrorFixtures.setState(client, NS, "mtls-mirror", MirrorState.Stopped);

    // Then every partition stops behind its barrier, the records still at their offsets
    awaitCondition("mtls-mirror", Conditions.STOPPED, Conditions.TRUE);
    assertThat(recordsOf(destination, topic)).containsAllEntriesOf(written);
  }

  @Test
  void aScramOverTlsSourceIsMirroredWithABasicAuthSecretAndAWrongPasswordFailsClosed()
      throws Exception {
    // Given records on a SASL_SSL SCRAM-SHA-512 source, a kubernetes.io/basic-auth Secret of the
    // mirror's user, and one with a wrong password
    String topic = "scram-orders";
    String refused = "scram-refused";
    scramSource.createTopic(topic, 1, 1, Map.of());
    scramSource.createTopic(refused, 1, 1, Map.of());
    Map<String, String> written = produce(scramSource, topic, 1, 10);
    produce(scramSource, refused, 1, 5);
    secret("scram-source-cluster-ca-cert", "Opaque", Map.of("ca.crt", certs.caPemText()));
    secret(
        "mirror-scram",
        "kubernetes.io/basic-auth",
        Map.of("username", SCRAM_USER, "password", SCRAM_PASSWORD));
    secret(
        "mirror-scram-wrong",
        "kubernetes.io/basic-auth",
        Map.of("username", SCRAM_USER, "password", WRONG_PASSWORD));

    // When two ClusterMirrors read it, one with each
    create("scram-mirror", scramSource, topic, scram("mirror-scram"));
    create("scram-refused", scramSource, refused, scram("mirror-scram-wrong"));

    // Then the right password mirrors every record at its source offset
    awaitCondition("scram-mirror", Conditions.MIRRORING, Conditions.TRUE);
    awaitRecords(topic, written);
    // And the wrong one is Degraded and Stalled, naming the source and what to check
    awaitCondition("scram-refused", Conditions.DEGRADED, Conditions.TRUE);
    ClusterMirrorStatus status = MirrorFixtures.status(client, NS, "scram-refused");
    Condition degraded = Conditions.find(status, Conditions.DEGRADED).orElseThrow();
    assertThat(degraded.getReason()).isEqualTo("SourceAuthenticationFailed");
    assertThat(degraded.getMessage())
        .contains("ClusterMirror " + NS + "/scram-refused")
        .contains("the source cluster " + scramSource.bootstrapServers())
        .contains("SaslAuthenticationException")
        .contains("spec.source.security")
        .contains("saslUser");
    assertThat(Conditions.find(status, Conditions.STALLED).orElseThrow().getStatus())
        .isEqualTo(Conditions.TRUE);
    assertThat(Conditions.find(status, Conditions.MIRRORING).orElseThrow().getStatus())
        .isEqualTo(Conditions.FALSE);
    // And nothing of the refused topic reached the destination
    assertThat(destinationTopicHolds(refused)).isZero();
    // And neither password is in any status or Event
    String statuses =
        client.getKubernetesSerialization().asJson(status)
            + client
                .getKubernetesSerialization()
                .asJson(MirrorFixtures.status(client, NS, "scram-mirror"));
    String events =
        client.getKubernetesSerialization().asJson(client.v1().events().inNamespace(NS).list());
    assertThat(statuses + events).doesNotContain(WRONG_PASSWORD).doesNotContain(SCRAM_PASSWORD);
  }

  private static ClientSecurity scram(String secret) {
    SaslUser user = new SaslUser();
    user.setUsernameSecretKeyRef(ref(secret, "username"));
    user.setPasswordSecretKeyRef(ref(secret, "password"));
    ClientSecurity security = new ClientSecurity();
    security.setTls(true);
    security.setTlsTrustedCertificate(ref("scram-source-cluster-ca-cert", "ca.crt"));
    security.setSaslMechanism(SaslMechanism.SCRAM_SHA_512);
    security.setSaslUser(user);
    return security;
  }

  /** A Secret of {@code type} that every ClusterMirror of the namespace may read. */
  private static void secret(String name, String type, Map<String, String> data) {
    MirrorFixtures.secret(client, NS, name, type, "*", data);
  }

  private static void create(
      String name, KafkaCluster source, String topic, ClientSecurity security) {
    ClusterMirror cr = MirrorFixtures.mirroring(NS, name, source, destination, topic);
    cr.getSpec().getSource().setSecurity(security);
    client.resource(cr).create();
  }

  /**
   * Writes {@code count} records round-robin over the partitions with the cluster's own client
   * settings; returns "partition/offset" to "key=value" as the source acknowledged them.
   */
  private static Map<String, String> produce(
      KafkaCluster cluster, String topic, int partitions, int count) throws Exception {
    Properties props = cluster.clientProperties();
    props.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
    props.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
    props.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, "true");
    props.put(ProducerConfig.ACKS_CONFIG, "all");
    Map<String, String> written = new TreeMap<>();
    try (KafkaProducer<String, String> producer = new KafkaProducer<>(props)) {
      for (int i = 0; i < count; i++) {
        String key = topic + "-k" + i;
        String value = topic + "-v" + i;
        RecordMetadata m =
            producer
                .send(new ProducerRecord<>(topic, i % partitions, key, value))
                .get(30, TimeUnit.SECONDS);
        written.put(m.partition() + "/" + m.offset(), key + "=" + value);
      }
    }
    return written;
  }

  /** Waits until the destination holds {@code written}, each record at its source offset. */
  private static void awaitRecords(String topic, Map<String, String> written) {
    await()
        .atMost(WAIT)
        .pollInterval(Duration.ofMillis(300))
        .ignoreExceptions()
        .untilAsserted(
            () -> assertThat(recordsOf(destination, topic)).containsAllEntriesOf(written));
  }

  /** "partition/offset" to "key=value" of the data records of {@code topic} on {@code cluster}. */
  private static Map<String, String> recordsOf(KafkaCluster cluster, String topic) {
    Map<String, String> out = new TreeMap<>();
    for (ConsumerRecord<String, String> r :
        TestClients.readAll(
            cluster.bootstrapServers(),
            topic,
            IsolationLevel.READ_COMMITTED,
            Duration.ofSeconds(30))) {
      out.put(r.partition() + "/" + r.offset(), r.key() + "=" + r.value());
    }
    return out;
  }

  /** The records of {@code topic} on the destination; 0 when the topic does not exist there. */
  private static long destinationTopicHolds(String topic) throws Exception {
    try (Admin admin = destination.admin()) {
      if (!admin.listTopics().names().get(30, TimeUnit.SECONDS).contains(topic)) {
        return 0;
      }
    }
    return recordsOf(destination, topic).size();
  }

  private static void awaitCondition(String name, String type, String value) {
    MirrorFixtures.awaitCondition(client, NS, name, type, value, WAIT);
  }
}
