package dev.kafkamirror.operator.core;

/**
 * What the operator asks the destination's plugin to do next for one partition. Every action but
 * NONE and WAIT is one idempotent control call ({@code ControlClient.callOf} names it); {@link
 * #route} says which brokers receive it.
 */
public enum Action {
  /** Nothing to do: the partition is where the spec wants it. */
  NONE(Route.NONE, false),
  /** Nothing can be done now (no leader, broker unreachable, waiting for catch-up): look again. */
  WAIT(Route.NONE, false),
  START_MIRRORING(Route.ALL_REPLICAS, false),
  PAUSE(Route.ALL_REPLICAS, false),
  RESUME(Route.ALL_REPLICAS, false),
  /** Stop step 1: no mirror append is in flight afterwards. */
  REMOVE_FETCHERS(Route.ALL_REPLICAS, true),
  /** Stop step 2: the leader truncates to its last stable offset and fences the replicas. */
  TRUNCATE(Route.LEADER, true),
  /** Stop step 3: the last mirrored offsets and epoch, durably on the destination. */
  PERSIST_OFFSETS(Route.LEADER, true),
  /** Stop step 4: the MIRROR_PID_RESET barrier naming the source, acks=all. */
  WRITE_BARRIER(Route.LEADER, true),
  /** Stop step 5: STOPPED, writable (the leader first, then the other replicas). */
  MAKE_WRITABLE(Route.LEADER_THEN_REPLICAS, true);

  /** Which brokers an action is sent to. */
  public enum Route {
    NONE,
    LEADER,
    ALL_REPLICAS,
    LEADER_THEN_REPLICAS
  }

  private final Route route;
  private final boolean stopStep;

  Action(Route route, boolean stopStep) {
    this.route = route;
    this.stopStep = stopStep;
  }

  /** Whether the action is a control call to the destination's brokers (not NONE or WAIT). */
  public boolean callsBroker() {
    return route != Route.NONE;
  }

  public Route route() {
    return route;
  }

  /** Whether the action is one of the five stop steps (each changes the partition for good). */
  public boolean isStopStep() {
    return stopStep;
  }

  /** Whether the leader must answer the call itself (a follower's answer does not count). */
  public boolean needsLeader() {
    return route == Route.LEADER || route == Route.LEADER_THEN_REPLICAS;
  }
}
