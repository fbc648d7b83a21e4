package dev.kafkamirror.operator.api.v1alpha1;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import io.fabric8.generator.annotation.Default;
import io.fabric8.generator.annotation.Required;
import io.fabric8.generator.annotation.ValidationRule;

/** The desired mirror. */
@JsonInclude(JsonInclude.Include.NON_NULL)
@ValidationRule(
    value = "!has(oldSelf.state) || oldSelf.state != 'Stopped' || self.state == 'Stopped'",
    message =
        "spec.state: Stopped is final: the partitions were made writable behind a barrier; mirror again with a new"
            + " ClusterMirror")
@ValidationRule(
    value = "self.source.bootstrapServers != self.destination.bootstrapServers",
    message =
        "spec.source.bootstrapServers and spec.destination.bootstrapServers must differ: a cluster cannot"
            + " mirror itself")
@ValidationRule(
    value =
        "!has(self.initialSync) || self.initialSync != 'TruncateAndRestore' ||"
            + " has(self.source.control)",
    message =
        "spec.initialSync TruncateAndRestore requires spec.source.control: the operator reads the"
            + " source's recorded stop (last mirrored offset and source epoch) from the source's"
            + " plugin control endpoint")
@ValidationRule(
    value = "has(self.initialSync) == has(oldSelf.initialSync)",
    message =
        "spec.initialSync is immutable: a failback is declared when the ClusterMirror is created;"
            + " create a new ClusterMirror instead")
public class ClusterMirrorSpec {

  @Required
  @JsonPropertyDescription("The cluster whose topics are mirrored.")
  private SourceCluster source;

  @Required
  @JsonPropertyDescription(
      "The cluster that holds the mirror; its brokers run the cluster-mirror plugin.")
  private DestinationCluster destination;

  @Required
  @JsonPropertyDescription(
      "Which topics to mirror: names and/or include patterns, minus exclude patterns.")
  private TopicSelection topics;

  @Default("Mirroring")
  @JsonPropertyDescription(
      "Desired state: Mirroring, Paused (fetching stops, still read-only) or Stopped (failover: the partitions"
          + " become writable behind a MIRROR_PID_RESET barrier). Stopped is final.")
  private MirrorState state = MirrorState.Mirroring;

  @JsonPropertyDescription("How a stop proceeds.")
  private StopPolicy stop;

  @Default("Retain")
  @JsonPropertyDescription(
      "What deleting this resource does: Retain leaves every partition as it is (a mirror stays read-only);"
          + " StopMirroring first fails over like state: Stopped.")
  private DeletionPolicy deletionPolicy = DeletionPolicy.Retain;

  @JsonPropertyDescription(
      "Consumer groups whose committed offsets are carried to the destination while mirroring and"
          + " once more at the stop, before the partitions become writable. Absent: none.")
  private ConsumerGroupSync consumerGroups;

  @ValidationRule(
      value = "self == oldSelf",
      message =
          "spec.initialSync is immutable: a failback is declared when the ClusterMirror is"
              + " created; create a new ClusterMirror instead")
  @JsonPropertyDescription(
      "How a destination that already holds the topics is first brought in line with the source."
          + " Absent: the destination's partitions must not hold data the source lacks (a new"
          + " mirror). TruncateAndRestore: failback to a former source; each partition is truncated"
          + " to the last offset both clusters agree on (the source's recorded stop, checked"
          + " against the destination's own epoch history; refused when it cannot be proven), what"
          + " that discards is reported in status.failback and a Warning Event, then it mirrors."
          + " Requires spec.source.control. Immutable.")
  private InitialSync initialSync;

  @JsonPropertyDescription(
      "With initialSync TruncateAndRestore: how what the alignment discards is handled (plan"
          + " only, or report then truncate).")
  private FailbackPolicy failback;

  public FailbackPolicy getFailback() {
    return failback;
  }

  public void setFailback(FailbackPolicy failback) {
    this.failback = failback;
  }

  public InitialSync getInitialSync() {
    return initialSync;
  }

  public void setInitialSync(InitialSync initialSync) {
    this.initialSync = initialSync;
  }

  @JsonPropertyDescription(
      "Which topic configs destination topics take from their source topics (created with them,"
          + " drift corrected while mirroring or paused). Absent: the default set is synced.")
  private TopicConfigSync topicConfigs;

  public SourceCluster getSource() {
    return source;
  }

  public void setSource(SourceCluster source) {
    this.source = source;
  }

  public DestinationCluster getDestination() {
    return destination;
  }

  public void setDestination(DestinationCluster destination) {
    this.destination = destination;
  }

  public TopicSelection getTopics() {
    return topics;
  }

  public void setTopics(TopicSelection topics) {
    this.topics = topics;
  }

  public MirrorState getState() {
    return state;
  }

  public void setState(MirrorState state) {
    this.state = state;
  }

  public StopPolicy getStop() {
    return stop;
  }

  public void setStop(StopPolicy stop) {
    this.stop = stop;
  }

  public DeletionPolicy getDeletionPolicy() {
    return deletionPolicy;
  }

  public void setDeletionPolicy(DeletionPolicy deletionPolicy) {
    this.deletionPolicy = deletionPolicy;
  }

  public ConsumerGroupSync getConsumerGroups() {
    return consumerGroups;
  }

  public void setConsumerGroups(ConsumerGroupSync consumerGroups) {
    this.consumerGroups = consumerGroups;
  }

  public TopicConfigSync getTopicConfigs() {
    return topicConfigs;
  }

  public void setTopicConfigs(TopicConfigSync topicConfigs) {
    this.topicConfigs = topicConfigs;
  }
}
