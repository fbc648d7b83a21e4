package dev.kafkamirror.broker.agent.kafka4_4.mirror;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@link MirrorRegistry#writingOnceAfter}: the registry file is written once at the end of a start
 * call or a fetcher round, not once per partition change. Pure: the registry writes a file in a
 * temporary directory and runs fake fetchers, so no broker and no source cluster are needed.
 */
class MirrorRegistryTest {

  private static final String MIRROR = "orders-mirror";
  private static final String SOURCE_ID = "SRCSRCSRCSRCSRCSRCSRC1";
  private static final List<TopicPartition> PARTITIONS =
      List.of(
          new TopicPartition("orders", 0),
          new TopicPartition("orders", 1),
          new TopicPartition("orders", 2));

  @TempDir Path dir;

  /** Each fetcher start: its source and how many rows the registry file held at that moment. */
  private final List<String> fetcherStarts = new ArrayList<>();

  private MirrorRegistryFile file;

  /** A registry writing {@link #file} in the temporary directory, with recording fetchers. */
  private MirrorRegistry registry() {
    file = new MirrorRegistryFile(dir);
    return new MirrorRegistry(file, (key, props, r) -> new RecordingFetcher(key, props));
  }

  private static Properties source() {
    Properties props = new Properties();
    props.put("bootstrap.servers", "source.example:9092");
    return props;
  }

  private List<MirrorRegistryFile.Row> rowsInFile() {
    try {
      return file.read();
    } catch (MirrorRegistryFile.UnreadableRegistryException e) {
      throw new AssertionError("the registry file " + file.path() + " is unreadable", e);
    }
  }

  @Test
  void aStartOfManyPartitionsWritesTheFileOnceAtItsEndAndStartsTheFetcherAfterThatWrite() {
    // Given a registry without a registry file yet
    MirrorRegistry registry = registry();

    // When one start call registers three partitions of one source
    List<Boolean> writtenDuringTheCall = new ArrayList<>();
    registry.writingOnceAfter(
        () -> {
          for (TopicPartition tp : PARTITIONS) {
            MirrorEntry entry = registry.startMirroring(tp, MIRROR, SOURCE_ID, source());
            // Then each registration is read-only at once, but neither durable nor fetched yet
            assertThat(registry.readOnlyReason(tp)).isPresent();
            assertThat(entry.durable()).isFalse();
            writtenDuringTheCall.add(file.path().toFile().exists());
          }
          assertThat(fetcherStarts).isEmpty();
          return null;
        });

    // Then the file was not written while the call registered partitions (a write per partition
    // would have created it at the first one)
    assertThat(writtenDuringTheCall).containsExactly(false, false, false);
    // And the call's end wrote it once, holding every registration, each now durable
    assertThat(rowsInFile()).extracting(MirrorRegistryFile.Row::partition).containsExactly(0, 1, 2);
    assertThat(registry.all().values()).allSatisfy(e -> assertThat(e.durable()).isTrue());
    // And the source's one fetcher started after that write, seeing all three rows
    assertThat(fetcherStarts).containsExactly(MIRROR + " saw 3 rows");
  }

  @Test
  void aFetcherRoundPinningManySourceTopicIdsWritesTheFileOnceAtItsEnd() {
    // Given three partitions registered and written, without a source topic id
    MirrorRegistry registry = registry();
    List<MirrorEntry> entries = new ArrayList<>();
    for (TopicPartition tp : PARTITIONS) {
      entries.add(registry.startMirroring(tp, MIRROR, SOURCE_ID, source()));
    }
    assertThat(rowsInFile()).extracting(MirrorRegistryFile.Row::sourceTopicId).containsOnlyNulls();

    // When one fetcher round pins the source topic id of each of them
    List<List<String>> fileDuringTheRound = new ArrayList<>();
    registry.writingOnceAfter(
        () -> {
          for (MirrorEntry entry : entries) {
            registry.pinSourceTopicId(entry, "SRC-TOPIC", "DST-TOPIC");
            fileDuringTheRound.add(
                rowsInFile().stream().map(MirrorRegistryFile.Row::sourceTopicId).toList());
          }
          return null;
        });

    // Then the file did not change during the round (a write per pin would show the first pin
    // after the first partition)
    List<String> unpinned = java.util.Arrays.asList(null, null, null);
    assertThat(fileDuringTheRound).containsExactly(unpinned, unpinned, unpinned);
    // And the round's end wrote every pin at once
    assertThat(rowsInFile())
        .extracting(MirrorRegistryFile.Row::sourceTopicId)
        .containsExactly("SRC-TOPIC", "SRC-TOPIC", "SRC-TOPIC");
  }

  @Test
  void aNestedScopeJoinsTheOuterOneSoTheFileIsWrittenOnlyWhenTheOuterEnds() {
    // Given a registry without a registry file yet
    MirrorRegistry registry = registry();

    // When a scope inside another registers a partition and ends
    boolean writtenAfterInner =
        registry.writingOnceAfter(
            () -> {
              registry.writingOnceAfter(
                  () -> registry.startMirroring(PARTITIONS.get(0), MIRROR, SOURCE_ID, source()));
              return file.path().toFile().exists();
            });

    // Then the inner scope's end wrote nothing and started no fetcher; the outer one's end did
    assertThat(writtenAfterInner).isFalse();
    assertThat(rowsInFile()).hasSize(1);
    assertThat(fetcherStarts).containsExactly(MIRROR + " saw 1 rows");
  }

  @Test
  void outsideAScopeEachRegistrationIsWrittenBeforeTheCallReturns() {
    // Given a registry without a registry file yet
    MirrorRegistry registry = registry();

    // When partitions are registered one by one, outside any scope
    List<Integer> rowsAfterEach = new ArrayList<>();
    for (TopicPartition tp : PARTITIONS) {
      registry.startMirroring(tp, MIRROR, SOURCE_ID, source());
      rowsAfterEach.add(rowsInFile().size());
    }

    // Then each call wrote the file before it returned, so each was durable when it answered
    assertThat(rowsAfterEach).containsExactly(1, 2, 3);
    // And the fetcher started after the first write, and was not started again
    assertThat(fetcherStarts).containsExactly(MIRROR + " saw 1 rows");
  }

  @Test
  void registrationsOfDeletedDestinationTopicsAreRemovedFromMemoryTheFileAndTheFetchers() {
    // Given three mirrored partitions of "orders" (topic id OLD), a STOPPED one of "audit" (topic
    // id AUDIT, deleted too) and one of "fresh" that never had its source topic id pinned
    MirrorRegistry registry = registry();
    for (TopicPartition tp : PARTITIONS) {
      MirrorEntry e = registry.startMirroring(tp, MIRROR, SOURCE_ID, source());
      registry.pinSourceTopicId(e, "SOURCE-ORDERS", "OLD");
    }
    TopicPartition audit = new TopicPartition("audit", 0);
    MirrorEntry auditEntry = registry.startMirroring(audit, "audit-mirror", SOURCE_ID, source());
    registry.pinSourceTopicId(auditEntry, "SOURCE-AUDIT", "AUDIT");
    registry.advanceTo(audit, MirrorState.STOPPED);
    TopicPartition fresh = new TopicPartition("fresh", 0);
    registry.startMirroring(fresh, "fresh-mirror", SOURCE_ID, source());
    long writesBefore = registry.fileWrites();

    // When the caught-up metadata holds neither OLD nor AUDIT: "orders" was created again (NEW,
    // hosted here for partition 0), "audit" is gone, and "fresh" has no topic at all
    Map<TopicPartition, String> hosted = Map.of(PARTITIONS.get(0), "NEW");
    int removed =
        DeletedDestinationTopics.removeAll(registry, metadata(true, Set.of("NEW"), hosted));

    // Then the four registrations of deleted topics are gone, in one write of the file
    assertThat(removed).isEqualTo(4);
    assertThat(registry.all().keySet()).containsExactly(fresh);
    assertThat(rowsInFile()).extracting(MirrorRegistryFile.Row::topic).containsExactly("fresh");
    assertThat(registry.fileWrites()).isEqualTo(writesBefore + 1);
    // And the fetchers of the two mirrors left without registrations are shut down, not the one of
    // the registration with no recorded destination topic id (kept: its topic is unknown)
    assertThat(fetcherStarts)
        .contains(MIRROR + " shut down", "audit-mirror shut down")
        .doesNotContain("fresh-mirror shut down");
  }

  @Test
  void noRegistrationIsRemovedWhileTheMetadataIsNotCaughtUpOrHoldsTheTopic() {
    // Given partitions of "orders" mirrored into the destination topic OLD
    MirrorRegistry registry = registry();
    for (TopicPartition tp : PARTITIONS) {
      MirrorEntry e = registry.startMirroring(tp, MIRROR, SOURCE_ID, source());
      registry.pinSourceTopicId(e, "SOURCE-ORDERS", "OLD");
    }

    // When the broker starts and its metadata shows no topic yet
    int whileStarting =
        DeletedDestinationTopics.removeAll(registry, metadata(false, Set.of(), Map.of()));
    // And when the caught-up metadata holds OLD (the topic lives, hosted here or elsewhere)
    int whileLive =
        DeletedDestinationTopics.removeAll(
            registry, metadata(true, Set.of("OLD"), Map.of(PARTITIONS.get(0), "OLD")));

    // Then every registration stays, in memory and in the file, and the fetcher runs on
    assertThat(whileStarting).isZero();
    assertThat(whileLive).isZero();
    assertThat(registry.all().keySet()).containsExactlyInAnyOrderElementsOf(PARTITIONS);
    assertThat(rowsInFile()).hasSize(3);
    assertThat(fetcherStarts).doesNotContain(MIRROR + " shut down");
  }

  private static DeletedDestinationTopics.Metadata metadata(
      boolean caughtUp, Set<String> topicIds, Map<TopicPartition, String> hosted) {
    return new DeletedDestinationTopics.Metadata() {
      @Override
      public boolean caughtUp() {
        return caughtUp;
      }

      @Override
      public boolean topicIdExists(String topicId) {
        return topicIds.contains(topicId);
      }

      @Override
      public String hostedLogTopicId(TopicPartition tp) {
        return hosted.get(tp);
      }
    };
  }

  /** A fetcher that only records, at its start, how many rows the registry file held. */
  private final class RecordingFetcher implements MirrorRegistry.Fetcher {
    private final String key;
    private final Properties clientProperties;

    RecordingFetcher(String key, Properties clientProperties) {
      this.key = key;
      this.clientProperties = clientProperties;
    }

    @Override
    public Properties clientProperties() {
      return clientProperties;
    }

    @Override
    public void start() {
      fetcherStarts.add(key + " saw " + rowsInFile().size() + " rows");
    }

    @Override
    public void shutdown() {
      fetcherStarts.add(key + " shut down");
    }
  }

  @Test
  void entriesAreListedByTopicThenPartitionNumberAndAMirrorsOnlyItsOwn() {
    // Given registrations of two mirrors, partitions registered out of order
    MirrorRegistry registry = registry();
    registry.writingOnceAfter(
        () -> {
          for (int p : List.of(10, 2, 1)) {
            registry.startMirroring(new TopicPartition("orders", p), MIRROR, SOURCE_ID, source());
          }
          registry.startMirroring(new TopicPartition("audit", 3), "audit-mirror", null, source());
          return null;
        });

    // When the registry lists them, Then topics come in name order and partitions in number
    // order (not "orders-10" before "orders-2", as an order by the partitions' names would put
    // them: that order built two strings per comparison, every fetcher round)
    assertThat(registry.all().keySet())
        .containsExactly(
            new TopicPartition("audit", 3),
            new TopicPartition("orders", 1),
            new TopicPartition("orders", 2),
            new TopicPartition("orders", 10));
    // And a mirror's list holds its own partitions only, in the same order
    assertThat(registry.entriesOf(MIRROR).keySet())
        .containsExactly(
            new TopicPartition("orders", 1),
            new TopicPartition("orders", 2),
            new TopicPartition("orders", 10));
  }
}
