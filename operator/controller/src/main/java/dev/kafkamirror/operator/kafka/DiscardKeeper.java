package dev.kafkamirror.operator.kafka;

import dev.kafkamirror.operator.core.DiscardKeeping;
import dev.kafkamirror.operator.core.PartitionKey;
import java.util.Properties;

/**
 * Copies what a failback would discard from a partition of the destination into its side topic on
 * the destination ({@code spec.failback.keepDiscarded}), resuming an earlier copy. The decisions
 * are {@link DiscardKeeping}'s; this is their I/O.
 */
public interface DiscardKeeper extends AutoCloseable {

  /**
   * Copies the committed records of {@code range} of {@code key} not yet in {@code sideTopic}'s
   * partition of the same number, creating the side topic when missing. Never throws: a failure is
   * the outcome's problem.
   */
  DiscardKeeping.Outcome keep(
      String failbackId, PartitionKey key, DiscardKeeping.Range range, String sideTopic);

  @Override
  void close();

  /** Opens a keeper on a destination; clients are created on the first copy. */
  interface Factory {
    DiscardKeeper open(String clusterLabel, Properties destination, long timeoutMs);
  }
}
