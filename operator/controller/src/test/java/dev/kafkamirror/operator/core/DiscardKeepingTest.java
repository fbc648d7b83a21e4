package dev.kafkamirror.operator.core;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

/**
 * keepDiscarded: a failback copies exactly the committed records of a partition's discarded range
 * into its side partition, each with its origin in headers, and a copy interrupted at any point
 * resumes from the side partition's tail without losing or repeating a record.
 */
class DiscardKeepingTest {

  private static final PartitionKey KEY = new PartitionKey("orders", 1);
  private static final String FAILBACK = "ns/b-to-a/uid-1";
  private static final String SIDE = "orders.cmo-discarded";

  /**
   * Partition 1's log as a read_committed reader sees it: committed records at 20, 21, 23, 24, 26,
   * 27 (22 and 25 are an aborted record and a transaction marker), the range [20, 28).
   */
  private static final DiscardKeeping.Range RANGE = new DiscardKeeping.Range(20, 28);

  private static final long[] COMMITTED = {20, 21, 23, 24, 26, 27};

  /** Reads at most {@code perRead} records from the position; skips what is not committed. */
  private static final class FakeSource implements DiscardKeeping.Source {
    final TreeMap<Long, DiscardKeeping.Original> log = new TreeMap<>();
    final int perRead;
    long stuckAt = Long.MAX_VALUE;

    FakeSource(int perRead) {
      this.perRead = perRead;
      for (long o : COMMITTED) {
        log.put(
            o,
            new DiscardKeeping.Original(
                o,
                1_000L + o,
                "CreateTime",
                7,
                bytes("k" + o),
                bytes("v" + o),
                List.of(new DiscardKeeping.Header("app", bytes("h" + o)))));
      }
      // beyond the range: written later, never copied by this range
      log.put(
          30L,
          new DiscardKeeping.Original(30, 1_030L, "CreateTime", 7, null, bytes("v30"), List.of()));
    }

    @Override
    public DiscardKeeping.Read read(long position) {
      if (position >= stuckAt) {
        return new DiscardKeeping.Read(List.of(), position);
      }
      List<DiscardKeeping.Original> out = new ArrayList<>();
      long next = position;
      for (var e : log.tailMap(position, true).entrySet()) {
        if (out.size() == perRead || e.getKey() >= stuckAt) {
          break;
        }
        out.add(e.getValue());
        next = e.getKey() + 1;
      }
      if (out.isEmpty()) {
        next = Math.min(stuckAt, 31);
      }
      return new DiscardKeeping.Read(out, next);
    }
  }

  /** An in-memory side partition; may fail after appending the first N records of a call. */
  private static final class FakeSide implements DiscardKeeping.Side {
    final List<DiscardKeeping.SideRecord> records = new ArrayList<>();
    int failAfter = -1;

    @Override
    public List<DiscardKeeping.Header> lastRecordHeaders() {
      return records.isEmpty() ? null : records.get(records.size() - 1).headers();
    }

    @Override
    public void append(List<DiscardKeeping.SideRecord> batch) throws DiscardKeeping.KeepException {
      for (DiscardKeeping.SideRecord r : batch) {
        if (failAfter == 0) {
          failAfter = -1;
          throw new DiscardKeeping.KeepException("NOT_ENOUGH_REPLICAS (operator crash)", null);
        }
        if (failAfter > 0) {
          failAfter--;
        }
        records.add(r);
      }
    }
  }

  @Test
  void aCopyHoldsExactlyTheCommittedRecordsOfTheRangeWithTheirOriginInHeaders() {
    // Given the discarded range of orders-1 and an empty side partition
    FakeSource source = new FakeSource(4);
    FakeSide side = new FakeSide();

    // When it is copied
    DiscardKeeping.Outcome out = DiscardKeeping.copy(FAILBACK, KEY, RANGE, SIDE, source, side, 3);

    // Then the copy is complete and holds each committed record once, in order, with its key,
    // value, timestamp and headers, and headers naming the failback, topic, partition and offset
    assertThat(out.problem()).isNull();
    assertThat(out.complete(RANGE)).isTrue();
    assertThat(out.copiedThrough()).isEqualTo(28);
    assertThat(out.copiedRecords()).isEqualTo(COMMITTED.length);
    assertThat(offsets(side)).containsExactly(20L, 21L, 23L, 24L, 26L, 27L);
    DiscardKeeping.SideRecord first = side.records.get(0);
    assertThat(text(first.key())).isEqualTo("k20");
    assertThat(text(first.value())).isEqualTo("v20");
    assertThat(first.timestamp()).isEqualTo(1_020L);
    Map<String, String> h = headers(first);
    assertThat(h)
        .containsEntry("app", "h20")
        .containsEntry(DiscardKeeping.HEADER_FAILBACK, FAILBACK)
        .containsEntry(DiscardKeeping.HEADER_TOPIC, "orders")
        .containsEntry(DiscardKeeping.HEADER_PARTITION, "1")
        .containsEntry(DiscardKeeping.HEADER_OFFSET, "20")
        .containsEntry(DiscardKeeping.HEADER_TIMESTAMP_TYPE, "CreateTime")
        .containsEntry(DiscardKeeping.HEADER_LEADER_EPOCH, "7")
        .containsEntry(DiscardKeeping.HEADER_SEQUENCE, "0");
  }

  @Test
  void aCopyInterruptedMidwayResumesFromTheSideTailWithoutLossOrDuplicates() {
    // Given a copy that dies after appending 3 records (the 4th write fails, as an operator crash
    // would end it), reads of 2 records each
    FakeSource source = new FakeSource(2);
    FakeSide side = new FakeSide();
    side.failAfter = 3;
    DiscardKeeping.Outcome broken =
        DiscardKeeping.copy(FAILBACK, KEY, RANGE, SIDE, source, side, 3);
    assertThat(broken.complete(RANGE)).isFalse();
    assertThat(broken.problem()).contains("orders-1", SIDE, "nothing is truncated");
    assertThat(side.records).hasSize(3);

    // When a new copy (nothing persisted: the status never saw the first) runs on the same side
    DiscardKeeping.Outcome resumed =
        DiscardKeeping.copy(FAILBACK, KEY, RANGE, SIDE, source, side, 3);

    // Then every committed record is in the side partition exactly once, in order, with sequence
    // numbers 0..5, and the count is the whole copy's
    assertThat(resumed.complete(RANGE)).isTrue();
    assertThat(resumed.copiedRecords()).isEqualTo(COMMITTED.length);
    assertThat(offsets(side)).containsExactly(20L, 21L, 23L, 24L, 26L, 27L);
    assertThat(side.records)
        .extracting(r -> headers(r).get(DiscardKeeping.HEADER_SEQUENCE))
        .containsExactly("0", "1", "2", "3", "4", "5");

    // And a copy repeated after completion appends nothing
    DiscardKeeping.Outcome again = DiscardKeeping.copy(FAILBACK, KEY, RANGE, SIDE, source, side, 3);
    assertThat(again.complete(RANGE)).isTrue();
    assertThat(again.copiedRecords()).isEqualTo(COMMITTED.length);
    assertThat(side.records).hasSize(COMMITTED.length);
  }

  @Test
  void anotherFailbacksRecordsAtTheSideTailDoNotMoveTheResumePoint() {
    // Given a side partition whose last record is an earlier failback's copy of offset 25
    FakeSide side = new FakeSide();
    side.records.add(
        DiscardKeeping.sideRecord(new FakeSource(1).log.get(24L), "ns/older/uid-0", KEY, 41));

    // When this failback copies
    DiscardKeeping.Outcome out =
        DiscardKeeping.copy(FAILBACK, KEY, RANGE, SIDE, new FakeSource(10), side, 3);

    // Then it copies its whole range, counted from 0, after the older record
    assertThat(out.copiedRecords()).isEqualTo(COMMITTED.length);
    assertThat(offsets(side)).containsExactly(24L, 20L, 21L, 23L, 24L, 26L, 27L);
    assertThat(DiscardKeeping.resume(side.lastRecordHeaders(), "ns/other/uid-2", KEY, RANGE))
        .isEqualTo(new DiscardKeeping.Resume(20, 0));
    assertThat(
            DiscardKeeping.resume(
                side.lastRecordHeaders(), FAILBACK, new PartitionKey("orders", 0), RANGE))
        .isEqualTo(new DiscardKeeping.Resume(20, 0));
  }

  @Test
  void anOpenTransactionHoldsTheCopyUnfinishedAndUncountedAsComplete() {
    // Given read_committed stops at 23 (an open transaction there)
    FakeSource source = new FakeSource(10);
    source.stuckAt = 23;
    FakeSide side = new FakeSide();

    // When it is copied
    DiscardKeeping.Outcome out = DiscardKeeping.copy(FAILBACK, KEY, RANGE, SIDE, source, side, 3);

    // Then what is committed below it is copied, the copy is not complete, and it is no failure
    assertThat(offsets(side)).containsExactly(20L, 21L);
    assertThat(out.copiedThrough()).isEqualTo(23);
    assertThat(out.complete(RANGE)).isFalse();
    assertThat(out.problem()).isNull();
  }

  @Test
  void onlyPartitionsWithDiscardsAndNoPersistedCompleteCopyAreCopiedBeforeTheTruncation() {
    PartitionKey p0 = new PartitionKey("orders", 0);
    PartitionKey p1 = new PartitionKey("orders", 1);
    PartitionKey p2 = new PartitionKey("orders", 2);
    PartitionKey p3 = new PartitionKey("orders", 3);
    Map<PartitionKey, DiscardKeeping.Range> ranges =
        Map.of(
            p0, new DiscardKeeping.Range(10, 10), // nothing discarded
            p1, new DiscardKeeping.Range(10, 15), // copy persisted through 15
            p2, new DiscardKeeping.Range(10, 18), // copy persisted through 15 only (log grew)
            p3, new DiscardKeeping.Range(10, 12)); // never copied
    assertThat(DiscardKeeping.toCopy(List.of(p3, p2, p1, p0), ranges, Map.of(p1, 15L, p2, 15L)))
        .containsExactly(p2, p3);
    assertThat(
            DiscardKeeping.toCopy(
                List.of(p0, p1, p2, p3), ranges, Map.of(p1, 15L, p2, 18L, p3, 12L)))
        .isEmpty();
  }

  @Test
  void aTruncationBeyondTheCopyIsNamedAsDiscardedWithoutBeingKept() {
    assertThat(DiscardKeeping.uncopied(SIDE, 28L, 28L)).isNull();
    assertThat(DiscardKeeping.uncopied(SIDE, 28L, 31L))
        .isEqualTo(
            "offsets 28..30 were written after the copy to "
                + SIDE
                + " and discarded without being kept");
  }

  @Test
  void aSideTopicNameKafkaCannotHoldIsRefusedWithWhatToDo() {
    String side = DiscardKeeping.sideTopic("t".repeat(240), ".cmo-discarded");
    assertThat(DiscardKeeping.sideTopicProblem(KEY, side))
        .contains("249", "topicSuffix", "nothing is truncated");
    assertThat(DiscardKeeping.sideTopicProblem(KEY, SIDE)).isNull();
  }

  private static List<Long> offsets(FakeSide side) {
    return side.records.stream()
        .map(r -> Long.parseLong(headers(r).get(DiscardKeeping.HEADER_OFFSET)))
        .toList();
  }

  private static Map<String, String> headers(DiscardKeeping.SideRecord r) {
    Map<String, String> out = new TreeMap<>();
    r.headers().forEach(h -> out.put(h.key(), text(h.value())));
    return out;
  }

  private static byte[] bytes(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }

  private static String text(byte[] b) {
    return b == null ? null : new String(b, StandardCharsets.UTF_8);
  }
}
