package dev.kafkamirror.operator.it;

import dev.kafkamirror.testing.failover.LedgerWrites;
import dev.kafkamirror.testing.failover.WriteLedger;
import dev.kafkamirror.testing.kafka.KafkaCluster;
import java.util.List;
import org.apache.kafka.clients.producer.KafkaProducer;

/**
 * Writes idempotent and transactional records to a source topic and returns what committed: the
 * operator ITs' short form of test-support's {@link LedgerWrites} (the ITs that check records at
 * their offsets use a {@link WriteLedger} and the failover checker directly).
 */
final class SourceData {

  private SourceData() {}

  /**
   * Per partition: {@code idempotent} idempotent records, a committed transaction of {@code
   * transactional} records and an aborted one of 3 (neither when {@code transactional} is 0);
   * returns the committed values.
   */
  static List<String> write(
      KafkaCluster source,
      String topic,
      int partitions,
      int idempotent,
      int transactional,
      String tag)
      throws Exception {
    WriteLedger ledger = new WriteLedger();
    LedgerWrites.idempotent(ledger, source.bootstrapServers(), topic, partitions, idempotent, tag);
    if (transactional > 0) {
      // With transactional 0 only the idempotent records are written, so a caller that counts
      // offsets (log end == idempotent) is not thrown off by an aborted transaction and its marker.
      LedgerWrites.transactions(
          ledger, source.bootstrapServers(), topic, partitions, transactional, 3, tag);
    }
    return new java.util.ArrayList<>(ledger.committedValues(topic));
  }

  /**
   * Leaves a transaction open on every partition (the producer is returned unclosed; the caller
   * kills the source or closes it).
   */
  static KafkaProducer<String, String> openTransaction(
      KafkaCluster source, String topic, int partitions, String tag) throws Exception {
    return LedgerWrites.openTransaction(
        new WriteLedger(), source.bootstrapServers(), topic, partitions, tag);
  }
}
