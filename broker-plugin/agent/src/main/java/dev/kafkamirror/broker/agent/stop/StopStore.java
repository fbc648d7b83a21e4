package dev.kafkamirror.broker.agent.stop;

import dev.kafkamirror.broker.agent.control.PartitionOperationException;
import dev.kafkamirror.broker.core.stop.StopState;
import dev.kafkamirror.broker.core.stop.StopStateKey;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The durable stop state as the {@link StopExecutor} needs it: the stop-state topic's table, read
 * up to date on demand, written with acks=all. An unavailable store answers {@link
 * PartitionOperationException} with code STATE_STORE_UNAVAILABLE.
 */
public interface StopStore {

  /** This broker, the writer of the records it writes. */
  int brokerId() throws PartitionOperationException;

  /** The state that counts for {@code key}, as far as this broker has read. */
  Optional<StopState> get(StopStateKey key) throws PartitionOperationException;

  /**
   * Whether the table is current for {@code key} while this broker leads in {@code leaderEpoch}.
   */
  boolean isCurrentAsLeader(StopStateKey key, int leaderEpoch) throws PartitionOperationException;

  /** Reads the topic up to date and remembers it for the partitions led in these epochs. */
  void syncAsLeader(Map<StopStateKey, Integer> leaderEpochs, long timeoutMs)
      throws PartitionOperationException;

  /**
   * The source's leader epoch at {@code offset} of the mirror partition's recorded source epoch
   * history (-1 when none), for the last mirrored batch persist-offsets records.
   */
  int sourceEpochAt(StopStateKey key, long offset) throws PartitionOperationException;

  /** Reads the topic up to date (membership acknowledgements included). */
  void sync(long timeoutMs) throws PartitionOperationException;

  /**
   * Writes each state with acks=all (the caller has synced); one error or null per state, in order.
   * Each state succeeds or fails alone and enters the table once acknowledged.
   */
  List<Exception> writeAll(List<StopState> states, long timeoutMs)
      throws PartitionOperationException;
}
