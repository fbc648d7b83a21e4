package dev.kafkamirror.broker.core.producerstate;

import java.util.List;

/**
 * One partition's producer state as the reset sees it. The agent implements this on Kafka's {@code
 * ProducerStateManager} (and, on the recovery path, on the segment being recovered).
 *
 * <p>Implementations must never delete producer snapshot files and never move the map end offset: a
 * later truncation below the barrier must still be able to reload the state from before it.
 */
public interface ProducerStateTarget {

  /** How many producer entries the state holds now. */
  int producerCount();

  /** The transactions open now, ordered by first offset. */
  List<OpenTransaction> openTransactions();

  /**
   * Records {@code transaction} as aborted at {@code abortOffset}: an entry in the transaction
   * index, so that read_committed consumers skip its records, and the transaction leaves the open
   * set so that the last stable offset can move past it.
   */
  void abortInTransactionIndex(OpenTransaction transaction, long abortOffset);

  /** Removes every producer entry and every pending transaction verification. */
  void clearProducers();
}
