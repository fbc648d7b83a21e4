package dev.kafkamirror.broker.agent.kafka4_4.stop;

import dev.kafkamirror.broker.core.mirror.SourceEpochHistory;
import dev.kafkamirror.broker.core.stop.FencedStopStateException;
import dev.kafkamirror.broker.core.stop.MembershipTable;
import dev.kafkamirror.broker.core.stop.StopState;
import dev.kafkamirror.broker.core.stop.StopStateKey;
import dev.kafkamirror.broker.core.stop.StopStateTable;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.header.Header;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What this broker has read of the stop-state topic: the stop states ({@link StopStateTable}), the
 * mirror memberships ({@link MembershipTable}), the source epoch histories of the mirror partitions
 * ({@link SourceEpochCodec}), and the count of records it refused to fold. Part of {@link
 * StopStateStore}.
 *
 * <p>Invariant: a record enters a table only if its MAC verifies ({@link StateRecordAuth}); a
 * record that does not verify, or cannot be decoded, is counted and logged and changes nothing
 * (fail closed).
 *
 * <p>Threading: the stop-state table is guarded by {@code this} (the reader folds records, writers
 * check and apply their acknowledged writes); the membership table and the source epoch histories
 * are lock-free; the counters are written by the reader thread only and read by anyone.
 */
final class StopStateTables {

  private static final Logger LOG =
      LoggerFactory.getLogger("dev.kafkamirror.broker.agent.StopStateStore");

  private final String topic;
  private final StopStateTable table = new StopStateTable();
  private final MembershipTable membership = new MembershipTable();
  private volatile long unreadableRecords;
  private volatile long unverifiedRecords;
  private volatile String lastUnverifiedRecord;

  /** The source epoch history of a partition and the destination leader epoch that wrote it. */
  record WrittenHistory(int leaderEpoch, long recordedAtMs, SourceEpochHistory history) {

    /**
     * Whether this record replaces {@code held}: a newer destination leader epoch, or the same one
     * (the same writer) and recorded later; a record the reader reaches after the writer's own
     * newer one never takes it back.
     */
    boolean replaces(WrittenHistory held) {
      return leaderEpoch > held.leaderEpoch
          || (leaderEpoch == held.leaderEpoch && recordedAtMs >= held.recordedAtMs);
    }
  }

  private final Map<StopStateKey, WrittenHistory> sourceEpochs = new ConcurrentHashMap<>();

  StopStateTables(String topic) {
    this.topic = topic;
  }

  /** The state that counts for {@code key}, as far as this broker has read. */
  synchronized Optional<StopState> get(StopStateKey key) {
    return table.get(key);
  }

  /**
   * Checks a write against the table (fencing, no step backwards).
   *
   * @return the leader epoch of the record {@code state} replaces, when that is an older epoch's (a
   *     tombstone of it then lets compaction drop it)
   * @throws FencedStopStateException when the write must not happen
   */
  synchronized Optional<Integer> checkWrite(StopState state) throws FencedStopStateException {
    table.checkWrite(state);
    return table
        .get(state.key())
        .filter(old -> old.leaderEpoch() < state.leaderEpoch())
        .map(StopState::leaderEpoch);
  }

  /** Folds a write of this broker's that the state topic acknowledged. */
  synchronized void applyAcknowledged(StopState state) {
    table.apply(state);
  }

  /** The cluster's mirror memberships and their holders. Lock-free for readers. */
  MembershipTable membership() {
    return membership;
  }

  /** The source epoch history of {@code key}'s partition held, or null. Lock-free. */
  WrittenHistory heldSourceEpochs(StopStateKey key) {
    return sourceEpochs.get(key);
  }

  /** Keeps {@code written} unless a destination leader of a newer epoch wrote the one held. */
  void putSourceEpochs(StopStateKey key, WrittenHistory written) {
    sourceEpochs.merge(key, written, (held, next) -> next.replaces(held) ? next : held);
  }

  long unreadableRecords() {
    return unreadableRecords;
  }

  long unverifiedRecords() {
    return unverifiedRecords;
  }

  Optional<String> lastUnverifiedRecord() {
    return Optional.ofNullable(lastUnverifiedRecord);
  }

  /** Folds one record read from the state topic (reader thread only). */
  void fold(ConsumerRecord<byte[], byte[]> r) {
    String where = r.topic() + "-" + r.partition() + "@" + r.offset();
    Header mac = r.headers().lastHeader(StateRecordAuth.HEADER);
    Optional<String> unverified =
        StateRecordAuth.configured()
            .map(
                a ->
                    a.check(
                        r.topic(),
                        r.partition(),
                        r.key(),
                        r.value(),
                        mac == null ? null : mac.value()))
            .orElseGet(() -> Optional.of(StateRecordAuth.unavailableReason()));
    if (unverified.isPresent()) {
      // Fail closed: a record that does not verify never enters the table, whatever it says.
      unverifiedRecords++;
      lastUnverifiedRecord = where + ": " + unverified.get();
      LOG.error(
          "ignoring stop-state record {}: it does not verify ({}); only the plugin writes {}, so"
              + " this is a forgery or a broker with another state secret",
          where,
          unverified.get(),
          topic);
      return;
    }
    String kind = MembershipCodec.kindOf(r.key());
    if (SourceEpochCodec.KIND.equals(kind)) {
      foldSourceEpochs(r.key(), r.value(), where);
      return;
    }
    if (kind != null) {
      foldMembership(r.key(), r.value(), where);
      return;
    }
    try {
      StopStateCodec.VersionedKey key = StopStateCodec.decodeKey(r.key(), where);
      synchronized (this) {
        if (r.value() == null) {
          table.applyTombstone(key.key(), key.leaderEpoch());
        } else {
          table.apply(StopStateCodec.decodeValue(key, r.value(), where));
        }
      }
    } catch (StopStateCodec.StopStateFormatException e) {
      unreadableRecords++;
      LOG.error("skipping an unreadable stop-state record: {}", e.getMessage());
    }
  }

  private void foldSourceEpochs(byte[] key, byte[] value, String where) {
    if (value == null) {
      // Histories are only ever replaced, never deleted.
      return;
    }
    try {
      SourceEpochCodec.Decoded d = SourceEpochCodec.decode(key, value, where);
      putSourceEpochs(d.key(), new WrittenHistory(d.leaderEpoch(), d.recordedAtMs(), d.history()));
    } catch (StopStateCodec.StopStateFormatException e) {
      unreadableRecords++;
      LOG.error("skipping an unreadable source-epoch record: {}", e.getMessage());
    }
  }

  private void foldMembership(byte[] key, byte[] value, String where) {
    if (value == null) {
      // Memberships are never deleted; a tombstone of one changes nothing.
      return;
    }
    try {
      MembershipCodec.Decoded d = MembershipCodec.decode(key, value, where);
      if (d.member() != null) {
        membership
            .apply(d.member())
            .ifPresent(why -> LOG.error("stop-state topic {}: {}", where, why));
      } else {
        membership.applyHolder(d.topicId(), d.partition(), d.holderBroker());
      }
    } catch (StopStateCodec.StopStateFormatException e) {
      unreadableRecords++;
      LOG.error("skipping an unreadable membership record: {}", e.getMessage());
    }
  }
}
