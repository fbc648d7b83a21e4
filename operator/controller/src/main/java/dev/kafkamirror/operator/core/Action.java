package dev.kafkamirror.operator.core;

import dev.kafkamirror.contract.ControlCall;

/**
 * What the operator asks the destination's plugin to do next for one partition. Every action is one
 * idempotent control call; {@link #route} says which brokers receive it.
 */
public enum Action {
  /** Nothing to do: the partition is where the spec wants it. */
  NONE(null, Route.NONE),
  /** Nothing can be done now (no leader, broker unreachable, waiting for catch-up): look again. */
  WAIT(null, Route.NONE),
  START_MIRRORING(ControlCall.START_MIRRORING, Route.ALL_REPLICAS),
  PAUSE(ControlCall.PAUSE, Route.ALL_REPLICAS),
  RESUME(ControlCall.RESUME, Route.ALL_REPLICAS),
  /** Stop step 1: no mirror append is in flight afterwards. */
  REMOVE_FETCHERS(ControlCall.REMOVE_FETCHERS, Route.ALL_REPLICAS),
  /** Stop step 2: the leader truncates to its last stable offset and fences the replicas. */
  TRUNCATE(ControlCall.TRUNCATE, Route.LEADER),
  /** Stop step 3: the last mirrored offsets and epoch, durably on the destination. */
  PERSIST_OFFSETS(ControlCall.PERSIST_OFFSETS, Route.LEADER),
  /** Stop step 4: the MIRROR_PID_RESET barrier naming the source, acks=all. */
  WRITE_BARRIER(ControlCall.BARRIER, Route.LEADER),
  /** Stop step 5: STOPPED, writable (the leader first, then the other replicas). */
  MAKE_WRITABLE(ControlCall.MAKE_WRITABLE, Route.LEADER_THEN_REPLICAS);

  /** Which brokers an action is sent to. */
  public enum Route {
    NONE,
    LEADER,
    ALL_REPLICAS,
    LEADER_THEN_REPLICAS
  }

  private final ControlCall call;
  private final Route route;

  Action(ControlCall call, Route route) {
    this.call = call;
    this.route = route;
  }

  /** The contract's control call, or null when the action calls nothing. */
  public ControlCall call() {
    return call;
  }

  /** The control endpoint path, or null when the action calls nothing. */
  public String path() {
    return call == null ? null : call.path();
  }

  public Route route() {
    return route;
  }

  /** Whether the action is one of the five stop steps. */
  public boolean isStopStep() {
    return call != null && call.isStopStep();
  }

  /** Whether the leader must answer the call itself (a follower's answer does not count). */
  public boolean needsLeader() {
    return route == Route.LEADER || route == Route.LEADER_THEN_REPLICAS;
  }
}
