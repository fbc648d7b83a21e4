package dev.kafkamirror.broker.agent;

import dev.kafkamirror.broker.core.producerstate.ResetOutcome;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

/**
 * What the barrier rule did in this broker, per partition: the latest resets with their path and
 * outcome, and the malformed barrier values it met. Read by the control endpoint's describe call
 * and by tests through it.
 *
 * <p>Thread-safe. Bounded: the latest {@value #RESETS_KEPT} resets per partition are kept.
 */
public final class BarrierLedger {

  static final int RESETS_KEPT = 32;

  /** Which path fed the barrier to producer state. */
  public enum Path {
    /** An append to this replica's log (leader write, follower replication or mirror append). */
    APPEND,
    /** Segment recovery after an unclean shutdown. */
    RECOVERY,
    /** Producer-state rebuild on load or truncation. */
    REBUILD
  }

  /** One reset. */
  public record Reset(
      Path path,
      long barrierOffset,
      int producersRemoved,
      int forcedAborts,
      Optional<String> sourceClusterId,
      Optional<String> malformedValue,
      long resetMicros) {}

  private static final BarrierLedger INSTANCE = new BarrierLedger();

  private final Map<String, Deque<Reset>> resets = new ConcurrentHashMap<>();
  private final AtomicLong totalResets = new AtomicLong();
  private final AtomicLong malformedValues = new AtomicLong();

  public static BarrierLedger instance() {
    return INSTANCE;
  }

  public void record(
      String topicPartition,
      Path path,
      ResetOutcome outcome,
      Optional<String> sourceClusterId,
      Optional<String> malformed,
      long resetMicros) {
    Deque<Reset> deque = resets.computeIfAbsent(topicPartition, k -> new ArrayDeque<>());
    synchronized (deque) {
      deque.addLast(
          new Reset(
              path,
              outcome.barrierOffset(),
              outcome.producersRemoved(),
              outcome.forcedAborts().size(),
              sourceClusterId,
              malformed,
              resetMicros));
      while (deque.size() > RESETS_KEPT) {
        deque.removeFirst();
      }
    }
    totalResets.incrementAndGet();
    malformed.ifPresent(m -> malformedValues.incrementAndGet());
  }

  /** The latest resets of {@code topicPartition} ("topic-partition"), oldest first. */
  public List<Reset> resetsOf(String topicPartition) {
    Deque<Reset> deque = resets.get(topicPartition);
    if (deque == null) {
      return List.of();
    }
    synchronized (deque) {
      return List.copyOf(deque);
    }
  }

  public long totalResets() {
    return totalResets.get();
  }

  public long malformedValues() {
    return malformedValues.get();
  }
}
