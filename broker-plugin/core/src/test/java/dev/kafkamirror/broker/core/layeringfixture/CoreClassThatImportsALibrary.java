package dev.kafkamirror.broker.core.layeringfixture;

import org.apache.kafka.common.TopicPartition;

/**
 * A deliberate violation of core's layering rule, for {@code LayeringTest} only: a class in core's
 * package that imports a library (Kafka's clients). It lives in the test sources, so it never
 * ships.
 */
public final class CoreClassThatImportsALibrary {

  private CoreClassThatImportsALibrary() {}

  /** Uses a Kafka type, which core's main code must never do. */
  public static String describe(TopicPartition partition) {
    return partition.topic() + "-" + partition.partition();
  }
}
