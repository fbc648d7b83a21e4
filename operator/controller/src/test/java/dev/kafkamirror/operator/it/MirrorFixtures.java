package dev.kafkamirror.operator.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.kafkamirror.operator.api.v1alpha1.BrokerControlEndpoint;
import dev.kafkamirror.operator.api.v1alpha1.ClusterMirror;
import dev.kafkamirror.operator.api.v1alpha1.ClusterMirrorSpec;
import dev.kafkamirror.operator.api.v1alpha1.ClusterMirrorStatus;
import dev.kafkamirror.operator.api.v1alpha1.Condition;
import dev.kafkamirror.operator.api.v1alpha1.Conditions;
import dev.kafkamirror.operator.api.v1alpha1.ControlEndpoint;
import dev.kafkamirror.operator.api.v1alpha1.DestinationCluster;
import dev.kafkamirror.operator.api.v1alpha1.MirrorState;
import dev.kafkamirror.operator.api.v1alpha1.SecretKeyRef;
import dev.kafkamirror.operator.api.v1alpha1.SourceCluster;
import dev.kafkamirror.operator.api.v1alpha1.TopicSelection;
import dev.kafkamirror.operator.reconciler.SecretOptIn;
import dev.kafkamirror.testing.kafka.KafkaCluster;
import dev.kafkamirror.testing.kafka.KafkaClusterConfig;
import dev.kafkamirror.testing.plugin.PluginControlClient;
import io.fabric8.kubernetes.api.model.NamespaceBuilder;
import io.fabric8.kubernetes.api.model.SecretBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/** Clusters, namespaces, Secrets and ClusterMirrors the operator ITs share. */
final class MirrorFixtures {

  static final String SECRET_NAME = "destination-control";
  static final String SECRET_KEY = "secret";

  private MirrorFixtures() {}

  static Path agentJar() {
    String jar = System.getProperty("cmo.agent.jar");
    if (jar == null || !Files.isRegularFile(Path.of(jar))) {
      throw new IllegalStateException(
          "the agent jar is missing (" + jar + "); run the ITs through Maven after package");
    }
    return Path.of(jar);
  }

  /** A destination cluster whose brokers run the plugin with the test secret. */
  static KafkaClusterConfig.Builder destination(String name) {
    return KafkaClusterConfig.builder(name)
        .javaAgent(agentJar(), null)
        .perBrokerListener(PluginControlClient.LISTENER_PROPERTY)
        .brokerProperty(PluginControlClient.SECRET_PROPERTY, PluginControlClient.TEST_SECRET)
        .brokerProperty(PluginControlClient.INSECURE_PLAINTEXT_PROPERTY, "true");
  }

  static void installCrd(KubernetesClient client) {
    Path crd =
        Path.of(System.getProperty("cmo.crds.dir", "../../crds"))
            .resolve("clustermirrors.kafkamirror.dev-v1.yml");
    // Not KubeApiServerHarness.installCrd: it reads status.conditions before the API server has
    // written them (a NullPointerException seen in KubeApiServerCustomResourceIT).
    try (InputStream in = Files.newInputStream(crd)) {
      client
          .apiextensions()
          .v1()
          .customResourceDefinitions()
          .resource(client.apiextensions().v1().customResourceDefinitions().load(in).item())
          .create();
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read " + crd, e);
    }
    await()
        .atMost(Duration.ofSeconds(30))
        .pollInterval(Duration.ofMillis(100))
        .until(
            () -> {
              var stored =
                  client
                      .apiextensions()
                      .v1()
                      .customResourceDefinitions()
                      .withName("clustermirrors.kafkamirror.dev")
                      .get();
              return stored != null
                  && stored.getStatus() != null
                  && stored.getStatus().getConditions() != null
                  && stored.getStatus().getConditions().stream()
                      .anyMatch(
                          c -> "Established".equals(c.getType()) && "True".equals(c.getStatus()));
            });
    // Established can come a moment before the group's REST path serves lists.
    await()
        .atMost(Duration.ofSeconds(30))
        .pollInterval(Duration.ofMillis(100))
        .ignoreExceptions()
        .until(
            () -> {
              client
                  .resources(dev.kafkamirror.operator.api.v1alpha1.ClusterMirror.class)
                  .inAnyNamespace()
                  .list();
              return true;
            });
  }

  /** A namespace holding the control secret. */
  static void namespaceWithSecret(KubernetesClient client, String namespace) {
    client
        .namespaces()
        .resource(
            new NamespaceBuilder().withNewMetadata().withName(namespace).endMetadata().build())
        .create();
    secret(
        client,
        namespace,
        SECRET_NAME,
        null,
        "*",
        Map.of(SECRET_KEY, PluginControlClient.TEST_SECRET));
  }

  /**
   * Creates Secret {@code namespace/name} of {@code type} (null: the API server's default, Opaque)
   * holding {@code data}; {@code mirrors} is its opt-in annotation (the ClusterMirrors that may
   * read it, or *), null for a Secret that did not opt in.
   */
  static void secret(
      KubernetesClient client,
      String namespace,
      String name,
      String type,
      String mirrors,
      Map<String, String> data) {
    SecretBuilder secret =
        new SecretBuilder().withNewMetadata().withName(name).withNamespace(namespace).endMetadata();
    if (mirrors != null) {
      // Opt in: a ClusterMirror reads only Secrets that name it (or *) here.
      secret.editMetadata().addToAnnotations(SecretOptIn.ANNOTATION, mirrors).endMetadata();
    }
    client
        .secrets()
        .inNamespace(namespace)
        .resource(secret.withType(type).withStringData(data).build())
        .create();
  }

  /** Key {@code key} of Secret {@code name}. */
  static SecretKeyRef ref(String name, String key) {
    SecretKeyRef ref = new SecretKeyRef();
    ref.setName(name);
    ref.setKey(key);
    return ref;
  }

  /**
   * A ClusterMirror of {@code topics} from source to destination, every broker's endpoint listed.
   */
  static ClusterMirror clusterMirror(
      String namespace,
      String name,
      KafkaCluster source,
      String sourceClusterId,
      KafkaCluster destination,
      MirrorState state,
      List<String> topics) {
    ClusterMirror cr = new ClusterMirror();
    cr.getMetadata().setName(name);
    cr.getMetadata().setNamespace(namespace);
    ClusterMirrorSpec spec = new ClusterMirrorSpec();
    SourceCluster s = new SourceCluster();
    s.setBootstrapServers(source.bootstrapServers());
    s.setClusterId(sourceClusterId);
    spec.setSource(s);
    DestinationCluster d = new DestinationCluster();
    d.setBootstrapServers(destination.bootstrapServers());
    ControlEndpoint control = new ControlEndpoint();
    String first =
        destination.listenerOf(
            destination.brokerIds().get(0), PluginControlClient.LISTENER_PROPERTY);
    control.setPort(Integer.parseInt(first.substring(first.lastIndexOf(':') + 1)));
    control.setSecretRef(ref(SECRET_NAME, SECRET_KEY));
    List<BrokerControlEndpoint> endpoints = new ArrayList<>();
    for (int id : destination.brokerIds()) {
      endpoints.add(
          new BrokerControlEndpoint(
              id, destination.listenerOf(id, PluginControlClient.LISTENER_PROPERTY)));
    }
    control.setBrokerEndpoints(endpoints);
    d.setControl(control);
    spec.setDestination(d);
    TopicSelection selection = new TopicSelection();
    selection.setNames(topics);
    spec.setTopics(selection);
    spec.setState(state);
    cr.setSpec(spec);
    return cr;
  }

  /** A Mirroring ClusterMirror of {@code topic} from source (by its own cluster id). */
  static ClusterMirror mirroring(
      String namespace, String name, KafkaCluster source, KafkaCluster destination, String topic) {
    return clusterMirror(
        namespace,
        name,
        source,
        source.clusterId(),
        destination,
        MirrorState.Mirroring,
        List.of(topic));
  }

  /** Sets spec.state of ClusterMirror {@code namespace/name} to {@code state}. */
  static void setState(KubernetesClient client, String namespace, String name, MirrorState state) {
    client
        .resources(ClusterMirror.class)
        .inNamespace(namespace)
        .withName(name)
        .edit(
            cr -> {
              cr.getSpec().setState(state);
              return cr;
            });
  }

  /** The control client of one destination broker. */
  static PluginControlClient control(KafkaCluster cluster, int brokerId) {
    return new PluginControlClient(
        cluster.listenerOf(brokerId, PluginControlClient.LISTENER_PROPERTY),
        PluginControlClient.TEST_SECRET);
  }

  /** The status of ClusterMirror {@code namespace/name}, or null before the first status write. */
  static ClusterMirrorStatus status(KubernetesClient client, String namespace, String name) {
    return client
        .resources(ClusterMirror.class)
        .inNamespace(namespace)
        .withName(name)
        .get()
        .getStatus();
  }

  /**
   * Waits up to {@code wait} until condition {@code type} of the ClusterMirror is {@code value}.
   */
  static void awaitCondition(
      KubernetesClient client,
      String namespace,
      String name,
      String type,
      String value,
      Duration wait) {
    await()
        .atMost(wait)
        .pollInterval(Duration.ofMillis(200))
        .untilAsserted(
            () -> {
              ClusterMirrorStatus s = status(client, namespace, name);
              assertThat(s).as("status of %s", name).isNotNull();
              Condition condition = Conditions.find(s, type).orElse(null);
              assertThat(condition).as("%s of %s in %s", type, name, s.getConditions()).isNotNull();
              assertThat(condition.getStatus())
                  .as("%s of %s: %s %s", type, name, condition.getReason(), condition.getMessage())
                  .isEqualTo(value);
            });
  }
}
