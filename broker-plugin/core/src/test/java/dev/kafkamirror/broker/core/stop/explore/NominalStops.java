package dev.kafkamirror.broker.core.stop.explore;

import java.util.List;

/**
 * Fault-free stops of the model, as the operator drives them: each step on the leader, the
 * followers fetching when the step waits for them. The explorer branches off every state of these
 * runs.
 */
final class NominalStops {

  private NominalStops() {}

  /**
   * The barrier and make-writable on broker 0, leader in epoch 1 throughout, once its truncation is
   * recorded: the followers fetch the barrier, then read STOPPED.
   */
  private static final List<String> BARRIER_AND_WRITABLE_ON_BROKER_0 =
      List.of(
          "operator calls barrier on broker 0",
          "broker 1 fetches",
          "broker 2 fetches",
          "operator's barrier call on broker 0 goes on",
          "operator calls make-writable on broker 0",
          "operator's make-writable call on broker 0 goes on",
          "broker 1 reads the state topic",
          "broker 2 reads the state topic");

  /**
   * The truncate call on broker 0 fences (leadership moves to broker 1 in epoch 2), broker 1
   * truncates, writes the barrier and makes the partition writable; the followers fetch from it,
   * then read STOPPED.
   */
  private static final List<String> FENCE_TO_BROKER_1_THEN_WRITABLE =
      List.of(
          "operator calls truncate on broker 0",
          "operator's truncate call on broker 0 goes on",
          "broker 0 fetches",
          "broker 2 fetches",
          "operator calls truncate on broker 1",
          "operator's truncate call on broker 1 goes on",
          "operator calls barrier on broker 1",
          "broker 0 fetches",
          "broker 2 fetches",
          "operator's barrier call on broker 1 goes on",
          "operator calls make-writable on broker 1",
          "operator's make-writable call on broker 1 goes on",
          "broker 0 reads the state topic",
          "broker 2 reads the state topic");

  /** {@code first}, then {@code rest}. */
  static List<String> then(List<String> first, List<String> rest) {
    List<String> all = new java.util.ArrayList<>(first);
    all.addAll(rest);
    return List.copyOf(all);
  }

  /**
   * The fetcher mirrors the source's offset 3 (a new transaction, in the current epoch) onto every
   * replica, every broker removes its fetchers, and the truncation fences to broker 1.
   */
  private static final List<String> NEW_TRANSACTION_MIRRORED_THEN_FENCED =
      then(
          List.of(
              "the mirror fetcher appends the source's offset 3",
              "broker 1 fetches",
              "broker 2 fetches",
              "operator calls remove-fetchers on broker 0",
              "operator calls remove-fetchers on broker 1",
              "operator calls remove-fetchers on broker 2"),
          FENCE_TO_BROKER_1_THEN_WRITABLE);

  /** The open transaction is of an older epoch: the leader truncates in place. */
  static final List<String> IN_PLACE =
      then(
          List.of(
              "broker 2 fetches",
              "operator calls remove-fetchers on broker 0",
              "operator calls remove-fetchers on broker 1",
              "operator calls remove-fetchers on broker 2",
              "operator calls truncate on broker 0",
              "operator's truncate call on broker 0 goes on",
              "operator's truncate call on broker 0 goes on"),
          BARRIER_AND_WRITABLE_ON_BROKER_0);

  /**
   * {@link #IN_PLACE} up to the followers' fetches of the barrier: appended and on every replica,
   * BARRIER_WRITTEN not recorded yet.
   */
  static final List<String> IN_PLACE_UNTIL_THE_BARRIER_IS_FETCHED = IN_PLACE.subList(0, 10);

  /**
   * The fetcher mirrored a COMMIT and a new transaction in the current epoch: the truncation needs
   * the fence; leadership moves to broker 1, which truncates and writes the barrier.
   */
  static final List<String> FENCED =
      then(
          List.of("broker 2 fetches", "the mirror fetcher appends the source's offset 2"),
          NEW_TRANSACTION_MIRRORED_THEN_FENCED);

  /**
   * From {@link PartitionModel.Start#QUIESCENT}: the leader has nothing to truncate, so its
   * remove-fetchers call, once FETCHERS_REMOVED is durable, goes on to record the truncation and
   * the offsets (OFFSETS_PERSISTED) and no truncate call is made.
   */
  static final List<String> QUIESCENT =
      then(
          List.of(
              "operator calls remove-fetchers on broker 0",
              "operator calls remove-fetchers on broker 1",
              "operator calls remove-fetchers on broker 2",
              "operator's remove-fetchers call on broker 0 goes on: records OFFSETS_PERSISTED"),
          BARRIER_AND_WRITABLE_ON_BROKER_0);

  /**
   * From {@link PartitionModel.Start#QUIESCENT}, the fetcher first mirrors a new transaction in the
   * current epoch: remove-fetchers finds something to truncate and leaves it to the truncate call,
   * which fences; leadership moves to broker 1, which truncates and writes the barrier.
   */
  static final List<String> QUIESCENT_FENCED = NEW_TRANSACTION_MIRRORED_THEN_FENCED;
}
