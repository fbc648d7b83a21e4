package dev.kafkamirror.broker.agent.stop;

import dev.kafkamirror.broker.agent.control.PartitionOperationException;
import dev.kafkamirror.broker.core.stop.FencedStopStateException;
import dev.kafkamirror.broker.core.stop.StopState;
import dev.kafkamirror.broker.core.stop.StopStateKey;
import dev.kafkamirror.broker.core.stop.StopStateTable;
import dev.kafkamirror.contract.PartitionError.Code;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/** An in-memory stop-state store that logs every write in the shared event list. */
final class TestingStopStore implements StopStore {

  private final StopStateTable table = new StopStateTable();
  private final List<String> events;
  private final Set<Integer> failWritesOfPartitions = new HashSet<>();
  boolean unavailable;
  int syncs;

  /** The number of records of each {@link #writeAll} call, in order (each call is one write). */
  final List<Integer> batches = new ArrayList<>();

  /** Whether {@link #isCurrentAsLeader} answers from the epochs synced in (else: never current). */
  boolean tracksLeaderEpochs;

  private final Map<StopStateKey, Integer> syncedEpochs = new java.util.HashMap<>();

  /** Records another broker wrote to the topic, which this store reads on its next sync. */
  private final List<StopState> unread = new ArrayList<>();

  TestingStopStore(List<String> events) {
    this.events = events;
  }

  void failWritesOf(int partition) {
    failWritesOfPartitions.add(partition);
  }

  void put(StopState s) {
    table.apply(s);
  }

  /** A record another broker wrote; this store's table has it only after its next sync. */
  void writtenElsewhere(StopState s) {
    unread.add(s);
  }

  private void readUnread() {
    unread.forEach(table::apply);
    unread.clear();
  }

  private void check() throws PartitionOperationException {
    if (unavailable) {
      throw new PartitionOperationException(
          Code.STATE_STORE_UNAVAILABLE, "the stop-state topic __cluster_mirror_state is offline");
    }
  }

  @Override
  public int brokerId() throws PartitionOperationException {
    check();
    return 1;
  }

  @Override
  public Optional<StopState> get(StopStateKey key) throws PartitionOperationException {
    check();
    return table.get(key);
  }

  @Override
  public boolean isCurrentAsLeader(StopStateKey key, int leaderEpoch)
      throws PartitionOperationException {
    check();
    return tracksLeaderEpochs && Integer.valueOf(leaderEpoch).equals(syncedEpochs.get(key));
  }

  @Override
  public void syncAsLeader(Map<StopStateKey, Integer> leaderEpochs, long timeoutMs)
      throws PartitionOperationException {
    check();
    syncs++;
    readUnread();
    syncedEpochs.putAll(leaderEpochs);
  }

  @Override
  public int sourceEpochAt(StopStateKey key, long offset) {
    return offset < 0 ? -1 : 3;
  }

  @Override
  public void sync(long timeoutMs) throws PartitionOperationException {
    check();
    syncs++;
    readUnread();
  }

  @Override
  public List<Exception> writeAll(List<StopState> states, long timeoutMs)
      throws PartitionOperationException {
    check();
    batches.add(states.size());
    List<Exception> errors = new ArrayList<>();
    for (StopState s : states) {
      if (failWritesOfPartitions.contains(s.key().partition())) {
        errors.add(
            new FencedStopStateException("stop state of t-" + s.key().partition() + " fenced"));
        continue;
      }
      try {
        table.checkWrite(s);
      } catch (FencedStopStateException e) {
        errors.add(e);
        continue;
      }
      table.apply(s);
      events.add("t-" + s.key().partition() + " write " + s.step());
      errors.add(null);
    }
    return errors;
  }
}
