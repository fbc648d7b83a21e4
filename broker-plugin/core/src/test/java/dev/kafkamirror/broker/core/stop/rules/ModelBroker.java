package dev.kafkamirror.broker.core.stop.rules;

import dev.kafkamirror.broker.core.stop.rules.Decision.Act;
import dev.kafkamirror.broker.core.stop.rules.Decision.Record;

/**
 * The executor's loop over a well-behaved model broker, for the rule tests: a record is durable at
 * once, a truncation cuts the log, a barrier lands at the log end, replication completes when the
 * rule waits for it, and a fence ends the call (the new leader continues).
 */
final class ModelBroker {

  /** The last decision of a call and the view it left behind. */
  record Result(Decision last, PartitionView view, int rounds) {}

  static final int MAX_ROUNDS = 12;

  private ModelBroker() {}

  static Result run(StopCall call, PartitionView start, String source) {
    PartitionView v = start;
    for (int round = 1; round <= MAX_ROUNDS; round++) {
      Decision d = StopRules.decide(call, v, source);
      if (d instanceof Record rec) {
        v = v.withDurable(rec.state());
      } else if (d instanceof Act act) {
        if (act.action() instanceof Decision.MoveLeadership) {
          return new Result(d, v, round);
        }
        PartitionView after = apply(v, act.action());
        if (after.equals(v)) {
          // Nothing changed (a wait the model cannot satisfy): the executor's bound ends the call.
          return new Result(d, v, round);
        }
        v = after;
      } else {
        return new Result(d, v, round);
      }
    }
    throw new AssertionError(call + " did not finish in " + MAX_ROUNDS + " rounds from " + start);
  }

  static PartitionView apply(PartitionView v, Decision.Action action) {
    if (action instanceof Decision.Truncate t) {
      return v.withLog(
          t.offset(),
          Math.min(v.highWatermark(), t.offset()),
          Math.min(v.lastStableOffset(), t.offset()),
          t.offset() == 0 ? -1 : v.lastBatchEpoch(),
          -1L);
    }
    if (action instanceof Decision.AppendBarrier) {
      return v.withLog(
          v.logEndOffset() + 1,
          v.highWatermark(),
          v.lastStableOffset(),
          v.leaderEpoch(),
          v.logEndOffset());
    }
    if (action instanceof Decision.AwaitHighWatermark) {
      return v.withLog(
          v.logEndOffset(),
          v.logEndOffset(),
          v.logEndOffset(),
          v.lastBatchEpoch(),
          v.barrierAtEnd());
    }
    if (action instanceof Decision.OpenForWrites) {
      return v.withLocal(LocalState.STOPPED);
    }
    throw new IllegalArgumentException(action + " ends the call");
  }
}
