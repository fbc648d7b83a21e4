package dev.kafkamirror.broker.agent.control;

/**
 * One partition named in a control request, with the optional per-partition argument of the call.
 *
 * @param topic a legal Kafka topic name
 * @param partition the partition index, at least 0
 * @param sourceClusterId the source cluster id, for calls that write a barrier; null otherwise
 * @param alignTo for a start with an initial sync only: the new source's recorded stop state
 */
public record PartitionRef(
    String topic,
    int partition,
    String sourceClusterId,
    dev.kafkamirror.contract.ControlRequest.AlignTo alignTo) {

  /** A partition without an alignment. */
  public PartitionRef(String topic, int partition, String sourceClusterId) {
    this(topic, partition, sourceClusterId, null);
  }

  /** "topic-partition", as Kafka prints a TopicPartition. */
  public String key() {
    return topic + "-" + partition;
  }
}
