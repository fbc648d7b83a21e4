package dev.kafkamirror.operator.core;

import dev.kafkamirror.operator.api.v1alpha1.TopicConfigSync;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * The pure decisions of the topic config sync: which destination topic configs to set so that a
 * mirror topic keeps what its source topic keeps, the way its source keeps it.
 *
 * <p>Rules, each a guarantee the sync gives:
 *
 * <ul>
 *   <li><b>The destination's safety settings stay its own.</b> {@link TopicConfigSync#NEVER_SYNCED}
 *       (min.insync.replicas, unclean leader election, replication throttles, tiered storage) are
 *       never in the synced set, whatever the spec says (admission refuses them too).
 *   <li><b>Effective values are compared.</b> A source topic that relies on its cluster's default
 *       retention gets that value on the destination as a topic config: the destination's own
 *       default must not decide how long mirrored records live.
 *   <li><b>Only what the source states.</b> A config the source does not report (an older source
 *       version) is left alone on the destination.
 *   <li><b>Frozen topics are not touched.</b> A topic with a partition stopping or stopped belongs
 *       to the destination from then on.
 *   <li><b>No churn.</b> Equal values (list values compared as sets) are not written.
 * </ul>
 */
public final class TopicConfigPlanner {

  private TopicConfigPlanner() {}

  /** Configs whose value is a comma-separated list compared as a set. */
  private static final Set<String> LIST_VALUED = Set.of("cleanup.policy");

  /** One config to set on a destination topic. */
  public record Change(String topic, String config, String sourceValue, String destinationValue) {
    public Change {
      Objects.requireNonNull(topic, "topic");
      Objects.requireNonNull(config, "config");
      Objects.requireNonNull(sourceValue, "sourceValue");
    }
  }

  /**
   * The outcome of one comparison.
   *
   * @param changes the configs to set, ordered by topic then config
   * @param topicsChecked topics compared
   * @param topicsInSync compared topics without a change
   * @param topicsFrozen mirror topics left alone because they are stopping or stopped
   */
  public record Plan(List<Change> changes, int topicsChecked, int topicsInSync, int topicsFrozen) {
    public Plan {
      changes = List.copyOf(changes);
    }

    /** The changes grouped by topic: config to the source's value. */
    public Map<String, Map<String, String>> byTopic() {
      Map<String, Map<String, String>> out = new TreeMap<>();
      for (Change c : changes) {
        out.computeIfAbsent(c.topic(), t -> new TreeMap<>()).put(c.config(), c.sourceValue());
      }
      return out;
    }
  }

  /**
   * The synced config names: {@code include} (absent or empty: {@link
   * TopicConfigSync#SYNCED_BY_DEFAULT}) minus {@code exclude}, never one of {@link
   * TopicConfigSync#NEVER_SYNCED}.
   */
  public static Set<String> synced(List<String> include, List<String> exclude) {
    Set<String> out =
        new TreeSet<>(
            include == null || include.isEmpty() ? TopicConfigSync.SYNCED_BY_DEFAULT : include);
    if (exclude != null) {
      out.removeAll(exclude);
    }
    out.removeAll(TopicConfigSync.NEVER_SYNCED);
    return out;
  }

  /** The configs a new destination topic is created with: the source's values of {@code synced}. */
  public static Map<String, String> forCreation(Map<String, String> source, Set<String> synced) {
    Map<String, String> out = new TreeMap<>();
    for (String key : synced) {
      String value = source.get(key);
      if (value != null) {
        out.put(key, value);
      }
    }
    return out;
  }

  /**
   * Compares the topics both clusters have.
   *
   * @param source per topic, the source's effective values of (at least) the synced configs
   * @param destination per topic, the destination's effective values
   * @param synced the synced config names ({@link #synced})
   * @param frozen topics not to touch (a partition stopping or stopped)
   */
  public static Plan plan(
      Map<String, Map<String, String>> source,
      Map<String, Map<String, String>> destination,
      Set<String> synced,
      Collection<String> frozen) {
    List<Change> changes = new ArrayList<>();
    int checked = 0;
    int inSync = 0;
    int frozenCount = 0;
    for (String topic : new TreeSet<>(source.keySet())) {
      Map<String, String> dest = destination.get(topic);
      if (dest == null) {
        continue;
      }
      if (frozen.contains(topic)) {
        frozenCount++;
        continue;
      }
      checked++;
      boolean differs = false;
      Map<String, String> src = source.get(topic);
      for (String key : new TreeSet<>(synced)) {
        if (TopicConfigSync.NEVER_SYNCED.contains(key)) {
          continue;
        }
        String sv = src.get(key);
        if (sv == null) {
          continue;
        }
        String dv = dest.get(key);
        if (!same(key, sv, dv)) {
          changes.add(new Change(topic, key, sv, dv));
          differs = true;
        }
      }
      if (!differs) {
        inSync++;
      }
    }
    return new Plan(changes, checked, inSync, frozenCount);
  }

  private static boolean same(String key, String a, String b) {
    if (b == null) {
      return false;
    }
    if (LIST_VALUED.contains(key)) {
      return asSet(a).equals(asSet(b));
    }
    return a.equals(b);
  }

  private static Set<String> asSet(String list) {
    Set<String> out = new TreeSet<>();
    Arrays.stream(list.split(",")).map(String::trim).filter(s -> !s.isEmpty()).forEach(out::add);
    return out;
  }
}
