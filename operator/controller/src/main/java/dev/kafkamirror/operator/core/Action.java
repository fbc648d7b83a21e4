package dev.kafkamirror.operator.core;

/**
 * What the operator asks the destination's plugin to do next for one partition. Every action is one
 * idempotent control call; {@link #route} says which brokers receive it.
 */
public enum Action {
  /** Nothing to do: the partition is where the spec wants it. */
  NONE(null, Route.NONE),
  /** Nothing can be done now (no leader, broker unreachable, waiting for catch-up): look again. */
  WAIT(null, Route.NONE),
  START_MIRRORING("/v1/mirror/start", Route.ALL_REPLICAS),
  PAUSE("/v1/mirror/pause", Route.ALL_REPLICAS),
  RESUME("/v1/mirror/resume", Route.ALL_REPLICAS),
  /** Stop step 1: no mirror append is in flight afterwards. */
  REMOVE_FETCHERS("/v1/stop/remove-fetchers", Route.ALL_REPLICAS),
  /** Stop step 2: the leader truncates to its last stable offset and fences the replicas. */
  TRUNCATE("/v1/stop/truncate", Route.LEADER),
  /** Stop step 3: the last mirrored offsets and epoch, durably on the destination. */
  PERSIST_OFFSETS("/v1/stop/persist-offsets", Route.LEADER),
  /** Stop step 4: the MIRROR_PID_RESET barrier naming the source, acks=all. */
  WRITE_BARRIER("/v1/stop/barrier", Route.LEADER),
  /** Stop step 5: STOPPED, writable (the leader first, then the other replicas). */
  MAKE_WRITABLE("/v1/stop/make-writable", Route.LEADER_THEN_REPLICAS);

  /** Which brokers an action is sent to. */
  public enum Route {
    NONE,
    LEADER,
    ALL_REPLICAS,
    LEADER_THEN_REPLICAS
  }

  private final String path;
  private final Route route;

  Action(String path, Route route) {
    this.path = path;
    this.route = route;
  }

  /** The control endpoint path, or null when the action calls nothing. */
  public String path() {
    return path;
  }

  public Route route() {
    return route;
  }

  /** Whether the action is one of the five stop steps. */
  public boolean isStopStep() {
    return ordinal() >= REMOVE_FETCHERS.ordinal();
  }

  /** Whether the leader must answer the call itself (a follower's answer does not count). */
  public boolean needsLeader() {
    return route == Route.LEADER || route == Route.LEADER_THEN_REPLICAS;
  }
}
