package dev.kafkamirror.broker.agent.kafka4_4.mirror;

import java.util.Map;
import org.apache.kafka.common.TopicPartition;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The identity check of one source cluster's fetcher: every cluster id the source reports is
 * checked against what each partition of that source expects. Confined to the fetcher's thread.
 */
final class SourceIdentity {

  private static final Logger LOG =
      LoggerFactory.getLogger("dev.kafkamirror.broker.agent.MirrorFetcher");

  private final SourceCluster source;
  private final MirrorRegistry registry;

  /** Without an expected cluster id: the id this fetcher's source reported first. */
  private String pinnedClusterId;

  SourceIdentity(SourceCluster source, MirrorRegistry registry) {
    this.source = source;
    this.registry = registry;
  }

  /**
   * Checks a cluster id the source reported (through its metadata, or on a new fetch connection)
   * against every partition of this source that may fetch: a partition whose expected cluster id
   * (or, without one, the id this fetcher saw first) differs stops fetching for good, with the
   * reason in describe, until it is registered again with another source. Nothing is fetched from a
   * source whose identity is not verified.
   *
   * @return true when some partition does not accept {@code reported}
   */
  boolean mismatch(String reported, String where) {
    boolean mismatch = false;
    for (Map.Entry<TopicPartition, MirrorEntry> e : registry.entriesOf(source.key()).entrySet()) {
      MirrorEntry entry = e.getValue();
      if (entry.state() != MirrorState.MIRRORING && entry.state() != MirrorState.PAUSED) {
        continue;
      }
      String expected = entry.expectedSourceClusterId();
      if (expected == null) {
        if (pinnedClusterId == null) {
          pinnedClusterId = reported;
        }
        expected = pinnedClusterId;
      }
      if (expected.equals(reported)) {
        if (entry.sourceMismatch() == null) {
          entry.sourceClusterId(reported);
        }
        continue;
      }
      mismatch = true;
      if (entry.sourceMismatch() == null) {
        String message =
            where
                + " of mirror "
                + source.key()
                + " reports cluster id "
                + reported
                + ", but "
                + e.getKey()
                + " mirrors cluster "
                + expected
                + "; stopped fetching "
                + e.getKey()
                + " for good (it stays read-only); register the mirror again with the right"
                + " source to resume";
        entry.sourceMismatch(reported, message);
        LOG.error("{}", message);
      }
    }
    return mismatch;
  }
}
