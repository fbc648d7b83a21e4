package dev.kafkamirror.operator.reconciler;

import dev.kafkamirror.operator.api.v1alpha1.ClusterMirror;

/**
 * Events about a ClusterMirror, for {@code kubectl describe}. {@link KubernetesEventRecorder}
 * writes core/v1 Events; unit tests record them. Never throws: an Event that cannot be written is
 * logged, the reconcile goes on.
 */
public interface EventRecorder {

  /** The Events' source and reporting component. */
  String COMPONENT = "cluster-mirror-operator";

  /** A Normal Event. */
  void normal(ClusterMirror cr, String reason, String message);

  /** A Warning Event: something needs the user's attention. */
  void warning(ClusterMirror cr, String reason, String message);
}
