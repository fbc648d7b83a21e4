package dev.kafkamirror.operator.reconciler;

import dev.kafkamirror.operator.api.v1alpha1.ClusterMirror;
import io.fabric8.kubernetes.api.model.EventBuilder;
import io.fabric8.kubernetes.api.model.ObjectReferenceBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import java.time.Clock;
import java.time.temporal.ChronoUnit;
import java.util.UUID;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** Writes core/v1 Events about a ClusterMirror. A failed write is logged, never thrown. */
public final class KubernetesEventRecorder implements EventRecorder {

  private static final Logger LOG = LoggerFactory.getLogger(KubernetesEventRecorder.class);

  private final KubernetesClient client;
  private final Clock clock;
  private final String instance;

  public KubernetesEventRecorder(KubernetesClient client, Clock clock, String instance) {
    this.client = client;
    this.clock = clock;
    this.instance = instance;
  }

  @Override
  public void normal(ClusterMirror cr, String reason, String message) {
    record(cr, "Normal", reason, message);
  }

  @Override
  public void warning(ClusterMirror cr, String reason, String message) {
    record(cr, "Warning", reason, message);
  }

  private void record(ClusterMirror cr, String type, String reason, String message) {
    String now = clock.instant().truncatedTo(ChronoUnit.SECONDS).toString();
    String ns = cr.getMetadata().getNamespace();
    String trimmed = message.length() > 1000 ? message.substring(0, 1000) + "..." : message;
    try {
      client
          .v1()
          .events()
          .inNamespace(ns)
          .resource(
              new EventBuilder()
                  .withNewMetadata()
                  .withNamespace(ns)
                  .withName(
                      cr.getMetadata().getName()
                          + "."
                          + UUID.randomUUID().toString().replace("-", "").substring(0, 16))
                  .endMetadata()
                  .withInvolvedObject(
                      new ObjectReferenceBuilder()
                          .withApiVersion(cr.getApiVersion())
                          .withKind(cr.getKind())
                          .withName(cr.getMetadata().getName())
                          .withNamespace(ns)
                          .withUid(cr.getMetadata().getUid())
                          .withResourceVersion(cr.getMetadata().getResourceVersion())
                          .build())
                  .withType(type)
                  .withReason(reason)
                  .withMessage(trimmed)
                  .withFirstTimestamp(now)
                  .withLastTimestamp(now)
                  .withCount(1)
                  .withNewSource()
                  .withComponent(COMPONENT)
                  .withHost(instance)
                  .endSource()
                  .withReportingComponent(COMPONENT)
                  .withReportingInstance(instance)
                  .build())
          .create();
    } catch (KubernetesClientException e) {
      LOG.warn(
          "clusterMirror={}/{} could not record Event {} {}: {}",
          ns,
          cr.getMetadata().getName(),
          reason,
          trimmed,
          e.getMessage());
    }
  }
}
