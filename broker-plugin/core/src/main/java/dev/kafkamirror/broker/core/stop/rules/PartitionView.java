package dev.kafkamirror.broker.core.stop.rules;

import dev.kafkamirror.broker.core.stop.StopState;
import dev.kafkamirror.broker.core.stop.StopStateKey;
import java.util.List;
import java.util.Objects;
import java.util.Set;

/**
 * Everything a stop rule may know about one mirror partition on one broker at one moment: the
 * durable stop state, the local log, the replica set and the mirror membership. The agent builds it
 * from Kafka; a model builds it from its own state. Immutable.
 *
 * @param key the partition's stop-state key (mirror, topic id, partition)
 * @param topic the topic name, for messages and new stop-state records
 * @param durable the stop state as this broker has read it, null when no stop is recorded
 * @param local this broker's registry state of the partition
 * @param brokerId this broker
 * @param leader whether this broker leads the partition
 * @param leaderId the current leader as this broker knows it, -1 when none
 * @param leaderEpoch the partition's current leader epoch
 * @param logEndOffset this replica's log end offset
 * @param highWatermark this replica's high watermark
 * @param lastStableOffset this replica's last stable offset
 * @param lastBatchEpoch the leader epoch of the log's last batch, -1 for an empty log
 * @param barrierAtEnd the offset of a MIRROR_PID_RESET barrier naming the requested source that is
 *     the log's last batch, -1 when the last batch is none
 * @param openTransactions the transactions open in the producer state, -1 when it could not be read
 * @param replicas the assignment, in preference order
 * @param isr the in-sync replicas
 * @param membershipHolders the brokers that acknowledged holding the mirror membership
 * @param knownSourceClusterId the source cluster the partition mirrored (verified, else expected),
 *     null when unknown
 * @param resetRefusal why this replica's producer state is not verified reset by the recorded
 *     barrier ({@code ResetVerification}), null when it is verified or there is no barrier yet;
 *     read only by make-writable
 * @param barrierRuleEnabled false only for stock comparisons: nothing is truncated or verified
 * @param nowMs the time new stop-state records carry (an input, so that the rules stay pure)
 * @param isrFetchedLogEnd on the leader: every other in-sync replica has fetched from it, since it
 *     last truncated its own log in this leader epoch (or since it became leader, when it has not),
 *     up to its log end. Kafka's high watermark alone does not say so: a leader that truncated
 *     itself keeps each follower's log end from its last fetch before the truncation (a diverging
 *     fetch does not update it), so the next append lifts the high watermark over offsets a
 *     follower still holds truncated batches at. The barrier counts as replicated only with this
 *     set (stop protocol explorer finding, confirmed by {@code BarrierFollowerConfirmationIT})
 */
public record PartitionView(
    StopStateKey key,
    String topic,
    StopState durable,
    LocalState local,
    int brokerId,
    boolean leader,
    int leaderId,
    int leaderEpoch,
    long logEndOffset,
    long highWatermark,
    long lastStableOffset,
    int lastBatchEpoch,
    long barrierAtEnd,
    int openTransactions,
    List<Integer> replicas,
    Set<Integer> isr,
    Set<Integer> membershipHolders,
    String knownSourceClusterId,
    String resetRefusal,
    boolean barrierRuleEnabled,
    long nowMs,
    boolean isrFetchedLogEnd) {

  public PartitionView {
    Objects.requireNonNull(key, "key");
    Objects.requireNonNull(topic, "topic");
    Objects.requireNonNull(local, "local");
    replicas = List.copyOf(replicas);
    isr = Set.copyOf(isr);
    membershipHolders = Set.copyOf(membershipHolders);
  }

  /** "topic-3", as Kafka names a partition in messages. */
  public String partitionName() {
    return topic + "-" + key.partition();
  }

  /**
   * Whether the high watermark is established for the current leader epoch. After fetcher removal
   * nothing is appended to a mirror partition, so it is established exactly when it has reached the
   * log end; a leader elected moments ago may still have its stale follower high watermark.
   */
  public boolean highWatermarkEstablished() {
    return highWatermark >= logEndOffset;
  }

  /** Whether every batch in the log is of a leader epoch older than the current one. */
  public boolean fenced() {
    return lastBatchEpoch < leaderEpoch;
  }

  public PartitionView withDurable(StopState newDurable) {
    return new PartitionView(
        key,
        topic,
        newDurable,
        local,
        brokerId,
        leader,
        leaderId,
        leaderEpoch,
        logEndOffset,
        highWatermark,
        lastStableOffset,
        lastBatchEpoch,
        barrierAtEnd,
        openTransactions,
        replicas,
        isr,
        membershipHolders,
        knownSourceClusterId,
        resetRefusal,
        barrierRuleEnabled,
        nowMs,
        isrFetchedLogEnd);
  }

  public PartitionView withIsrFetchedLogEnd(boolean fetched) {
    return new PartitionView(
        key,
        topic,
        durable,
        local,
        brokerId,
        leader,
        leaderId,
        leaderEpoch,
        logEndOffset,
        highWatermark,
        lastStableOffset,
        lastBatchEpoch,
        barrierAtEnd,
        openTransactions,
        replicas,
        isr,
        membershipHolders,
        knownSourceClusterId,
        resetRefusal,
        barrierRuleEnabled,
        nowMs,
        fetched);
  }

  public PartitionView withLocal(LocalState newLocal) {
    return new PartitionView(
        key,
        topic,
        durable,
        newLocal,
        brokerId,
        leader,
        leaderId,
        leaderEpoch,
        logEndOffset,
        highWatermark,
        lastStableOffset,
        lastBatchEpoch,
        barrierAtEnd,
        openTransactions,
        replicas,
        isr,
        membershipHolders,
        knownSourceClusterId,
        resetRefusal,
        barrierRuleEnabled,
        nowMs,
        isrFetchedLogEnd);
  }

  /**
   * This view with the log as it is after appending or truncating: a new log end, high watermark,
   * last stable offset, last batch epoch and barrier at the end ({@link #isrFetchedLogEnd} as it
   * was: the caller says what the followers have fetched with {@link #withIsrFetchedLogEnd}).
   */
  public PartitionView withLog(
      long newLogEnd,
      long newHighWatermark,
      long newLastStable,
      int newLastBatchEpoch,
      long newBarrierAtEnd) {
    return new PartitionView(
        key,
        topic,
        durable,
        local,
        brokerId,
        leader,
        leaderId,
        leaderEpoch,
        newLogEnd,
        newHighWatermark,
        newLastStable,
        newLastBatchEpoch,
        newBarrierAtEnd,
        openTransactions,
        replicas,
        isr,
        membershipHolders,
        knownSourceClusterId,
        resetRefusal,
        barrierRuleEnabled,
        nowMs,
        isrFetchedLogEnd);
  }
}
