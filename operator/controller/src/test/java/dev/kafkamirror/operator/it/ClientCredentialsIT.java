package dev.kafkamirror.operator.it;

import static dev.kafkamirror.operator.it.MirrorFixtures.ref;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.kafkamirror.operator.api.v1alpha1.ClientSecurity;
import dev.kafkamirror.operator.api.v1alpha1.ClusterMirror;
import dev.kafkamirror.operator.api.v1alpha1.ClusterMirrorStatus;
import dev.kafkamirror.operator.api.v1alpha1.Condition;
import dev.kafkamirror.operator.api.v1alpha1.Conditions;
import dev.kafkamirror.operator.api.v1alpha1.ConsumerGroupSync;
import dev.kafkamirror.operator.api.v1alpha1.MirrorState;
import dev.kafkamirror.operator.api.v1alpha1.SaslMechanism;
import dev.kafkamirror.operator.api.v1alpha1.SaslUser;
import dev.kafkamirror.operator.api.v1alpha1.TlsClientCertificate;
import dev.kafkamirror.operator.app.ProductionLogging;
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
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.IsolationLevel;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The credentials users already have (issue 14 item 4) on real brokers, for the source and for the
 * destination.
 *
 * <p>Source: a listener with TLS client certificates required, read with a Strimzi TLS KafkaUser
 * shaped Secret (user.crt, user.key) and the cluster CA; a SCRAM-SHA-512 over TLS listener, read
 * with a kubernetes.io/basic-auth Secret; a wrong password fails closed naming the source and what
 * to check. The operator's own clients and the plugin's fetchers on the destination both use them:
 * Mirroring is True only once the plugin has read the source's cluster id through them.
 *
 * <p>Destination: its brokers keep PLAINTEXT for replication, the plugin's own clients and the
 * test's checks, and have two more listeners, SCRAM (SASL_SSL, SCRAM-SHA-512) and MTLS (SSL, client
 * certificates required). A ClusterMirror names only one of those in
 * spec.destination.bootstrapServers, so every Admin call of the operator on the destination
 * (metadata, topic creation, offsets, consumer group commits) authenticates; a wrong destination
 * password fails closed, naming the ClusterMirror, the destination and what to check, with no
 * password in status, Events or the operator's log.
 *
 * <p>Three single-node clusters (two sources, one destination with the plugin), started side by
 * side once the JDK's keytool has made the keystores (while the API server starts). Each test has
 * its own topics, Secrets and ClusterMirrors.
 */
class ClientCredentialsIT {

  private static final String NS = "credentials";
  private static final Duration WAIT = Duration.ofSeconds(90);
  private static final String ADMIN_JAAS =
      "org.apache.kafka.common.security.plain.PlainLoginModule required username=\"admin\""
          + " password=\"admin-secret\"";
  private static final String SCRAM_USER = "mirror-scram-user";
  private static final String SCRAM_PASSWORD = "scram-password-8d41c";
  private static final String WRONG_PASSWORD = "wrong-password-55e0a";
  private static final String DEST_USER = "operator-dest-user";
  private static final String DEST_PASSWORD = "dest-password-3b7f1";
  private static final String DEST_WRONG_PASSWORD = "dest-wrong-password-c19d4";
  private static final String SCRAM_LISTENER = "SCRAM";
  private static final String MTLS_LISTENER = "MTLS";

  private static OperatorTestEnvironment env;
  private static KubernetesClient client;
  private static TestCertificates certs;
  private static KafkaCluster mtlsSource;
  private static KafkaCluster scramSource;
  private static KafkaCluster destination;

  @BeforeAll
  static void start() throws Exception {
    // The API server starts while keytool makes the keystores (one at a time).
    CompletableFuture<OperatorTestEnvironment> apiServer =
        CompletableFuture.supplyAsync(
            () -> {
              OperatorTestEnvironment started = OperatorTestEnvironment.start();
              try {
                started.installCrdAndNamespaces(NS);
                return started;
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
                  "client-credentials-" + System.nanoTime()));
      certs.certificateChainPem("broker");
      certs.certificateChainPem("mirror-user");
    } finally {
      env = apiServer.join();
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
    // The destination: PLAINTEXT for replication, the plugin and the test; SCRAM and MTLS for the
    // operator
    KafkaClusterConfig.Builder dest =
        tlsKeyPair(MirrorFixtures.destination("cred-dest").singleNode())
            .namedListener(SCRAM_LISTENER, "SASL_SSL")
            .namedListener(MTLS_LISTENER, "SSL")
            .brokerProperty("listener.name.scram.sasl.enabled.mechanisms", "SCRAM-SHA-512")
            .brokerProperty(
                "listener.name.scram.scram-sha-512.sasl.jaas.config",
                "org.apache.kafka.common.security.scram.ScramLoginModule required;")
            .brokerProperty("listener.name.mtls.ssl.client.auth", "required");
    CompletableFuture<KafkaCluster> a = startOwned(mtls);
    CompletableFuture<KafkaCluster> b = startOwned(scram);
    CompletableFuture<KafkaCluster> c = startOwned(dest);
    CompletableFuture.allOf(a, b, c).join();
    mtlsSource = a.join();
    scramSource = b.join();
    destination = c.join();
    // The mirror's SCRAM user on the source, made through the admin's PLAIN login
    try (Admin admin = scramSource.admin()) {
      upsertScramUser(admin, SCRAM_USER, SCRAM_PASSWORD);
    }
    // The operator's SCRAM user on the destination, made on its PLAINTEXT listener
    try (Admin admin = destination.admin()) {
      upsertScramUser(admin, DEST_USER, DEST_PASSWORD);
    }
    env.startOperator(Map.of("CMO_REQUEUE_MS", "300", "CMO_RESYNC_MS", "2000"));
  }

  private static void upsertScramUser(Admin admin, String user, String password) throws Exception {
    admin
        .alterUserScramCredentials(
            List.of(
                new UserScramCredentialUpsertion(
                    user, new ScramCredentialInfo(ScramMechanism.SCRAM_SHA_512, 4096), password)))
        .all()
        .get(30, TimeUnit.SECONDS);
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
    return tlsKeyPair(builder)
        .brokerProperty(
            "listener.security.protocol.map", "PLAINTEXT:" + protocol + ",CONTROLLER:PLAINTEXT")
        .clientProperty("ssl.truststore.type", "PEM")
        .clientProperty("ssl.truststore.certificates", certs.caPemText());
  }

  /** The broker's PEM key pair and the CA it trusts client certificates of, for every listener. */
  private static KafkaClusterConfig.Builder tlsKeyPair(KafkaClusterConfig.Builder builder) {
    certs.brokerTlsProperties("broker").forEach(builder::brokerProperty);
    return builder;
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

  @Test
  void
      aDestinationReachableOnlyThroughScramOverTlsIsMirroredSyncedAndFailedOverWithAStrimziScramUser()
          throws Exception {
    // Given records and a consumer group's commit on a source, and the destination's SCRAM user
    // in the Secret shape of a Strimzi scram-sha-512 KafkaUser (password; the username is the
    // KafkaUser's name) with the destination's cluster CA
    String topic = "dest-scram-orders";
    scramSource.createTopic(topic, 1, 1, Map.of());
    Map<String, String> written = produce(scramSource, topic, 1, 10);
    TopicPartition p0 = new TopicPartition(topic, 0);
    try (Admin admin = scramSource.admin()) {
      admin
          .alterConsumerGroupOffsets("app-orders", Map.of(p0, new OffsetAndMetadata(4)))
          .all()
          .get(30, TimeUnit.SECONDS);
    }
    sourceUserSecrets("dest-scram-case");
    secret("cred-dest-cluster-ca-cert", "Opaque", Map.of("ca.crt", certs.caPemText()));
    secret(DEST_USER, "Opaque", Map.of("password", DEST_PASSWORD));

    // When a ClusterMirror names only the destination's SASL_SSL listener, and syncs groups
    ClusterMirror cr =
        mirror(
            "dest-scram-mirror",
            scramSource,
            topic,
            scram("dest-scram-case", "dest-scram-case-ca"),
            destination.bootstrapServers(SCRAM_LISTENER),
            destinationScram(DEST_USER));
    ConsumerGroupSync groups = new ConsumerGroupSync();
    groups.setInclude(List.of("app-.*"));
    groups.setSyncIntervalSeconds(1);
    cr.getSpec().setConsumerGroups(groups);
    client.resource(cr).create();

    // Then the operator made the topic, started the mirror and every record is on the destination
    // at its source offset
    awaitCondition("dest-scram-mirror", Conditions.MIRRORING, Conditions.TRUE);
    awaitRecords(topic, written);
    // And the group's commit reached the destination through the operator's SCRAM client
    await()
        .atMost(WAIT)
        .pollInterval(Duration.ofMillis(300))
        .ignoreExceptions()
        .untilAsserted(() -> assertThat(destinationCommit("app-orders", p0)).isEqualTo(4L));

    // When it fails over
    MirrorFixtures.setState(client, NS, "dest-scram-mirror", MirrorState.Stopped);

    // Then every partition stops behind its barrier, the records still at their offsets
    awaitCondition("dest-scram-mirror", Conditions.STOPPED, Conditions.TRUE);
    assertThat(recordsOf(destination, topic)).containsAllEntriesOf(written);
    // And a producer of the destination's SCRAM user writes to the topic through that listener
    Properties props = destinationScramClient(DEST_PASSWORD);
    props.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
    props.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
    props.put(ProducerConfig.ACKS_CONFIG, "all");
    RecordMetadata appended;
    try (KafkaProducer<String, String> producer = new KafkaProducer<>(props)) {
      appended =
          producer
              .send(new ProducerRecord<>(topic, 0, "after-failover", "written"))
              .get(30, TimeUnit.SECONDS);
    }
    assertThat(appended.offset()).isGreaterThanOrEqualTo(written.size());
    assertThat(recordsOf(destination, topic))
        .containsEntry("0/" + appended.offset(), "after-failover=written");
  }

  @Test
  void aDestinationRequiringClientCertificatesIsMirroredAndFailedOverWithAStrimziTlsUserSecret()
      throws Exception {
    // Given records on a source, and the destination's TLS user in the Secret shape of a Strimzi
    // type: tls KafkaUser (user.crt, user.key, ca.crt) with the destination's cluster CA
    String topic = "dest-mtls-orders";
    scramSource.createTopic(topic, 2, 1, Map.of());
    Map<String, String> written = produce(scramSource, topic, 2, 12);
    sourceUserSecrets("dest-mtls-case");
    secret(
        "operator-dest-tls-user",
        "Opaque",
        Map.of(
            "user.crt", certs.certificateChainPem("mirror-user"),
            "user.key", certs.privateKeyPem("mirror-user"),
            "ca.crt", certs.caPemText()));
    secret("cred-dest-mtls-cluster-ca-cert", "Opaque", Map.of("ca.crt", certs.caPemText()));
    ClientSecurity security = new ClientSecurity();
    security.setTls(true);
    security.setTlsTrustedCertificate(ref("cred-dest-mtls-cluster-ca-cert", "ca.crt"));
    TlsClientCertificate certificate = new TlsClientCertificate();
    certificate.setSecretName("operator-dest-tls-user");
    certificate.setCertificateKey("user.crt");
    certificate.setKeyKey("user.key");
    security.setTlsClientCertificate(certificate);

    // When a ClusterMirror names only the destination's listener that requires client
    // certificates
    client
        .resource(
            mirror(
                "dest-mtls-mirror",
                scramSource,
                topic,
                scram("dest-mtls-case", "dest-mtls-case-ca"),
                destination.bootstrapServers(MTLS_LISTENER),
                security))
        .create();

    // Then every record is on the destination at its source offset
    awaitCondition("dest-mtls-mirror", Conditions.MIRRORING, Conditions.TRUE);
    awaitRecords(topic, written);

    // When it fails over
    MirrorFixtures.setState(client, NS, "dest-mtls-mirror", MirrorState.Stopped);

    // Then every partition stops behind its barrier, the records still at their offsets
    awaitCondition("dest-mtls-mirror", Conditions.STOPPED, Conditions.TRUE);
    assertThat(recordsOf(destination, topic)).containsAllEntriesOf(written);
  }

  @Test
  void aWrongDestinationPasswordFailsClosedNamingTheDestinationWithoutLeakingIt() throws Exception {
    // Given records on a source, and a Secret with a wrong password of the destination's user
    String topic = "dest-refused-orders";
    scramSource.createTopic(topic, 1, 1, Map.of());
    produce(scramSource, topic, 1, 5);
    sourceUserSecrets("dest-refused-case");
    secret("cred-dest-refused-ca-cert", "Opaque", Map.of("ca.crt", certs.caPemText()));
    secret("operator-dest-wrong", "Opaque", Map.of("password", DEST_WRONG_PASSWORD));
    ClientSecurity security = destinationScram("operator-dest-wrong");
    security.setTlsTrustedCertificate(ref("cred-dest-refused-ca-cert", "ca.crt"));
    String address = destination.bootstrapServers(SCRAM_LISTENER);

    // When a ClusterMirror reaches the destination with it, the operator logging as in production
    // (JSON, debug)
    ClusterMirrorStatus status;
    String log;
    try (ProductionLogging logging = ProductionLogging.start("json", "debug")) {
      client
          .resource(
              mirror(
                  "dest-refused",
                  scramSource,
                  topic,
                  scram("dest-refused-case", "dest-refused-case-ca"),
                  address,
                  security))
          .create();
      awaitCondition("dest-refused", Conditions.DEGRADED, Conditions.TRUE);
      status = MirrorFixtures.status(client, NS, "dest-refused");
      log = logging.output();
    }

    // Then it is Degraded and Stalled: the destination refused the credentials, naming the
    // ClusterMirror, the destination's address and what to check
    Condition degraded = Conditions.find(status, Conditions.DEGRADED).orElseThrow();
    assertThat(degraded.getStatus()).isEqualTo(Conditions.TRUE);
    assertThat(degraded.getReason()).isEqualTo("DestinationAuthenticationFailed");
    assertThat(degraded.getMessage())
        .contains("ClusterMirror " + NS + "/dest-refused")
        .contains("the destination cluster " + address)
        .contains("SaslAuthenticationException")
        .contains("spec.destination.security")
        .contains("saslUser");
    assertThat(Conditions.find(status, Conditions.STALLED).orElseThrow().getStatus())
        .isEqualTo(Conditions.TRUE);
    assertThat(Conditions.find(status, Conditions.MIRRORING).orElseThrow().getStatus())
        .isEqualTo(Conditions.FALSE);
    // And nothing was made or mirrored on the destination
    assertThat(destinationTopicHolds(topic)).isZero();
    // And the password is in no status, Event or line of the operator's log
    String events =
        client.getKubernetesSerialization().asJson(client.v1().events().inNamespace(NS).list());
    assertThat(client.getKubernetesSerialization().asJson(status) + events + log)
        .doesNotContain(DEST_WRONG_PASSWORD)
        .doesNotContain(DEST_PASSWORD);
    assertThat(log).contains("dest-refused");
  }

  private static ClientSecurity scram(String secret) {
    return scram(secret, "scram-source-cluster-ca-cert");
  }

  /** SCRAM-SHA-512 over TLS with the basic-auth Secret {@code secret} and the CA Secret. */
  private static ClientSecurity scram(String secret, String caSecret) {
    SaslUser user = new SaslUser();
    user.setUsernameSecretKeyRef(ref(secret, "username"));
    user.setPasswordSecretKeyRef(ref(secret, "password"));
    ClientSecurity security = new ClientSecurity();
    security.setTls(true);
    security.setTlsTrustedCertificate(ref(caSecret, "ca.crt"));
    security.setSaslMechanism(SaslMechanism.SCRAM_SHA_512);
    security.setSaslUser(user);
    return security;
  }

  /**
   * The source user's basic-auth Secret {@code prefix} and the source CA's Secret {@code
   * prefix-ca}, for a test of the destination's credentials.
   */
  private static void sourceUserSecrets(String prefix) {
    secret(
        prefix,
        "kubernetes.io/basic-auth",
        Map.of("username", SCRAM_USER, "password", SCRAM_PASSWORD));
    secret(prefix + "-ca", "Opaque", Map.of("ca.crt", certs.caPemText()));
  }

  /**
   * The destination's SCRAM user as a Strimzi scram-sha-512 KafkaUser gives it: the username as it
   * is, the password from key password of Secret {@code secret}; the destination's CA.
   */
  private static ClientSecurity destinationScram(String secret) {
    SaslUser user = new SaslUser();
    user.setUsername(DEST_USER);
    user.setPasswordSecretKeyRef(ref(secret, "password"));
    ClientSecurity security = new ClientSecurity();
    security.setTls(true);
    security.setTlsTrustedCertificate(ref("cred-dest-cluster-ca-cert", "ca.crt"));
    security.setSaslMechanism(SaslMechanism.SCRAM_SHA_512);
    security.setSaslUser(user);
    return security;
  }

  /** Client settings of the destination's SCRAM listener as its SCRAM user. */
  private static Properties destinationScramClient(String password) {
    Properties props = new Properties();
    props.put("bootstrap.servers", destination.bootstrapServers(SCRAM_LISTENER));
    props.put("security.protocol", "SASL_SSL");
    props.put("ssl.truststore.type", "PEM");
    props.put("ssl.truststore.certificates", certs.caPemText());
    props.put("sasl.mechanism", "SCRAM-SHA-512");
    props.put(
        "sasl.jaas.config",
        "org.apache.kafka.common.security.scram.ScramLoginModule required username=\""
            + DEST_USER
            + "\" password=\""
            + password
            + "\";");
    return props;
  }

  /** The offset group {@code group} committed for {@code partition} on the destination, or null. */
  private static Long destinationCommit(String group, TopicPartition partition) throws Exception {
    try (Admin admin = destination.admin()) {
      OffsetAndMetadata committed =
          admin
              .listConsumerGroupOffsets(group)
              .partitionsToOffsetAndMetadata()
              .get(30, TimeUnit.SECONDS)
              .get(partition);
      return committed == null ? null : committed.offset();
    }
  }

  /**
   * A Mirroring ClusterMirror of {@code topic} whose destination is reached at {@code
   * destinationBootstrap} with {@code destinationSecurity}; the control endpoints as every test's.
   */
  private static ClusterMirror mirror(
      String name,
      KafkaCluster source,
      String topic,
      ClientSecurity sourceSecurity,
      String destinationBootstrap,
      ClientSecurity destinationSecurity) {
    ClusterMirror cr = MirrorFixtures.mirroring(NS, name, source, destination, topic);
    cr.getSpec().getSource().setSecurity(sourceSecurity);
    cr.getSpec().getDestination().setBootstrapServers(destinationBootstrap);
    cr.getSpec().getDestination().setSecurity(destinationSecurity);
    return cr;
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
