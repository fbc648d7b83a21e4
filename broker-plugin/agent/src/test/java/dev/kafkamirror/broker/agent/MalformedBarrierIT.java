package dev.kafkamirror.broker.agent;

import static dev.kafkamirror.broker.agent.ProducerWrites.newProducerWrites;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.kafkamirror.testing.kafka.KafkaCluster;
import dev.kafkamirror.testing.kafka.TestClients;
import java.io.RandomAccessFile;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import java.util.zip.CRC32C;
import org.apache.kafka.common.IsolationLevel;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.record.internal.FileLogInputStream;
import org.apache.kafka.common.record.internal.FileRecords;
import org.junit.jupiter.api.Test;

/**
 * A barrier whose value is malformed (here: an unknown version, with a valid CRC) met while
 * recovering a log: the broker does not crash, the reset still applies, and the bad value is
 * reported with its offset.
 */
class MalformedBarrierIT {

  /**
   * Where the value's int16 Version sits in the barrier batch this plugin writes (header 61 +
   * record 9).
   */
  private static final int VALUE_VERSION_POSITION = 71;

  private static final int CRC_POSITION = 17;
  private static final int ATTRIBUTES_POSITION = 21;

  @Test
  void aMalformedBarrierValueStillResetsAndIsReported() throws Exception {
    String topic = "malformed";
    try (KafkaCluster cluster = AgentClusters.withAgent("malformed").singleNode().start()) {
      // Given two producers, a barrier and a third producer
      cluster.createTopic(topic, 1, 1, Map.of());
      newProducerWrites(cluster.bootstrapServers(), topic, 3, 10);
      newProducerWrites(cluster.bootstrapServers(), topic, 3, 10);
      long barrierOffset =
          MirrorOps.control(cluster)
              .barrier(topic, "cluster-A", 0)
              .result(topic, 0)
              .get("barrierOffset")
              .asLong();
      newProducerWrites(cluster.bootstrapServers(), topic, 3, 10);

      // When the broker dies and, on disk, the barrier's value gets version 9 (CRC recomputed, so
      // only the
      // value is wrong), then the broker recovers the log
      cluster.killBroker(1);
      Path dir = cluster.partitionDir(1, new TopicPartition(topic, 0));
      corruptBarrierVersion(dir, barrierOffset);
      cluster.restartBroker(1);

      // Then the broker runs, reset producer state at the barrier anyway, and reports the bad value
      JsonNode described = MirrorOps.control(cluster).describe(topic, 0).result(topic, 0);
      assertThat(described.get("producerEntries").asInt()).as(described.toString()).isEqualTo(1);
      assertThat(described.get("barrierResets"))
          .anySatisfy(
              r -> {
                assertThat(r.get("barrierOffset").asLong()).isEqualTo(barrierOffset);
                assertThat(r.get("malformedValue").asText())
                    .contains("UNSUPPORTED_VERSION")
                    .contains("topic=" + topic)
                    .contains("offset=" + barrierOffset);
              });
      assertThat(cluster.node(1).outputSinceStart())
          .contains("MIRROR_PID_RESET at offset " + barrierOffset + " has a malformed value");
      assertThat(
              TestClients.readAll(
                  cluster.bootstrapServers(),
                  topic,
                  IsolationLevel.READ_COMMITTED,
                  Duration.ofSeconds(60)))
          .hasSize(9);
    }
  }

  private static void corruptBarrierVersion(Path dir, long barrierOffset) throws Exception {
    List<Path> segments;
    try (Stream<Path> files = Files.list(dir)) {
      segments = files.filter(f -> f.getFileName().toString().endsWith(".log")).sorted().toList();
    }
    for (Path segment : segments) {
      int position = -1;
      int size = 0;
      try (FileRecords records = FileRecords.open(segment.toFile(), false)) {
        for (FileLogInputStream.FileChannelRecordBatch batch : records.batches()) {
          if (batch.baseOffset() == barrierOffset && batch.isControlBatch()) {
            position = batch.position();
            size = batch.sizeInBytes();
          }
        }
      }
      if (position < 0) {
        continue;
      }
      try (RandomAccessFile file = new RandomAccessFile(segment.toFile(), "rw")) {
        byte[] batch = new byte[size];
        file.seek(position);
        file.readFully(batch);
        assertThat(batch[VALUE_VERSION_POSITION]).isZero();
        assertThat(batch[VALUE_VERSION_POSITION + 1]).isZero();
        batch[VALUE_VERSION_POSITION + 1] = 9;
        CRC32C crc = new CRC32C();
        crc.update(batch, ATTRIBUTES_POSITION, batch.length - ATTRIBUTES_POSITION);
        int value = (int) crc.getValue();
        batch[CRC_POSITION] = (byte) (value >>> 24);
        batch[CRC_POSITION + 1] = (byte) (value >>> 16);
        batch[CRC_POSITION + 2] = (byte) (value >>> 8);
        batch[CRC_POSITION + 3] = (byte) value;
        file.seek(position);
        file.write(batch);
      }
      return;
    }
    throw new AssertionError("no barrier batch at offset " + barrierOffset + " in " + dir);
  }
}
