package dev.kafkamirror.operator.core;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * Splits topic creation and partition growth into requests a KRaft controller accepts. Pure.
 *
 * <p>A KRaft controller refuses, with {@code PolicyViolationException}, a CreateTopics of more than
 * 10,000 partitions in all, and any operation that would write more than 10,000 metadata records: a
 * new topic writes one record, one per config it is created with, and one per partition; a
 * CreatePartitions writes one per new partition. A mirror of a wide topic, or of many topics at
 * once, must therefore be created in steps: each topic is created with as many partitions as fit,
 * and the rest are added by CreatePartitions.
 *
 * <p>Invariants of every plan:
 *
 * <ul>
 *   <li>No request costs more than {@code budget} records (and so has no more than {@code budget}
 *       partitions), counted as above.
 *   <li>Every topic ends with exactly its target count, reached in rising steps; a topic that
 *       already has its target (or more) is never in a request.
 *   <li>A topic appears at most once per request; requests are in order and each one's counts start
 *       from what the earlier ones made.
 * </ul>
 */
public final class MetadataRequestPlanner {

  /** The most metadata records a KRaft controller writes for one user operation (Kafka 4.4). */
  public static final int KRAFT_RECORDS_PER_OPERATION = 10_000;

  /**
   * The records the operator puts in one request: below {@link #KRAFT_RECORDS_PER_OPERATION}, so
   * that records a controller adds on its own (a creation config interceptor, a newer Kafka's
   * record per topic) still fit.
   */
  public static final int RECORDS_PER_REQUEST = 9_000;

  private MetadataRequestPlanner() {}

  /**
   * The creation of topics in steps.
   *
   * @param creates CreateTopics requests, each topic with the count to create it with
   * @param grows the CreatePartitions requests that follow, each topic with the count to raise it
   *     to
   */
  public record Plan(List<Map<String, Integer>> creates, List<Map<String, Integer>> grows) {
    public Plan {
      creates = List.copyOf(creates);
      grows = List.copyOf(grows);
    }
  }

  /**
   * Requests that create {@code targets} (topic to partition count).
   *
   * @param configCounts per topic, the configs it is created with (a topic not named has none)
   * @param budget records per request, at least 2
   * @throws IllegalArgumentException for a count below 1, a budget below 2, or a topic with more
   *     configs than fit in one request with one partition
   */
  public static Plan forCreation(
      Map<String, Integer> targets, Map<String, Integer> configCounts, int budget) {
    requireBudget(budget);
    List<Map<String, Integer>> creates = new ArrayList<>();
    Map<String, Integer> request = new TreeMap<>();
    int used = 0;
    Map<String, Integer> created = new TreeMap<>();
    for (Map.Entry<String, Integer> e : new TreeMap<>(targets).entrySet()) {
      String topic = e.getKey();
      int target = e.getValue();
      if (target < 1) {
        throw new IllegalArgumentException(
            "topic " + topic + " cannot be created with " + target + " partitions");
      }
      // A topic's own records, apart from its partitions; at least one partition must fit.
      int configs = configCounts.getOrDefault(topic, 0);
      if (configs > budget - 2) {
        throw new IllegalArgumentException(
            "topic "
                + topic
                + " has "
                + configs
                + " configs: with its topic record and one partition that is more than "
                + budget
                + " records");
      }
      int fixed = 1 + configs;
      int first = Math.min(target, budget - fixed);
      if (used + fixed + first > budget) {
        creates.add(Collections.unmodifiableMap(request));
        request = new TreeMap<>();
        used = 0;
      }
      request.put(topic, first);
      used += fixed + first;
      created.put(topic, first);
    }
    if (!request.isEmpty()) {
      creates.add(Collections.unmodifiableMap(request));
    }
    return new Plan(creates, forGrowth(created, targets, budget));
  }

  /**
   * CreatePartitions requests that raise topics from {@code current} to {@code targets}; a topic
   * without a current count, or already at or above its target, is left out.
   *
   * @param budget records (new partitions) per request, at least 2
   */
  public static List<Map<String, Integer>> forGrowth(
      Map<String, Integer> current, Map<String, Integer> targets, int budget) {
    requireBudget(budget);
    List<Map<String, Integer>> grows = new ArrayList<>();
    Map<String, Integer> request = new TreeMap<>();
    int used = 0;
    for (Map.Entry<String, Integer> e : new TreeMap<>(targets).entrySet()) {
      Integer now = current.get(e.getKey());
      if (now == null) {
        continue;
      }
      int count = now;
      while (count < e.getValue()) {
        if (used == budget) {
          grows.add(Collections.unmodifiableMap(request));
          request = new TreeMap<>();
          used = 0;
        }
        int step = Math.min(e.getValue() - count, budget - used);
        count += step;
        used += step;
        request.put(e.getKey(), count);
      }
    }
    if (!request.isEmpty()) {
      grows.add(Collections.unmodifiableMap(request));
    }
    return grows;
  }

  private static void requireBudget(int budget) {
    if (budget < 2) {
      throw new IllegalArgumentException("a request budget of " + budget + " records is too small");
    }
  }
}
