package dev.kafkamirror.broker.core.stop.rules;

import dev.kafkamirror.broker.core.stop.StopState;
import java.util.Objects;

/**
 * What a stop rule decides for one partition: record a state, do one Kafka action, nothing (the
 * step is done), or refuse. The executor applies a {@link Record} or an {@link Act} and asks the
 * rule again with a fresh view, until it answers {@link Done} or {@link Refuse}; every answer is
 * therefore a function of the durable state and the log only, which makes each call idempotent and
 * resumable after a crash at any point.
 */
public sealed interface Decision {

  /** Write this stop state (acks=all) before anything else happens to the partition. */
  record Record(StopState state) implements Decision {
    public Record {
      Objects.requireNonNull(state, "state");
    }
  }

  /** Do this Kafka action. */
  record Act(Action action) implements Decision {
    public Act {
      Objects.requireNonNull(action, "action");
    }
  }

  /** The step is complete for this partition; nothing to record or do. */
  record Done() implements Decision {}

  /** The step must not go on; {@code message} names every identifier and says what to call. */
  record Refuse(RefusalKind kind, String message, Retry retry) implements Decision {
    public Refuse {
      Objects.requireNonNull(kind, "kind");
      Objects.requireNonNull(message, "message");
      Objects.requireNonNull(retry, "retry");
    }
  }

  /** Why a refusal happened, which the agent maps to the control contract's error code. */
  enum RefusalKind {
    /** The durable or local state does not allow the step (yet): a previous call is missing. */
    INVALID_STATE,
    /** This broker does not lead the partition. */
    NOT_LEADER,
    /** No replica qualifies for the fence. */
    NOT_ENOUGH_REPLICAS,
    /** A condition that time resolves has not been met within the call. */
    TIMEOUT,
    /** The broker's state contradicts what the step has done (open transactions after it). */
    INTERNAL
  }

  /** What may turn a refusal around within the same call. */
  enum Retry {
    /** Nothing within this call. */
    NONE,
    /** Waiting for the high watermark to reach the log end (a new leader's followers fetch). */
    WHEN_HIGH_WATERMARK_ESTABLISHED,
    /** Reading the stop-state topic up to date once (a membership acknowledgement in flight). */
    AFTER_MEMBERSHIP_SYNC
  }

  /** A Kafka action a rule asks for. */
  sealed interface Action {}

  /** Truncate the log to {@code offset} (the durable target); under the partition's lock. */
  record Truncate(long offset) implements Action {}

  /**
   * Fence the replicas by moving leadership to {@code toBroker} (a new leader epoch) before the
   * truncation to {@code truncateTarget}; the call then ends with LEADER_MOVED.
   */
  record MoveLeadership(int toBroker, long truncateTarget) implements Action {}

  /** Append the MIRROR_PID_RESET barrier naming {@code sourceClusterId} at the log end. */
  record AppendBarrier(String sourceClusterId) implements Action {}

  /**
   * Wait, bounded by the call, until the barrier at {@code barrierOffset} is below the HW and, when
   * it ends the log, every in-sync follower has fetched it since the leader's truncation.
   */
  record AwaitHighWatermark(long barrierOffset) implements Action {}

  /** Let clients write: the local registry state becomes STOPPED. */
  record OpenForWrites() implements Action {}
}
