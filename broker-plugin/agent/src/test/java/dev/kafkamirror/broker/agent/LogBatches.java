package dev.kafkamirror.broker.agent;

import dev.kafkamirror.testing.kafka.KafkaCluster;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.record.internal.FileLogInputStream;
import org.apache.kafka.common.record.internal.FileRecords;

/** What a replica's log files hold, batch by batch, read from disk with Kafka's own parser. */
final class LogBatches {

  private LogBatches() {}

  /**
   * Offset range, producer id, epoch, sequence, control flag and CRC of every batch of partition 0
   * of {@code topic} on the cluster's first broker.
   */
  static List<String> signatures(KafkaCluster cluster, String topic) throws Exception {
    return signatures(cluster, cluster.brokerIds().get(0), new TopicPartition(topic, 0));
  }

  /**
   * Offset range, producer id, epoch, sequence, control flag and CRC of every batch of {@code tp}
   * on {@code broker}, in log order: two replicas, or a mirror and its source, hold the same
   * batches exactly when these lists are equal.
   */
  static List<String> signatures(KafkaCluster cluster, int broker, TopicPartition tp)
      throws Exception {
    Path dir = cluster.partitionDir(broker, tp);
    List<String> signatures = new ArrayList<>();
    List<Path> segments;
    try (Stream<Path> files = Files.list(dir)) {
      segments = files.filter(f -> f.getFileName().toString().endsWith(".log")).sorted().toList();
    }
    for (Path segment : segments) {
      try (FileRecords records = FileRecords.open(segment.toFile(), false)) {
        for (FileLogInputStream.FileChannelRecordBatch batch : records.batches()) {
          signatures.add(
              batch.baseOffset()
                  + ".."
                  + batch.lastOffset()
                  + " pid="
                  + batch.producerId()
                  + " epoch="
                  + batch.producerEpoch()
                  + " seq="
                  + batch.baseSequence()
                  + " control="
                  + batch.isControlBatch()
                  + " crc="
                  + batch.checksum());
        }
      }
    }
    return signatures;
  }
}
