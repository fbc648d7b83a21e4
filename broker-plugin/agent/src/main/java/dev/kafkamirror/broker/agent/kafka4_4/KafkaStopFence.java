package dev.kafkamirror.broker.agent.kafka4_4;

import dev.kafkamirror.broker.agent.control.PartitionOperationException;
import dev.kafkamirror.broker.agent.kafka4_4.stop.LeaderFence;
import dev.kafkamirror.broker.agent.stop.StopFence;
import dev.kafkamirror.broker.agent.stop.StopTarget;
import java.util.LinkedHashMap;
import java.util.Map;
import org.apache.kafka.common.TopicPartition;

/** {@link StopFence} by {@link LeaderFence}, through the stop-state store's admin client. */
final class KafkaStopFence implements StopFence {

  private final KafkaStopStore store;

  KafkaStopFence(KafkaStopStore store) {
    this.store = store;
  }

  @Override
  public Map<StopTarget, Moved> moveLeadership(Map<StopTarget, Integer> newLeaders, long timeoutMs)
      throws InterruptedException {
    Map<StopTarget, Moved> out = new LinkedHashMap<>();
    Map<TopicPartition, Integer> moves = new LinkedHashMap<>();
    newLeaders.forEach((t, leader) -> moves.put(((KafkaStopTarget) t).tp(), leader));
    Map<TopicPartition, LeaderFence.Moved> moved;
    try {
      moved = LeaderFence.moveLeadership(store.store().admin(), moves, timeoutMs);
    } catch (PartitionOperationException e) {
      newLeaders.keySet().forEach(t -> out.put(t, new Moved(-1, e.getMessage())));
      return out;
    }
    for (StopTarget t : newLeaders.keySet()) {
      LeaderFence.Moved m = moved.get(((KafkaStopTarget) t).tp());
      if (m != null) {
        out.put(t, new Moved(m.newLeaderId(), m.error()));
      }
    }
    return out;
  }
}
