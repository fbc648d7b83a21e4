package dev.kafkamirror.broker.agent.kafka4_4;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;
import kafka.cluster.Partition;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.server.replica.Replica;
import org.apache.kafka.server.replica.ReplicaState;
import scala.Option;

/**
 * Whether every in-sync follower of a partition this broker leads has fetched, since this leader
 * last truncated its own log, up to an offset: what "the barrier is on every in-sync replica" has
 * to rest on.
 *
 * <p>Why Kafka's high watermark is not enough: a leader that truncates its own log keeps, in each
 * follower's {@link Replica} state, the log end of that follower's last fetch from before the
 * truncation, and a follower's next fetch, which finds the divergence, does not update it. The
 * barrier appended after the truncation therefore raises the high watermark over itself at once,
 * while in-sync followers still hold the truncated batch at the barrier's offset ({@code
 * BarrierFollowerConfirmationIT} shows it on real brokers).
 *
 * <p>The test: each follower in the maximal ISR has a fetch state with a log end at or above the
 * offset, from a fetch that began strictly after the truncation (Kafka stamps the state with the
 * time the fetch was received, before it read the log, with the same wall clock used here). A fetch
 * after the truncation that is not diverging has passed Kafka's leader-epoch check, so the
 * follower's log up to its fetch offset is the leader's. Without a truncation in the current leader
 * epoch (a leader elected after it, or none), every fetch state is from this epoch and counts.
 *
 * <p>Thread-safe. The truncation times live in memory: a broker that restarts leads again only in a
 * new leader epoch, where fetch states start afresh.
 */
final class FollowerFetches {

  private record Truncation(int leaderEpoch, long atMs) {}

  private static final Map<TopicPartition, Truncation> TRUNCATIONS = new ConcurrentHashMap<>();

  private FollowerFetches() {}

  /** Notes that this leader has just truncated {@code tp}'s log in {@code leaderEpoch}. */
  static void truncated(TopicPartition tp, int leaderEpoch) {
    TRUNCATIONS.put(tp, new Truncation(leaderEpoch, System.currentTimeMillis()));
  }

  /**
   * The in-sync followers that have not fetched up to {@code endOffset} since this leader's last
   * truncation in its current epoch, each with what the leader knows of it, for messages; empty
   * when every one has.
   */
  static List<String> behind(Partition partition, TopicPartition tp, int self, long endOffset) {
    Truncation t = TRUNCATIONS.get(tp);
    long since = t != null && t.leaderEpoch() == partition.getLeaderEpoch() ? t.atMs() : -1L;
    List<String> out = new ArrayList<>();
    for (int id : new TreeSet<>(partition.partitionState().maximalIsr())) {
      if (id == self) {
        continue;
      }
      Option<Replica> replica = partition.getReplica(id);
      if (replica.isEmpty()) {
        out.add("broker " + id + " (no fetch state on the leader)");
        continue;
      }
      ReplicaState s = replica.get().stateSnapshot();
      if (s.lastFetchTimeMs() <= since) {
        out.add(
            "broker "
                + id
                + " (has not fetched since the leader's truncation at "
                + since
                + " ms; last fetch at "
                + s.lastFetchTimeMs()
                + " ms, up to offset "
                + s.logEndOffset()
                + ")");
      } else if (s.logEndOffset() < endOffset) {
        out.add("broker " + id + " (has fetched up to offset " + s.logEndOffset() + ")");
      }
    }
    return out;
  }
}
