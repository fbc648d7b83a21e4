package dev.kafkamirror.broker.agent.kafka4_4.stop;

import dev.kafkamirror.broker.agent.kafka4_4.stop.StopStateStore.WriteOutcome;
import dev.kafkamirror.broker.agent.kafka4_4.stop.StopStateTables.WrittenHistory;
import dev.kafkamirror.broker.core.mirror.SourceEpochHistory;
import dev.kafkamirror.broker.core.stop.FencedStopStateException;
import dev.kafkamirror.broker.core.stop.MirrorMembership;
import dev.kafkamirror.broker.core.stop.StopState;
import dev.kafkamirror.broker.core.stop.StopStateKey;
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

  /** See {@link StopStateStore#writeMembership}. */
  void writeMembership(MirrorMembership m, long timeoutMs) throws StopStateUnavailableException {
    KafkaProducer<byte[], byte[]> p = clients.producer();
    int partitions = clients.partitionCount();
    if (p == null || partitions < 1) {
      Optional<String> lastError = reader.lastError();
      throw new StopStateUnavailableException(
          "the stop-state topic "
              + topic
              + " is not open yet"
              + lastError.map(error -> ": " + error).orElse(""));
    }
    try {
      p.send(
              clients.signed(
                  StateTopicClients.partitionOf(m.stopStateKey(), partitions),
                  MembershipCodec.memberKey(m),
                  MembershipCodec.memberValue(m)))
          .get(timeoutMs, TimeUnit.MILLISECONDS);
    } catch (IllegalStateException e) {
      throw new StopStateUnavailableException(
          "cannot record the mirror membership of " + m + ": " + e.getMessage());
    } catch (ExecutionException | TimeoutException e) {
      throw new StopStateUnavailableException(
          "writing the mirror membership of " + m + " to " + topic + " failed: " + e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new StopStateUnavailableException("interrupted while writing the membership of " + m);
    }
    tables.membership().apply(m).ifPresent(why -> LOG.error("{}", why));
  }

  /** See {@link StopStateStore#writeSourceEpochs}. */
  void writeSourceEpochs(
      StopStateKey key,
      String dataTopic,
      int leaderEpoch,
      SourceEpochHistory history,
      long timeoutMs)
      throws StopStateUnavailableException {
    KafkaProducer<byte[], byte[]> p = clients.producer();
    int partitions = clients.partitionCount();
    if (p == null || partitions < 1) {
      Optional<String> lastError = reader.lastError();
      throw new StopStateUnavailableException(
          "the stop-state topic "
              + topic
              + " is not open yet"
              + lastError.map(error -> ": " + error).orElse(""));
    }
    String what = "the source epochs " + history.entries() + " of " + dataTopic + " (" + key + ")";
    WrittenHistory held = tables.heldSourceEpochs(key);
    // Strictly later than what this broker holds, so that the reader never prefers an older record.
    long recordedAtMs =
        Math.max(System.currentTimeMillis(), held == null ? 0L : held.recordedAtMs() + 1);
    try {
      p.send(
              clients.signed(
                  StateTopicClients.partitionOf(key, partitions),
                  SourceEpochCodec.key(key),
                  SourceEpochCodec.value(dataTopic, leaderEpoch, brokerId, history, recordedAtMs)))
          .get(timeoutMs, TimeUnit.MILLISECONDS);
    } catch (IllegalStateException e) {
      throw new StopStateUnavailableException("cannot record " + what + ": " + e.getMessage());
    } catch (ExecutionException | TimeoutException e) {
      throw new StopStateUnavailableException("writing " + what + " to " + topic + " failed: " + e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new StopStateUnavailableException("interrupted while writing " + what);
    }
    tables.putSourceEpochs(key, new WrittenHistory(leaderEpoch, recordedAtMs, history));
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
