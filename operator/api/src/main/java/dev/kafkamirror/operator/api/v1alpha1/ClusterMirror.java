package dev.kafkamirror.operator.api.v1alpha1;

import io.fabric8.crd.generator.annotation.AdditionalPrinterColumn;
import io.fabric8.kubernetes.api.model.Namespaced;
import io.fabric8.kubernetes.client.CustomResource;
import io.fabric8.kubernetes.model.annotation.Group;
import io.fabric8.kubernetes.model.annotation.Kind;
import io.fabric8.kubernetes.model.annotation.Plural;
import io.fabric8.kubernetes.model.annotation.ShortNames;
import io.fabric8.kubernetes.model.annotation.Singular;
import io.fabric8.kubernetes.model.annotation.Version;

/**
 * A mirror of Kafka topics from a source cluster into a destination cluster whose brokers run the
 * cluster-mirror plugin, offsets preserved. {@code spec.state} is the desired state ({@code
 * Mirroring}, {@code Paused}, {@code Stopped}); stopping is the failover, and ends with every
 * partition writable behind a {@code MIRROR_PID_RESET} barrier. Deleting the resource changes no
 * partition unless {@code spec.deletionPolicy} says so.
 */
@Group(ClusterMirror.GROUP)
@Version(ClusterMirror.VERSION)
@Kind("ClusterMirror")
@Plural("clustermirrors")
@Singular("clustermirror")
@ShortNames("cmirror")
@AdditionalPrinterColumn(
    name = "Ready",
    jsonPath = ".status.conditions[?(@.type==\"Ready\")].status",
    type = AdditionalPrinterColumn.Type.STRING)
@AdditionalPrinterColumn(
    name = "Phase",
    jsonPath = ".status.phase",
    type = AdditionalPrinterColumn.Type.STRING)
@AdditionalPrinterColumn(
    name = "Stopped",
    jsonPath = ".status.stoppedOfTotal",
    type = AdditionalPrinterColumn.Type.STRING)
@AdditionalPrinterColumn(
    name = "Max Lag",
    jsonPath = ".status.maxLagRecords",
    type = AdditionalPrinterColumn.Type.INTEGER)
@AdditionalPrinterColumn(
    name = "Age",
    jsonPath = ".metadata.creationTimestamp",
    type = AdditionalPrinterColumn.Type.DATE)
public class ClusterMirror extends CustomResource<ClusterMirrorSpec, ClusterMirrorStatus>
    implements Namespaced {

  public static final String GROUP = "kafkamirror.dev";
  public static final String VERSION = "v1alpha1";

  /**
   * The printer columns in the order {@code kubectl get} shows them (after NAME): the generator
   * sorts them by JSON path, {@code CrdPostProcessor} puts them in this order and fails the build
   * when an annotated column is missing here.
   */
  public static final java.util.List<String> PRINTER_COLUMNS =
      java.util.List.of("Ready", "Phase", "Stopped", "Max Lag", "Age");

  private static final long serialVersionUID = 1L;
}
