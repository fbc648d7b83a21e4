package dev.kafkamirror.broker.agent.layeringfixture;

import dev.kafkamirror.testing.kafka.KafkaCluster;

/**
 * A deliberate violation of the agent's layering, for {@code LayeringTest} only: a class that uses
 * the test harness (e2e test-support's {@code KafkaCluster}), as main code must never do. It lives
 * in the test sources, so it never ships.
 */
public final class MainClassThatUsesTheHarness {

  private MainClassThatUsesTheHarness() {}

  /** Uses the harness. */
  public static String describe(KafkaCluster cluster) {
    return String.valueOf(cluster);
  }
}
