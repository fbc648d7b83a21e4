package dev.kafkamirror.broker.agent.kafka4_4.stop;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewPartitionReassignment;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.common.ElectionType;
import org.apache.kafka.common.Node;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.TopicPartitionInfo;
import org.apache.kafka.common.errors.ElectionNotNeededException;

/**
 * Fences the replicas of partitions before their leader truncates from the end: it moves leadership
 * to another in-sync replica, which gives the partition a new leader epoch through the controller.
 *
 * <p>Why: the barrier (the first append after the truncation) must carry a leader epoch newer than
 * every truncated batch. A replica that still holds truncated batches, in the ISR or offline at the
 * time, then finds on its next fetch that its last epoch ends, on the leader, at or below the
 * truncation offset (Kafka's diverging-epoch check), and truncates itself before it copies the
 * barrier. In the same epoch nothing would tell it, and it would keep the old records for ever at
 * offsets where the leader has others.
 *
 * <p>How: KRaft bumps a leader epoch only when the leader changes (not on ISR changes). The fence
 * reorders the replica list so that the chosen in-sync replica is the preferred leader (same
 * replicas, so no data moves) and runs a preferred election for all partitions in one request.
 *
 * <p>Stateless; Admin is thread-safe.
 */
public final class LeaderFence {

  private LeaderFence() {}

  /** Where the leadership of one partition went, or why it could not move. */
  public record Moved(int newLeaderId, String error) {}

  /**
   * Moves the leadership of each partition to the replica named in {@code newLeaders}.
   *
   * @return per partition the new leader, or the error
   */
  public static Map<TopicPartition, Moved> moveLeadership(
      Admin admin, Map<TopicPartition, Integer> newLeaders, long timeoutMs)
      throws InterruptedException {
    Map<TopicPartition, Moved> out = new HashMap<>();
    if (newLeaders.isEmpty()) {
      return out;
    }
    Set<String> topics = new java.util.HashSet<>();
    newLeaders.keySet().forEach(tp -> topics.add(tp.topic()));
    Map<String, TopicDescription> described;
    try {
      described =
          admin.describeTopics(topics).allTopicNames().get(timeoutMs, TimeUnit.MILLISECONDS);
    } catch (ExecutionException | java.util.concurrent.TimeoutException e) {
      newLeaders.keySet().forEach(tp -> out.put(tp, new Moved(-1, "describe topics: " + e)));
      return out;
    }
    Map<TopicPartition, Optional<NewPartitionReassignment>> reorder = new HashMap<>();
    for (Map.Entry<TopicPartition, Integer> e : newLeaders.entrySet()) {
      TopicPartition tp = e.getKey();
      TopicPartitionInfo info = described.get(tp.topic()).partitions().get(tp.partition());
      List<Integer> replicas = new ArrayList<>();
      replicas.add(e.getValue());
      for (Node n : info.replicas()) {
        if (n.id() != e.getValue()) {
          replicas.add(n.id());
        }
      }
      if (info.replicas().get(0).id() != e.getValue()) {
        reorder.put(tp, Optional.of(new NewPartitionReassignment(replicas)));
      }
    }
    if (!reorder.isEmpty()) {
      var results = admin.alterPartitionReassignments(reorder).values();
      for (var r : results.entrySet()) {
        try {
          r.getValue().get(timeoutMs, TimeUnit.MILLISECONDS);
        } catch (ExecutionException | java.util.concurrent.TimeoutException e) {
          out.put(r.getKey(), new Moved(-1, "reorder replicas: " + e));
        }
      }
    }
    Set<TopicPartition> toElect = new java.util.HashSet<>(newLeaders.keySet());
    toElect.removeAll(out.keySet());
    if (toElect.isEmpty()) {
      return out;
    }
    Map<TopicPartition, Optional<Throwable>> elected;
    try {
      elected =
          admin
              .electLeaders(ElectionType.PREFERRED, toElect)
              .partitions()
              .get(timeoutMs, TimeUnit.MILLISECONDS);
    } catch (ExecutionException | java.util.concurrent.TimeoutException e) {
      toElect.forEach(tp -> out.put(tp, new Moved(-1, "preferred election: " + e)));
      return out;
    }
    for (TopicPartition tp : toElect) {
      Optional<Throwable> error = elected.getOrDefault(tp, Optional.empty());
      if (error.isPresent() && !(error.get() instanceof ElectionNotNeededException)) {
        out.put(tp, new Moved(-1, "preferred election: " + error.get()));
      } else {
        out.put(tp, new Moved(newLeaders.get(tp), null));
      }
    }
    return out;
  }
}
