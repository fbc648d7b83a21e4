package dev.kafkamirror.broker.agent.layeringfixture;

import dev.kafkamirror.broker.agent.kafka4_4.mirror.MirrorRegistry;

/**
 * A deliberate violation of the agent's layering, for {@code LayeringTest} only: a class in a
 * version-neutral package that uses a {@code kafka4_4} class directly instead of going through
 * {@code KafkaBinding}. It lives in the test sources, so it never ships.
 */
public final class NeutralClassThatReachesIntoKafka44 {

  private NeutralClassThatReachesIntoKafka44() {}

  /** Uses the Kafka 4.4 registry, which a neutral class must never do. */
  public static String describe(MirrorRegistry registry) {
    return String.valueOf(registry);
  }
}
