package dev.kafkamirror.operator.core;

/** One partition of a topic, the unit every step works on. */
public record PartitionKey(String topic, int partition) implements Comparable<PartitionKey> {

  @Override
  public int compareTo(PartitionKey other) {
    int byTopic = topic.compareTo(other.topic);
    return byTopic != 0 ? byTopic : Integer.compare(partition, other.partition);
  }

  @Override
  public String toString() {
    return topic + "-" + partition;
  }
}
