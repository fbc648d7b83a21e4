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
 * <p>Nothing here waits for one source broker: requests to several brokers are in flight at once
 * and answered through {@link #poll}, connections are opened and checked without blocking, and the
 * metadata is read in the background ({@link #startRefresh}). A broker that stops answering holds
 * up only what was sent to it, until the request timeout ({@value #REQUEST_TIMEOUT_MS} ms).
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

  /** Source broker ids whose current connection reported another cluster id, with why. */
  private final Map<String, SourceIdentityException> refusedConnections = new HashMap<>();

  /** The cluster id check in flight on a new connection, by source broker id. */
  private final Map<String, IdentityCheckInFlight> checking = new HashMap<>();

  private record IdentityCheckInFlight(Node node, int correlationId) {}

  /** Source broker ids whose connection readyForFetch asked to open and that is not ready yet. */
  private final java.util.Set<String> connecting = new java.util.HashSet<>();

  /** Why the cluster id check of a broker's last connection could not be made, by broker id. */
  private final Map<String, String> checkFailures = new HashMap<>();

  /** Topics that a finished metadata read asked about: what it says of them is known. */
  private final java.util.Set<String> topicsRead = new java.util.HashSet<>();

  /** How many metadata reads have been started; each read carries its number. */
  private long readsStarted;

  /** The metadata read in progress, or null. */
  private Refresh refresh;

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

  /** How long a request to a source broker may go unanswered before its connection is closed. */
  static int requestTimeoutMs() {
    return REQUEST_TIMEOUT_MS;
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

  /**
   * Whether a fetch can be sent to {@code node} now: its connection is open, the cluster id it
   * reports has been checked, and nothing is in flight on it. Never waits: a node without a
   * connection gets one opened and a new connection gets its cluster id asked (a Metadata request
   * without topics over that very connection); {@link #poll} carries both on, and a later call
   * answers true. Every new connection (the first one, and every reconnect, possibly to another
   * cluster behind the same address) is checked before a fetch goes over it.
   *
   * @throws SourceIdentityException the open connection reported another cluster id; it is never
   *     used for a fetch, and a new connection is checked anew
   * @throws IOException the last attempt to connect failed (another is made after the reconnect
   *     backoff)
   */
  boolean readyForFetch(Node node) throws SourceIdentityException, IOException {
    String id = node.idString();
    long now = time.milliseconds();
    if (checking.containsKey(id)) {
      return false;
    }
    if (network.isReady(node, now)) {
      connecting.remove(id);
      SourceIdentityException refused = refusedConnections.get(id);
      if (refused != null) {
        throw refused;
      }
      if (verifiedConnections.contains(id)) {
        return true;
      }
      ClientRequest check =
          network.newClientRequest(id, new MetadataRequest.Builder(List.of(), false), now, true);
      network.send(check, now);
      checking.put(id, new IdentityCheckInFlight(node, check.correlationId()));
      return false;
    }
    // Not ready: no connection, or one being opened. Whatever the last one was, the next is new.
    verifiedConnections.remove(id);
    refusedConnections.remove(id);
    boolean attemptFailed = network.connectionFailed(node) && connecting.contains(id);
    String checkFailure = checkFailures.remove(id);
    network.ready(node, now);
    connecting.add(id);
    if (checkFailure != null) {
      throw new IOException(checkFailure);
    }
    if (attemptFailed) {
      // A connection this fetcher asked for failed (not one closed after a request timeout, which
      // the fetch's own answer reports).
      org.apache.kafka.common.errors.AuthenticationException auth =
          network.authenticationException(node);
      throw new IOException(
          "source broker "
              + node
              + " of "
              + key
              + " is not reachable"
              + (auth == null ? "" : ": " + auth.getMessage()));
    }
    return false;
  }

  /**
   * Sends {@code request} to {@code node}, for which {@link #readyForFetch} has just answered true;
   * its answer comes from {@link #poll}.
   */
  void send(Node node, AbstractRequest.Builder<?> request) {
    long now = time.milliseconds();
    network.send(network.newClientRequest(node.idString(), request, now, true), now);
  }

  /**
   * Waits up to {@code timeoutMs} for answers, carrying connections and their cluster id checks on.
   * Returns the answers to the requests of {@link #send}, including those that failed
   * (disconnected, timed out after the request timeout, refused versions); the answers to the
   * cluster id checks are handled here, through {@code identity}.
   */
  List<ClientResponse> poll(long timeoutMs, IdentityCheck identity) {
    List<ClientResponse> answers = new java.util.ArrayList<>();
    for (ClientResponse response : network.poll(timeoutMs, time.milliseconds())) {
      String id = response.destination();
      IdentityCheckInFlight check = checking.get(id);
      if (check == null || check.correlationId() != response.requestHeader().correlationId()) {
        answers.add(response);
        continue;
      }
      checking.remove(id);
      if (response.wasDisconnected()) {
        // The connection is gone: readyForFetch opens another, which is checked anew.
        continue;
      }
      if (response.versionMismatch() != null) {
        // Not usable for the check, so never for a fetch: closed, and readyForFetch says why.
        checkFailures.put(
            id,
            "source broker "
                + check.node()
                + " of "
                + key
                + " refused the cluster id check: "
                + response.versionMismatch().getMessage());
        network.disconnect(id);
        continue;
      }
      String clusterId = ((MetadataResponse) response.responseBody()).clusterId();
      try {
        if (clusterId == null) {
          throw new SourceIdentityException(
              "source broker "
                  + check.node()
                  + " of "
                  + key
                  + " did not report a cluster id; not fetching");
        }
        identity.verify(check.node(), clusterId);
        verifiedConnections.add(id);
      } catch (SourceIdentityException e) {
        refusedConnections.put(id, e);
      }
    }
    return answers;
  }

  /**
   * How many cluster id checks are in flight. Only {@link #readyForFetch} starts one and only
   * {@link #poll} settles one (verified, refused, or lost with its connection), so a count that
   * fell during polls tells the fetcher that a connection may be ready for a fetch.
   */
  int checksInFlight() {
    return checking.size();
  }

  /** How many metadata reads have been started so far. */
  long readsStarted() {
    return readsStarted;
  }

  /** Whether a finished metadata read has asked about {@code topic}. */
  boolean wasRead(String topic) {
    return topicsRead.contains(topic);
  }

  /** Whether a metadata read started by {@link #startRefresh} has not been taken yet. */
  boolean refreshing() {
    return refresh != null;
  }

  /**
   * Starts reading the source's cluster id and the leaders and topic ids of {@code partitions}'
   * topics, in the background: a source broker that does not answer holds up this read, never the
   * fetches to the others. {@link #finishedRefresh} hands it over when it is done.
   */
  void startRefresh(Collection<TopicPartition> partitions) {
    if (refresh != null) {
      return;
    }
    List<String> topics = partitions.stream().map(TopicPartition::topic).distinct().toList();
    readsStarted++;
    refresh =
        new Refresh(
            readsStarted,
            admin.describeCluster().clusterId(),
            admin.describeTopics(topics).topicNameValues());
  }

  /**
   * The metadata read started by {@link #startRefresh} once it is done (then it is no longer in
   * progress), or null while it is in progress or when none was started.
   */
  Refresh finishedRefresh() {
    Refresh r = refresh;
    if (r == null || !r.done()) {
      return null;
    }
    refresh = null;
    return r;
  }

  /**
   * A finished metadata read: check {@link #clusterId} first, then {@link #apply} the topics; the
   * metadata of another cluster is of no use.
   */
  final class Refresh {
    private final long number;
    private final org.apache.kafka.common.KafkaFuture<String> clusterId;
    private final Map<String, org.apache.kafka.common.KafkaFuture<TopicDescription>> topics;

    private Refresh(
        long number,
        org.apache.kafka.common.KafkaFuture<String> clusterId,
        Map<String, org.apache.kafka.common.KafkaFuture<TopicDescription>> topics) {
      this.number = number;
      this.clusterId = clusterId;
      this.topics = topics;
    }

    /**
     * The read's number: reads are numbered as they are started, so a read numbered above {@link
     * #readsStarted()} at some moment was started after that moment.
     */
    long number() {
      return number;
    }

    private boolean done() {
      return clusterId.isDone() && topics.values().stream().allMatch(f -> f.isDone());
    }

    /** The cluster id the source reported. */
    String clusterId() throws Exception {
      return clusterId.get();
    }

    /**
     * Takes over the leaders and topic ids read. A topic the source does not have (deleted) loses
     * its topic id and leaders here, so that its partitions are not fetched, without holding up the
     * other topics.
     */
    void apply() throws Exception {
      List<TopicDescription> descriptions = new java.util.ArrayList<>();
      for (Map.Entry<String, org.apache.kafka.common.KafkaFuture<TopicDescription>> f :
          topics.entrySet()) {
        try {
          descriptions.add(f.getValue().get());
        } catch (java.util.concurrent.ExecutionException e) {
          if (!(e.getCause()
              instanceof org.apache.kafka.common.errors.UnknownTopicOrPartitionException)) {
            throw e;
          }
          topicIds.remove(f.getKey());
          leaders.keySet().removeIf(tp -> tp.topic().equals(f.getKey()));
        }
      }
      topicsRead.addAll(topics.keySet());
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
