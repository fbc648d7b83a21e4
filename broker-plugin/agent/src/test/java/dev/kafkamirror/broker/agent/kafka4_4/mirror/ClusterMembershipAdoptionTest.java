package dev.kafkamirror.broker.agent.kafka4_4.mirror;

import static org.assertj.core.api.Assertions.assertThat;

import dev.kafkamirror.broker.core.stop.MembershipTable;
import dev.kafkamirror.broker.core.stop.MirrorMembership;
import dev.kafkamirror.broker.core.stop.StopState;
import dev.kafkamirror.broker.core.stop.StopStateKey;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@link ClusterMembership#adoptAll}: a read round of the stop-state topic that adopts or updates
 * many partitions writes the registry file once. Pure: a registry writing a file in a temporary
 * directory, no-op fetchers, and the cluster's records in a table.
 */
class ClusterMembershipAdoptionTest {

  private static final String MIRROR = "orders-mirror";
  private static final String SOURCE_CLUSTER = "SRCSRCSRCSRCSRCSRCSRC1";
  private static final String TOPIC_ID = "DSTDSTDSTDSTDSTDSTDST1";
  private static final String SOURCE_TOPIC_ID = "SRCTOPICSRCTOPICSRCTO1";
  private static final int BROKER = 2;

  @TempDir Path dir;

  private static final class NoFetcher implements MirrorRegistry.Fetcher {
    private final Properties props;

    NoFetcher(Properties props) {
      this.props = props;
    }

    @Override
    public Properties clientProperties() {
      return props;
    }

    @Override
    public void start() {}

    @Override
    public void shutdown() {}
  }

  /** The cluster's records as a table, recording the holder writes asked for. */
  private static final class Records implements ClusterMembership.ClusterRecords {
    final MembershipTable table = new MembershipTable();
    final List<MirrorMembership> holderWrites = new ArrayList<>();

    @Override
    public MembershipTable membership() {
      return table;
    }

    @Override
    public Optional<StopState> stopState(StopStateKey key) {
      return Optional.empty();
    }

    @Override
    public int brokerId() {
      return BROKER;
    }

    @Override
    public void writeHolderAsync(MirrorMembership m) {
      holderWrites.add(m);
    }
  }

  private static Properties source() {
    Properties props = new Properties();
    props.put("bootstrap.servers", "source.example:9092");
    return props;
  }

  private static MirrorMembership recorded(String topic, int partition) {
    return new MirrorMembership(
        TOPIC_ID,
        partition,
        topic,
        MIRROR,
        SOURCE_CLUSTER,
        1,
        Map.of("bootstrap.servers", "source.example:9092"),
        0L,
        SOURCE_TOPIC_ID);
  }

  @Test
  void aReadRoundThatPinsAndAdoptsManyPartitionsWritesTheRegistryFileOnce() {
    // Given a follower whose start call registered 40 partitions (no source topic id pinned: only
    // the leader pins it) and which hosts 40 more it has no registration for
    MirrorRegistryFile file = new MirrorRegistryFile(dir);
    MirrorRegistry registry = new MirrorRegistry(file, (key, props, r) -> new NoFetcher(props));
    int partitions = 80;
    registry.writingOnceAfter(
        () -> {
          for (int p = 0; p < partitions / 2; p++) {
            registry.startMirroring(
                new TopicPartition("orders", p), MIRROR, SOURCE_CLUSTER, source());
          }
          return null;
        });
    // And the cluster's records: every partition a member, with the source topic id its leader
    // pinned
    Records records = new Records();
    for (int p = 0; p < partitions; p++) {
      records.table.apply(recorded("orders", p));
    }
    long writesBefore = registry.fileWrites();

    // When one read round adopts them (this broker hosts every partition, in the recorded topic)
    ClusterMembership.adoptAll(records, registry, tp -> Optional.of(TOPIC_ID));

    // Then the registry file was written once, not once per partition
    assertThat(registry.fileWrites() - writesBefore).isEqualTo(1);
    // And that write holds every partition with the recorded source topic id, all durable
    List<MirrorRegistryFile.Row> rows = readRows(file);
    assertThat(rows).hasSize(partitions);
    assertThat(rows).allSatisfy(r -> assertThat(r.sourceTopicId()).isEqualTo(SOURCE_TOPIC_ID));
    assertThat(registry.all().values()).allSatisfy(e -> assertThat(e.durable()).isTrue());
    // And the 40 adopted ones are read-only members of the mirror, known from the cluster's record
    assertThat(registry.entry(new TopicPartition("orders", partitions - 1)).orElseThrow())
        .satisfies(
            e -> {
              assertThat(e.mirrorName()).isEqualTo(MIRROR);
              assertThat(e.knownFrom()).isEqualTo(ClusterMembership.FROM_CLUSTER_RECORD);
            });
    assertThat(registry.readOnlyReason(new TopicPartition("orders", partitions - 1))).isPresent();
    // And this broker asked to be recorded as a holder of every one of them
    assertThat(records.holderWrites).hasSize(partitions);
  }

  @Test
  void aReadRoundThatChangesNothingDoesNotWriteTheRegistryFile() {
    // Given a registry that has adopted every member already
    MirrorRegistryFile file = new MirrorRegistryFile(dir);
    MirrorRegistry registry = new MirrorRegistry(file, (key, props, r) -> new NoFetcher(props));
    Records records = new Records();
    for (int p = 0; p < 10; p++) {
      records.table.apply(recorded("orders", p));
    }
    ClusterMembership.adoptAll(records, registry, tp -> Optional.of(TOPIC_ID));
    long writesBefore = registry.fileWrites();

    // When the next read round finds the same records
    ClusterMembership.adoptAll(records, registry, tp -> Optional.of(TOPIC_ID));

    // Then the file is not written again
    assertThat(registry.fileWrites()).isEqualTo(writesBefore);
  }

  @Test
  void membersInAnotherTopicIdOrNotHostedHereAreNotAdopted() {
    // Given members this broker does not host, or hosts in a topic of another id (deleted and
    // created again)
    MirrorRegistryFile file = new MirrorRegistryFile(dir);
    MirrorRegistry registry = new MirrorRegistry(file, (key, props, r) -> new NoFetcher(props));
    Records records = new Records();
    records.table.apply(recorded("orders", 0));
    records.table.apply(recorded("orders", 1));

    // When a read round runs
    ClusterMembership.adoptAll(
        records,
        registry,
        tp -> tp.partition() == 0 ? Optional.empty() : Optional.of("OTHEROTHEROTHEROTHERO1"));

    // Then neither is registered, and the file is not written
    assertThat(registry.all()).isEmpty();
    assertThat(registry.fileWrites()).isZero();
  }

  @Test
  void aStoppedRegistrationNotMadeForTheCurrentTopicGivesWayToItsLiveMembershipReadOnly() {
    // Given a registration of the mirror, stopped here, with no destination topic id recorded for
    // it (a follower of an earlier topic of the name whose leader never fetched: kept when that
    // topic was deleted, because nothing tells which topic it was made for)
    MirrorRegistryFile file = new MirrorRegistryFile(dir);
    MirrorRegistry registry = new MirrorRegistry(file, (key, props, r) -> new NoFetcher(props));
    TopicPartition tp = new TopicPartition("orders", 0);
    registry.startMirroring(tp, MIRROR, SOURCE_CLUSTER, source());
    registry.advanceTo(tp, MirrorState.STOPPED);
    assertThat(registry.readOnlyReason(tp)).isEmpty();
    // And the cluster records the partition of the current topic as a live member of the same
    // mirror (started again under its old name), with no stop recorded
    Records records = new Records();
    records.table.apply(recorded("orders", 0));

    // When a read round runs on this broker, which hosts the current topic
    ClusterMembership.adoptAll(records, registry, t -> Optional.of(TOPIC_ID));

    // Then the partition is read-only again: a mirror member, not a stopped one (a leadership move
    // here must not let clients write into a live mirror)
    assertThat(registry.entry(tp).orElseThrow().state()).isEqualTo(MirrorState.MIRRORING);
    assertThat(registry.readOnlyReason(tp)).isPresent();
    assertThat(registry.entry(tp).orElseThrow().knownFrom())
        .isEqualTo(ClusterMembership.FROM_CLUSTER_RECORD);
  }

  @Test
  void aStoppedRegistrationMadeForTheCurrentTopicStaysStopped() {
    // Given a registration stopped here that was made for the current topic (its source topic id
    // pinned for that topic's id), and the cluster's membership of it with no stop recorded (a
    // record this broker has not read yet)
    MirrorRegistryFile file = new MirrorRegistryFile(dir);
    MirrorRegistry registry = new MirrorRegistry(file, (key, props, r) -> new NoFetcher(props));
    TopicPartition tp = new TopicPartition("orders", 0);
    MirrorEntry entry = registry.startMirroring(tp, MIRROR, SOURCE_CLUSTER, source());
    registry.pinSourceTopicId(entry, SOURCE_TOPIC_ID, TOPIC_ID);
    registry.advanceTo(tp, MirrorState.STOPPED);
    Records records = new Records();
    records.table.apply(recorded("orders", 0));

    // When a read round runs
    ClusterMembership.adoptAll(records, registry, t -> Optional.of(TOPIC_ID));

    // Then it stays the stopped registration it was
    assertThat(registry.entry(tp).orElseThrow()).isSameAs(entry);
    assertThat(entry.state()).isEqualTo(MirrorState.STOPPED);
  }

  private static List<MirrorRegistryFile.Row> readRows(MirrorRegistryFile file) {
    try {
      return file.read();
    } catch (MirrorRegistryFile.UnreadableRegistryException e) {
      throw new AssertionError("the registry file " + file.path() + " is unreadable", e);
    }
  }
}
