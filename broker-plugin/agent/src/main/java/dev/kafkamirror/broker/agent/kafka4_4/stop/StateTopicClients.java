package dev.kafkamirror.broker.agent.kafka4_4.stop;

import dev.kafkamirror.broker.core.stop.StopStateKey;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.PartitionInfo;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.TopicExistsException;
import org.apache.kafka.common.header.internals.RecordHeader;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.utils.Utils;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The Kafka clients of the stop-state topic: creating the topic, the reader's consumer (assigned
 * every partition, from the beginning) and the writer's producer, and signing the records the
 * writer sends. Part of {@link StopStateStore}.
 *
 * <p>Invariants: the consumer, the producer and the partition count are (re)opened together; each
 * (re)open increments the reader generation, because the new consumer reads from the beginning and
 * until it has caught up the table may show older steps (so no partition counts as current without
 * a new sync). Every record sent carries the MAC of {@link StateRecordAuth}; without a state secret
 * nothing is sent.
 *
 * <p>Threading: {@link #open} and {@link #close} run on the reader thread, under {@code this}; the
 * clients and the counters are volatile, read by writers without a lock. A writer that reads a
 * producer just closed gets an exception from it, which fails that write alone.
 */
final class StateTopicClients {

  private static final Logger LOG =
      LoggerFactory.getLogger("dev.kafkamirror.broker.agent.StopStateStore");

  /** How long the reader and the admin client wait for one answer from a broker. */
  static final int LOCAL_REQUEST_TIMEOUT_MS = 3_000;

  /** How long a fetch of the reader waits at the broker for new records. */
  static final int READER_FETCH_MAX_WAIT_MS = 500;

  /**
   * The most a fetch of the reader returns (Kafka's default is 50 MiB): a catch-up read of a large
   * state topic must arrive within the request timeout.
   */
  static final int READER_FETCH_MAX_BYTES = 8 * 1024 * 1024;

  /** The bound on each admin call (describe the cluster, create the topic). */
  static final int ADMIN_API_TIMEOUT_MS = 10_000;

  private final Properties clientProperties;
  private final String topic;
  private final int partitionsToCreate;
  private final int brokerId;
  private volatile KafkaConsumer<byte[], byte[]> consumer;

  /**
   * The reader's second consumer, which only asks for end offsets, on connections of its own. A
   * broker answers the requests of one connection in order, and the reader's consumer keeps a fetch
   * waiting there for up to {@value #READER_FETCH_MAX_WAIT_MS} ms while it follows the topic: an
   * end-offsets request on the same connection waited behind it (measured: 502 and 533 ms of a
   * sync's 514 and 561 ms, in the observation after a fence at 1,000 partitions).
   */
  private volatile KafkaConsumer<byte[], byte[]> endOffsets;

  private volatile KafkaProducer<byte[], byte[]> producer;
  private volatile int partitionCount = -1;

  /** Counts the reader's (re)starts; a restarted reader re-reads the topic from the beginning. */
  private volatile long readerGeneration;

  StateTopicClients(
      Properties clientProperties, String topic, int partitionsToCreate, int brokerId) {
    this.clientProperties = clientProperties;
    this.topic = topic;
    this.partitionsToCreate = partitionsToCreate;
    this.brokerId = brokerId;
  }

  KafkaConsumer<byte[], byte[]> consumer() {
    return consumer;
  }

  /** The consumer the reader asks for end offsets (no assignment, never fetches). */
  KafkaConsumer<byte[], byte[]> endOffsetsConsumer() {
    return endOffsets;
  }

  /** The writer's producer, or null while the topic is not open. */
  KafkaProducer<byte[], byte[]> producer() {
    return producer;
  }

  /** The state topic's partition count, or -1 while it is not open. */
  int partitionCount() {
    return partitionCount;
  }

  long readerGeneration() {
    return readerGeneration;
  }

  /** Interrupts a poll of the reader (a sync request). */
  void wakeup() {
    KafkaConsumer<byte[], byte[]> c = consumer;
    if (c != null) {
      c.wakeup();
    }
  }

  /** Interrupts whatever the reader waits for, its end-offsets request too (close). */
  void wakeupAll() {
    wakeup();
    KafkaConsumer<byte[], byte[]> e = endOffsets;
    if (e != null) {
      e.wakeup();
    }
  }

  /**
   * Creates the topic when missing (replication factor min(3, brokers), compacted,
   * min.insync.replicas 2 from three replicas), then opens the consumer and the producer; nothing
   * when they are open.
   */
  void open() throws Exception {
    if (consumer != null) {
      return;
    }
    try (Admin a = Admin.create(adminProperties(clientProperties, brokerId))) {
      int brokers =
          a.describeCluster().nodes().get(ADMIN_API_TIMEOUT_MS, TimeUnit.MILLISECONDS).size();
      short replicationFactor = (short) Math.min(3, Math.max(1, brokers));
      NewTopic newTopic =
          new NewTopic(topic, partitionsToCreate, replicationFactor)
              .configs(
                  Map.of(
                      "cleanup.policy",
                      "compact",
                      "min.insync.replicas",
                      replicationFactor >= 3 ? "2" : "1"));
      try {
        a.createTopics(List.of(newTopic)).all().get(ADMIN_API_TIMEOUT_MS, TimeUnit.MILLISECONDS);
        LOG.info(
            "created stop-state topic {} ({} partitions, replication factor {})",
            topic,
            partitionsToCreate,
            replicationFactor);
      } catch (ExecutionException e) {
        if (!(e.getCause() instanceof TopicExistsException)) {
          throw e;
        }
      }
    }
    KafkaConsumer<byte[], byte[]> c =
        new KafkaConsumer<>(readerProperties(clientProperties, brokerId));
    List<PartitionInfo> infos = List.of();
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
    while (infos == null || infos.isEmpty()) {
      infos = c.partitionsFor(topic, Duration.ofSeconds(5));
      if ((infos == null || infos.isEmpty()) && System.nanoTime() > deadline) {
        c.close(Duration.ZERO);
        throw new IllegalStateException("stop-state topic " + topic + " has no partitions yet");
      }
    }
    List<TopicPartition> assignment = new ArrayList<>();
    for (PartitionInfo info : infos) {
      assignment.add(new TopicPartition(topic, info.partition()));
    }
    c.assign(assignment);
    c.seekToBeginning(assignment);
    Properties pp = writerProperties(clientProperties, brokerId);
    Properties ep = readerProperties(clientProperties, brokerId);
    ep.put("client.id", ep.getProperty("client.id") + "-end-offsets");
    KafkaConsumer<byte[], byte[]> e;
    KafkaProducer<byte[], byte[]> p;
    try {
      e = new KafkaConsumer<>(ep);
    } catch (RuntimeException failed) {
      c.close(Duration.ZERO);
      throw failed;
    }
    try {
      p = new KafkaProducer<>(pp);
    } catch (RuntimeException failed) {
      c.close(Duration.ZERO);
      e.close(Duration.ZERO);
      throw failed;
    }
    synchronized (this) {
      partitionCount = assignment.size();
      producer = p;
      endOffsets = e;
      consumer = c;
      // The new consumer reads from the beginning: until it has caught up the table may show older
      // steps, so no partition counts as current without a new sync.
      readerGeneration++;
    }
  }

  /** Closes the consumers and the producer (each reopened by the next {@link #open}). */
  synchronized void close() {
    if (consumer != null) {
      consumer.close(Duration.ofSeconds(1));
      consumer = null;
    }
    if (endOffsets != null) {
      endOffsets.close(Duration.ofSeconds(1));
      endOffsets = null;
    }
    if (producer != null) {
      producer.close(Duration.ofSeconds(1));
      producer = null;
    }
  }

  /**
   * A record of the state topic carrying the MAC that tells the plugin's writes apart from any
   * other client's (see {@link StateRecordAuth}).
   *
   * @throws IllegalStateException when this broker has no state secret: it writes no stop state
   */
  ProducerRecord<byte[], byte[]> signed(int partition, byte[] key, byte[] value) {
    StateRecordAuth auth =
        StateRecordAuth.configured()
            .orElseThrow(
                () ->
                    new IllegalStateException(
                        "cannot authenticate stop-state records: "
                            + StateRecordAuth.unavailableReason()));
    return new ProducerRecord<>(
        topic,
        partition,
        key,
        value,
        List.of(new RecordHeader(StateRecordAuth.HEADER, auth.mac(topic, partition, key, value))));
  }

  /** The state partition of every record of one data partition. */
  static int partitionOf(StopStateKey key, int partitions) {
    return Utils.toPositive(Utils.murmur2(StopStateCodec.partitionKey(key))) % partitions;
  }

  /** A copy of the cluster's client settings under the plugin's own {@code client.id}. */
  static Properties named(Properties clientProperties, String clientId) {
    Properties props = new Properties();
    props.putAll(clientProperties);
    props.put("client.id", clientId);
    return props;
  }

  /**
   * The settings of the stop-state reader: the cluster's client settings, then the ones its answers
   * within a stop step's budget rest on. A Kafka client sends its metadata requests to the broker
   * with the fewest requests in flight, and an open connection to a broker that has gone silent (a
   * long pause, a frozen VM, a one-way partition) has none; while a request waits there the
   * consumer learns no new leader, so a state partition that changed leader cannot be read. Kafka's
   * default request timeout (30 s) is longer than the budgets the stop state is read in (5 s for a
   * fence's sync, a failback start and a fetcher's first append; a stop call's remaining time; 2 s
   * for a describe, which repeats later). {@value #LOCAL_REQUEST_TIMEOUT_MS} ms frees the consumer
   * in time to ask another broker within the 5 s ones. The requests are small (metadata, offsets,
   * fetches that wait at most {@value #READER_FETCH_MAX_WAIT_MS} ms and return at most {@value
   * #READER_FETCH_MAX_BYTES} bytes), so a broker of the same cluster that answers none of them in
   * that time is treated as not answering: the consumer closes that connection and asks another
   * broker. A silent broker that leads a state partition still holds that partition's reads until
   * the controller fences it ({@code broker.session.timeout.ms}).
   */
  static Properties readerProperties(Properties clientProperties, int brokerId) {
    Properties cp = named(clientProperties, "cluster-mirror-stop-state-reader-" + brokerId);
    cp.put("enable.auto.commit", "false");
    cp.put("request.timeout.ms", Integer.toString(LOCAL_REQUEST_TIMEOUT_MS));
    cp.put("fetch.max.wait.ms", Integer.toString(READER_FETCH_MAX_WAIT_MS));
    cp.put("fetch.max.bytes", Integer.toString(READER_FETCH_MAX_BYTES));
    cp.put("key.deserializer", ByteArrayDeserializer.class.getName());
    cp.put("value.deserializer", ByteArrayDeserializer.class.getName());
    return cp;
  }

  /**
   * The settings of the admin client that creates the topic: the cluster's client settings, with
   * the reader's request timeout, for the same reason (a create sent to a silent broker would
   * otherwise hold a reopening reader for 30 s), and an overall bound of {@value
   * #ADMIN_API_TIMEOUT_MS} ms, the bound the reader puts on each admin call.
   */
  static Properties adminProperties(Properties clientProperties, int brokerId) {
    Properties admin = named(clientProperties, "cluster-mirror-stop-state-admin-" + brokerId);
    admin.put("request.timeout.ms", Integer.toString(LOCAL_REQUEST_TIMEOUT_MS));
    admin.put("default.api.timeout.ms", Integer.toString(ADMIN_API_TIMEOUT_MS));
    return admin;
  }

  /**
   * The settings of the stop-state writer: the cluster's client settings ({@code
   * cluster.mirror.local.client.*}), then the ones order and durability rest on, which a user's
   * client settings cannot override.
   */
  static Properties writerProperties(Properties clientProperties, int brokerId) {
    Properties pp = named(clientProperties, "cluster-mirror-stop-state-writer-" + brokerId);
    pp.put("acks", "all");
    // Writes of one partition's state must land in the order they were sent: compaction keeps the
    // last record of each (partition, leader epoch) key, so a record that overtook a later one
    // would become the state that counts after compaction or on a re-read. Two callers (two
    // operators, or a zombie one) can have writes of the same key in flight at once, so "one
    // writeAll writes each key once" is not enough. Two ways give order: idempotence, or one
    // request in flight per connection (a retry is then re-sent before anything later is sent).
    // This uses the second. Idempotence would take a producer id from this (the destination)
    // cluster. That is not a safety concern (the state topic is never a mirror partition and
    // producer state is per partition), but the id would come out of the first block of ids the
    // destination hands out, the same ids (0, 1, ...) the source's producers have and that the
    // producer-id collision tests and the demo must draw for a local producer; the state writer
    // must not change which ids clients of the destination get. A retried duplicate is the same
    // record next to the original, which the fold treats as a no-op.
    pp.put("enable.idempotence", "false");
    pp.put("max.in.flight.requests.per.connection", "1");
    pp.put("retries", "2147483647");
    pp.put("linger.ms", "5");
    // With one request in flight, every request is an acks=all round trip the next one waits for;
    // a stop step writes one record per partition the broker leads (3,333 at 10,000 partitions on
    // three brokers), which the producer's 16 KiB batches split into some seven requests per
    // broker in turn (28 s under load). A batch of 512 KiB holds a step's records of a state
    // partition, stays within the broker's default message.max.bytes (1 MiB), and a request of up
    // to 4 MiB carries a full batch of every state partition one broker leads (10 by default).
    pp.put("batch.size", Integer.toString(512 * 1024));
    pp.put("max.request.size", Integer.toString(4 * 1024 * 1024));
    pp.put("delivery.timeout.ms", "30000");
    pp.put("request.timeout.ms", "10000");
    pp.put("key.serializer", ByteArraySerializer.class.getName());
    pp.put("value.serializer", ByteArraySerializer.class.getName());
    return pp;
  }
}
