package dev.kafkamirror.broker.agent.kafka4_4;

import dev.kafkamirror.broker.agent.kafka4_4.mirror.MirrorClassificationPendingException;
import dev.kafkamirror.broker.agent.kafka4_4.mirror.MirrorRegistry;
import dev.kafkamirror.broker.agent.kafka4_4.stop.StateRecordAuth;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Function;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.protocol.Errors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * At the transaction coordinator: no destination transaction may include a mirror partition. {@code
 * TransactionCoordinator.handleAddPartitionsToTransaction} serves both the producer's
 * AddPartitionsToTxn (transaction version 1) and the partition leader's implicit add on produce
 * (version 2); when any of the partitions must stay read-only ({@link
 * MirrorRegistry#readOnlyReason}, which answers also for partitions this broker does not host), the
 * whole request is answered with {@link Errors#INVALID_RECORD} and nothing is added. The producer
 * sees INVALID_RECORD for the add (version 1) or for its produce (version 2) and must abort; the
 * abort then writes no marker into the mirror partition, since it never joined. Partitions of the
 * stop-state topic are refused the same way: only the plugin writes it, never in a transaction.
 *
 * <p>Fail closed: when the guard cannot decide for a partition, it refuses. Thread-safe.
 */
public final class TransactionGuard {

  private static final Logger LOG =
      LoggerFactory.getLogger("dev.kafkamirror.broker.agent.TransactionGuard");

  private static final AtomicLong refused = new AtomicLong();

  private TransactionGuard() {}

  /**
   * Entry of {@code handleAddPartitionsToTransaction}: true when refused (the callback has been
   * answered and the coordinator method must be skipped).
   */
  public static boolean refuseAdd(
      String transactionalId,
      long producerId,
      short producerEpoch,
      Collection<TopicPartition> partitions,
      Object responseCallback) {
    Optional<Refusal> refusal =
        decide(
            partitions,
            tp -> {
              if (tp.topic().equals(StateRecordAuth.configuredTopic())) {
                // Only the plugin writes the stop-state topic, never in a transaction.
                return Optional.of(
                    tp
                        + " belongs to the stop-state topic, which only the cluster mirror plugin"
                        + " writes");
              }
              return MirrorRegistry.instance().readOnlyReason(tp);
            });
    if (refusal.isEmpty()) {
      return false;
    }
    if (refusal.get().error() == Errors.INVALID_RECORD) {
      refused.incrementAndGet();
      LOG.error(
          "refusing to add {} to transaction {} (producer id {}, epoch {}) with INVALID_RECORD: {}",
          sorted(partitions),
          transactionalId,
          producerId,
          producerEpoch,
          refusal.get().reason());
    } else {
      LOG.info(
          "asking transaction {} (producer id {}) to retry adding {}: {}",
          transactionalId,
          producerId,
          sorted(partitions),
          refusal.get().reason());
    }
    @SuppressWarnings("unchecked")
    scala.Function1<Errors, ?> callback = (scala.Function1<Errors, ?>) responseCallback;
    callback.apply(refusal.get().error());
    return true;
  }

  /** Why an add is refused, and the error its caller gets. */
  record Refusal(Errors error, String reason) {}

  /**
   * The decision for one add. Pure. A partition that must stay read-only refuses the add with the
   * non-retriable {@link Errors#INVALID_RECORD}, and so does one whose lookup fails (fail closed).
   * A partition this broker cannot classify <em>yet</em> ({@link
   * MirrorClassificationPendingException}: it has not read the cluster's mirror membership since it
   * started) asks the producer to retry with {@link Errors#COORDINATOR_LOAD_IN_PROGRESS}: the
   * partition did not join, and an ordinary transaction goes on once the window ends instead of
   * failing for good.
   */
  static Optional<Refusal> decide(
      Collection<TopicPartition> partitions,
      Function<TopicPartition, Optional<String>> readOnlyReason) {
    List<String> reasons = new ArrayList<>();
    List<String> pending = new ArrayList<>();
    for (TopicPartition tp : sorted(partitions)) {
      try {
        readOnlyReason.apply(tp).ifPresent(reasons::add);
      } catch (MirrorClassificationPendingException e) {
        pending.add(e.getMessage());
      } catch (Throwable t) {
        reasons.add("cannot tell whether " + tp + " is a mirror partition (" + t + ")");
      }
    }
    if (!reasons.isEmpty()) {
      return Optional.of(new Refusal(Errors.INVALID_RECORD, String.join("; ", reasons)));
    }
    if (!pending.isEmpty()) {
      return Optional.of(
          new Refusal(Errors.COORDINATOR_LOAD_IN_PROGRESS, String.join("; ", pending)));
    }
    return Optional.empty();
  }

  private static List<TopicPartition> sorted(Collection<TopicPartition> partitions) {
    List<TopicPartition> out = new ArrayList<>(partitions);
    out.sort(Comparator.comparing(TopicPartition::toString));
    return out;
  }

  /** AddPartitionsToTxn requests this coordinator refused, for describe. */
  public static long refusedAdds() {
    return refused.get();
  }
}
