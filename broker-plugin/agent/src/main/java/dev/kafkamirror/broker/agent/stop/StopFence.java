package dev.kafkamirror.broker.agent.stop;

import java.util.Map;

/**
 * Fences the replicas of partitions by moving their leadership to another replica (a new leader
 * epoch), in one request for all of them.
 */
public interface StopFence {

  /** Where the leadership of one partition went, or why it could not move. */
  record Moved(int newLeaderId, String error) {}

  /**
   * @return per target the new leader or the error; a target missing from the answer was not moved
   *     (interrupted)
   */
  Map<StopTarget, Moved> moveLeadership(Map<StopTarget, Integer> newLeaders, long timeoutMs)
      throws InterruptedException;
}
