package dev.kafkamirror.broker.core.stop;

import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * Every mirror membership of the destination cluster and which brokers have acknowledged holding it
 * (adopted it into their local registry), folded from the stop-state topic.
 *
 * <p>Invariants: a membership, once read, is never removed (a stopped mirror stays a member; its
 * stop state says it is writable); within a generation the first membership of a (topic id,
 * partition) wins, so a second mirror can never take over a partition through the topic; a
 * membership of a higher generation replaces it (only the plugin writes memberships, and it writes
 * the next generation only for a failback after the earlier mirror's stop was recorded STOPPED), so
 * that every reader ends with the highest generation whatever order it reads them in;
 * acknowledgements only grow.
 *
 * <p>Thread-safe, and lock-free for readers: the produce guard asks it on every client append.
 */
public final class MembershipTable {

  private record Id(String topicId, int partition) {}

  private final Map<Id, MirrorMembership> members = new ConcurrentHashMap<>();
  private final Map<Id, Set<Integer>> holders = new ConcurrentHashMap<>();

  /** By topic name and partition ("topic-3"): the memberships naming it, of any topic id. */
  private final Map<String, List<MirrorMembership>> byName = new ConcurrentHashMap<>();

  /**
   * Folds a membership record. A record for a partition that already has a membership of another
   * mirror is ignored and reported.
   *
   * @return empty when applied (or already known), else why it was ignored
   */
  public Optional<String> apply(MirrorMembership m) {
    Id id = new Id(m.topicId(), m.partition());
    MirrorMembership existing = members.putIfAbsent(id, m);
    if (existing == null) {
      byName
          .computeIfAbsent(m.topic() + "-" + m.partition(), k -> new CopyOnWriteArrayList<>())
          .add(m);
      return Optional.empty();
    }
    if (m.generation() > existing.generation()) {
      if (members.replace(id, existing, m)) {
        byName
            .computeIfAbsent(m.topic() + "-" + m.partition(), k -> new CopyOnWriteArrayList<>())
            .add(m);
        return Optional.empty();
      }
      return apply(m);
    }
    if (m.generation() < existing.generation()) {
      return Optional.empty();
    }
    if (!existing.mirrorName().equals(m.mirrorName())) {
      return Optional.of(
          "ignoring the membership of "
              + m
              + ": the partition is already a member of mirror "
              + existing.mirrorName());
    }
    return Optional.empty();
  }

  /** Folds an acknowledgement that {@code brokerId} holds the partition in its registry. */
  public void applyHolder(String topicId, int partition, int brokerId) {
    holders
        .computeIfAbsent(new Id(topicId, partition), k -> ConcurrentHashMap.newKeySet())
        .add(brokerId);
  }

  public Optional<MirrorMembership> member(String topicId, int partition) {
    return Optional.ofNullable(members.get(new Id(topicId, partition)));
  }

  /** The memberships recorded under this topic name and partition, of any topic id. */
  public List<MirrorMembership> membersNamed(String topic, int partition) {
    List<MirrorMembership> named = byName.get(topic + "-" + partition);
    return named == null ? List.of() : List.copyOf(named);
  }

  /** The brokers that acknowledged holding the partition, sorted. */
  public Set<Integer> holders(String topicId, int partition) {
    Set<Integer> h = holders.get(new Id(topicId, partition));
    return h == null ? Set.of() : new TreeSet<>(h);
  }

  public boolean isHolder(String topicId, int partition, int brokerId) {
    Set<Integer> h = holders.get(new Id(topicId, partition));
    return h != null && h.contains(brokerId);
  }

  /** Every membership. */
  public List<MirrorMembership> all() {
    return List.copyOf(members.values());
  }

  public int size() {
    return members.size();
  }
}
