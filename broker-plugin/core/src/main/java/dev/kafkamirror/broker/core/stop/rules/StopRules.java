package dev.kafkamirror.broker.core.stop.rules;

import dev.kafkamirror.broker.core.stop.FenceChoice;
import dev.kafkamirror.broker.core.stop.StopChecks;
import dev.kafkamirror.broker.core.stop.StopState;
import dev.kafkamirror.broker.core.stop.StopStep;
import dev.kafkamirror.broker.core.stop.rules.Decision.Act;
import dev.kafkamirror.broker.core.stop.rules.Decision.Done;
import dev.kafkamirror.broker.core.stop.rules.Decision.Record;
import dev.kafkamirror.broker.core.stop.rules.Decision.RefusalKind;
import dev.kafkamirror.broker.core.stop.rules.Decision.Refuse;
import dev.kafkamirror.broker.core.stop.rules.Decision.Retry;
import java.util.Optional;

/**
 * The stop sequence's decisions, one pure function per call: {@link PartitionView} (and the source
 * cluster the call names) to a {@link Decision}. The agent's executor applies the decision to Kafka
 * and asks again with a fresh view; a model applies it to its own state. No Kafka types, no clock,
 * no I/O: the same view always gets the same decision.
 *
 * <p>Invariants the rules keep (and {@code StopRulesPropertyTest} checks): no step goes back (every
 * recorded state is at the durable step or later, and only the leader records); the truncation
 * target is planned once, on an established high watermark that every in-sync follower has fetched
 * in the leader's epoch, and every later truncation goes to the recorded target; the barrier is
 * appended only when the log ends at the recorded truncation offset; STOPPED is recorded only after
 * BARRIER_WRITTEN with the barrier below the high watermark and the reset verified, and clients may
 * write only when STOPPED is durable; recording a decided state and asking again never asks for the
 * same record again.
 */
public final class StopRules {

  private StopRules() {}

  /**
   * The rule of {@code call}.
   *
   * @param requestedSourceClusterId the source cluster the call names (persist-offsets, barrier);
   *     ignored by the other calls
   */
  public static Decision decide(StopCall call, PartitionView v, String requestedSourceClusterId) {
    return switch (call) {
      case REMOVE_FETCHERS -> removeFetchers(v);
      case TRUNCATE -> truncate(v);
      case PERSIST_OFFSETS -> persistOffsets(v, requestedSourceClusterId);
      case BARRIER -> barrier(v, requestedSourceClusterId);
      case MAKE_WRITABLE -> makeWritable(v);
    };
  }

  /**
   * Step 1: the leader records FETCHERS_REMOVED when no stop is recorded; a follower has nothing to
   * record (every replica stops its mirror appends, which the executor does before asking).
   *
   * <p>Once FETCHERS_REMOVED is durable and the leader's log has nothing to truncate, the same call
   * also decides step 2, in its next round: TRUNCATED, with the offsets when the source is known
   * (see {@link #truncate}). That is exactly what the truncate call would record next, on the same
   * view, with nothing destructive in between (its target is the log end, so there is no truncation
   * and no fence); the stop then saves a call round per leader. The target is planned only after
   * FETCHERS_REMOVED is durable, never in the same write: until a stop is recorded, a replica that
   * becomes leader and has not had its own remove-fetchers call yet would start mirroring, and a
   * target written late by the old leader's epoch would then end below records it committed. With
   * the stop recorded, such a leader's fetcher finds it and appends nothing. Anything else the
   * truncate rule would decide (a target below the log end, a wait for the high watermark or for
   * the in-sync followers, an open transaction) is left to the truncate call.
   */
  public static Decision removeFetchers(PartitionView v) {
    if (!v.leader()) {
      return new Done();
    }
    if (v.durable() == null) {
      return new Record(
          StopState.fetchersRemoved(v.key(), v.topic(), v.leaderEpoch(), v.brokerId(), v.nowMs()));
    }
    if (v.durable().step() == StopStep.FETCHERS_REMOVED
        && v.local().stopBegun()
        && truncate(v) instanceof Record r
        && nothingToTruncate(r.state())) {
      return r;
    }
    return new Done();
  }

  /**
   * Whether the truncate rule's record, decided on a partition at FETCHERS_REMOVED, is its
   * TRUNCATED (or OFFSETS_PERSISTED) record for a log that ends at its target; a TRUNCATING record
   * announces a truncation still to come.
   */
  private static boolean nothingToTruncate(StopState recorded) {
    return recorded.step().atLeast(StopStep.TRUNCATED)
        && recorded.truncatedToOffset() == recorded.truncateTargetOffset();
  }

  /**
   * Whether the truncate step may treat the stop as begun: a stop is recorded, or this broker has
   * stopped its mirror appends. The executor stops this broker's appends only then.
   */
  public static boolean stopBegun(PartitionView v) {
    return v.durable() != null || v.local().stopBegun();
  }

  /**
   * Step 2 on the leader: plan the target (the last stable offset, on an established high
   * watermark, once every in-sync follower has fetched the log end in this epoch) and record it as
   * TRUNCATING before anything destructive; fence the replicas with a new leader epoch when the log
   * holds batches of the current epoch; truncate to the recorded target; record TRUNCATED once no
   * transaction is open (OFFSETS_PERSISTED with it when the source is known, see {@link
   * #withOffsetsWhenSourceKnown}). A partition already truncated is truncated again to the recorded
   * offset when its log (a new leader's) is longer.
   */
  public static Decision truncate(PartitionView v) {
    if (!v.leader()) {
      return notLeader(v);
    }
    if (!stopBegun(v)) {
      return invalid(
          v.partitionName()
              + " is "
              + v.local()
              + " (mirror "
              + v.key().mirrorName()
              + "); remove the fetchers first");
    }
    StopState durable =
        v.durable() != null
            ? v.durable()
            : StopState.fetchersRemoved(
                v.key(), v.topic(), v.leaderEpoch(), v.brokerId(), v.nowMs());
    StopStep step = durable.step();
    if (step.atLeast(StopStep.BARRIER_WRITTEN)) {
      return new Done();
    }
    StopState base = durable;
    long target;
    if (step.atLeast(StopStep.TRUNCATED)) {
      target = durable.truncatedToOffset();
      if (v.barrierAtEnd() == target && v.logEndOffset() == target + 1) {
        // The barrier step has appended the barrier at the recorded truncation offset: the log is
        // truncated. Truncating again would fence for nothing and cut a replicated barrier away on
        // the new leader, and BARRIER_WRITTEN could then be recorded while an in-sync replica
        // holds no barrier (found by the stop protocol explorer, StopProtocolExplorationTest).
        return new Done();
      }
    } else if (step.atLeast(StopStep.TRUNCATING)) {
      target = durable.truncateTargetOffset();
    } else {
      if (v.barrierRuleEnabled() && !v.highWatermarkEstablished()) {
        return new Refuse(
            RefusalKind.TIMEOUT, staleHighWatermark(v), Retry.WHEN_HIGH_WATERMARK_ESTABLISHED);
      }
      if (v.barrierRuleEnabled() && !v.isrFetchedLogEnd()) {
        return new Refuse(
            RefusalKind.TIMEOUT, isrNotFetched(v), Retry.WHEN_HIGH_WATERMARK_ESTABLISHED);
      }
      // With the barrier rule switched off (stock comparisons only) the failover is a stock one:
      // nothing is truncated.
      target = v.barrierRuleEnabled() ? v.lastStableOffset() : v.logEndOffset();
      base = durable.withTruncateTarget(target);
      if (v.logEndOffset() > target) {
        // Progress before anything destructive: the target is durable before any truncation.
        return new Record(
            base.advance(StopStep.TRUNCATING, v.leaderEpoch(), v.brokerId(), v.nowMs()));
      }
      // Nothing to truncate, so nothing destructive follows: TRUNCATED is recorded directly,
      // without announcing TRUNCATING first (one acks=all write fewer).
    }
    if (v.logEndOffset() > target) {
      if (v.fenced()) {
        return new Act(new Decision.Truncate(target));
      }
      FenceChoice.Choice choice =
          FenceChoice.choose(v.brokerId(), v.replicas(), v.isr(), v.membershipHolders());
      if (choice.noOtherReplica()) {
        return new Act(new Decision.Truncate(target));
      }
      if (choice.target() != null) {
        return new Act(new Decision.MoveLeadership(choice.target(), target));
      }
      return new Refuse(
          RefusalKind.NOT_ENOUGH_REPLICAS,
          v.partitionName()
              + ": cannot fence before truncating: "
              + choice.refusal()
              + "; a replica that comes back would keep the truncated records, and one that does"
              + " not hold the membership would lead a mirror it does not know. Repeat when a"
              + " replica that holds it is back in sync",
          Retry.AFTER_MEMBERSHIP_SYNC);
    }
    Optional<String> open =
        StopChecks.openTransactionsAfterTruncation(v.partitionName(), v.openTransactions(), target);
    if (open.isPresent() && v.barrierRuleEnabled()) {
      return new Refuse(RefusalKind.INTERNAL, open.get(), Retry.NONE);
    }
    if (!step.atLeast(StopStep.TRUNCATED)) {
      return new Record(
          withOffsetsWhenSourceKnown(
              base.withTruncatedTo(v.logEndOffset(), v.lastBatchEpoch())
                  .advance(StopStep.TRUNCATED, v.leaderEpoch(), v.brokerId(), v.nowMs()),
              v));
    }
    return new Done();
  }

  /**
   * TRUNCATED, and with it what step 3 records when the partition's source is known: the last
   * mirrored offset is the truncation offset and the source is the one the partition mirrored, both
   * fixed once the log ends at the target. One acks=all write then carries steps 2 and 3, and the
   * persist-offsets call finds nothing left to record. The stop still has to name that source:
   * persist-offsets and the barrier refuse any other than the recorded one. With the source unknown
   * (a registration that never named or reached one), TRUNCATED alone, and persist-offsets records
   * the source the call names, as before.
   */
  private static StopState withOffsetsWhenSourceKnown(StopState truncated, PartitionView v) {
    String known = v.knownSourceClusterId();
    if (known == null || known.isEmpty()) {
      return truncated;
    }
    return truncated
        .withMirroredEnd(truncated.truncatedToOffset(), known)
        .advance(StopStep.OFFSETS_PERSISTED, v.leaderEpoch(), v.brokerId(), v.nowMs());
  }

  /**
   * Step 3 on the leader: record the last mirrored offset (the truncation offset) and source. Done
   * at once, for the same source, when step 2 recorded them already.
   */
  public static Decision persistOffsets(PartitionView v, String requestedSourceClusterId) {
    if (!v.leader()) {
      return notLeader(v);
    }
    Optional<Refuse> missing = requireStep(v, StopStep.TRUNCATED, StopCall.TRUNCATE);
    if (missing.isPresent()) {
      return missing.get();
    }
    StopState durable = v.durable();
    if (durable.sourceClusterId() != null
        && !durable.sourceClusterId().equals(requestedSourceClusterId)) {
      return invalid(
          v.partitionName()
              + ": the recorded source cluster is "
              + durable.sourceClusterId()
              + ", not "
              + requestedSourceClusterId);
    }
    String known = v.knownSourceClusterId();
    if (known != null && !known.equals(requestedSourceClusterId)) {
      return invalid(
          v.partitionName()
              + " mirrored data of source cluster "
              + known
              + " (mirror "
              + v.key().mirrorName()
              + "), not "
              + requestedSourceClusterId
              + "; the stop must name the real source");
    }
    if (durable.step().atLeast(StopStep.OFFSETS_PERSISTED)) {
      return new Done();
    }
    return new Record(
        durable
            .withMirroredEnd(durable.truncatedToOffset(), requestedSourceClusterId)
            .advance(StopStep.OFFSETS_PERSISTED, v.leaderEpoch(), v.brokerId(), v.nowMs()));
  }

  /**
   * Step 4 on the leader: one barrier, at the recorded truncation offset, below the high watermark
   * and fetched by every in-sync follower since the truncation (so on every in-sync replica) before
   * BARRIER_WRITTEN is recorded. A barrier of the source already at the log end (a crash after the
   * append) is taken, never a second one.
   */
  public static Decision barrier(PartitionView v, String requestedSourceClusterId) {
    if (!v.leader()) {
      return notLeader(v);
    }
    Optional<Refuse> missing = requireStep(v, StopStep.OFFSETS_PERSISTED, StopCall.PERSIST_OFFSETS);
    if (missing.isPresent()) {
      return missing.get();
    }
    StopState durable = v.durable();
    if (!durable.sourceClusterId().equals(requestedSourceClusterId)) {
      return invalid(
          v.partitionName()
              + ": the recorded source cluster is "
              + durable.sourceClusterId()
              + ", not "
              + requestedSourceClusterId
              + "; the barrier must name the source the partition mirrored");
    }
    if (durable.step().atLeast(StopStep.BARRIER_WRITTEN)) {
      return v.highWatermark() > durable.barrierOffset()
          ? new Done()
          : new Act(new Decision.AwaitHighWatermark(durable.barrierOffset()));
    }
    if (v.barrierAtEnd() >= durable.truncatedToOffset()) {
      long offset = v.barrierAtEnd();
      // Below the high watermark is not enough: after this leader's own truncation Kafka counts
      // its followers' log ends from before it, so every in-sync follower must have fetched the
      // barrier since (the barrier is the log's last batch, so up to the log end).
      return v.highWatermark() > offset && v.isrFetchedLogEnd()
          ? new Record(
              durable
                  .withBarrier(offset)
                  .advance(StopStep.BARRIER_WRITTEN, v.leaderEpoch(), v.brokerId(), v.nowMs()))
          : new Act(new Decision.AwaitHighWatermark(offset));
    }
    if (v.logEndOffset() != durable.truncatedToOffset()) {
      return invalid(
          v.partitionName()
              + ": the log ends at offset "
              + v.logEndOffset()
              + ", not at the recorded truncation offset "
              + durable.truncatedToOffset()
              + " (a replica that became leader has not truncated yet); call truncate again");
    }
    return new Act(new Decision.AppendBarrier(requestedSourceClusterId));
  }

  /**
   * Step 5: the leader records STOPPED once the barrier is below the high watermark and its own
   * reset is verified, then lets clients write; a follower lets clients write only after STOPPED is
   * recorded and its own reset is verified.
   */
  public static Decision makeWritable(PartitionView v) {
    StopState durable = v.durable();
    if (!v.leader()) {
      if (durable == null || durable.step() != StopStep.STOPPED) {
        return invalid(
            v.partitionName()
                + ": this broker follows; the leader has not recorded STOPPED yet (stop step "
                + (durable == null ? "none" : durable.step())
                + ")");
      }
      if (v.resetRefusal() != null) {
        return invalid(v.resetRefusal());
      }
      return v.local() == LocalState.STOPPED ? new Done() : new Act(new Decision.OpenForWrites());
    }
    Optional<Refuse> missing = requireStep(v, StopStep.BARRIER_WRITTEN, StopCall.BARRIER);
    if (missing.isPresent()) {
      return missing.get();
    }
    if (v.highWatermark() <= durable.barrierOffset()) {
      return invalid(
          v.partitionName()
              + ": the barrier at offset "
              + durable.barrierOffset()
              + " is not below the high watermark "
              + v.highWatermark()
              + "; call barrier again to wait for it");
    }
    // A reset that did not happen is never reported as done: STOPPED is recorded only when this
    // leader's producer state holds nothing from before the barrier.
    if (v.resetRefusal() != null) {
      return invalid(v.resetRefusal());
    }
    if (durable.step() != StopStep.STOPPED) {
      return new Record(
          durable.advance(StopStep.STOPPED, v.leaderEpoch(), v.brokerId(), v.nowMs()));
    }
    // STOPPED is durable: only now may clients write.
    return v.local() == LocalState.STOPPED ? new Done() : new Act(new Decision.OpenForWrites());
  }

  /**
   * The refusal when the durable step is before {@code needed}: names the partition, the mirror,
   * the step it is at and the call to make first.
   */
  private static Optional<Refuse> requireStep(PartitionView v, StopStep needed, StopCall previous) {
    StopState durable = v.durable();
    if (durable != null && durable.step().atLeast(needed)) {
      return Optional.empty();
    }
    return Optional.of(
        invalid(
            v.partitionName()
                + " (mirror "
                + v.key().mirrorName()
                + ") is at stop step "
                + (durable == null ? "none" : durable.step())
                + "; "
                + needed
                + " is needed: call "
                + previous.callName()
                + " first"));
  }

  /**
   * A leader elected moments ago still has the high watermark it had as a follower, which can lag
   * its log end by a whole fetch round, and only raises it once its followers fetch again; its last
   * stable offset would then plan a truncation below committed mirrored records
   * (StopSequenceCrashIT saw a new leader truncate to 0 with 16 records in every replica).
   */
  private static String staleHighWatermark(PartitionView v) {
    return v.partitionName()
        + ": the high watermark "
        + v.highWatermark()
        + " of leader epoch "
        + v.leaderEpoch()
        + " has not reached the log end "
        + v.logEndOffset()
        + " yet (a new leader, or an in-sync follower still catching up), so the last"
        + " stable offset is not known and nothing is truncated; call truncate again";
  }

  /**
   * A new leader's high watermark can equal its log end before any follower fetched from it (it
   * kept its follower high watermark), while an in-sync follower still holds records above that end
   * from the previous leader, not yet truncated away: were this leader to crash, that follower
   * would lead with them and make them stable, and the target planned here would then cut stable
   * records (stop protocol explorer, depth 6). Once every in-sync follower has fetched this
   * leader's log end in its epoch, each has truncated to it.
   */
  private static String isrNotFetched(PartitionView v) {
    return v.partitionName()
        + ": not every in-sync follower has fetched from this leader (leader epoch "
        + v.leaderEpoch()
        + ") up to its log end "
        + v.logEndOffset()
        + " yet, so one may still hold records above it from an earlier leader and the last"
        + " stable offset is not final; nothing is truncated; call truncate again";
  }

  private static Refuse notLeader(PartitionView v) {
    return new Refuse(
        RefusalKind.NOT_LEADER,
        "this broker is not the leader of "
            + v.partitionName()
            + " (leader "
            + (v.leaderId() >= 0 ? String.valueOf(v.leaderId()) : "none")
            + "); call the leader",
        Retry.NONE);
  }

  private static Refuse invalid(String message) {
    return new Refuse(RefusalKind.INVALID_STATE, message, Retry.NONE);
  }
}
