package dev.kafkamirror.broker.agent.kafka4_4.mirror;

import dev.kafkamirror.broker.core.mirror.SourceAlignment;
import dev.kafkamirror.broker.core.mirror.SourceEpochHistory;
import dev.kafkamirror.contract.MirrorFailure;
import java.util.Map;
import java.util.Optional;
import kafka.cluster.Partition;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.message.FetchResponseData;
import org.apache.kafka.storage.internals.log.UnifiedLog;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What the fetcher of one source does when the source's log is not simply ahead of the local one:
 * the source topic's identity (pinned once, a recreated topic halts the partition), an out-of-range
 * answer (start an empty log at the source's log start, halt on a retention overrun, or retry), a
 * log start inside the first batch, and a diverging epoch. The decisions are {@link
 * SourceAlignment}'s and {@link SourceEpochHistory}'s (pure, in core); this class applies them to
 * the local partition under the mirror entry's lock. Never skips a record silently.
 *
 * <p>Threading: called from the fetcher's thread only; the registry is thread-safe, and every
 * change of a local log happens under the entry's lock while the entry is MIRRORING and this broker
 * leads.
 */
final class MirrorAlignment {

  private static final Logger LOG =
      LoggerFactory.getLogger("dev.kafkamirror.broker.agent.MirrorFetcher");

  private final SourceCluster source;
  private final MirrorRegistry registry;

  MirrorAlignment(SourceCluster source, MirrorRegistry registry) {
    this.source = source;
    this.registry = registry;
  }

  /** The topic id of the local partition's log, or null while it has none. */
  static String destinationTopicId(Partition partition) {
    if (partition.log().isEmpty()) {
      return null;
    }
    return partition.log().get().topicId().map(Uuid::toString).orElse(null);
  }

  /**
   * Pins each partition to the id its source topic has now, the first time (durably, before the
   * membership record and any append), and afterwards halts a partition whose source topic has
   * another id: it was deleted and created again, and its records must not follow the old ones. A
   * partition whose membership the cluster already records (another leader mirrored into it) is
   * pinned to the id that record names instead, so that a new leader never pins a newer source
   * topic over the one the log holds records of.
   */
  void checkSourceTopicIds(Map<TopicPartition, Partition> active) {
    // The ids pinned in this round are written to the registry file once, before any append.
    registry.writingOnceAfter(
        () -> {
          pinSourceTopicIds(active);
          return null;
        });
  }

  private void pinSourceTopicIds(Map<TopicPartition, Partition> active) {
    java.util.Iterator<Map.Entry<TopicPartition, Partition>> it = active.entrySet().iterator();
    while (it.hasNext()) {
      Map.Entry<TopicPartition, Partition> e = it.next();
      TopicPartition tp = e.getKey();
      MirrorEntry entry = registry.entry(tp).orElse(null);
      Uuid current = source.topicIdOf(tp.topic());
      String destinationTopicId = destinationTopicId(e.getValue());
      if (entry == null || current == null || destinationTopicId == null) {
        continue;
      }
      String pinned = entry.sourceTopicIdFor(destinationTopicId);
      if (pinned == null) {
        // A partition another leader mirrored into already: the id its membership records, not
        // the source's current one (which is another if the source topic was created again).
        pinned = ClusterMembership.recordedSourceTopicId(tp, entry, destinationTopicId);
        if (pinned != null) {
          registry.pinSourceTopicId(entry, pinned, destinationTopicId);
          LOG.info(
              "mirror {}: {} mirrors source topic {} with topic id {} (from the cluster's"
                  + " membership record)",
              entry.mirrorName(),
              tp,
              tp.topic(),
              pinned);
        }
      }
      if (pinned == null) {
        registry.pinSourceTopicId(entry, current.toString(), destinationTopicId);
        LOG.info(
            "mirror {}: {} mirrors source topic {} with topic id {}",
            entry.mirrorName(),
            tp,
            tp.topic(),
            current);
        continue;
      }
      String recreated =
          SourceAlignment.topicRecreated(
              tp + " of mirror " + entry.mirrorName(), tp.topic(), pinned, current.toString());
      if (recreated != null) {
        entry.fail(SourceAlignment.SOURCE_TOPIC_RECREATED, recreated, destinationTopicId);
        LOG.error("{}", recreated);
        it.remove();
      }
    }
  }

  /**
   * The source answered OFFSET_OUT_OF_RANGE at the local log end: lists the source's offsets and
   * starts an empty local log at the source's log start, halts a partition that fell behind the
   * source's retention, or reports why it fetches again. Never skips a record silently.
   *
   * @return true when the local log was started at the source's log start
   */
  boolean outOfRange(TopicPartition tp, MirrorEntry entry, Partition partition) {
    long[] offsets;
    try {
      offsets = source.logOffsets(tp);
    } catch (Exception ex) {
      String message =
          tp
              + " on source "
              + source.key()
              + ": OFFSET_OUT_OF_RANGE, and the source's offsets cannot be listed: "
              + ex;
      entry.error(message);
      LOG.warn("mirror {}: {}", entry.mirrorName(), message);
      return false;
    }
    entry.sourceOffsets(offsets[1], offsets[0]);
    synchronized (entry) {
      if (entry.state() != MirrorState.MIRRORING || !partition.isLeader()) {
        return false;
      }
      UnifiedLog log = partition.localLogOrException();
      SourceAlignment.OutOfRange decision =
          SourceAlignment.outOfRange(
              tp + " of mirror " + entry.mirrorName(),
              log.logStartOffset(),
              log.logEndOffset(),
              offsets[0],
              offsets[1]);
      if (decision instanceof SourceAlignment.StartAt start) {
        long emptyAt = log.logEndOffset();
        partition.truncateFullyAndStartAt(start.offset(), false, Optional.of(start.offset()));
        LOG.info(
            "mirror {}: {} was empty at offset {} and the source's log starts at {}: the local"
                + " log now starts there (followers follow through Kafka's out-of-range"
                + " handling)",
            entry.mirrorName(),
            tp,
            emptyAt,
            start.offset());
        return true;
      }
      if (decision instanceof SourceAlignment.Halt halt) {
        entry.fail(halt.reason(), halt.message(), destinationTopicId(partition));
        LOG.error("mirror {}: {}", entry.mirrorName(), halt.message());
        return false;
      }
      String message = ((SourceAlignment.Retry) decision).message();
      if (!message.equals(entry.lastError())) {
        LOG.warn("mirror {}: {}", entry.mirrorName(), message);
      }
      entry.error(message);
      return false;
    }
  }

  /**
   * Raises the local log start to the source's, once the high watermark passed it, after the first
   * mirrored batch held records below the source's log start (Kafka started the log at the batch's
   * base offset). Followers take the leader's log start from their fetch responses.
   */
  static void alignLogStart(TopicPartition tp, MirrorEntry entry, Partition partition) {
    long target = entry.alignLogStartTo();
    if (target < 0) {
      return;
    }
    synchronized (entry) {
      if (entry.state() != MirrorState.MIRRORING || !partition.isLeader()) {
        return;
      }
      UnifiedLog log = partition.localLogOrException();
      if (log.logStartOffset() >= target) {
        entry.alignLogStartTo(-1L);
        return;
      }
      if (log.highWatermark() >= target) {
        MirrorAppender.raiseLogStart(partition, log, target);
        entry.alignLogStartTo(-1L);
        LOG.info(
            "mirror {}: {} log start raised to the source's log start {}",
            entry.mirrorName(),
            tp,
            target);
      }
    }
  }

  /**
   * The source answered a fetch with a diverging epoch: its log no longer holds the record the
   * destination's log ends with (an unclean leader election or a truncation on the source). The
   * partition fails for good with reason {@value #SOURCE_DIVERGED}; nothing is appended, the
   * destination's records stay as they are.
   */
  void sourceDiverged(
      TopicPartition tp,
      MirrorEntry entry,
      Partition partition,
      SourceEpochs known,
      FetchResponseData.EpochEndOffset diverging) {
    long logEnd = partition.localLogOrException().logEndOffset();
    SourceEpochHistory history = known == null ? SourceEpochHistory.empty() : known.history();
    SourceEpochHistory.Divergence d =
        history.divergence(diverging.epoch(), diverging.endOffset(), logEnd);
    String message = d.describe(tp.toString(), entry.mirrorName());
    synchronized (entry) {
      if (entry.failedReason() == null) {
        LOG.error("mirror {}: {}", entry.mirrorName(), message);
        entry.fail(SOURCE_DIVERGED, message, destinationTopicId(partition));
      }
    }
  }

  /** The reason of a partition whose source's history no longer contains what was mirrored. */
  static final String SOURCE_DIVERGED = MirrorFailure.SourceDiverged.name();
}
