package dev.kafkamirror.broker.agent.kafka4_4.mirror;

import java.io.IOException;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.ApiVersions;
import org.apache.kafka.clients.BootstrapConfiguration;
import org.apache.kafka.clients.ClientRequest;
import org.apache.kafka.clients.ClientResponse;
import org.apache.kafka.clients.ClientUtils;
import org.apache.kafka.clients.ManualMetadataUpdater;
import org.apache.kafka.clients.MetadataRecoveryStrategy;
import org.apache.kafka.clients.NetworkClient;
import org.apache.kafka.clients.NetworkClientUtils;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.common.Node;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.TopicPartitionInfo;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.metrics.Metrics;
import org.apache.kafka.common.network.ChannelBuilder;
import org.apache.kafka.common.network.Selector;
import org.apache.kafka.common.requests.AbstractRequest;
import org.apache.kafka.common.requests.MetadataRequest;
import org.apache.kafka.common.requests.MetadataResponse;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.utils.Time;
import org.apache.kafka.common.utils.internals.LogContext;

/**
 * The connection of this broker to one source cluster: an Admin client for metadata (cluster id,
 * topic ids, partition leaders) and a network client for raw Fetch requests, both built from the
 * same client properties, so PLAINTEXT, SSL and SASL settings pass through unchanged.
 *
 * <p>Used by one fetcher thread; {@link #close()} may come from any thread.
 */
final class SourceCluster implements AutoCloseable {

  private static final int REQUEST_TIMEOUT_MS = 30_000;
  private static final long CONNECTIONS_MAX_IDLE_MS = 9 * 60 * 1000L;

  private final String key;
  private final Properties clientProperties;
  private final Admin admin;
  private final NetworkClient network;
  private final Metrics metrics = new Metrics();
  private final Time time = Time.SYSTEM;

  /** Source leader and topic id of each mirrored partition, refreshed on demand. */
  private final Map<TopicPartition, Node> leaders = new HashMap<>();

  private final Map<String, Uuid> topicIds = new HashMap<>();

  /**
   * Source broker ids whose current network connection has been checked to belong to the expected
   * cluster. An id leaves the set whenever its connection is not ready before a send, so that every
   * new connection (the first one, and every reconnect, possibly to another cluster behind the same
   * address) is checked before a fetch goes over it.
   */
  private final java.util.Set<String> verifiedConnections = new java.util.HashSet<>();

  /** Checks the cluster id a source broker reported on a new connection. */
  @FunctionalInterface
  interface IdentityCheck {
    /**
     * @throws SourceIdentityException when {@code reportedClusterId} is not the expected cluster
     */
    void verify(Node node, String reportedClusterId) throws SourceIdentityException;
  }

  /** The source answered with another cluster id than the mirror expects. */
  static final class SourceIdentityException extends Exception {
    SourceIdentityException(String message) {
      super(message);
    }
  }

  SourceCluster(String key, Properties clientProperties) {
    this.key = key;
    this.clientProperties = clientProperties;
    this.admin = Admin.create(clientProperties);
    Properties consumerProps = new Properties();
    consumerProps.putAll(clientProperties);
    consumerProps.put(
        ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
    consumerProps.put(
        ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
    ConsumerConfig config = new ConsumerConfig(consumerProps);
    LogContext logContext = new LogContext("[cluster-mirror source " + key + "] ");
    ChannelBuilder channelBuilder = ClientUtils.createChannelBuilder(config, time, logContext);
    Selector selector =
        new Selector(
            CONNECTIONS_MAX_IDLE_MS,
            metrics,
            time,
            "cluster-mirror-fetcher",
            channelBuilder,
            logContext);
    this.network =
        new NetworkClient(
            selector,
            new ManualMetadataUpdater(),
            "cluster-mirror-" + key,
            1,
            100L,
            1_000L,
            -1,
            -1,
            REQUEST_TIMEOUT_MS,
            10_000L,
            30_000L,
            time,
            true,
            new ApiVersions(),
            logContext,
            MetadataRecoveryStrategy.NONE,
            BootstrapConfiguration.DISABLED,
            false);
  }

  String key() {
    return key;
  }

  /** The source's cluster id. */
  String clusterId() throws Exception {
    return admin.describeCluster().clusterId().get(REQUEST_TIMEOUT_MS, TimeUnit.MILLISECONDS);
  }

  /**
   * Refreshes leaders and topic ids of {@code partitions}' topics. A topic the source does not have
   * (deleted) loses its topic id and leaders here, so that its partitions are not fetched, without
   * holding up the other topics.
   */
  void refreshMetadata(Collection<TopicPartition> partitions) throws Exception {
    List<String> topics = partitions.stream().map(TopicPartition::topic).distinct().toList();
    Map<String, org.apache.kafka.common.KafkaFuture<TopicDescription>> futures =
        admin.describeTopics(topics).topicNameValues();
    List<TopicDescription> descriptions = new java.util.ArrayList<>();
    for (Map.Entry<String, org.apache.kafka.common.KafkaFuture<TopicDescription>> f :
        futures.entrySet()) {
      try {
        descriptions.add(f.getValue().get(REQUEST_TIMEOUT_MS, TimeUnit.MILLISECONDS));
      } catch (java.util.concurrent.ExecutionException e) {
        if (!(e.getCause()
            instanceof org.apache.kafka.common.errors.UnknownTopicOrPartitionException)) {
          throw e;
        }
        topicIds.remove(f.getKey());
        leaders.keySet().removeIf(tp -> tp.topic().equals(f.getKey()));
      }
    }
    for (TopicDescription description : descriptions) {
      topicIds.put(description.name(), description.topicId());
      for (TopicPartitionInfo info : description.partitions()) {
        TopicPartition tp = new TopicPartition(description.name(), info.partition());
        if (info.leader() == null || info.leader().isEmpty()) {
          leaders.remove(tp);
        } else {
          leaders.put(tp, info.leader());
        }
      }
    }
  }

  Node leaderOf(TopicPartition tp) {
    return leaders.get(tp);
  }

  Uuid topicIdOf(String topic) {
    return topicIds.get(topic);
  }

  /**
   * The source partition's log start offset and high watermark (listed now, read_uncommitted).
   *
   * @return {log start, high watermark}
   */
  long[] logOffsets(TopicPartition tp) throws Exception {
    Map<TopicPartition, org.apache.kafka.clients.admin.ListOffsetsResult.ListOffsetsResultInfo>
        earliest =
            admin
                .listOffsets(Map.of(tp, org.apache.kafka.clients.admin.OffsetSpec.earliest()))
                .all()
                .get(REQUEST_TIMEOUT_MS, TimeUnit.MILLISECONDS);
    Map<TopicPartition, org.apache.kafka.clients.admin.ListOffsetsResult.ListOffsetsResultInfo>
        latest =
            admin
                .listOffsets(Map.of(tp, org.apache.kafka.clients.admin.OffsetSpec.latest()))
                .all()
                .get(REQUEST_TIMEOUT_MS, TimeUnit.MILLISECONDS);
    return new long[] {earliest.get(tp).offset(), latest.get(tp).offset()};
  }

  void forget(TopicPartition tp) {
    leaders.remove(tp);
  }

  /** Sends a request to {@code node} and waits for the answer (bounded by the request timeout). */
  ClientResponse send(Node node, AbstractRequest.Builder<?> request, IdentityCheck identity)
      throws IOException, SourceIdentityException {
    // Connections are opened only by awaitReady below (the metadata updater is manual), so a node
    // that is not ready now gets a new connection, which is checked before anything is fetched
    // over it.
    if (!network.isReady(node, time.milliseconds())) {
      verifiedConnections.remove(node.idString());
    }
    if (!NetworkClientUtils.awaitReady(network, node, time, REQUEST_TIMEOUT_MS)) {
      throw new IOException("source broker " + node + " of " + key + " is not reachable");
    }
    if (!verifiedConnections.contains(node.idString())) {
      identity.verify(node, clusterIdOver(node));
      verifiedConnections.add(node.idString());
    }
    ClientRequest clientRequest =
        network.newClientRequest(node.idString(), request, time.milliseconds(), true);
    return NetworkClientUtils.sendAndReceive(network, clientRequest, time);
  }

  /**
   * The cluster id reported over the fetch connection to {@code node} (a Metadata request without
   * topics), so that the broker checked is the broker the fetch goes to.
   */
  private String clusterIdOver(Node node) throws IOException {
    ClientRequest clientRequest =
        network.newClientRequest(
            node.idString(),
            new MetadataRequest.Builder(List.of(), false),
            time.milliseconds(),
            true);
    ClientResponse response = NetworkClientUtils.sendAndReceive(network, clientRequest, time);
    if (response.versionMismatch() != null) {
      throw new IOException(
          "source broker " + node + " of " + key + ": " + response.versionMismatch());
    }
    String clusterId = ((MetadataResponse) response.responseBody()).clusterId();
    if (clusterId == null) {
      throw new IOException(
          "source broker " + node + " of " + key + " did not report a cluster id; not fetching");
    }
    return clusterId;
  }

  @Override
  public void close() {
    admin.close(java.time.Duration.ofSeconds(5));
    network.close();
    metrics.close();
  }

  Properties clientProperties() {
    return clientProperties;
  }
}
