package dev.kafkamirror.broker.agent.tools;

import dev.kafkamirror.broker.core.record.ControlRecordKey;
import dev.kafkamirror.broker.core.record.MalformedBarrierException;
import dev.kafkamirror.broker.core.record.MirrorPidResetCodec;
import dev.kafkamirror.broker.core.record.MirrorPidResetRecord;
import dev.kafkamirror.broker.core.record.RecordPosition;
import java.io.File;
import java.io.IOException;
import java.io.PrintStream;
import java.util.ArrayList;
import java.util.List;
import java.util.OptionalInt;
import org.apache.kafka.common.record.internal.FileLogInputStream;
import org.apache.kafka.common.record.internal.FileRecords;
import org.apache.kafka.common.record.internal.Record;

/**
 * Prints the batches of Kafka segment files the way {@code kafka-dump-log.sh} does, and decodes
 * {@code MIRROR_PID_RESET} barriers: {@code | offset: 42 MIRROR_PID_RESET version=0
 * sourceClusterId=…}.
 *
 * <p>Run it on the broker's classpath plus the agent jar:
 *
 * <pre>
 * java -cp "/opt/kafka/libs/*:cmo-broker-agent.jar" dev.kafkamirror.broker.agent.tools.DumpMirrorLog \
 *     [--print-data-log] FILE.log...
 * </pre>
 *
 * <p>Exit code 0 when every file was read, 1 when a file could not be read, 2 on bad arguments.
 */
public final class DumpMirrorLog {

  private DumpMirrorLog() {}

  public static void main(String[] args) {
    System.exit(run(args, System.out, System.err));
  }

  /** Runs the dump; returns the exit code. */
  public static int run(String[] args, PrintStream out, PrintStream err) {
    boolean printData = false;
    List<File> files = new ArrayList<>();
    for (String arg : args) {
      if (arg.equals("--print-data-log")) {
        printData = true;
      } else if (arg.startsWith("--")) {
        err.println(
            "unknown option " + arg + "; usage: DumpMirrorLog [--print-data-log] FILE.log...");
        return 2;
      } else {
        files.add(new File(arg));
      }
    }
    if (files.isEmpty()) {
      err.println("usage: DumpMirrorLog [--print-data-log] FILE.log...");
      return 2;
    }
    int exit = 0;
    for (File file : files) {
      try {
        dump(file, printData, out);
      } catch (IOException | RuntimeException e) {
        err.println("cannot read " + file + ": " + e);
        exit = 1;
      }
    }
    return exit;
  }

  private static void dump(File file, boolean printData, PrintStream out) throws IOException {
    String[] topicPartition = topicPartitionOf(file);
    out.println("Dumping " + file);
    try (FileRecords records = FileRecords.open(file, false)) {
      for (FileLogInputStream.FileChannelRecordBatch batch : records.batches()) {
        out.printf(
            "baseOffset: %d lastOffset: %d count: %s baseSequence: %d lastSequence: %d producerId: %d"
                + " producerEpoch: %d partitionLeaderEpoch: %d isTransactional: %s isControl: %s position: %d"
                + " CreateTime: %d size: %d magic: %d compresscodec: %s crc: %d isvalid: %s%n",
            batch.baseOffset(),
            batch.lastOffset(),
            batch.countOrNull(),
            batch.baseSequence(),
            batch.lastSequence(),
            batch.producerId(),
            batch.producerEpoch(),
            batch.partitionLeaderEpoch(),
            batch.isTransactional(),
            batch.isControlBatch(),
            batch.position(),
            batch.maxTimestamp(),
            batch.sizeInBytes(),
            batch.magic(),
            batch.compressionType().name,
            batch.checksum(),
            batch.isValid());
        if (!batch.isControlBatch() && !printData) {
          continue;
        }
        for (Record record : batch) {
          if (batch.isControlBatch()) {
            out.println(
                "| offset: " + record.offset() + " " + describeControl(record, topicPartition));
          } else {
            out.printf(
                "| offset: %d CreateTime: %d keySize: %d valueSize: %d%n",
                record.offset(), record.timestamp(), record.keySize(), record.valueSize());
          }
        }
      }
    }
  }

  static String describeControl(Record record, String[] topicPartition) {
    OptionalInt type = ControlRecordKey.typeOf(record.key());
    if (type.isEmpty()) {
      return "controlType: unreadable key";
    }
    if (type.getAsInt() != ControlRecordKey.MIRROR_PID_RESET) {
      return "controlType: " + type.getAsInt();
    }
    RecordPosition position =
        new RecordPosition(topicPartition[0], Integer.parseInt(topicPartition[1]), record.offset());
    try {
      MirrorPidResetRecord value = MirrorPidResetCodec.decode(record.value(), position);
      return "MIRROR_PID_RESET version="
          + value.version()
          + " sourceClusterId="
          + value.sourceClusterId();
    } catch (MalformedBarrierException e) {
      return "MIRROR_PID_RESET malformed: " + e.getMessage();
    }
  }

  /**
   * {topic, partition} from a segment's directory name "topic-partition"; {"?", "-1"} when it has
   * none.
   */
  static String[] topicPartitionOf(File file) {
    File dir = file.getAbsoluteFile().getParentFile();
    String name = dir == null ? "" : dir.getName();
    int dash = name.lastIndexOf('-');
    if (dash > 0 && name.substring(dash + 1).matches("\\d+")) {
      return new String[] {name.substring(0, dash), name.substring(dash + 1)};
    }
    return new String[] {"?", "-1"};
  }
}
