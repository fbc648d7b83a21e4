package dev.kafkamirror.operator.core;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;

/**
 * {@code spec.failback.keepDiscarded}: what a failback copies into a side topic before it truncates
 * a partition, and how an interrupted copy resumes. Pure: the partition's records and the side
 * partition come in through {@link Source} and {@link Side}, which the executor implements with
 * Kafka clients (tests with fakes).
 *
 * <p>Which records: the committed ones of the discarded range {@code [from, to)}, read with {@code
 * read_committed}; aborted records and transaction markers are not copied, and an open transaction
 * in the range holds the copy (and so the truncation) until it commits or aborts.
 *
 * <p>Resume: each copied record carries headers naming the failback, the original topic, partition
 * and offset, and its sequence number in this copy. The copy starts after the original offset named
 * by the side partition's last record when that record is this failback's copy of this partition;
 * otherwise at {@code from} with sequence 0. The side partition is the truth, so a copy interrupted
 * after any append resumes without losing or repeating records, and its record count is the last
 * sequence number plus one.
 */
public final class DiscardKeeping {

  /** Headers each copied record gains (UTF-8 text values). */
  public static final String HEADER_FAILBACK = "cmo.discarded.failback";

  public static final String HEADER_TOPIC = "cmo.discarded.topic";
  public static final String HEADER_PARTITION = "cmo.discarded.partition";
  public static final String HEADER_OFFSET = "cmo.discarded.offset";
  public static final String HEADER_TIMESTAMP_TYPE = "cmo.discarded.timestamp.type";
  public static final String HEADER_LEADER_EPOCH = "cmo.discarded.leader.epoch";
  public static final String HEADER_SEQUENCE = "cmo.discarded.sequence";

  /** Kafka's limit on a topic name's length. */
  static final int MAX_TOPIC_NAME = 249;

  private DiscardKeeping() {}

  /** One record header. */
  public record Header(String key, byte[] value) {
    static Header text(String key, Object value) {
      return new Header(key, String.valueOf(value).getBytes(StandardCharsets.UTF_8));
    }

    String text() {
      return value == null ? null : new String(value, StandardCharsets.UTF_8);
    }
  }

  /** A committed record of the discarded range as read from the partition. */
  public record Original(
      long offset,
      long timestamp,
      String timestampType,
      Integer leaderEpoch,
      byte[] key,
      byte[] value,
      List<Header> headers) {}

  /** What is appended to the side partition (same partition number as the original). */
  public record SideRecord(long timestamp, byte[] key, byte[] value, List<Header> headers) {}

  /**
   * One read of the partition.
   *
   * @param records committed records from the position on, in offset order
   * @param nextPosition where the next read starts (past aborted records and markers too)
   */
  public record Read(List<Original> records, long nextPosition) {}

  /** The partition being failed back, read with read_committed. */
  public interface Source {
    Read read(long position) throws KeepException;
  }

  /** The side partition. */
  public interface Side {
    /** The headers of the side partition's last record, or null when it holds none. */
    List<Header> lastRecordHeaders() throws KeepException;

    /** Appends in order; returns only once every record is acknowledged by all in-sync replicas. */
    void append(List<SideRecord> records) throws KeepException;
  }

  /** A read or write that failed; its message names what failed. */
  public static final class KeepException extends Exception {
    public KeepException(String message, Throwable cause) {
      super(message, cause);
    }
  }

  /** The discarded range of one partition, as its persisted planned report accounted for it. */
  public record Range(long from, long to) {
    public boolean empty() {
      return to <= from;
    }
  }

  /**
   * Where a copy stands.
   *
   * @param copiedThrough every committed record of the range below this offset is in the side
   *     partition (acknowledged)
   * @param copiedRecords records of this copy in the side partition
   * @param problem why the copy cannot go on (null: complete, or merely not finished in the time
   *     given)
   */
  public record Outcome(long copiedThrough, long copiedRecords, String problem) {
    public boolean complete(Range range) {
      return problem == null && copiedThrough >= range.to();
    }
  }

  /** Where a copy resumes. */
  public record Resume(long position, long nextSequence) {}

  /** The side topic of {@code topic}. */
  public static String sideTopic(String topic, String suffix) {
    return topic + suffix;
  }

  /** Why {@code sideTopic} cannot be used, or null. */
  public static String sideTopicProblem(PartitionKey key, String sideTopic) {
    if (sideTopic.length() > MAX_TOPIC_NAME) {
      return "cannot keep the records failback would discard from "
          + key
          + ": the side topic name "
          + sideTopic
          + " is longer than Kafka's "
          + MAX_TOPIC_NAME
          + " characters; set a shorter spec.failback.keepDiscarded.topicSuffix (nothing is"
          + " truncated meanwhile)";
    }
    return null;
  }

  /**
   * The partitions among {@code keys} to copy before the truncation: something to discard and no
   * persisted copy reaching the end of the range.
   */
  public static List<PartitionKey> toCopy(
      Collection<PartitionKey> keys,
      Map<PartitionKey, Range> ranges,
      Map<PartitionKey, Long> copiedThrough) {
    List<PartitionKey> out = new ArrayList<>();
    for (PartitionKey key : keys) {
      Range range = ranges.get(key);
      if (range == null) {
        // No persisted report: the truncation is not sent anyway (another dry run first).
        continue;
      }
      Long copied = copiedThrough.get(key);
      if (!range.empty() && (copied == null || copied < range.to())) {
        out.add(key);
      }
    }
    out.sort(null);
    return out;
  }

  /**
   * Where the copy of {@code key}'s range resumes, from the side partition's last record's headers
   * ({@code tail}, null when empty).
   */
  public static Resume resume(List<Header> tail, String failbackId, PartitionKey key, Range range) {
    if (tail == null) {
      return new Resume(range.from(), 0);
    }
    String failback = header(tail, HEADER_FAILBACK);
    String topic = header(tail, HEADER_TOPIC);
    Long partition = number(header(tail, HEADER_PARTITION));
    Long offset = number(header(tail, HEADER_OFFSET));
    Long sequence = number(header(tail, HEADER_SEQUENCE));
    if (failbackId.equals(failback)
        && key.topic().equals(topic)
        && partition != null
        && partition == key.partition()
        && offset != null
        && offset >= range.from()
        && sequence != null) {
      return new Resume(Math.max(offset + 1, range.from()), sequence + 1);
    }
    // Another failback's (or someone else's) records: this copy has not begun.
    return new Resume(range.from(), 0);
  }

  /** The side record of {@code original}: its key, value, timestamp and headers, plus ours. */
  public static SideRecord sideRecord(
      Original original, String failbackId, PartitionKey key, long sequence) {
    List<Header> headers = new ArrayList<>(original.headers());
    headers.add(Header.text(HEADER_FAILBACK, failbackId));
    headers.add(Header.text(HEADER_TOPIC, key.topic()));
    headers.add(Header.text(HEADER_PARTITION, key.partition()));
    headers.add(Header.text(HEADER_OFFSET, original.offset()));
    headers.add(Header.text(HEADER_TIMESTAMP_TYPE, original.timestampType()));
    if (original.leaderEpoch() != null) {
      headers.add(Header.text(HEADER_LEADER_EPOCH, original.leaderEpoch()));
    }
    headers.add(Header.text(HEADER_SEQUENCE, sequence));
    return new SideRecord(original.timestamp(), original.key(), original.value(), headers);
  }

  /**
   * Copies the committed records of {@code range} not yet in the side partition, resuming after its
   * last record of this copy.
   *
   * @param maxIdleReads reads that may return nothing without moving the position before the copy
   *     stops unfinished (an open transaction holds read_committed below its first offset)
   */
  public static Outcome copy(
      String failbackId,
      PartitionKey key,
      Range range,
      String sideTopic,
      Source source,
      Side side,
      int maxIdleReads) {
    Resume resume;
    try {
      resume = resume(side.lastRecordHeaders(), failbackId, key, range);
    } catch (KeepException e) {
      return new Outcome(
          range.from(), 0, cannot(key, sideTopic, "reading its last record", e.getMessage()));
    }
    long position = resume.position();
    long sequence = resume.nextSequence();
    int idle = 0;
    while (position < range.to()) {
      Read read;
      try {
        read = source.read(position);
      } catch (KeepException e) {
        return new Outcome(
            position, sequence, cannot(key, sideTopic, "reading " + key, e.getMessage()));
      }
      List<SideRecord> batch = new ArrayList<>();
      long next = sequence;
      for (Original o : read.records()) {
        if (o.offset() >= position && o.offset() < range.to()) {
          batch.add(sideRecord(o, failbackId, key, next++));
        }
      }
      if (!batch.isEmpty()) {
        try {
          side.append(batch);
        } catch (KeepException e) {
          // Some of the batch may be in the side partition: the next copy resumes from its tail.
          return new Outcome(
              position, sequence, cannot(key, sideTopic, "writing to it", e.getMessage()));
        }
      }
      long moved = Math.min(read.nextPosition(), range.to());
      if (batch.isEmpty() && moved <= position) {
        if (++idle >= maxIdleReads) {
          // Not a failure: an open transaction (or a slow read); the next reconcile resumes.
          return new Outcome(position, sequence, null);
        }
      } else {
        idle = 0;
      }
      sequence = next;
      position = Math.max(position, moved);
    }
    return new Outcome(range.to(), sequence, null);
  }

  /**
   * The note of a truncation that discarded offsets the copy did not cover (written to the log
   * between the copy and the truncation), or null.
   */
  public static String uncopied(String sideTopic, Long copiedThrough, Long discardedTo) {
    if (sideTopic == null || copiedThrough == null || discardedTo == null) {
      return null;
    }
    if (discardedTo <= copiedThrough) {
      return null;
    }
    return "offsets "
        + copiedThrough
        + ".."
        + (discardedTo - 1)
        + " were written after the copy to "
        + sideTopic
        + " and discarded without being kept";
  }

  private static String cannot(PartitionKey key, String sideTopic, String doing, String why) {
    return "cannot keep the records failback would discard from "
        + key
        + " in side topic "
        + sideTopic
        + " partition "
        + key.partition()
        + " ("
        + doing
        + ": "
        + why
        + "); nothing is truncated until the copy completes: check that the operator's"
        + " destination credentials may create and write "
        + sideTopic
        + " and read "
        + key.topic()
        + " (ACLs), or pre-create "
        + sideTopic
        + " with at least "
        + (key.partition() + 1)
        + " partitions; remove spec.failback.keepDiscarded to truncate without keeping";
  }

  private static String header(List<Header> headers, String key) {
    String out = null;
    for (Header h : headers) {
      if (key.equals(h.key())) {
        out = h.text();
      }
    }
    return out;
  }

  private static Long number(String text) {
    if (text == null) {
      return null;
    }
    try {
      return Long.parseLong(text);
    } catch (NumberFormatException e) {
      return null;
    }
  }
}
