package dev.kafkamirror.testing.failover;

import java.util.List;

/**
 * What one check of a failed-over cluster found: every problem, each naming topic, partition,
 * offset and expected against actual, and what was checked (for the test's output).
 */
public record FailoverReport(String cluster, String checked, List<String> problems) {

  /** At most this many problems are spelled out in {@link #message()}. */
  static final int SHOWN = 25;

  public FailoverReport {
    problems = List.copyOf(problems);
  }

  /** Whether nothing was wrong. */
  public boolean ok() {
    return problems.isEmpty();
  }

  /** One line per problem, after a head line naming the cluster and what was checked. */
  public String message() {
    StringBuilder b =
        new StringBuilder(
            cluster + ": " + checked + ": " + (ok() ? "ok" : problems.size() + " problem(s)"));
    problems.stream().limit(SHOWN).forEach(p -> b.append("\n  - ").append(p));
    if (problems.size() > SHOWN) {
      b.append("\n  ... and ").append(problems.size() - SHOWN).append(" more");
    }
    return b.toString();
  }

  /**
   * Returns this report when it is ok.
   *
   * @throws AssertionError with {@link #message()} otherwise
   */
  public FailoverReport assertOk() {
    if (!ok()) {
      throw new AssertionError(message());
    }
    return this;
  }
}
