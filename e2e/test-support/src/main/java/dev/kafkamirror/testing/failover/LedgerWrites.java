package dev.kafkamirror.testing.failover;

import dev.kafkamirror.testing.kafka.TestClients;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;

/**
 * Writes with real producers and records each write in a {@link WriteLedger}: committed records at
 * the offsets the cluster acknowledged, aborted and never-committed values. Values are {@code
 * tag-kind-partition-i}, so a tag per call keeps them unique.
 */
public final class LedgerWrites {

  private LedgerWrites() {}

  /** {@code perPartition} records per partition from one new idempotent producer, one at a time. */
  public static void idempotent(
      WriteLedger ledger,
      String bootstrapServers,
      String topic,
      int partitions,
      int perPartition,
      String tag)
      throws Exception {
    try (KafkaProducer<String, String> p = TestClients.idempotentProducer(bootstrapServers)) {
      for (int part = 0; part < partitions; part++) {
        for (int i = 0; i < perPartition; i++) {
          String v = tag + "-idem-" + part + "-" + i;
          RecordMetadata m =
              p.send(new ProducerRecord<>(topic, part, "k", v)).get(30, TimeUnit.SECONDS);
          ledger.committed(topic, part, m.offset(), v);
        }
      }
    }
  }

  /**
   * One committed transaction of {@code perPartition} records on every partition, then one aborted
   * transaction of {@code aborted} records per partition, from transactional id {@code tag-tx}.
   */
  public static void transactions(
      WriteLedger ledger,
      String bootstrapServers,
      String topic,
      int partitions,
      int perPartition,
      int aborted,
      String tag)
      throws Exception {
    String transactionalId = tag + "-tx";
    try (KafkaProducer<String, String> tx =
        TestClients.transactionalProducer(bootstrapServers, transactionalId)) {
      tx.initTransactions();
      tx.beginTransaction();
      List<Future<RecordMetadata>> sent = new ArrayList<>();
      List<String> values = new ArrayList<>();
      for (int part = 0; part < partitions; part++) {
        for (int i = 0; i < perPartition; i++) {
          String v = tag + "-committed-" + part + "-" + i;
          sent.add(tx.send(new ProducerRecord<>(topic, part, "k", v)));
          values.add(v);
        }
      }
      TestClients.commitAndAwaitMarkers(tx, bootstrapServers, transactionalId);
      for (int i = 0; i < sent.size(); i++) {
        RecordMetadata m = metadata(sent.get(i));
        ledger.committed(topic, m.partition(), m.offset(), values.get(i));
      }
      if (aborted > 0) {
        tx.beginTransaction();
        for (int part = 0; part < partitions; part++) {
          for (int i = 0; i < aborted; i++) {
            String v = tag + "-aborted-" + part + "-" + i;
            tx.send(new ProducerRecord<>(topic, part, "k", v));
            ledger.aborted(topic, part, v);
          }
        }
        tx.flush();
        tx.abortTransaction();
        TestClients.awaitTransactionCompleted(
            bootstrapServers, transactionalId, java.time.Duration.ofSeconds(60));
      }
    }
  }

  /**
   * Leaves a transaction open on every partition ({@code tag-open}); the producer is returned
   * unclosed for the caller to close with {@code Duration.ZERO} once its cluster is lost.
   */
  public static KafkaProducer<String, String> openTransaction(
      WriteLedger ledger, String bootstrapServers, String topic, int partitions, String tag)
      throws Exception {
    KafkaProducer<String, String> tx =
        TestClients.openTransactionProducer(bootstrapServers, tag + "-open");
    try {
      tx.initTransactions();
      tx.beginTransaction();
      for (int part = 0; part < partitions; part++) {
        String v = tag + "-open-" + part;
        ledger.neverCommitted(topic, part, v);
        tx.send(new ProducerRecord<>(topic, part, "k", v)).get(30, TimeUnit.SECONDS);
      }
      tx.flush();
      return tx;
    } catch (Exception | Error e) {
      tx.close(java.time.Duration.ZERO);
      throw e;
    }
  }

  private static RecordMetadata metadata(Future<RecordMetadata> f)
      throws InterruptedException, ExecutionException, TimeoutException {
    return f.get(30, TimeUnit.SECONDS);
  }
}
