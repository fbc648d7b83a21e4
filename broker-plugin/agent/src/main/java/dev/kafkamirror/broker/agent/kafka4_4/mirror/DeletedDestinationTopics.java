package dev.kafkamirror.broker.agent.kafka4_4.mirror;

import dev.kafkamirror.broker.agent.kafka4_4.BrokerHandles;
import dev.kafkamirror.broker.agent.kafka4_4.stop.StopStateStore;
import dev.kafkamirror.broker.core.mirror.DestinationTopicCheck;
import java.util.Map;
import java.util.Optional;
import kafka.cluster.Partition;
import kafka.server.ReplicaManager;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.Uuid;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import scala.Option;

/**
 * Removes the mirror registrations whose destination topic no longer exists under the id they were
 * made for (deleted, or deleted and created again under its name with a new id): from memory, the
 * registry file (in one write), the fetchers and the mirror MBeans. Without this a plain topic
 * created under the name of a deleted mirrored topic stays read-only ("read-only mirror of ...")
 * and its MIRRORING registration mirrors the source into it again, and every registration ever made
 * stays in the registry file, written whole on each change.
 *
 * <p>The decision is {@link DestinationTopicCheck}: only a recorded destination topic id that the
 * broker's metadata, caught up with the cluster, no longer holds removes a registration. The
 * broker's metadata counts as caught up once the stop-state topic was read (this runs after a read
 * round that caught up) and its metadata cache shows that topic: Kafka's metadata loader publishes
 * its first image only after it caught up with the controller's log, and an image never goes back.
 *
 * <p>Removal does not decide writability on its own: a partition without a registration is answered
 * from the cluster's membership of its current topic id ({@link ClusterMembership#readOnlyReason}),
 * so a membership of the topic now under the name that is not STOPPED keeps it read-only (and is
 * adopted as a fresh registration tied to that id).
 */
public final class DeletedDestinationTopics {

  private static final Logger LOG =
      LoggerFactory.getLogger("dev.kafkamirror.broker.agent.DeletedDestinationTopics");

  private DeletedDestinationTopics() {}

  /** What the broker's metadata says, for the decision. */
  interface Metadata {
    /** Whether the metadata holds an image caught up with the cluster. */
    boolean caughtUp();

    /** Whether the metadata holds a topic with id {@code topicId}. */
    boolean topicIdExists(String topicId);

    /** The topic id of the log this broker hosts for {@code tp}, or null. */
    String hostedLogTopicId(TopicPartition tp);
  }

  /** Removes every obsolete registration of this broker (after a stop-state read round). */
  public static int removeAll() {
    return brokerMetadata().map(m -> removeAll(MirrorRegistry.instance(), m)).orElse(0);
  }

  /**
   * Removes {@code tp}'s registration if it is obsolete (before a start call registers the topic
   * now under the name), so that the call makes a fresh one for the current topic.
   */
  public static boolean removeIfObsolete(TopicPartition tp) {
    Optional<Metadata> metadata = brokerMetadata();
    MirrorRegistry registry = MirrorRegistry.instance();
    Optional<MirrorEntry> entry = registry.entry(tp);
    return metadata.isPresent()
        && entry.isPresent()
        && removeIfObsolete(registry, metadata.get(), tp, entry.get());
  }

  /** {@link #removeAll()} against {@code registry} and {@code metadata}; one file write. */
  static int removeAll(MirrorRegistry registry, Metadata metadata) {
    return registry.writingOnceAfter(
        () -> {
          int removed = 0;
          for (Map.Entry<TopicPartition, MirrorEntry> e : registry.all().entrySet()) {
            if (removeIfObsolete(registry, metadata, e.getKey(), e.getValue())) {
              removed++;
            }
          }
          return removed;
        });
  }

  private static boolean removeIfObsolete(
      MirrorRegistry registry, Metadata metadata, TopicPartition tp, MirrorEntry entry) {
    String registeredFor = entry.sourceTopicIdPinnedFor();
    if (registeredFor == null || !metadata.caughtUp()) {
      return false; // the decision keeps it; spares the metadata look-ups
    }
    String hosted = metadata.hostedLogTopicId(tp);
    DestinationTopicCheck.Verdict verdict =
        DestinationTopicCheck.decide(
            registeredFor, true, metadata.topicIdExists(registeredFor), hosted);
    if (verdict != DestinationTopicCheck.Verdict.REMOVE || !registry.remove(tp, entry)) {
      return false;
    }
    LOG.info(
        "removed the registration of {} as a mirror of {} ({}): its destination topic with id {}"
            + " no longer exists ({}); the name is an ordinary topic again unless the cluster's"
            + " membership records its current topic as a mirror",
        tp,
        entry.mirrorName(),
        entry.state(),
        registeredFor,
        hosted == null ? "deleted" : "created again with id " + hosted);
    return true;
  }

  private static Optional<Metadata> brokerMetadata() {
    Optional<ReplicaManager> rm = BrokerHandles.replicaManager();
    if (rm.isEmpty()) {
      return Optional.empty();
    }
    ReplicaManager replicas = rm.get();
    return Optional.of(
        new Metadata() {
          @Override
          public boolean caughtUp() {
            return StopStateStore.ifStarted().map(StopStateStore::caughtUpOnce).orElse(false)
                && replicas.metadataCache().contains(ClusterMembership.stateTopic());
          }

          @Override
          public boolean topicIdExists(String topicId) {
            return replicas.metadataCache().getTopicName(Uuid.fromString(topicId)).isPresent();
          }

          @Override
          public String hostedLogTopicId(TopicPartition tp) {
            Option<Partition> partition = replicas.onlinePartition(tp);
            if (partition.isEmpty() || partition.get().log().isEmpty()) {
              return null;
            }
            return partition.get().log().get().topicId().map(Uuid::toString).orElse(null);
          }
        });
  }
}
