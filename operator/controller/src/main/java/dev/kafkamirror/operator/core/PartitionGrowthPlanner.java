package dev.kafkamirror.operator.core;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

/**
 * Decides which destination topics get the partitions their source topic gained (Kafka only ever
 * adds partitions), and which source partitions are not mirrored yet. Pure.
 *
 * <p>Invariants:
 *
 * <ul>
 *   <li>A topic is grown only to the source's count, never shrunk (a destination with more
 *       partitions than its source is left alone: the source's topic identity check covers a
 *       recreated source).
 *   <li>Nothing is grown while a stop is wanted, nor on a topic with a partition that is STOPPING
 *       or STOPPED (failed over: the destination owns it now). Those partitions stay listed as
 *       pending, so a stop never hides source partitions it does not carry over.
 *   <li>Every source partition the destination lacks is listed, whether or not it is grown now.
 * </ul>
 */
public final class PartitionGrowthPlanner {

  private PartitionGrowthPlanner() {}

  /**
   * Source partitions a destination topic lacks: {@code destinationPartitions} to {@code
   * sourcePartitions - 1}.
   *
   * @param why why they are not mirrored yet (added now, held by a stop, refused...)
   */
  public record Pending(String topic, int sourcePartitions, int destinationPartitions, String why) {

    /** The missing partition numbers as a range, e.g. "2..4" or "3". */
    public String range() {
      return sourcePartitions - destinationPartitions == 1
          ? Integer.toString(destinationPartitions)
          : destinationPartitions + ".." + (sourcePartitions - 1);
    }

    /** "topic orders partitions 2..4 (source has 5, destination 2): why". */
    public String describe() {
      return "topic "
          + topic
          + " partition"
          + (sourcePartitions - destinationPartitions == 1 ? " " : "s ")
          + range()
          + " (source has "
          + sourcePartitions
          + ", destination "
          + destinationPartitions
          + "): "
          + why;
    }
  }

  /**
   * @param grow topic to the partition count to create on the destination now
   * @param pending every source partition the destination lacks, sorted by topic
   */
  public record Plan(Map<String, Integer> grow, List<Pending> pending) {}

  static final String ADDING = "being added to the destination, then mirrored";
  static final String HELD_BY_STOP =
      "not added: a stop is wanted, and a stop never adds partitions (their records are not on"
          + " the destination)";
  static final String HELD_BY_STOPPED_TOPIC =
      "not added: the topic has STOPPED or STOPPING partitions (failed over), which the mirror no"
          + " longer changes";

  /**
   * @param source partition counts of the selected topics on the source
   * @param destination partition counts of the topics on the destination (a topic absent here is
   *     created with the source's count elsewhere)
   * @param stoppedTopics topics with a partition that is STOPPING or STOPPED
   * @param stopWanted whether the spec asks for Stopped (or the resource is being deleted)
   */
  public static Plan plan(
      Map<String, Integer> source,
      Map<String, Integer> destination,
      Set<String> stoppedTopics,
      boolean stopWanted) {
    Map<String, Integer> grow = new TreeMap<>();
    List<Pending> pending = new ArrayList<>();
    for (Map.Entry<String, Integer> e : new TreeMap<>(source).entrySet()) {
      String topic = e.getKey();
      Integer onDestination = destination.get(topic);
      int onSource = e.getValue();
      if (onDestination == null || onSource <= onDestination) {
        continue;
      }
      String why;
      if (stopWanted) {
        why = HELD_BY_STOP;
      } else if (stoppedTopics.contains(topic)) {
        why = HELD_BY_STOPPED_TOPIC;
      } else {
        why = ADDING;
        grow.put(topic, onSource);
      }
      pending.add(new Pending(topic, onSource, onDestination, why));
    }
    return new Plan(grow, List.copyOf(pending));
  }
}
