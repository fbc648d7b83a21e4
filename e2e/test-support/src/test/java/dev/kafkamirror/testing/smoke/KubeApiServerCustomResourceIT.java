package dev.kafkamirror.testing.smoke;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.kafkamirror.testing.kube.KubeApiServerHarness;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.GenericKubernetesResourceBuilder;
import io.fabric8.kubernetes.api.model.NamespaceBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.Watch;
import io.fabric8.kubernetes.client.Watcher;
import io.fabric8.kubernetes.client.WatcherException;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import io.fabric8.kubernetes.client.dsl.base.ResourceDefinitionContext;
import java.io.ByteArrayInputStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Smoke test (c): a real kube-apiserver with etcd installs a CRD with a status subresource and an
 * OpenAPI schema, and serves create, server-side apply, status updates and watches of a custom
 * resource through Fabric8.
 */
class KubeApiServerCustomResourceIT {

  private static final String CRD_YAML =
      """
      apiVersion: apiextensions.k8s.io/v1
      kind: CustomResourceDefinition
      metadata:
        name: widgets.smoke.kafkamirror.dev
      spec:
        group: smoke.kafkamirror.dev
        scope: Namespaced
        names: {plural: widgets, singular: widget, kind: Widget}
        versions:
          - name: v1
            served: true
            storage: true
            subresources: {status: {}}
            schema:
              openAPIV3Schema:
                type: object
                properties:
                  spec:
                    type: object
                    required: [size]
                    properties:
                      size: {type: integer, minimum: 1, maximum: 10}
                      colour: {type: string, enum: [red, green]}
                  status:
                    type: object
                    properties:
                      phase: {type: string}
      """;

  private static final ResourceDefinitionContext WIDGETS =
      new ResourceDefinitionContext.Builder()
          .withGroup("smoke.kafkamirror.dev")
          .withVersion("v1")
          .withKind("Widget")
          .withPlural("widgets")
          .withNamespaced(true)
          .build();

  private static KubeApiServerHarness apiServer;
  private static KubernetesClient client;

  @BeforeAll
  static void startApiServer() {
    apiServer = KubeApiServerHarness.start();
    client = apiServer.newClient();
  }

  @AfterAll
  static void stopApiServer() {
    if (client != null) {
      client.close();
    }
    if (apiServer != null) {
      apiServer.close();
    }
  }

  @Test
  void customResourceIsCreatedAppliedWatchedAndValidatedByARealApiServer() {
    // Given the real processes and a CRD with a status subresource and a schema
    assertThat(apiServer.processes())
        .extracting(p -> p.info().command().orElse(""))
        .anySatisfy(cmd -> assertThat(cmd).endsWith("/kube-apiserver"))
        .anySatisfy(cmd -> assertThat(cmd).endsWith("/etcd"));
    assertThat(client.getKubernetesVersion().getGitVersion())
        .isEqualTo("v" + KubeApiServerHarness.kubernetesVersion());
    KubeApiServerHarness.installCrd(
        client, new ByteArrayInputStream(CRD_YAML.getBytes(StandardCharsets.UTF_8)));
    String namespace = "smoke-c";
    client
        .namespaces()
        .resource(
            new NamespaceBuilder().withNewMetadata().withName(namespace).endMetadata().build())
        .create();
    List<String> events = new CopyOnWriteArrayList<>();
    try (Watch watch =
        client
            .genericKubernetesResources(WIDGETS)
            .inNamespace(namespace)
            .watch(
                new Watcher<>() {
                  @Override
                  public void eventReceived(Action action, GenericKubernetesResource resource) {
                    Object spec = resource.getAdditionalProperties().get("spec");
                    events.add(action + ":" + resource.getMetadata().getName() + ":" + spec);
                  }

                  @Override
                  public void onClose(WatcherException cause) {}
                })) {

      // When a widget is created, then changed by server-side apply, then its status is written
      client
          .genericKubernetesResources(WIDGETS)
          .inNamespace(namespace)
          .resource(widget("w1", 3))
          .create();
      GenericKubernetesResource applied =
          client
              .genericKubernetesResources(WIDGETS)
              .inNamespace(namespace)
              .withName("w1")
              .patch(
                  new PatchContext.Builder()
                      .withPatchType(PatchType.SERVER_SIDE_APPLY)
                      .withFieldManager("cmo-smoke")
                      .withForce(true)
                      .build(),
                  """
                  {"apiVersion":"smoke.kafkamirror.dev/v1","kind":"Widget",
                   "metadata":{"name":"w1"},"spec":{"size":7,"colour":"green"}}
                  """);
      GenericKubernetesResource withStatus =
          client.genericKubernetesResources(WIDGETS).inNamespace(namespace).withName("w1").get();
      withStatus.getAdditionalProperties().put("status", Map.of("phase", "Ready"));
      client
          .genericKubernetesResources(WIDGETS)
          .inNamespace(namespace)
          .resource(withStatus)
          .updateStatus();

      // Then the stored object carries the applied spec, the status and the field manager
      GenericKubernetesResource stored =
          client.genericKubernetesResources(WIDGETS).inNamespace(namespace).withName("w1").get();
      assertThat(applied.getMetadata().getManagedFields())
          .anySatisfy(f -> assertThat(f.getManager()).isEqualTo("cmo-smoke"));
      assertThat(asMap(stored.getAdditionalProperties().get("spec")))
          .containsEntry("size", 7)
          .containsEntry("colour", "green");
      assertThat(asMap(stored.getAdditionalProperties().get("status")))
          .containsEntry("phase", "Ready");
      // And the watch saw the creation and the applied change
      await()
          .atMost(Duration.ofSeconds(30))
          .untilAsserted(
              () ->
                  assertThat(events)
                      .anySatisfy(e -> assertThat(e).startsWith("ADDED:w1:").contains("size=3"))
                      .anySatisfy(
                          e -> assertThat(e).startsWith("MODIFIED:w1:").contains("size=7")));
    }

    // And objects that violate the schema are rejected with the field named
    assertThatThrownBy(
            () ->
                client
                    .genericKubernetesResources(WIDGETS)
                    .inNamespace(namespace)
                    .resource(widget("too-big", 11))
                    .create())
        .isInstanceOfSatisfying(
            KubernetesClientException.class,
            e -> {
              assertThat(e.getCode()).isEqualTo(422);
              assertThat(e.getMessage()).contains("spec.size").contains("10");
            });
    assertThat(
            client
                .genericKubernetesResources(WIDGETS)
                .inNamespace(namespace)
                .withName("too-big")
                .get())
        .isNull();
  }

  @SuppressWarnings("unchecked")
  private static Map<String, Object> asMap(Object value) {
    return (Map<String, Object>) value;
  }

  private static GenericKubernetesResource widget(String name, int size) {
    return new GenericKubernetesResourceBuilder()
        .withApiVersion("smoke.kafkamirror.dev/v1")
        .withKind("Widget")
        .withNewMetadata()
        .withName(name)
        .endMetadata()
        .addToAdditionalProperties("spec", Map.of("size", size))
        .build();
  }
}
