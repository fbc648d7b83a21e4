package dev.kafkamirror.testing.kafka;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.stream.Collectors;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.TransactionDescription;
import org.apache.kafka.clients.admin.TransactionState;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.common.IsolationLevel;
import org.apache.kafka.common.PartitionInfo;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;

/** Real kafka-clients producers and consumers for a test cluster, with bounded waits. */
public final class TestClients {

  private TestClients() {}

  /** An idempotent producer (acks=all) of string keys and values. */
  public static KafkaProducer<String, String> idempotentProducer(String bootstrapServers) {
    Properties props = producerBase(bootstrapServers);
    props.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, "true");
    return new KafkaProducer<>(props);
  }

  /** A transactional producer; the caller calls {@code initTransactions()}. */
  public static KafkaProducer<String, String> transactionalProducer(
      String bootstrapServers, String transactionalId) {
    return transactional(bootstrapServers, transactionalId, 60_000);
  }

  private static KafkaProducer<String, String> transactional(
      String bootstrapServers, String transactionalId, int transactionTimeoutMs) {
    Properties props = producerBase(bootstrapServers);
    props.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, "true");
    props.put(ProducerConfig.TRANSACTIONAL_ID_CONFIG, transactionalId);
    props.put(ProducerConfig.TRANSACTION_TIMEOUT_CONFIG, Integer.toString(transactionTimeoutMs));
    return new KafkaProducer<>(props);
  }

  /**
   * A transactional producer for a transaction a test leaves open on purpose (something above the
   * last stable offset until the test ends): its timeout is the broker's default maximum, 15
   * minutes, because with the usual 60 s the coordinator aborts the transaction when a test slowed
   * by a loaded machine takes longer, and the abort marker takes away what the test is about. The
   * caller calls {@code initTransactions()} and closes the producer without committing.
   */
  public static KafkaProducer<String, String> openTransactionProducer(
      String bootstrapServers, String transactionalId) {
    return transactional(bootstrapServers, transactionalId, 900_000);
  }

  /**
   * Commits the producer's transaction and waits until its markers are in the log.
   *
   * <p>Under transaction version 2 (the default on Kafka 4.x) {@code commitTransaction()} returns
   * once the coordinator has recorded PrepareCommit; the COMMIT markers are written after that.
   * Until they are in the partitions' logs the last stable offset stays before the transaction, so
   * a read_committed consumer that reads "to the end" right after the commit misses the
   * transaction's records. Tests that read after committing call this instead of {@code
   * commitTransaction()}.
   */
  public static void commitAndAwaitMarkers(
      KafkaProducer<?, ?> producer, String bootstrapServers, String transactionalId) {
    producer.commitTransaction();
    awaitTransactionCompleted(bootstrapServers, transactionalId, Duration.ofSeconds(60));
  }

  /**
   * Waits until the coordinator of {@code transactionalId} reports its last transaction complete
   * (CompleteCommit, CompleteAbort or Empty), i.e. every marker is written.
   *
   * @throws IllegalStateException naming the transactional id, the last state seen and the timeout
   */
  public static void awaitTransactionCompleted(
      String bootstrapServers, String transactionalId, Duration timeout) {
    Set<TransactionState> complete =
        Set.of(
            TransactionState.COMPLETE_COMMIT,
            TransactionState.COMPLETE_ABORT,
            TransactionState.EMPTY);
    Properties props = new Properties();
    props.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers);
    long deadline = System.nanoTime() + timeout.toNanos();
    String lastSeen = "not described yet";
    try (Admin admin = Admin.create(props)) {
      while (System.nanoTime() < deadline) {
        try {
          TransactionDescription description =
              admin
                  .describeTransactions(List.of(transactionalId))
                  .description(transactionalId)
                  .get(10, TimeUnit.SECONDS);
          if (complete.contains(description.state())) {
            return;
          }
          lastSeen = description.state() + " (partitions " + description.topicPartitions() + ")";
        } catch (ExecutionException | TimeoutException e) {
          lastSeen = "describe failed: " + e;
        }
        Thread.sleep(50);
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(
          "interrupted waiting for transaction " + transactionalId + " to complete", e);
    }
    throw new IllegalStateException(
        "transaction "
            + transactionalId
            + " on "
            + bootstrapServers
            + " did not complete within "
            + timeout
            + "; last seen: "
            + lastSeen);
  }

  private static Properties producerBase(String bootstrapServers) {
    Properties props = new Properties();
    props.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers);
    props.put(ProducerConfig.ACKS_CONFIG, "all");
    props.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
    props.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
    props.put(ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG, "120000");
    props.put(ProducerConfig.REQUEST_TIMEOUT_MS_CONFIG, "30000");
    props.put(ProducerConfig.MAX_BLOCK_MS_CONFIG, "60000");
    props.put(ProducerConfig.LINGER_MS_CONFIG, "5");
    return props;
  }

  /** A consumer with no group (partitions are assigned, not subscribed). */
  public static KafkaConsumer<String, String> consumer(
      String bootstrapServers, IsolationLevel isolation) {
    Properties props = new Properties();
    props.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers);
    props.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, isolation.toString().toLowerCase(Locale.ROOT));
    props.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
    props.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
    props.put(ConsumerConfig.CLIENT_ID_CONFIG, "cmo-test-" + UUID.randomUUID());
    props.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class.getName());
    props.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class.getName());
    props.put(ConsumerConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, "30000");
    props.put(ConsumerConfig.REQUEST_TIMEOUT_MS_CONFIG, "30000");
    return new KafkaConsumer<>(props);
  }

  /**
   * Reads every record of every partition of {@code topic} from the beginning up to the end offsets
   * seen when the read starts (for read_committed: up to the last stable offset).
   *
   * @throws IllegalStateException if the end is not reached within {@code timeout}
   */
  public static List<ConsumerRecord<String, String>> readAll(
      String bootstrapServers, String topic, IsolationLevel isolation, Duration timeout) {
    try (KafkaConsumer<String, String> consumer = consumer(bootstrapServers, isolation)) {
      List<PartitionInfo> infos = consumer.partitionsFor(topic, timeout);
      List<TopicPartition> partitions =
          infos.stream().map(p -> new TopicPartition(topic, p.partition())).toList();
      consumer.assign(partitions);
      consumer.seekToBeginning(partitions);
      Map<TopicPartition, Long> end = consumer.endOffsets(partitions, timeout);
      List<ConsumerRecord<String, String>> records = new ArrayList<>();
      long deadline = System.nanoTime() + timeout.toNanos();
      while (!reached(consumer, end)) {
        if (System.nanoTime() > deadline) {
          Map<TopicPartition, Long> positions =
              partitions.stream().collect(Collectors.toMap(p -> p, consumer::position));
          throw new IllegalStateException(
              "reading "
                  + topic
                  + " ("
                  + isolation
                  + ") did not reach end offsets "
                  + end
                  + " within "
                  + timeout
                  + "; positions "
                  + positions);
        }
        consumer.poll(Duration.ofMillis(200)).forEach(records::add);
      }
      return records;
    }
  }

  private static boolean reached(KafkaConsumer<?, ?> consumer, Map<TopicPartition, Long> end) {
    return end.entrySet().stream().allMatch(e -> consumer.position(e.getKey()) >= e.getValue());
  }

  /** The values of {@code records}, in the order read. */
  public static List<String> values(List<ConsumerRecord<String, String>> records) {
    return records.stream().map(ConsumerRecord::value).toList();
  }
}
