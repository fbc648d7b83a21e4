package dev.kafkamirror.broker.agent.kafka4_4;

import dev.kafkamirror.broker.core.producerstate.OpenTransaction;
import dev.kafkamirror.broker.core.producerstate.ProducerStateTarget;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.reflect.Field;
import java.lang.reflect.Method;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.storage.internals.log.CompletedTxn;
import org.apache.kafka.storage.internals.log.LogSegment;
import org.apache.kafka.storage.internals.log.ProducerStateManager;
import org.apache.kafka.storage.internals.log.TxnMetadata;

/**
 * {@link ProducerStateTarget} on Kafka 4.4's {@code ProducerStateManager}.
 *
 * <p>Kafka has no public way to drop every producer without deleting the producer snapshots ({@code
 * truncateFullyAndStartAt} deletes them and moves the map end offset), so this uses the private
 * {@code clearProducerIds()} and clears the private {@code verificationStates}; open transactions
 * are completed as aborted through the public {@code completeTxn}, after an entry in the
 * transaction index where the caller names a segment. Snapshots, the map end offset and {@code
 * unreplicatedTxns} are left alone.
 *
 * <p>Not thread-safe: callers hold the log's lock (append) or own the state (recovery, rebuild).
 */
final class KafkaProducerStateTarget implements ProducerStateTarget {

  private static final Field ONGOING_TXNS = field("ongoingTxns");
  private static final Field VERIFICATION_STATES = field("verificationStates");
  private static final Field TOPIC_PARTITION = field("topicPartition");
  private static final Method CLEAR_PRODUCER_IDS = method("clearProducerIds");
  private static final Method UPDATE_OLDEST_TXN_TIMESTAMP = method("updateOldestTxnTimestamp");

  private final ProducerStateManager state;
  private final LogSegment transactionIndexSegment;

  /**
   * @param state the producer state to reset
   * @param transactionIndexSegment the segment whose transaction index records forced aborts, or
   *     null when the index already holds them (a rebuild from segments that were written or
   *     recovered with the rule)
   */
  KafkaProducerStateTarget(ProducerStateManager state, LogSegment transactionIndexSegment) {
    this.state = state;
    this.transactionIndexSegment = transactionIndexSegment;
  }

  static TopicPartition topicPartitionOf(ProducerStateManager state) {
    try {
      return (TopicPartition) TOPIC_PARTITION.get(state);
    } catch (IllegalAccessException e) {
      throw new IllegalStateException("cannot read ProducerStateManager.topicPartition", e);
    }
  }

  @Override
  public int producerCount() {
    return state.activeProducers().size();
  }

  @Override
  public List<OpenTransaction> openTransactions() {
    List<OpenTransaction> open = new ArrayList<>();
    for (TxnMetadata txn : ongoing().values()) {
      open.add(new OpenTransaction(txn.producerId, txn.firstOffset.messageOffset));
    }
    return open;
  }

  @Override
  public void abortInTransactionIndex(OpenTransaction transaction, long abortOffset) {
    CompletedTxn aborted =
        new CompletedTxn(transaction.producerId(), transaction.firstOffset(), abortOffset, true);
    if (transactionIndexSegment != null) {
      try {
        transactionIndexSegment.updateTxnIndex(aborted, state.lastStableOffset(aborted));
      } catch (IOException e) {
        throw new UncheckedIOException(
            "cannot record the forced abort " + aborted + " in the index", e);
      }
    }
    state.completeTxn(aborted);
  }

  @Override
  public void clearProducers() {
    try {
      CLEAR_PRODUCER_IDS.invoke(state);
      ((Map<?, ?>) VERIFICATION_STATES.get(state)).clear();
      UPDATE_OLDEST_TXN_TIMESTAMP.invoke(state);
    } catch (ReflectiveOperationException e) {
      throw new IllegalStateException(
          "cannot clear producer state of " + topicPartitionOf(state), e);
    }
  }

  @SuppressWarnings("unchecked")
  private TreeMap<Long, TxnMetadata> ongoing() {
    try {
      return (TreeMap<Long, TxnMetadata>) ONGOING_TXNS.get(state);
    } catch (IllegalAccessException e) {
      throw new IllegalStateException("cannot read ProducerStateManager.ongoingTxns", e);
    }
  }

  private static Field field(String name) {
    try {
      Field f = ProducerStateManager.class.getDeclaredField(name);
      f.setAccessible(true);
      return f;
    } catch (NoSuchFieldException e) {
      throw new IllegalStateException("ProducerStateManager has no field " + name, e);
    }
  }

  private static Method method(String name) {
    try {
      Method m = ProducerStateManager.class.getDeclaredMethod(name);
      m.setAccessible(true);
      return m;
    } catch (NoSuchMethodException e) {
      throw new IllegalStateException("ProducerStateManager has no method " + name + "()", e);
    }
  }
}
