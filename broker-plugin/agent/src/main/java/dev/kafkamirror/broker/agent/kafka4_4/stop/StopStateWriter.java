package dev.kafkamirror.broker.agent.kafka4_4.stop;

import dev.kafkamirror.broker.agent.kafka4_4.stop.StopStateStore.SourceEpochWrite;
import dev.kafkamirror.broker.agent.kafka4_4.stop.StopStateStore.WriteOutcome;
import dev.kafkamirror.broker.agent.kafka4_4.stop.StopStateTables.WrittenHistory;
import dev.kafkamirror.broker.core.stop.FencedStopStateException;
import dev.kafkamirror.broker.core.stop.MirrorMembership;
import dev.kafkamirror.broker.core.stop.StopState;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The writer of the stop-state topic: stop states, mirror memberships and holders, source epoch
 * histories, signed, with acks=all. Part of {@link StopStateStore}.
 *
 * <p>Invariants: a stop state is checked against the table before it is sent (fencing by leader
 * epoch, no step backwards) and enters the table only once acknowledged; each state of a batch
 * succeeds or fails alone; a write that replaced an older epoch's record is followed by a tombstone
 * of that record. Order per data partition comes from the producer's settings ({@link
 * StateTopicClients#writerProperties}).
 *
 * <p>Threading: called by control calls and the fetchers, concurrently; the table is guarded by
 * {@link StopStateTables}, the producer is thread-safe.
 */
final class StopStateWriter {

  private static final Logger LOG =
      LoggerFactory.getLogger("dev.kafkamirror.broker.agent.StopStateStore");

  private final String topic;
  private final int brokerId;
  private final StateTopicClients clients;
  private final StopStateTables tables;
  private final StopStateReader reader;

  StopStateWriter(
      String topic,
      int brokerId,
      StateTopicClients clients,
      StopStateTables tables,
      StopStateReader reader) {
    this.topic = topic;
    this.brokerId = brokerId;
    this.clients = clients;
    this.tables = tables;
    this.reader = reader;
  }

  /** See {@link StopStateStore#writeAll(List, long, boolean)}. */
  List<WriteOutcome> writeAll(List<StopState> states, long timeoutMs, boolean syncFirst) {
    List<WriteOutcome> outcomes = new ArrayList<>(states.size());
    KafkaProducer<byte[], byte[]> p;
    int partitions;
    try {
      if (syncFirst || clients.producer() == null) {
        reader.sync(timeoutMs);
      }
      p = clients.producer();
      partitions = clients.partitionCount();
    } catch (StopStateUnavailableException e) {
      states.forEach(s -> outcomes.add(new WriteOutcome(s, e)));
      return outcomes;
    }
    long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(timeoutMs);
    Map<StopState, Future<RecordMetadata>> sent = new LinkedHashMap<>();
    Map<StopState, Integer> replacedEpochs = new HashMap<>();
    for (StopState state : states) {
      try {
        tables.checkWrite(state).ifPresent(oldEpoch -> replacedEpochs.put(state, oldEpoch));
        sent.put(
            state,
            p.send(
                clients.signed(
                    StateTopicClients.partitionOf(state.key(), partitions),
                    StopStateCodec.encodeKey(state.key(), state.leaderEpoch()),
                    StopStateCodec.encodeValue(state))));
      } catch (FencedStopStateException e) {
        outcomes.add(new WriteOutcome(state, e));
      } catch (RuntimeException e) {
        outcomes.add(new WriteOutcome(state, new StopStateUnavailableException(e.toString())));
      }
    }
    for (Map.Entry<StopState, Future<RecordMetadata>> e : sent.entrySet()) {
      StopState state = e.getKey();
      try {
        long leftMs = Math.max(1L, TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime()));
        e.getValue().get(leftMs, TimeUnit.MILLISECONDS);
        tables.applyAcknowledged(state);
        outcomes.add(new WriteOutcome(state, null));
        Integer oldEpoch = replacedEpochs.get(state);
        if (oldEpoch != null) {
          // The older epoch's record no longer counts; a tombstone lets compaction drop it.
          p.send(
              clients.signed(
                  StateTopicClients.partitionOf(state.key(), partitions),
                  StopStateCodec.encodeKey(state.key(), oldEpoch),
                  null));
        }
      } catch (ExecutionException ex) {
        outcomes.add(new WriteOutcome(state, writeFailed(state, "failed: " + ex.getCause())));
      } catch (TimeoutException ex) {
        outcomes.add(
            new WriteOutcome(
                state, writeFailed(state, "was not acknowledged within " + timeoutMs + " ms")));
      } catch (InterruptedException ex) {
        Thread.currentThread().interrupt();
        outcomes.add(new WriteOutcome(state, new StopStateUnavailableException("interrupted")));
      }
    }
    return outcomes;
  }

  /** "writing the stop state of topic-partition to the state topic " + {@code how}. */
  private StopStateUnavailableException writeFailed(StopState state, String how) {
    return new StopStateUnavailableException(
        "writing the stop state of "
            + state.topic()
            + "-"
            + state.key().partition()
            + " to "
            + topic
            + " "
            + how);
  }

  /** See {@link StopStateStore#writeMemberships}. */
  Map<MirrorMembership, StopStateUnavailableException> writeMemberships(
      List<MirrorMembership> memberships, long timeoutMs) {
    return sendAllThenAwait(
        memberships,
        timeoutMs,
        (m, partitions) ->
            clients.signed(
                StateTopicClients.partitionOf(m.stopStateKey(), partitions),
                MembershipCodec.memberKey(m),
                MembershipCodec.memberValue(m)),
        m -> "the mirror membership of " + m,
        m -> tables.membership().apply(m).ifPresent(conflict -> LOG.error("{}", conflict)));
  }

  /** See {@link StopStateStore#writeSourceEpochs}. */
  Map<SourceEpochWrite, StopStateUnavailableException> writeSourceEpochs(
      List<SourceEpochWrite> writes, long timeoutMs) {
    Map<SourceEpochWrite, Long> recordedAt = new HashMap<>();
    return sendAllThenAwait(
        writes,
        timeoutMs,
        (w, partitions) -> {
          WrittenHistory held = tables.heldSourceEpochs(w.key());
          // Strictly later than what this broker holds, so that the reader never prefers an older
          // record.
          long recordedAtMs =
              Math.max(System.currentTimeMillis(), held == null ? 0L : held.recordedAtMs() + 1);
          recordedAt.put(w, recordedAtMs);
          return clients.signed(
              StateTopicClients.partitionOf(w.key(), partitions),
              SourceEpochCodec.key(w.key()),
              SourceEpochCodec.value(
                  w.dataTopic(), w.leaderEpoch(), brokerId, w.history(), recordedAtMs));
        },
        SourceEpochWrite::toString,
        w ->
            tables.putSourceEpochs(
                w.key(), new WrittenHistory(w.leaderEpoch(), recordedAt.get(w), w.history())));
  }

  /**
   * Sends the record of every item (acks=all), then awaits each acknowledgement within one
   * deadline: one round trip for many partitions instead of one each. Each item succeeds or fails
   * alone; {@code acknowledged} runs for each acknowledged one, in order.
   *
   * @param record the item's record, given the state topic's partition count
   * @param what the item as error messages name it
   * @return the items not acknowledged within {@code timeoutMs}, each with why; empty when all were
   */
  private <T> Map<T, StopStateUnavailableException> sendAllThenAwait(
      List<T> items,
      long timeoutMs,
      java.util.function.BiFunction<T, Integer, ProducerRecord<byte[], byte[]>> record,
      java.util.function.Function<T, String> what,
      java.util.function.Consumer<T> acknowledged) {
    Map<T, StopStateUnavailableException> failed = new LinkedHashMap<>();
    KafkaProducer<byte[], byte[]> p = clients.producer();
    int partitions = clients.partitionCount();
    if (p == null || partitions < 1) {
      StopStateUnavailableException notOpen = notOpen();
      items.forEach(item -> failed.put(item, notOpen));
      return failed;
    }
    Map<T, Future<RecordMetadata>> sent = new LinkedHashMap<>();
    for (T item : items) {
      try {
        sent.put(item, p.send(record.apply(item, partitions)));
      } catch (IllegalStateException e) {
        failed.put(
            item,
            new StopStateUnavailableException(
                "cannot record " + what.apply(item) + ": " + e.getMessage()));
      } catch (RuntimeException e) {
        failed.put(
            item,
            new StopStateUnavailableException(
                "writing " + what.apply(item) + " to " + topic + " failed: " + e));
      }
    }
    long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(timeoutMs);
    for (Map.Entry<T, Future<RecordMetadata>> e : sent.entrySet()) {
      StopStateUnavailableException why = await(e.getValue(), deadline, what.apply(e.getKey()));
      if (why != null) {
        failed.put(e.getKey(), why);
      } else {
        acknowledged.accept(e.getKey());
      }
    }
    return failed;
  }

  /**
   * Waits until {@code deadline} for the acknowledgement of a write of {@code what}: null once it
   * is acknowledged, else why not.
   */
  private StopStateUnavailableException await(
      Future<RecordMetadata> ack, long deadline, String what) {
    try {
      long leftMs = Math.max(1L, TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime()));
      ack.get(leftMs, TimeUnit.MILLISECONDS);
      return null;
    } catch (ExecutionException | TimeoutException e) {
      return new StopStateUnavailableException(
          "writing " + what + " to " + topic + " failed: " + e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return new StopStateUnavailableException("interrupted while writing " + what);
    }
  }

  private StopStateUnavailableException notOpen() {
    Optional<String> lastError = reader.lastError();
    return new StopStateUnavailableException(
        "the stop-state topic "
            + topic
            + " is not open yet"
            + lastError.map(error -> ": " + error).orElse(""));
  }

  /** See {@link StopStateStore#writeHolderAsync}. */
  void writeHolderAsync(MirrorMembership m) {
    KafkaProducer<byte[], byte[]> p = clients.producer();
    int partitions = clients.partitionCount();
    if (p == null || partitions < 1) {
      return;
    }
    ProducerRecord<byte[], byte[]> record;
    try {
      record =
          clients.signed(
              StateTopicClients.partitionOf(m.stopStateKey(), partitions),
              MembershipCodec.holderKey(m, brokerId),
              MembershipCodec.holderValue(m, System.currentTimeMillis()));
    } catch (IllegalStateException e) {
      LOG.error("cannot record that broker {} holds {}: {}", brokerId, m, e.getMessage());
      return;
    }
    p.send(
        record,
        (metadata, error) -> {
          if (error == null) {
            tables.membership().applyHolder(m.topicId(), m.partition(), brokerId);
          } else {
            LOG.warn("recording that broker {} holds {} failed: {}", brokerId, m, error.toString());
          }
        });
  }
}
