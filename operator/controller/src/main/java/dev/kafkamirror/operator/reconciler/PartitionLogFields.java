package dev.kafkamirror.operator.reconciler;

import dev.kafkamirror.operator.core.PartitionKey;
import java.util.LinkedHashMap;
import java.util.Map;
import org.slf4j.MDC;

/**
 * The structured fields of a log line about one partition on one broker, in the MDC for the lines
 * logged inside a try-with-resources block: {@value #CLUSTER_MIRROR} (namespace/name), {@value
 * #PARTITION} ({@code <topic>-<n>}), {@value #TOPIC}, {@value #PARTITION_NUMBER}, {@value #BROKER}
 * (the broker id) and, for a failed call, {@value #CODE} (the plugin's error code). The JSON layout
 * writes each MDC entry as a field of its own (docs/operator.md, Observability &gt; Logs).
 *
 * <p>Invariant: {@link #close} puts back exactly the MDC values these keys had before (removing the
 * ones that were absent), so a thread's MDC, JOSDK's resource fields included, is unchanged after
 * the block.
 */
public final class PartitionLogFields implements AutoCloseable {

  public static final String CLUSTER_MIRROR = "clusterMirror";
  public static final String PARTITION = "partition";
  public static final String TOPIC = "topic";
  public static final String PARTITION_NUMBER = "partitionNumber";
  public static final String BROKER = "broker";
  public static final String CODE = "code";

  private final Map<String, String> previous = new LinkedHashMap<>();

  private PartitionLogFields(Map<String, String> fields) {
    fields.forEach(
        (k, v) -> {
          previous.put(k, MDC.get(k));
          MDC.put(k, v);
        });
  }

  /**
   * The fields of partition {@code key} of ClusterMirror {@code resourceRef} on broker {@code
   * brokerId}, with {@code code} when not null.
   */
  public static PartitionLogFields of(
      String resourceRef, PartitionKey key, int brokerId, String code) {
    Map<String, String> fields = new LinkedHashMap<>();
    fields.put(CLUSTER_MIRROR, resourceRef);
    if (key != null) {
      fields.put(PARTITION, key.toString());
      fields.put(TOPIC, key.topic());
      fields.put(PARTITION_NUMBER, Integer.toString(key.partition()));
    }
    fields.put(BROKER, Integer.toString(brokerId));
    if (code != null) {
      fields.put(CODE, code);
    }
    return new PartitionLogFields(fields);
  }

  @Override
  public void close() {
    previous.forEach(
        (k, v) -> {
          if (v == null) {
            MDC.remove(k);
          } else {
            MDC.put(k, v);
          }
        });
  }
}
