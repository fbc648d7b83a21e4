package dev.kafkamirror.broker.agent.kafka4_4.mirror;

/**
 * One mirror on this broker, as JMX shows it: {@code kafka.server:type=ClusterMirror,name=Mirror,
 * mirror=<mirror name>}. Lag and fetch figures cover the partitions of the mirror that this broker
 * leads (only a leader fetches from the source); partition counts cover every replica registered
 * here. Counters count since the broker started (or since the partition was registered here).
 */
public interface ClusterMirrorMXBean {

  /** The largest lag in records (source high watermark minus local log end); 0 when none known. */
  long getMaxLagRecords();

  /** The sum of the known lags in records. */
  long getTotalLagRecords();

  /**
   * Led MIRRORING partitions whose lag is unknown (no answer from the source yet or for 30 s, the
   * local log ahead of the source, a halted mirror).
   */
  int getPartitionsLagUnknown();

  /**
   * The longest time, in seconds, that a led MIRRORING partition has been continuously behind its
   * source: since the last fetch after which the local log end reached the source's high watermark
   * (or since the partition was registered, if it never did). 0 when every partition is caught up.
   */
  double getMaxLagSeconds();

  /** Fetch responses received for this mirror's partitions (one per partition per fetch). */
  long getFetchesTotal();

  /** Record bytes received from the source for this mirror's partitions. */
  long getFetchedBytesTotal();

  /** Record batches appended as-is. */
  long getBatchesAppendedTotal();

  int getPartitionsMirroring();

  int getPartitionsPaused();

  int getPartitionsAligning();

  int getPartitionsStopping();

  int getPartitionsStopped();

  /**
   * Partitions whose mirror halted for good (a FAILED reason) or whose source is another cluster.
   */
  int getPartitionsFailed();

  /** MIRROR_PID_RESET barriers this broker appended as the leader for this mirror's partitions. */
  long getBarrierWritesTotal();
}
