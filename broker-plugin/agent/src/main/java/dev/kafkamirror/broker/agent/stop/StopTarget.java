package dev.kafkamirror.broker.agent.stop;

import dev.kafkamirror.broker.agent.control.PartitionOperationException;
import dev.kafkamirror.broker.agent.control.PartitionRef;
import dev.kafkamirror.broker.core.stop.StopState;
import dev.kafkamirror.broker.core.stop.StopStateKey;
import dev.kafkamirror.broker.core.stop.rules.PartitionView;
import dev.kafkamirror.broker.core.stop.rules.StopCall;
import java.util.Map;

/**
 * One mirror partition of a stop call, resolved on this broker: reads its {@link PartitionView} and
 * applies the Kafka actions the rules ask for. Implementations read the live log on every call.
 */
public interface StopTarget {

  PartitionRef ref();

  StopStateKey key();

  /** "topic-3", for messages. */
  String name();

  boolean isLeader();

  int leaderEpoch();

  /**
   * The view the rule of {@code call} needs, with {@code durable} as the stop state.
   *
   * @param requestedSourceClusterId the source the call names (the barrier looks for one of it)
   */
  PartitionView view(StopCall call, StopState durable, String requestedSourceClusterId, long nowMs)
      throws PartitionOperationException;

  long logEndOffset();

  long highWatermark();

  /**
   * The in-sync followers that have not fetched up to {@code endOffset} since this leader last
   * truncated its own log in its current leader epoch, each named with what the leader knows of it
   * (for messages); empty when every one has. Kafka's high watermark alone does not say so after
   * the leader's own truncation (see {@code PartitionView#isrFetchedLogEnd}).
   */
  java.util.List<String> followersBehind(long endOffset);

  /** Truncates the log to {@code offset}; the caller holds {@link #lock()}. */
  void truncateTo(long offset) throws Exception;

  /**
   * Appends the barrier naming the source at the log end; its offset. The caller holds the lock.
   */
  long appendBarrier(String sourceClusterId) throws Exception;

  /** Lets fetches waiting at the log end (followers') see the appended barrier now. */
  void completeDelayedFetches();

  /** The lock that serialises this broker's destructive stop actions on the partition. */
  Object lock();

  /** The partition's state, epoch, log end and durable stop fields, for a step's answer. */
  Map<String, Object> describe();
}
