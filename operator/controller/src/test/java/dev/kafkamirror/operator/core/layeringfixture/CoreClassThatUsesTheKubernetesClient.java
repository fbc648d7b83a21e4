package dev.kafkamirror.operator.core.layeringfixture;

import io.fabric8.kubernetes.client.KubernetesClient;

/**
 * A deliberate violation of the operator core's layering, for {@code LayeringTest} only: a class in
 * core's package that uses the Kubernetes client. It lives in the test sources, so it never ships.
 */
public final class CoreClassThatUsesTheKubernetesClient {

  private CoreClassThatUsesTheKubernetesClient() {}

  /** Uses the Kubernetes client, which core must never do. */
  public static String describe(KubernetesClient client) {
    return String.valueOf(client);
  }
}
