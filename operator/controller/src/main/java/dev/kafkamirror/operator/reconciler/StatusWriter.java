package dev.kafkamirror.operator.reconciler;

import dev.kafkamirror.operator.api.v1alpha1.ClusterMirror;
import dev.kafkamirror.operator.api.v1alpha1.ClusterMirrorStatus;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;

/**
 * Writes a ClusterMirror's status subresource. A write either lands (and answers the resource
 * version it produced) or throws: the reconciler never acts on a status it could not persist.
 */
@FunctionalInterface
public interface StatusWriter {

  /**
   * Replaces the status of {@code cr} with {@code status}.
   *
   * @return the resource version the write produced
   * @throws IllegalStateException naming the resource when the write failed
   */
  String write(ClusterMirror cr, ClusterMirrorStatus status);

  /** Writes through the API server (read the latest object, replace its status). */
  static StatusWriter kubernetes(KubernetesClient client) {
    return (cr, status) -> {
      try {
        ClusterMirror updated =
            client
                .resources(ClusterMirror.class)
                .inNamespace(cr.getMetadata().getNamespace())
                .withName(cr.getMetadata().getName())
                .editStatus(
                    current -> {
                      current.setStatus(status);
                      return current;
                    });
        return updated.getMetadata().getResourceVersion();
      } catch (KubernetesClientException e) {
        throw new IllegalStateException(
            "cannot write the status of ClusterMirror "
                + cr.getMetadata().getNamespace()
                + "/"
                + cr.getMetadata().getName()
                + ": "
                + e.getMessage(),
            e);
      }
    };
  }
}
