package dev.kafkamirror.broker.agent.kafka4_4;

import dev.kafkamirror.broker.agent.control.PartitionOperationException;
import dev.kafkamirror.broker.agent.kafka4_4.stop.StopStateStore;
import dev.kafkamirror.broker.agent.kafka4_4.stop.StopStateUnavailableException;
import dev.kafkamirror.broker.agent.stop.StopStore;
import dev.kafkamirror.broker.core.stop.StopState;
import dev.kafkamirror.broker.core.stop.StopStateKey;
import dev.kafkamirror.contract.PartitionError.Code;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * {@link StopStore} over the broker's {@link StopStateStore}, obtained on every use (it starts
 * after the agent, and may not be available): unavailable is STATE_STORE_UNAVAILABLE.
 */
final class KafkaStopStore implements StopStore {

  /** The store, or why there is none. */
  @FunctionalInterface
  interface Source {
    StopStateStore get() throws StopStateUnavailableException;
  }

  private final Source source;

  KafkaStopStore(Source source) {
    this.source = source;
  }

  StopStateStore store() throws PartitionOperationException {
    try {
      return source.get();
    } catch (StopStateUnavailableException e) {
      throw unavailable(e);
    }
  }

  @Override
  public int brokerId() throws PartitionOperationException {
    return store().brokerId();
  }

  @Override
  public Optional<StopState> get(StopStateKey key) throws PartitionOperationException {
    return store().get(key);
  }

  @Override
  public boolean isCurrentAsLeader(StopStateKey key, int leaderEpoch)
      throws PartitionOperationException {
    return store().isCurrentAsLeader(key, leaderEpoch);
  }

  @Override
  public void syncAsLeader(Map<StopStateKey, Integer> leaderEpochs, long timeoutMs)
      throws PartitionOperationException {
    try {
      store().syncAsLeader(leaderEpochs, timeoutMs);
    } catch (StopStateUnavailableException e) {
      throw unavailable(e);
    }
  }

  @Override
  public int sourceEpochAt(StopStateKey key, long offset) throws PartitionOperationException {
    return store().sourceEpochs(key).epochAt(offset);
  }

  @Override
  public void sync(long timeoutMs) throws PartitionOperationException {
    try {
      store().sync(timeoutMs);
    } catch (StopStateUnavailableException e) {
      throw unavailable(e);
    }
  }

  /** Every call brought the store up to date for its partitions first: no sync before writing. */
  @Override
  public List<Exception> writeAll(List<StopState> states, long timeoutMs)
      throws PartitionOperationException {
    List<Exception> errors = new ArrayList<>(states.size());
    for (StopStateStore.WriteOutcome o : store().writeAll(states, timeoutMs, false)) {
      errors.add(o.error() instanceof StopStateUnavailableException u ? unavailable(u) : o.error());
    }
    return errors;
  }

  private static PartitionOperationException unavailable(StopStateUnavailableException e) {
    return new PartitionOperationException(Code.STATE_STORE_UNAVAILABLE, e.getMessage(), e);
  }
}
