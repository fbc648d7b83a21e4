package dev.kafkamirror.broker.agent.kafka4_4.mirror;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Map;
import org.junit.jupiter.api.Test;

class MirrorEntryLagTest {

  @Test
  void secondsBehindCountFromTheFirstFetchThatFoundThePartitionBehindAfterItWasCaughtUp() {
    // Given a mirror that caught up with its source at offset 15
    MirrorEntry entry = new MirrorEntry("a-to-b", MirrorState.MIRRORING);
    entry.sourceOffsets(15, 0);
    entry.observedLogEnd(15, 1_000);
    assertThat(entry.behindForMs(5_000)).isZero();

    // When the source moves on to 20 and a fetch at t=10 s finds the local log still at 15
    entry.sourceOffsets(20, 0);
    entry.observedLogEnd(15, 10_000);
    entry.observedLogEnd(17, 12_000);

    // Then it has been behind since 10 s, whatever it appended meanwhile
    assertThat(entry.behindForMs(14_000)).isEqualTo(4_000L);

    // And once a fetch finds it caught up again, it is not behind
    entry.observedLogEnd(20, 15_000);
    assertThat(entry.behindForMs(20_000)).isZero();
  }

  @Test
  void fetchesAndBytesAddUpPerPartition() {
    // Given a mirror partition
    MirrorEntry entry = new MirrorEntry("a-to-b", MirrorState.MIRRORING);

    // When two fetch answers arrive, one empty
    entry.fetched(1_000);
    entry.fetched(0);

    // Then both count as fetches and the bytes are summed
    assertThat(entry.fetches()).isEqualTo(2L);
    assertThat(entry.fetchedBytes()).isEqualTo(1_000L);
  }

  @Test
  void lagIsTheSourceHighWatermarkMinusTheLocalLogEnd() {
    MirrorEntry entry = new MirrorEntry("a-to-b", MirrorState.MIRRORING);
    entry.sourceOffsets(15, 0);
    Map<String, Object> d = entry.describe(10, true);
    assertThat(d.get("lagRecords")).isEqualTo(5L);
    assertThat(d).doesNotContainKey("lastError");
  }

  @Test
  void aLocalLogBeyondTheSourceIsAnErrorNotLagZero() {
    // Given a mirror leader whose log ends past the source's high watermark (a foreign marker)
    MirrorEntry entry = new MirrorEntry("a-to-b", MirrorState.MIRRORING);
    entry.sourceOffsets(10, 0);
    // When described
    Map<String, Object> d = entry.describe(11, true);
    // Then the lag is unknown and the error says why
    assertThat(d.get("lagRecords")).isEqualTo(-1L);
    assertThat((String) d.get("lastError"))
        .contains("local log ends at offset 11, beyond the source's high watermark 10");
  }

  @Test
  void aFollowerOrAStoppedMirrorBeyondTheSourceIsNotAnError() {
    MirrorEntry follower = new MirrorEntry("a-to-b", MirrorState.MIRRORING);
    follower.sourceOffsets(10, 0);
    assertThat(follower.describe(20, false)).doesNotContainKey("lastError");
    assertThat(follower.describe(20, false).get("lagRecords")).isEqualTo(-1L);
    MirrorEntry stopped = new MirrorEntry("a-to-b", MirrorState.STOPPED);
    stopped.sourceOffsets(10, 0);
    assertThat(stopped.describe(11, true)).doesNotContainKey("lastError");
  }

  @Test
  void aHaltedMirrorIsFailedWithItsReasonNeverMirroringAndNeverLagZero() {
    // Given a mirror leader caught up to 50 whose source topic was created again
    MirrorEntry entry = new MirrorEntry("a-to-b", MirrorState.MIRRORING);
    entry.sourceOffsets(50, 0);
    entry.fail("SourceTopicRecreated", "orders-0: topic id NEW, but mirrors OLD", "DST");
    // When described
    Map<String, Object> d = entry.describe(50, true);
    // Then FAILED with the reason, the registration's state and the message; lag not 0
    assertThat(d.get("state")).isEqualTo("FAILED");
    assertThat(d.get("failedReason")).isEqualTo("SourceTopicRecreated");
    assertThat(d.get("registeredState")).isEqualTo("MIRRORING");
    assertThat((String) d.get("lastError")).contains("NEW", "OLD");
    assertThat(d.get("lagRecords")).isEqualTo(-1L);
    // And a halted mirror behind its source shows the records it misses
    entry.sourceOffsets(100, 80);
    assertThat(entry.describe(50, true).get("lagRecords")).isEqualTo(50L);
    // And the failure belongs to that destination topic: a new one (another id) starts afresh
    assertThat(entry.failedReasonFor("DST")).isEqualTo("SourceTopicRecreated");
    assertThat(entry.failedReasonFor("DST-2")).isNull();
    assertThat(entry.describe(50, true).get("state")).isEqualTo("MIRRORING");
  }

  @Test
  void theSourceTopicIdBelongsToTheDestinationTopicItWasRecordedFor() {
    MirrorEntry entry = new MirrorEntry("a-to-b", MirrorState.MIRRORING);
    assertThat(entry.sourceTopicIdFor("DST")).isNull();
    entry.pinSourceTopicId("SRC", "DST");
    assertThat(entry.sourceTopicIdFor("DST")).isEqualTo("SRC");
    assertThat(entry.sourceTopicIdFor("DST-2")).isNull();
    assertThat(entry.describe(0, true).get("sourceTopicId")).isEqualTo("SRC");
  }

  @Test
  void anUnknownSourceIsUnknownLag() {
    MirrorEntry entry = new MirrorEntry("a-to-b", MirrorState.MIRRORING);
    assertThat(entry.describe(0, true).get("lagRecords")).isEqualTo(-1L);
  }

  @Test
  void aFailedMirrorIsFailedWithItsReasonAndNeverLagZero() {
    // Given a caught-up mirror (lag 0) whose source then diverged
    MirrorEntry entry = new MirrorEntry("a-to-b", MirrorState.MIRRORING);
    entry.sourceOffsets(150, 0);
    assertThat(entry.describe(150, true).get("lagRecords")).isEqualTo(0L);
    entry.fail("SourceDiverged", "t-0 (mirror a-to-b): the source diverged at offset 100", "id");
    // When described
    Map<String, Object> d = entry.describe(150, true);
    // Then it is FAILED, with the reason and the message, and the lag is unknown
    assertThat(d.get("state")).isEqualTo("FAILED");
    assertThat(d.get("registeredState")).isEqualTo("MIRRORING");
    assertThat(d.get("failedReason")).isEqualTo("SourceDiverged");
    assertThat((String) d.get("lastError")).contains("diverged at offset 100");
    assertThat(d.get("lagRecords")).isEqualTo(-1L);
  }

  @Test
  void aSourceSilentForLongerThanTheBoundIsUnknownLagNotZero() {
    // Given a caught-up mirror whose source stopped answering
    MirrorEntry entry = new MirrorEntry("a-to-b", MirrorState.MIRRORING);
    entry.sourceOffsets(20, 0);
    long answeredAt = System.currentTimeMillis();
    // When described within the bound, and after it
    Map<String, Object> fresh = entry.describe(20, true, answeredAt + 1_000);
    Map<String, Object> stale =
        entry.describe(20, true, answeredAt + MirrorEntry.SOURCE_SILENCE_MS + 5_000);
    // Then only the fresh answer counts as lag 0
    assertThat(fresh.get("lagRecords")).isEqualTo(0L);
    assertThat(stale.get("lagRecords")).isEqualTo(-1L);
    assertThat((String) stale.get("lastError"))
        .startsWith("no answer from the source")
        // a caught-up log is not "ahead of the source" because the lag became unknown
        .doesNotContain("beyond the source's high watermark");
    // And since when is a field of its own: the last answer's instant, absent while it answers
    assertThat(fresh).doesNotContainKey("sourceSilentSince");
    assertThat(java.time.Instant.parse((String) stale.get("sourceSilentSince")).toEpochMilli())
        .isBetween(answeredAt - 5_000, answeredAt);
    // And the words stay the same while the silence goes on (no status change per describe)
    assertThat(
            entry
                .describe(20, true, answeredAt + MirrorEntry.SOURCE_SILENCE_MS + 65_000)
                .get("lastError"))
        .isEqualTo(stale.get("lastError"));
  }

  @Test
  void aLeaderThatNeverHadAnAnswerFromTheSourceSaysSoAndWhyOnceTheSilenceIsLong() {
    // Given a MIRRORING leader registered now, whose fetches never got an answer, with the reason
    // the fetcher last recorded
    MirrorEntry entry = new MirrorEntry("a-to-b", MirrorState.MIRRORING);
    entry.error("no leader for orders-3 on source a");
    long registered = System.currentTimeMillis();

    // When described within the silence bound, Then only the recorded reason is reported
    assertThat(entry.describe(0, true, registered + 1_000).get("lastError"))
        .isEqualTo("no leader for orders-3 on source a");

    // When described after more than the bound without any answer
    Object error =
        entry
            .describe(0, true, registered + MirrorEntry.SOURCE_SILENCE_MS + 5_000)
            .get("lastError");

    // Then the silence since the registration is reported with the recorded reason, lag unknown,
    // in words that do not change from one describe to the next
    assertThat(error)
        .isEqualTo(
            entry
                .describe(0, true, registered + MirrorEntry.SOURCE_SILENCE_MS + 65_000)
                .get("lastError"));
    assertThat(String.valueOf(error))
        .startsWith("no answer from the source since this registration ")
        .contains(" s); lag unknown")
        .endsWith("; no leader for orders-3 on source a");
    assertThat(entry.describe(0, true, registered + MirrorEntry.SOURCE_SILENCE_MS + 5_000))
        .containsEntry("lagRecords", -1L);

    // And since when is the registration's instant, in a field of its own
    String since =
        (String)
            entry
                .describe(0, true, registered + MirrorEntry.SOURCE_SILENCE_MS + 5_000)
                .get("sourceSilentSince");
    assertThat(java.time.Instant.parse(since).toEpochMilli())
        .isBetween(registered - 5_000, registered);
    // And a follower (which never fetches) reports no silence
    assertThat(
            entry
                .describe(0, false, registered + MirrorEntry.SOURCE_SILENCE_MS + 5_000)
                .get("lastError"))
        .isEqualTo("no leader for orders-3 on source a");
  }

  @Test
  void aNeverAnsweredLeaderWithoutARecordedReasonSaysThatNoneWasRecorded() {
    MirrorEntry entry = new MirrorEntry("a-to-b", MirrorState.MIRRORING);
    long registered = System.currentTimeMillis();
    Object error =
        entry
            .describe(0, true, registered + MirrorEntry.SOURCE_SILENCE_MS + 5_000)
            .get("lastError");
    assertThat(String.valueOf(error))
        .startsWith("no answer from the source since this registration ")
        .endsWith("the fetcher recorded no reason (see the broker's log)");
  }

  @Test
  void anAnswerWithoutErrorEndsTheErrorReportedBeforeItEvenWhenNothingIsAppended() {
    // Given an idle mirror (nothing to append) whose source leader moved once
    MirrorEntry entry = new MirrorEntry("a-to-b", MirrorState.MIRRORING);
    entry.sourceOffsets(20, 0);
    entry.error("orders-0 on source a: NOT_LEADER_OR_FOLLOWER");
    assertThat(entry.describe(20, true).get("lastError"))
        .isEqualTo("orders-0 on source a: NOT_LEADER_OR_FOLLOWER");

    // When the new source leader answers without an error and without records
    entry.answeredWithoutError(20, 0);

    // Then no error is reported, and the offsets are the answer's
    assertThat(entry.describe(20, true))
        .doesNotContainKey("lastError")
        .containsEntry("lagRecords", 0L);
  }
}
