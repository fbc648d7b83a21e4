package dev.kafkamirror.broker.agent.stop;

import dev.kafkamirror.broker.agent.control.PartitionOperationException;
import dev.kafkamirror.broker.agent.control.PartitionRef;
import dev.kafkamirror.broker.core.stop.rules.LocalState;
import dev.kafkamirror.contract.PartitionError.Code;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** The broker's mirror partitions as a map; registry changes go to the shared event list. */
final class TestingStopPartitions implements StopPartitions {

  final Map<PartitionRef, TestingStopTarget> targets = new LinkedHashMap<>();

  /** The partitions of each {@link #truncateAll} request, by name, in the order asked. */
  final List<List<String>> truncationRequests = new java.util.ArrayList<>();

  private final List<String> events;

  TestingStopPartitions(List<String> events) {
    this.events = events;
  }

  TestingStopTarget add(TestingStopTarget t) {
    targets.put(t.ref(), t);
    return t;
  }

  @Override
  public StopTarget resolve(PartitionRef ref, boolean requireLeader)
      throws PartitionOperationException {
    TestingStopTarget t = targets.get(ref);
    if (t == null) {
      throw new PartitionOperationException(
          Code.INVALID_STATE, ref.key() + " is not a mirror on this broker");
    }
    if (requireLeader && !t.leader) {
      throw new PartitionOperationException(
          Code.NOT_LEADER, "this broker is not the leader of " + ref.key());
    }
    return t;
  }

  /**
   * Targets whose leadership the broker's metadata already gives this broker but that the broker
   * has not applied yet: an {@link #awaitLeadership} call applies it (they become leaders).
   */
  final java.util.Set<PartitionRef> leadershipInFlight = new java.util.HashSet<>();

  /** The partitions and bound of every {@link #awaitLeadership} call, in order. */
  final List<String> leadershipAwaits = new java.util.ArrayList<>();

  @Override
  public void awaitLeadership(List<PartitionRef> refs, long timeoutMs) {
    leadershipAwaits.add(refs.stream().map(PartitionRef::key).toList() + " within " + timeoutMs);
    for (PartitionRef ref : refs) {
      if (leadershipInFlight.remove(ref)) {
        targets.get(ref).leader = true;
      }
    }
  }

  @Override
  public boolean isMirror(PartitionRef ref) {
    return targets.containsKey(ref);
  }

  @Override
  public void advanceAll(List<StopTarget> list, LocalState state) {
    for (StopTarget s : list) {
      TestingStopTarget t = (TestingStopTarget) s;
      if (t.local != state && t.local != LocalState.STOPPED) {
        t.local = state;
        events.add(t.name() + " local " + state);
      }
    }
  }

  @Override
  public Map<StopTarget, Exception> truncateAll(Map<StopTarget, Long> offsets) {
    truncationRequests.add(offsets.keySet().stream().map(StopTarget::name).toList());
    return StopPartitions.truncateEach(offsets);
  }
}
