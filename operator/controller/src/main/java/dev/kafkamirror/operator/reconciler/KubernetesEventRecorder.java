package dev.kafkamirror.operator.reconciler;

import dev.kafkamirror.operator.api.v1alpha1.ClusterMirror;
import dev.kafkamirror.operator.core.EventAggregator;
import io.fabric8.kubernetes.api.model.Event;
import io.fabric8.kubernetes.api.model.EventBuilder;
import io.fabric8.kubernetes.api.model.ObjectReferenceBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import java.net.HttpURLConnection;
import java.time.Clock;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Writes core/v1 Events about a ClusterMirror. A repeat of an Event (same object, type, reason and
 * message; {@link EventAggregator}) grows the {@code count} and {@code lastTimestamp} of the object
 * already written instead of creating another. A failed write is logged, never thrown. Thread-safe.
 */
public final class KubernetesEventRecorder implements EventRecorder {

  private static final Logger LOG = LoggerFactory.getLogger(KubernetesEventRecorder.class);

  private final KubernetesClient client;
  private final Clock clock;
  private final String instance;
  private final EventAggregator aggregator = new EventAggregator(4096);

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
    Instant now = clock.instant().truncatedTo(ChronoUnit.SECONDS);
    String ns = cr.getMetadata().getNamespace();
    String trimmed = message.length() > 1000 ? message.substring(0, 1000) + "..." : message;
    EventAggregator.Key key =
        new EventAggregator.Key(
            ns, cr.getMetadata().getName(), cr.getMetadata().getUid(), type, reason, trimmed);
    try {
      EventAggregator.Write write = aggregator.next(key, now);
      if (write.create()) {
        create(cr, key, write);
      } else {
        increment(cr, key, write);
      }
    } catch (KubernetesClientException e) {
      aggregator.forget(key);
      LOG.warn(
          "clusterMirror={}/{} could not record Event {} {}: {}",
          ns,
          cr.getMetadata().getName(),
          reason,
          trimmed,
          e.getMessage());
    }
  }

  /** Creates the series' first object; one already there (a restart, another leader) continues. */
  private void create(ClusterMirror cr, EventAggregator.Key key, EventAggregator.Write write) {
    try {
      client.v1().events().inNamespace(key.namespace()).resource(event(cr, key, write)).create();
    } catch (KubernetesClientException e) {
      if (e.getCode() != HttpURLConnection.HTTP_CONFLICT) {
        throw e;
      }
      Event existing =
          client.v1().events().inNamespace(key.namespace()).withName(write.name()).get();
      if (existing == null) {
        throw e;
      }
      EventAggregator.Write next =
          aggregator.seen(
              key,
              existing.getCount() == null ? 1 : existing.getCount(),
              existing.getFirstTimestamp() == null
                  ? null
                  : Instant.parse(existing.getFirstTimestamp()),
              write.lastTimestamp());
      increment(cr, key, next);
    }
  }

  /** Grows the count and moves the last timestamp; an object gone meanwhile is created anew. */
  private void increment(ClusterMirror cr, EventAggregator.Key key, EventAggregator.Write write) {
    String patch =
        "{\"count\":" + write.count() + ",\"lastTimestamp\":\"" + write.lastTimestamp() + "\"}";
    try {
      client
          .v1()
          .events()
          .inNamespace(key.namespace())
          .withName(write.name())
          .patch(PatchContext.of(PatchType.JSON_MERGE), patch);
    } catch (KubernetesClientException e) {
      if (e.getCode() != HttpURLConnection.HTTP_NOT_FOUND) {
        throw e;
      }
      aggregator.forget(key);
      EventAggregator.Write fresh = aggregator.next(key, write.lastTimestamp());
      client.v1().events().inNamespace(key.namespace()).resource(event(cr, key, fresh)).create();
    }
  }

  private Event event(ClusterMirror cr, EventAggregator.Key key, EventAggregator.Write write) {
    return new EventBuilder()
        .withNewMetadata()
        .withNamespace(key.namespace())
        .withName(write.name())
        .endMetadata()
        .withInvolvedObject(
            new ObjectReferenceBuilder()
                .withApiVersion(cr.getApiVersion())
                .withKind(cr.getKind())
                .withName(key.objectName())
                .withNamespace(key.namespace())
                .withUid(key.uid())
                .withResourceVersion(cr.getMetadata().getResourceVersion())
                .build())
        .withType(key.type())
        .withReason(key.reason())
        .withMessage(key.message())
        .withFirstTimestamp(write.firstTimestamp().toString())
        .withLastTimestamp(write.lastTimestamp().toString())
        .withCount(write.count())
        .withNewSource()
        .withComponent(COMPONENT)
        .withHost(instance)
        .endSource()
        .withReportingComponent(COMPONENT)
        .withReportingInstance(instance)
        .build();
  }
}
