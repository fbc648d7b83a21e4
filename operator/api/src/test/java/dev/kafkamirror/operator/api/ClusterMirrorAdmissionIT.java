package dev.kafkamirror.operator.api;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.kafkamirror.operator.api.v1alpha1.ClusterMirror;
import dev.kafkamirror.testing.kube.KubeApiServerHarness;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.NamespaceBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.dsl.base.ResourceDefinitionContext;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.function.Consumer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The checked-in CRD on a real kube-apiserver: a valid ClusterMirror is accepted with its defaults,
 * and invalid ones are rejected at admission with messages that say what is wrong.
 */
class ClusterMirrorAdmissionIT {

  private static final String NAMESPACE = "admission";
  private static final ResourceDefinitionContext CLUSTER_MIRRORS =
      new ResourceDefinitionContext.Builder()
          .withGroup(ClusterMirror.GROUP)
          .withVersion(ClusterMirror.VERSION)
          .withKind("ClusterMirror")
          .withPlural("clustermirrors")
          .withNamespaced(true)
          .build();
  private static final String VALID =
      """
      apiVersion: kafkamirror.dev/v1alpha1
      kind: ClusterMirror
      metadata:
        name: NAME
      spec:
        source:
          bootstrapServers: kafka-a-0.kafka-a:9092,kafka-a-1.kafka-a:9092
          clusterId: MkU3OEVBNTcwNTJENDM2Qg
        destination:
          bootstrapServers: kafka-b-0.kafka-b:9092
          control:
            port: 9095
            secretRef: {name: mirror-control, key: secret}
        topics:
          names: [orders, payments]
      """;

  private static KubeApiServerHarness apiServer;
  private static KubernetesClient client;

  @BeforeAll
  static void start() throws Exception {
    apiServer = KubeApiServerHarness.start();
    client = apiServer.newClient();
    Path crd =
        Path.of(System.getProperty("cmo.crds.dir", "../../crds"), CrdIsUpToDateTest.CRD_FILE);
    try (InputStream in = Files.newInputStream(crd)) {
      KubeApiServerHarness.installCrd(client, in);
    }
    client
        .namespaces()
        .resource(
            new NamespaceBuilder().withNewMetadata().withName(NAMESPACE).endMetadata().build())
        .create();
  }

  @AfterAll
  static void stop() {
    if (client != null) {
      client.close();
    }
    if (apiServer != null) {
      apiServer.close();
    }
  }

  private static GenericKubernetesResource parse(String yaml) {
    return client.getKubernetesSerialization().unmarshal(yaml, GenericKubernetesResource.class);
  }

  private static GenericKubernetesResource create(String yaml) {
    return client
        .genericKubernetesResources(CLUSTER_MIRRORS)
        .inNamespace(NAMESPACE)
        .resource(parse(yaml))
        .create();
  }

  @SuppressWarnings("unchecked")
  private static Map<String, Object> spec(GenericKubernetesResource resource) {
    return (Map<String, Object>) resource.getAdditionalProperties().get("spec");
  }

  @Test
  void aValidMirrorIsAcceptedWithItsDefaults() {
    GenericKubernetesResource created = create(VALID.replace("NAME", "valid"));
    assertThat(spec(created))
        .containsEntry("state", "Mirroring")
        .containsEntry("deletionPolicy", "Retain");
    assertThat(
            client
                .genericKubernetesResources("kafkamirror.dev/v1alpha1", "ClusterMirror")
                .inNamespace(NAMESPACE)
                .withName("valid")
                .get())
        .isNotNull();
  }

  @Test
  void invalidSpecsAreRejectedAtAdmissionWithTheirReason() {
    assertRejected(
        "no-topics",
        y -> y.replace("names: [orders, payments]", "names: []"),
        "spec.topics must name at least one topic or one include pattern");
    assertRejected(
        "internal-topic",
        y -> y.replace("names: [orders, payments]", "names: [__consumer_offsets]"),
        "internal topics (starting with __) are never mirrored");
    assertRejected(
        "bad-bootstrap",
        y -> y.replace("kafka-b-0.kafka-b:9092", "kafka-b-0 9092"),
        "spec.destination.bootstrapServers");
    assertRejected(
        "no-port",
        y -> y.replace("kafka-a-0.kafka-a:9092,kafka-a-1.kafka-a:9092", "kafka-a-0"),
        "spec.source.bootstrapServers");
    assertRejected(
        "bad-cluster-id",
        y -> y.replace("MkU3OEVBNTcwNTJENDM2Qg", "not-a-cluster-id"),
        "spec.source.clusterId");
    assertRejected(
        "bad-state", y -> y.replace("  topics:", "  state: Failover\n  topics:"), "spec.state");
    assertRejected(
        "bad-port", y -> y.replace("port: 9095", "port: 70000"), "spec.destination.control.port");
    assertRejected(
        "no-secret",
        y -> y.replace("      secretRef: {name: mirror-control, key: secret}\n", ""),
        "spec.destination.control.secretRef");
    assertRejected(
        "self-mirror",
        y -> y.replace("kafka-b-0.kafka-b:9092", "kafka-a-0.kafka-a:9092,kafka-a-1.kafka-a:9092"),
        "a cluster cannot mirror itself");
    assertRejected(
        "port-zero",
        y -> y.replace("kafka-b-0.kafka-b:9092", "kafka-b-0.kafka-b:0"),
        "spec.destination.bootstrapServers");
    assertRejected(
        "port-too-high",
        y -> y.replace("kafka-a-1.kafka-a:9092", "kafka-a-1.kafka-a:65536"),
        "spec.source.bootstrapServers");
    assertRejected(
        "endpoint-port-too-high",
        y ->
            y.replace(
                "      secretRef: {name: mirror-control, key: secret}\n",
                "      secretRef: {name: mirror-control, key: secret}\n"
                    + "      brokerEndpoints: [{brokerId: 1, address: \"10.0.0.1:99999\"}]\n"),
        "brokerEndpoints");
    assertRejected(
        "bad-timeout",
        y ->
            y.replace(
                "  topics:", "  stop: {mode: AfterCatchUp, catchUpTimeoutSeconds: 0}\n  topics:"),
        "spec.stop.catchUpTimeoutSeconds");
    assertRejected(
        "sasl-without-credentials",
        y ->
            y.replace(
                "    clusterId: MkU3OEVBNTcwNTJENDM2Qg",
                "    clusterId: MkU3OEVBNTcwNTJENDM2Qg\n    security: {saslMechanism: SCRAM-SHA-512}"),
        "saslCredentials or saslUser is required when saslMechanism is set");
    assertRejected(
        "client-certificate-without-tls",
        y ->
            y.replace(
                "      secretRef: {name: mirror-control, key: secret}\n",
                "      secretRef: {name: mirror-control, key: secret}\n"
                    + "      tlsClientCertificateSecret: operator-tls\n"),
        "tlsClientCertificateSecret requires tlsTrustedCertificate");
    assertRejected(
        "group-interval-zero",
        y ->
            y.replace(
                "  topics:",
                "  consumerGroups: {include: [app-.*], syncIntervalSeconds: 0}\n  topics:"),
        "spec.consumerGroups.syncIntervalSeconds");
    assertRejected(
        "group-interval-too-long",
        y ->
            y.replace(
                "  topics:",
                "  consumerGroups: {include: [app-.*], syncIntervalSeconds: 3601}\n  topics:"),
        "spec.consumerGroups.syncIntervalSeconds");
    assertRejected(
        "group-empty-pattern",
        y -> y.replace("  topics:", "  consumerGroups: {include: [\"\"]}\n  topics:"),
        "spec.consumerGroups.include: a pattern must not be empty");
  }

  @Test
  void aTopicConfigSyncThatWouldTakeTheDestinationsSafetySettingsIsRefusedAtAdmission() {
    assertRejected(
        "configs-min-isr",
        y ->
            y.replace(
                "  topics:",
                "  topicConfigs: {include: [retention.ms, min.insync.replicas]}\n  topics:"),
        "spec.topicConfigs.include: min.insync.replicas, unclean.leader.election.enable");
    assertRejected(
        "configs-unclean",
        y ->
            y.replace(
                "  topics:",
                "  topicConfigs: {include: [unclean.leader.election.enable]}\n  topics:"),
        "stay the destination's own");
    assertRejected(
        "configs-interval",
        y -> y.replace("  topics:", "  topicConfigs: {syncIntervalSeconds: 0}\n  topics:"),
        "spec.topicConfigs.syncIntervalSeconds");
    GenericKubernetesResource created =
        create(
            VALID
                .replace("NAME", "with-configs")
                .replace("  topics:", "  topicConfigs: {exclude: [segment.ms]}\n  topics:"));
    assertThat(spec(created).get("topicConfigs").toString())
        .contains("enabled=true")
        .contains("syncIntervalSeconds=30");
  }

  @Test
  void theCredentialShapesUsersHaveAreAcceptedWithTheirDefaultKeys() {
    // Given a source with a basic-auth SASL user and a destination with a client certificate
    GenericKubernetesResource created =
        create(
            withSecurity(
                "credential-shapes",
                "{saslMechanism: SCRAM-SHA-512, tls: true, saslUser: {usernameSecretKeyRef: {name:"
                    + " source-user, key: username}, passwordSecretKeyRef: {name: source-user,"
                    + " key: password}}}",
                "{tls: true, tlsTrustedCertificate: {name: b-cluster-ca-cert, key: ca.crt},"
                    + " tlsClientCertificate: {secretName: mirror-user}}"));
    // Then both are stored, the certificate's keys defaulted to kubernetes.io/tls's
    assertThat(spec(created).get("destination").toString())
        .contains("certificateKey=tls.crt")
        .contains("keyKey=tls.key")
        .contains("secretName=mirror-user");
    assertThat(spec(created).get("source").toString()).contains("passwordSecretKeyRef");
    // And a Strimzi SCRAM KafkaUser (literal username) with the old saslCredentials elsewhere
    create(
        withSecurity(
            "strimzi-scram-user",
            "{saslMechanism: SCRAM-SHA-512, tls: true, saslUser: {username: mirror-user,"
                + " passwordSecretKeyRef: {name: mirror-user, key: password}}}",
            "{saslMechanism: PLAIN, saslCredentials: {name: dest-sasl, key: credentials}}"));
  }

  @Test
  void theStrimziUsersSampleIsAccepted() throws Exception {
    // Given the sample that reads Strimzi KafkaUser Secrets as they are
    Path sample =
        Path.of(System.getProperty("cmo.samples.dir", "../../samples"))
            .resolve("clustermirror-strimzi-users.yaml");
    // When it is created
    GenericKubernetesResource created = create(Files.readString(sample));
    // Then it is stored with both users' settings
    assertThat(spec(created).get("source").toString())
        .contains("username=mirror-reader")
        .contains("passwordSecretKeyRef");
    assertThat(spec(created).get("destination").toString())
        .contains("certificateKey=user.crt")
        .contains("keyKey=user.key");
  }

  @Test
  void badCredentialCombinationsAreRejectedNamingTheFields() {
    // saslUser next to saslCredentials
    assertRejected(
        "sasl-user-and-credentials",
        y ->
            withSecurityIn(
                y,
                "{saslMechanism: PLAIN, saslCredentials: {name: s, key: c}, saslUser: {username:"
                    + " u, passwordSecretKeyRef: {name: s, key: password}}}"),
        "saslCredentials and saslUser are mutually exclusive");
    // saslUser without a mechanism
    assertRejected(
        "sasl-user-without-mechanism",
        y ->
            withSecurityIn(
                y, "{saslUser: {username: u, passwordSecretKeyRef: {name: s, key: password}}}"),
        "saslUser requires saslMechanism");
    // a username both literal and from a Secret, and neither
    assertRejected(
        "sasl-user-two-usernames",
        y ->
            withSecurityIn(
                y,
                "{saslMechanism: PLAIN, saslUser: {username: u, usernameSecretKeyRef: {name: s,"
                    + " key: username}, passwordSecretKeyRef: {name: s, key: password}}}"),
        "saslUser needs exactly one of username");
    assertRejected(
        "sasl-user-no-username",
        y ->
            withSecurityIn(
                y, "{saslMechanism: PLAIN, saslUser: {passwordSecretKeyRef: {name: s, key: p}}}"),
        "saslUser needs exactly one of username");
    // no password
    assertRejected(
        "sasl-user-no-password",
        y -> withSecurityIn(y, "{saslMechanism: PLAIN, saslUser: {username: u}}"),
        "passwordSecretKeyRef");
    // a client certificate without TLS, and one without its Secret's name
    assertRejected(
        "client-certificate-no-tls",
        y -> withSecurityIn(y, "{tlsClientCertificate: {secretName: mirror-user}}"),
        "tlsClientCertificate requires tls: true");
    assertRejected(
        "client-certificate-tls-false",
        y -> withSecurityIn(y, "{tls: false, tlsClientCertificate: {secretName: mirror-user}}"),
        "tlsClientCertificate requires tls: true");
    assertRejected(
        "client-certificate-no-secret",
        y -> withSecurityIn(y, "{tls: true, tlsClientCertificate: {certificateKey: user.crt}}"),
        "secretName");
  }

  /** The valid mirror named {@code name} with these source and destination security objects. */
  private static String withSecurity(String name, String source, String destination) {
    return VALID
        .replace("NAME", name)
        .replace(
            "    clusterId: MkU3OEVBNTcwNTJENDM2Qg",
            "    clusterId: MkU3OEVBNTcwNTJENDM2Qg\n    security: " + source)
        .replace(
            "    bootstrapServers: kafka-b-0.kafka-b:9092",
            "    bootstrapServers: kafka-b-0.kafka-b:9092\n    security: " + destination);
  }

  /** {@code yaml} with this source security object. */
  private static String withSecurityIn(String yaml, String source) {
    return yaml.replace(
        "    clusterId: MkU3OEVBNTcwNTJENDM2Qg",
        "    clusterId: MkU3OEVBNTcwNTJENDM2Qg\n    security: " + source);
  }

  @Test
  void aConsumerGroupSyncIsAcceptedWithItsDefaultInterval() {
    GenericKubernetesResource created =
        create(
            VALID
                .replace("NAME", "with-groups")
                .replace("  topics:", "  consumerGroups: {include: [app-.*]}\n  topics:"));
    assertThat(spec(created).get("consumerGroups").toString()).contains("syncIntervalSeconds=30");
  }

  @Test
  void theHighestPortIsAccepted() {
    create(
        VALID
            .replace("NAME", "port-65535")
            .replace("kafka-b-0.kafka-b:9092", "kafka-b-0.kafka-b:65535"));
  }

  @Test
  void stoppedIsFinalAndTheSourceClusterIdIsImmutable() {
    GenericKubernetesResource created = create(VALID.replace("NAME", "transitions"));
    var resource =
        client
            .genericKubernetesResources(CLUSTER_MIRRORS)
            .inNamespace(NAMESPACE)
            .withName("transitions");

    assertThatThrownBy(
            () ->
                resource.edit(
                    r -> {
                      spec(r)
                          .put(
                              "source",
                              Map.of(
                                  "bootstrapServers",
                                  "kafka-a-0.kafka-a:9092",
                                  "clusterId",
                                  "AAAAAAAAAAAAAAAAAAAAAA"));
                      return r;
                    }))
        .isInstanceOf(KubernetesClientException.class)
        .hasMessageContaining("spec.source.clusterId is immutable");

    resource.edit(
        r -> {
          spec(r).put("state", "Stopped");
          return r;
        });
    assertThatThrownBy(
            () ->
                resource.edit(
                    r -> {
                      spec(r).put("state", "Mirroring");
                      return r;
                    }))
        .isInstanceOf(KubernetesClientException.class)
        .hasMessageContaining("Stopped is final");
    assertThat(spec(resource.get())).containsEntry("state", "Stopped");
    assertThat(created.getMetadata().getName()).isEqualTo("transitions");
  }

  private static void assertRejected(
      String name, java.util.function.UnaryOperator<String> change, String message) {
    String yaml = change.apply(VALID.replace("NAME", name));
    assertThat(yaml).as("the test's edit applies").isNotEqualTo(VALID.replace("NAME", name));
    Consumer<KubernetesClientException> check =
        e -> {
          assertThat(e.getCode()).as(name).isEqualTo(422);
          assertThat(e.getMessage()).as(name).contains(message);
        };
    assertThatThrownBy(() -> create(yaml))
        .isInstanceOfSatisfying(KubernetesClientException.class, check);
    assertThat(
            client
                .genericKubernetesResources(CLUSTER_MIRRORS)
                .inNamespace(NAMESPACE)
                .withName(name)
                .get())
        .as(name + " was not stored")
        .isNull();
  }
}
