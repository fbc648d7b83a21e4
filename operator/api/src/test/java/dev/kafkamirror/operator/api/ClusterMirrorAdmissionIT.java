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
        "saslCredentials is required when saslMechanism is set");
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
