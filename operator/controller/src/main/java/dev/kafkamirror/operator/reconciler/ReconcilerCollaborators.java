package dev.kafkamirror.operator.reconciler;

import dev.kafkamirror.operator.app.ClusterMirrorMetrics;
import dev.kafkamirror.operator.kafka.DiscardKeeper;
import dev.kafkamirror.operator.kafka.KafkaDiscardKeeper;
import dev.kafkamirror.operator.kafka.KafkaGroupOffsetsAdmin;
import dev.kafkamirror.operator.kafka.SharedKafkaAdmins;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.time.Clock;
import java.util.function.LongSupplier;

/**
 * What a {@link ClusterMirrorReconciler} is built from: every collaborator it calls out to, named.
 * {@link #production} wires the real ones (the API server, Kafka's Admin client, JOSDK's finalizer
 * updates); unit tests pass fakes to the canonical constructor.
 *
 * @param resolver reads the spec's Secrets and patterns
 * @param admins opens the source's and the destination's Kafka Admin
 * @param driver sends the control calls to the destination's brokers
 * @param statusWriter writes the status subresource
 * @param finalizers adds and removes the finalizer
 * @param events records Kubernetes Events
 * @param metrics the operator's ClusterMirror metrics
 * @param clock the wall clock of status timestamps
 * @param nanoTime the monotonic clock of delays and echoes of this process's own writes
 * @param settings the reconciler's tuning
 * @param groupSync copies consumer group offsets from the source to the destination
 * @param keepers opens the keeper of a failback's discarded records
 */
public record ReconcilerCollaborators(
    SpecResolver resolver,
    AdminClients admins,
    MirrorDriver driver,
    StatusWriter statusWriter,
    FinalizerWriter finalizers,
    EventRecorder events,
    ClusterMirrorMetrics metrics,
    Clock clock,
    LongSupplier nanoTime,
    ReconcilerSettings settings,
    GroupOffsetSync groupSync,
    DiscardKeeper.Factory keepers) {

  /** The production wiring: the API server, Kafka's Admin client, JOSDK's finalizer updates. */
  public static ReconcilerCollaborators production(
      KubernetesClient client,
      MirrorDriver driver,
      EventRecorder events,
      ClusterMirrorMetrics metrics,
      Clock clock,
      ReconcilerSettings settings) {
    LongSupplier nanoTime = System::nanoTime;
    return new ReconcilerCollaborators(
        new SpecResolver(client),
        new AdminClients(new SharedKafkaAdmins()::open),
        driver,
        StatusWriter.kubernetes(client),
        FinalizerWriter.JOSDK,
        events,
        metrics,
        clock,
        nanoTime,
        settings,
        new GroupOffsetSync(
            KafkaGroupOffsetsAdmin::new, clock, nanoTime, settings.adminTimeoutMs()),
        KafkaDiscardKeeper::new);
  }
}
