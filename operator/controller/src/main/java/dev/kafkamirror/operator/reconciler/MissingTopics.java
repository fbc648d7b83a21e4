package dev.kafkamirror.operator.reconciler;

import dev.kafkamirror.operator.api.v1alpha1.ClusterMirror;
import dev.kafkamirror.operator.kafka.ClusterAdmin;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Creates the selected source topics the destination lacks, with the source's partition counts, the
 * source's synced topic configs ({@link TopicConfigSync#forCreation}) and {@link
 * ClusterAdmin#mirrorTopicConfigs}. The source is only asked when a pattern selects topics or a
 * named topic is missing, and a source that cannot be reached creates nothing and fails nothing
 * (the topics are created on a later reconcile): a dead source must not stall a stop.
 */
public final class MissingTopics {

  private static final Logger LOG = LoggerFactory.getLogger(MissingTopics.class);

  /** The bound of the source calls, below the admin timeout. */
  static final long SOURCE_TIMEOUT_MS = 3_000L;

  private final AdminClients admins;
  private final TopicConfigSync configs;

  public MissingTopics(AdminClients admins, TopicConfigSync configs) {
    this.admins = admins;
    this.configs = configs;
  }

  /**
   * Creates the missing topics of {@code mirror} on {@code destination}.
   *
   * @throws ClusterAdmin.KafkaCallException when the destination cannot be listed or written
   */
  public void create(
      String ref,
      ClusterMirror cr,
      ResolvedMirror mirror,
      ClusterAdmin destination,
      long adminTimeoutMs)
      throws ClusterAdmin.KafkaCallException {
    Set<String> onDestination = destination.topicNames();
    if (!mirror.topics().hasPatterns() && onDestination.containsAll(mirror.topics().names())) {
      return; // every named topic exists: the source is not needed (it may be down)
    }
    ClusterAdmin source =
        admins.source(ref, mirror.sourceProperties(), Math.min(SOURCE_TIMEOUT_MS, adminTimeoutMs));
    Set<String> sourceTopics;
    try {
      sourceTopics = source.topicNames();
    } catch (ClusterAdmin.KafkaCallException e) {
      LOG.info("clusterMirror={} source unreachable, no topics created: {}", ref, e.getMessage());
      return;
    }
    List<String> missing =
        mirror.topics().select(sourceTopics).stream()
            .filter(t -> !onDestination.contains(t))
            .toList();
    if (missing.isEmpty()) {
      return;
    }
    Map<String, Integer> counts;
    try {
      counts = source.partitionCounts(missing);
    } catch (ClusterAdmin.KafkaCallException e) {
      // the source's failure (an outage, its ACLs), never the destination's
      LOG.info(
          "clusterMirror={} the source's partition counts of {} cannot be read, no topics"
              + " created: {}",
          ref,
          missing,
          e.getMessage());
      return;
    }
    int brokers = destination.brokerHosts().size();
    short rf = (short) Math.max(1, Math.min(3, brokers));
    LOG.info(
        "clusterMirror={} creating destination topics {} (replication factor {})", ref, counts, rf);
    destination.createTopics(counts, rf, configs.forCreation(ref, cr, source, missing));
  }
}
