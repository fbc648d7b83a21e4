package dev.kafkamirror.broker.agent.control;

/**
 * One partition named in a control request, with the optional per-partition argument of the call.
 *
 * @param topic a legal Kafka topic name
 * @param partition the partition index, at least 0
 * @param sourceClusterId the source cluster id, for calls that write a barrier; null otherwise
 */
public record PartitionRef(String topic, int partition, String sourceClusterId) {

  /** "topic-partition", as Kafka prints a TopicPartition. */
  public String key() {
    return topic + "-" + partition;
  }
}
