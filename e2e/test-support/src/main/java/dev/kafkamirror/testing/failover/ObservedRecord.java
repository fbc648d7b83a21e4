package dev.kafkamirror.testing.failover;

/** One record a reader (Java consumer or kcat) returned: where it was and its value. */
public record ObservedRecord(String topic, int partition, long offset, String value) {

  @Override
  public String toString() {
    return topic + "-" + partition + "@" + offset + "=" + value;
  }
}
