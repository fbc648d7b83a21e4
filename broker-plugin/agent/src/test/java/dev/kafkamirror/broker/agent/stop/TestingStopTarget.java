package dev.kafkamirror.broker.agent.stop;

import dev.kafkamirror.broker.agent.control.PartitionRef;
import dev.kafkamirror.broker.core.stop.StopState;
import dev.kafkamirror.broker.core.stop.StopStateKey;
import dev.kafkamirror.broker.core.stop.rules.LocalState;
import dev.kafkamirror.broker.core.stop.rules.PartitionView;
import dev.kafkamirror.broker.core.stop.rules.StopCall;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * An in-memory mirror partition: a log of offsets with a high watermark that follows the log end
 * (replication) unless told to lag, and a shared event list of what was done to it.
 */
final class TestingStopTarget implements StopTarget {

  final PartitionRef ref;
  final StopStateKey key;
  final List<String> events;
  boolean leader = true;
  int epoch = 5;
  long logEnd = 16;
  long highWatermark = 16;
  long lastStable = 16;
  int lastBatchEpoch = 4;
  long barrierAtEnd = -1;
  boolean replicates = true;

  /** The in-sync followers that have not fetched the log end since the truncation. */
  List<String> followersBehind = List.of();

  /** Runs once, at the {@code highWatermarkReadsUntilChange}-th read of the high watermark. */
  Runnable changeWhileWaiting;

  int highWatermarkReadsUntilChange;

  /** The high watermark reaches the log end after this many more views (a new leader). */
  int viewsUntilHighWatermark;

  LocalState local = LocalState.MIRRORING;
  List<Integer> replicas = List.of(1, 2, 3);
  Set<Integer> holders = Set.of(1, 2, 3);

  /** The source the registration knows; the ref's by default, null for a registration without. */
  String knownSource;

  TestingStopTarget(int partition, String source, List<String> events) {
    this.ref = new PartitionRef("t", partition, source);
    this.knownSource = source;
    this.key = new StopStateKey("m1", "topic-id-1", partition);
    this.events = events;
  }

  @Override
  public PartitionRef ref() {
    return ref;
  }

  @Override
  public StopStateKey key() {
    return key;
  }

  @Override
  public String name() {
    return ref.key();
  }

  @Override
  public boolean isLeader() {
    return leader;
  }

  @Override
  public int leaderEpoch() {
    return epoch;
  }

  @Override
  public PartitionView view(StopCall call, StopState durable, String source, long nowMs) {
    if (viewsUntilHighWatermark > 0 && --viewsUntilHighWatermark == 0) {
      highWatermark = logEnd;
      lastStable = logEnd;
    }
    return new PartitionView(
        key,
        "t",
        durable,
        local,
        1,
        leader,
        leader ? 1 : 2,
        epoch,
        logEnd,
        highWatermark,
        lastStable,
        lastBatchEpoch,
        barrierAtEnd,
        0,
        replicas,
        Set.of(1, 2, 3),
        holders,
        knownSource,
        null,
        true,
        nowMs,
        leader && followersBehind.isEmpty());
  }

  @Override
  public long logEndOffset() {
    return logEnd;
  }

  @Override
  public long highWatermark() {
    if (highWatermarkReadsUntilChange > 0 && --highWatermarkReadsUntilChange == 0) {
      changeWhileWaiting.run();
    }
    return highWatermark;
  }

  @Override
  public List<String> followersBehind(long endOffset) {
    return followersBehind;
  }

  @Override
  public void truncateTo(long offset) {
    events.add(name() + " truncate " + offset);
    logEnd = offset;
    highWatermark = Math.min(highWatermark, offset);
    lastStable = Math.min(lastStable, offset);
  }

  @Override
  public long appendBarrier(String sourceClusterId) {
    events.add(name() + " barrier " + logEnd);
    barrierAtEnd = logEnd;
    lastBatchEpoch = epoch;
    logEnd++;
    if (replicates) {
      highWatermark = logEnd;
    }
    return barrierAtEnd;
  }

  @Override
  public void completeDelayedFetches() {}

  @Override
  public Object lock() {
    return this;
  }

  @Override
  public Map<String, Object> describe() {
    return Map.of("state", local.name(), "logEndOffset", logEnd);
  }
}
