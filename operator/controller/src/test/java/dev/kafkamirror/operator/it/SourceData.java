package dev.kafkamirror.operator.it;

import dev.kafkamirror.testing.kafka.KafkaCluster;
import dev.kafkamirror.testing.kafka.TestClients;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;

/** Writes idempotent and transactional records to a source topic and remembers what committed. */
final class SourceData {

  private SourceData() {}

  /**
   * Per partition: {@code idempotent} idempotent records, a committed transaction of {@code
   * transactional} records and an aborted one of 3; returns the committed values.
   */
  static List<String> write(
      KafkaCluster source,
      String topic,
      int partitions,
      int idempotent,
      int transactional,
      String tag)
      throws Exception {
    List<String> committed = new ArrayList<>();
    try (KafkaProducer<String, String> p =
        TestClients.idempotentProducer(source.bootstrapServers())) {
      for (int part = 0; part < partitions; part++) {
        for (int i = 0; i < idempotent; i++) {
          String v = tag + "-idem-" + part + "-" + i;
          p.send(new ProducerRecord<>(topic, part, "k", v)).get(30, TimeUnit.SECONDS);
          committed.add(v);
        }
      }
    }
    try (KafkaProducer<String, String> tx =
        TestClients.transactionalProducer(source.bootstrapServers(), tag + "-tx")) {
      tx.initTransactions();
      tx.beginTransaction();
      for (int part = 0; part < partitions; part++) {
        for (int i = 0; i < transactional; i++) {
          String v = tag + "-committed-" + part + "-" + i;
          tx.send(new ProducerRecord<>(topic, part, "k", v));
          committed.add(v);
        }
      }
      TestClients.commitAndAwaitMarkers(tx, source.bootstrapServers(), tag + "-tx");
      tx.beginTransaction();
      for (int part = 0; part < partitions; part++) {
        for (int i = 0; i < 3; i++) {
          tx.send(new ProducerRecord<>(topic, part, "k", tag + "-aborted-" + part + "-" + i));
        }
      }
      tx.abortTransaction();
      TestClients.awaitTransactionCompleted(
          source.bootstrapServers(), tag + "-tx", java.time.Duration.ofSeconds(60));
    }
    return committed;
  }

  /**
   * Leaves a transaction open on every partition (the producer is returned unclosed; the caller
   * kills the source or closes it).
   */
  static KafkaProducer<String, String> openTransaction(
      KafkaCluster source, String topic, int partitions, String tag) throws Exception {
    KafkaProducer<String, String> tx =
        TestClients.transactionalProducer(source.bootstrapServers(), tag + "-open");
    tx.initTransactions();
    tx.beginTransaction();
    for (int part = 0; part < partitions; part++) {
      tx.send(new ProducerRecord<>(topic, part, "k", tag + "-open-" + part))
          .get(30, TimeUnit.SECONDS);
    }
    tx.flush();
    return tx;
  }
}
