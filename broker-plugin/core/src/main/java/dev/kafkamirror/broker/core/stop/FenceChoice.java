package dev.kafkamirror.broker.core.stop;

import java.util.List;
import java.util.Set;
import java.util.TreeSet;

/**
 * Where the truncate step's fence may move the leadership of a mirror partition: to another in-sync
 * replica that has acknowledged holding the mirror membership. A replica without it would lead a
 * mirror it does not know, and accept client writes.
 *
 * <p>Pure.
 */
public final class FenceChoice {

  private FenceChoice() {}

  /** The chosen broker, or why none qualifies. */
  public record Choice(Integer target, String refusal) {
    public boolean noOtherReplica() {
      return target == null && refusal == null;
    }
  }

  /**
   * @param self this broker (the leader)
   * @param replicas the assignment, in preference order
   * @param isr the in-sync replicas
   * @param holders the brokers that acknowledged holding the membership
   * @return the first other replica, in assignment order, that is in sync and a holder; or no
   *     target and no refusal when there is no other replica at all; or a refusal naming the
   *     replicas, the in-sync set and the holders
   */
  public static Choice choose(
      int self, List<Integer> replicas, Set<Integer> isr, Set<Integer> holders) {
    boolean others = false;
    for (Integer r : replicas) {
      if (r == self) {
        continue;
      }
      others = true;
      if (isr.contains(r) && holders.contains(r)) {
        return new Choice(r, null);
      }
    }
    if (!others) {
      return new Choice(null, null);
    }
    return new Choice(
        null,
        "no other in-sync replica that holds the mirror membership to move leadership to"
            + " (replicas "
            + replicas
            + ", in-sync "
            + new TreeSet<>(isr)
            + ", membership acknowledged by brokers "
            + new TreeSet<>(holders)
            + ")");
  }
}
