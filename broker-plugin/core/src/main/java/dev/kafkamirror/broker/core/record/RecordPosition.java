package dev.kafkamirror.broker.core.record;

/**
 * Where a record sits: topic, partition and offset. Every error about a record names all three.
 *
 * @param topic the topic name
 * @param partition the partition index
 * @param offset the record's offset, or -1 when it is not yet assigned (a batch being built)
 */
public record RecordPosition(String topic, int partition, long offset) {

  /** A position for bytes that are not in a log (yet). */
  public static RecordPosition unassigned(String topic, int partition) {
    return new RecordPosition(topic, partition, -1L);
  }

  @Override
  public String toString() {
    return "topic=" + topic + " partition=" + partition + " offset=" + offset;
  }
}
