package dev.kafkamirror.operator.layeringfixture;

import dev.kafkamirror.testing.kube.KubeApiServerHarness;

/**
 * A deliberate violation of the operator's layering, for {@code LayeringTest} only: a class that
 * uses the test harness (e2e test-support's {@code KubeApiServerHarness}), as main code must never
 * do. It lives in the test sources, so it never ships.
 */
public final class MainClassThatUsesTheHarness {

  private MainClassThatUsesTheHarness() {}

  /** Uses the harness. */
  public static String describe(KubeApiServerHarness harness) {
    return String.valueOf(harness);
  }
}
