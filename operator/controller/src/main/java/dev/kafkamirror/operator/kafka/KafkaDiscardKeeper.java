package dev.kafkamirror.operator.kafka;

import dev.kafkamirror.operator.core.DiscardKeeping;
import dev.kafkamirror.operator.core.MetadataRequestPlanner;
import dev.kafkamirror.operator.core.PartitionKey;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.TopicExistsException;
import org.apache.kafka.common.errors.UnknownTopicOrPartitionException;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.header.internals.RecordHeader;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@link DiscardKeeper} with Kafka clients on the destination: the partition is read by a
 * read_committed consumer without a group, the side partition's tail by a second consumer, and the
 * copies written by an idempotent producer with acks=all, flushed before a copy counts.
 */
public final class KafkaDiscardKeeper implements DiscardKeeper {

  private static final Logger LOG = LoggerFactory.getLogger(KafkaDiscardKeeper.class);

  /** Reads that return nothing before a copy stops unfinished (an open transaction). */
  private static final int MAX_IDLE_READS = 10;

  private static final Duration POLL = Duration.ofMillis(500);

  /** The side topic writer's linger. */
  private static final long LINGER_MS = 5;

  private final String clusterLabel;
  private final Properties properties;
  private final long timeoutMs;
  private final Set<String> sideTopicsReady = new HashSet<>();
  private Admin admin;
  private KafkaConsumer<byte[], byte[]> reader;
  private KafkaConsumer<byte[], byte[]> tailReader;
  private KafkaProducer<byte[], byte[]> producer;

  public KafkaDiscardKeeper(String clusterLabel, Properties properties, long timeoutMs) {
    this.clusterLabel = clusterLabel;
    this.properties = properties;
    this.timeoutMs = timeoutMs;
  }

  @Override
  public DiscardKeeping.Outcome keep(
      String failbackId, PartitionKey key, DiscardKeeping.Range range, String sideTopic) {
    String problem = DiscardKeeping.sideTopicProblem(key, sideTopic);
    if (problem != null) {
      return new DiscardKeeping.Outcome(range.from(), 0, problem);
    }
    try {
      open();
      ensureSideTopic(key, sideTopic);
    } catch (DiscardKeeping.KeepException | RuntimeException e) {
      return new DiscardKeeping.Outcome(range.from(), 0, setupProblem(key, sideTopic, e));
    }
    TopicPartition original = new TopicPartition(key.topic(), key.partition());
    TopicPartition side = new TopicPartition(sideTopic, key.partition());
    DiscardKeeping.Outcome out =
        DiscardKeeping.copy(
            failbackId,
            key,
            range,
            sideTopic,
            position -> read(original, position),
            new DiscardKeeping.Side() {
              @Override
              public List<DiscardKeeping.Header> lastRecordHeaders()
                  throws DiscardKeeping.KeepException {
                return tail(side);
              }

              @Override
              public void append(List<DiscardKeeping.SideRecord> records)
                  throws DiscardKeeping.KeepException {
                write(side, records);
              }
            },
            MAX_IDLE_READS);
    LOG.info(
        "failback keep {} [{}, {}) in {}: copied through {}, {} records{}",
        key,
        range.from(),
        range.to(),
        side,
        out.copiedThrough(),
        out.copiedRecords(),
        out.problem() == null ? "" : " (" + out.problem() + ")");
    return out;
  }

  private void open() {
    if (admin != null) {
      return;
    }
    Properties common = new Properties();
    common.putAll(properties);
    Properties adminProps = new Properties();
    adminProps.putAll(common);
    adminProps.putIfAbsent(
        AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, Long.toString(timeoutMs));
    adminProps.putIfAbsent(AdminClientConfig.REQUEST_TIMEOUT_MS_CONFIG, Long.toString(timeoutMs));
    admin = Admin.create(adminProps);
    reader = consumer(common, "read_committed");
    tailReader = consumer(common, "read_uncommitted");
    producer = new KafkaProducer<>(producerProperties(common, timeoutMs));
  }

  /**
   * The side topic writer's settings: acks=all, idempotent, each request bounded by {@code
   * timeoutMs} (at most 30 s) and a delivery bound above request plus linger, as Kafka requires of
   * any {@code timeoutMs}.
   */
  static Properties producerProperties(Properties common, long timeoutMs) {
    long requestMs = Math.min(timeoutMs, 30_000);
    Properties p = new Properties();
    p.putAll(common);
    p.put(ProducerConfig.ACKS_CONFIG, "all");
    p.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, "true");
    p.put(ProducerConfig.LINGER_MS_CONFIG, Long.toString(LINGER_MS));
    p.put(ProducerConfig.MAX_BLOCK_MS_CONFIG, Long.toString(timeoutMs));
    p.put(
        ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG,
        Long.toString(Math.max(timeoutMs, 30_000) + LINGER_MS));
    p.put(ProducerConfig.REQUEST_TIMEOUT_MS_CONFIG, Long.toString(requestMs));
    p.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
    p.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
    return p;
  }

  private KafkaConsumer<byte[], byte[]> consumer(Properties common, String isolation) {
    Properties c = new Properties();
    c.putAll(common);
    c.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, isolation);
    c.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
    c.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "none");
    c.put(ConsumerConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, Long.toString(timeoutMs));
    c.put(ConsumerConfig.REQUEST_TIMEOUT_MS_CONFIG, Long.toString(timeoutMs));
    c.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
    c.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
    return new KafkaConsumer<>(c);
  }

  /** The side topic with at least the original's partition count, created when missing. */
  private void ensureSideTopic(PartitionKey key, String sideTopic)
      throws DiscardKeeping.KeepException {
    if (sideTopicsReady.contains(sideTopic)) {
      return;
    }
    int partitions =
        describe(key.topic())
            .orElseThrow(
                () ->
                    new DiscardKeeping.KeepException(
                        "topic " + key.topic() + " is not on " + clusterLabel, null))
            .partitions()
            .size();
    Optional<TopicDescription> existing = describe(sideTopic);
    int has;
    if (existing.isEmpty()) {
      Map<String, String> configs =
          Map.of(
              "message.timestamp.type",
              "CreateTime",
              ClusterAdmin.UNCLEAN_LEADER_ELECTION,
              "false");
      // In steps a KRaft controller accepts: as many partitions as fit, then CreatePartitions
      MetadataRequestPlanner.Plan plan =
          MetadataRequestPlanner.forCreation(
              Map.of(sideTopic, partitions),
              Map.of(sideTopic, configs.size()),
              MetadataRequestPlanner.RECORDS_PER_REQUEST);
      has = plan.creates().get(0).get(sideTopic);
      NewTopic topic = new NewTopic(sideTopic, Optional.of(has), Optional.empty()).configs(configs);
      try {
        admin.createTopics(List.of(topic)).all().get(timeoutMs, TimeUnit.MILLISECONDS);
        LOG.info("created side topic {} ({} partitions) on {}", sideTopic, has, clusterLabel);
      } catch (ExecutionException e) {
        if (!(e.getCause() instanceof TopicExistsException)) {
          throw new DiscardKeeping.KeepException("creating it: " + e.getCause(), e.getCause());
        }
        has = describe(sideTopic).map(d -> d.partitions().size()).orElse(has);
      } catch (java.util.concurrent.TimeoutException e) {
        throw new DiscardKeeping.KeepException(
            "creating it timed out after " + timeoutMs + " ms", e);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new DiscardKeeping.KeepException("interrupted", e);
      }
    } else {
      has = existing.get().partitions().size();
    }
    if (has < partitions) {
      // A side topic a crashed creation left short (or one made by hand): its records are written
      // by partition number, so more partitions lose nothing.
      raise(sideTopic, has, partitions);
    }
    sideTopicsReady.add(sideTopic);
  }

  /**
   * Raises {@code sideTopic} from {@code has} to {@code partitions} through the operator's own
   * stepwise raise ({@link KafkaClusterAdmin#raise}) over this keeper's Admin.
   */
  private void raise(String sideTopic, int has, int partitions)
      throws DiscardKeeping.KeepException {
    try {
      new KafkaClusterAdmin(clusterLabel, admin, timeoutMs, () -> {})
          .raise(Map.of(sideTopic, has), Map.of(sideTopic, partitions));
    } catch (ClusterAdmin.KafkaCallException e) {
      throw new DiscardKeeping.KeepException(
          "raising it from " + has + " to " + partitions + " partitions: " + e.getMessage(),
          e.getCause());
    }
    LOG.info(
        "raised side topic {} from {} to {} partitions on {}",
        sideTopic,
        has,
        partitions,
        clusterLabel);
  }

  private Optional<TopicDescription> describe(String topic) throws DiscardKeeping.KeepException {
    try {
      return Optional.of(
          admin
              .describeTopics(List.of(topic))
              .allTopicNames()
              .get(timeoutMs, TimeUnit.MILLISECONDS)
              .get(topic));
    } catch (ExecutionException e) {
      if (e.getCause() instanceof UnknownTopicOrPartitionException) {
        return Optional.empty();
      }
      throw new DiscardKeeping.KeepException("describing " + topic + ": " + e.getCause(), e);
    } catch (java.util.concurrent.TimeoutException e) {
      throw new DiscardKeeping.KeepException(
          "describing " + topic + " timed out after " + timeoutMs + " ms", e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new DiscardKeeping.KeepException("interrupted", e);
    }
  }

  private DiscardKeeping.Read read(TopicPartition tp, long position)
      throws DiscardKeeping.KeepException {
    try {
      reader.assign(List.of(tp));
      reader.seek(tp, position);
      List<DiscardKeeping.Original> out = new ArrayList<>();
      for (ConsumerRecord<byte[], byte[]> r : reader.poll(POLL).records(tp)) {
        out.add(
            new DiscardKeeping.Original(
                r.offset(),
                r.timestamp(),
                r.timestampType().name,
                r.leaderEpoch().orElse(null),
                r.key(),
                r.value(),
                headersOf(r)));
      }
      return new DiscardKeeping.Read(out, reader.position(tp));
    } catch (RuntimeException e) {
      throw new DiscardKeeping.KeepException(e.toString(), e);
    }
  }

  /** The headers of the side partition's last record (null: none). */
  private List<DiscardKeeping.Header> tail(TopicPartition tp) throws DiscardKeeping.KeepException {
    try {
      tailReader.assign(List.of(tp));
      long end = tailReader.endOffsets(List.of(tp)).get(tp);
      long start = tailReader.beginningOffsets(List.of(tp)).get(tp);
      if (end <= start) {
        return null;
      }
      tailReader.seek(tp, end - 1);
      ConsumerRecord<byte[], byte[]> last = null;
      long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(timeoutMs);
      while (tailReader.position(tp) < end && System.nanoTime() < deadline) {
        for (ConsumerRecord<byte[], byte[]> r : tailReader.poll(POLL).records(tp)) {
          last = r;
        }
      }
      if (last == null) {
        throw new DiscardKeeping.KeepException(
            "no record readable at offset " + (end - 1) + " of " + tp, null);
      }
      return headersOf(last);
    } catch (RuntimeException e) {
      throw new DiscardKeeping.KeepException(e.toString(), e);
    }
  }

  private void write(TopicPartition tp, List<DiscardKeeping.SideRecord> records)
      throws DiscardKeeping.KeepException {
    List<Future<RecordMetadata>> sent = new ArrayList<>();
    try {
      for (DiscardKeeping.SideRecord r : records) {
        List<Header> headers = new ArrayList<>();
        for (DiscardKeeping.Header h : r.headers()) {
          headers.add(new RecordHeader(h.key(), h.value()));
        }
        sent.add(
            producer.send(
                new ProducerRecord<>(
                    tp.topic(), tp.partition(), r.timestamp(), r.key(), r.value(), headers)));
      }
      producer.flush();
      for (Future<RecordMetadata> f : sent) {
        f.get();
      }
    } catch (ExecutionException e) {
      throw new DiscardKeeping.KeepException(String.valueOf(e.getCause()), e.getCause());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new DiscardKeeping.KeepException("interrupted", e);
    } catch (RuntimeException e) {
      throw new DiscardKeeping.KeepException(e.toString(), e);
    }
  }

  private static List<DiscardKeeping.Header> headersOf(ConsumerRecord<byte[], byte[]> r) {
    List<DiscardKeeping.Header> out = new ArrayList<>();
    for (Header h : r.headers()) {
      out.add(new DiscardKeeping.Header(h.key(), h.value()));
    }
    return out;
  }

  private String setupProblem(PartitionKey key, String sideTopic, Exception e) {
    return "cannot keep the records failback would discard from "
        + key
        + " in side topic "
        + sideTopic
        + " on "
        + clusterLabel
        + " ("
        + e.getMessage()
        + "); nothing is truncated until the copy completes: check that the operator's"
        + " destination credentials may describe, create and write "
        + sideTopic
        + " and read "
        + key.topic()
        + " (ACLs), or pre-create "
        + sideTopic
        + "; remove spec.failback.keepDiscarded to truncate without keeping";
  }

  @Override
  public void close() {
    Duration d = Duration.ofMillis(Math.min(timeoutMs, 5_000));
    if (producer != null) {
      producer.close(d);
    }
    if (reader != null) {
      reader.close(d);
    }
    if (tailReader != null) {
      tailReader.close(d);
    }
    if (admin != null) {
      admin.close(d);
    }
  }
}
