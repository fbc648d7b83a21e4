package dev.kafkamirror.operator.reconciler;

import dev.kafkamirror.operator.api.v1alpha1.ClusterMirror;
import dev.kafkamirror.operator.api.v1alpha1.ClusterMirrorStatus;
import dev.kafkamirror.operator.api.v1alpha1.PendingPartitions;
import dev.kafkamirror.operator.api.v1alpha1.TopicSyncStatus;
import dev.kafkamirror.operator.core.PartitionGrowthPlanner;
import dev.kafkamirror.operator.kafka.ClusterAdmin;
import java.time.Clock;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Keeps the destination topics' partitions in line with the source's: reads the selected topics'
 * partition counts on both clusters, lets {@link PartitionGrowthPlanner} decide, adds the
 * partitions the source gained to the destination (the next round of the reconcile starts mirroring
 * them, from the source's log start, at identical offsets) and reports the source partitions the
 * destination still lacks.
 *
 * <p>Invariants: {@link #check} never throws (an error is status, never a held reconcile or stop);
 * during a stop the source is never asked (it may be dead; the last counts seen stand) and nothing
 * is added; a source call that failed is not repeated for {@link #SOURCE_RETRY_MS}, and meanwhile
 * the last known pending partitions stand (never an empty list for an unknown source).
 *
 * <p>Thread-safe: state is per uid; JOSDK never runs two reconciles of the same resource at once.
 */
public final class TopicSync {

  private static final Logger LOG = LoggerFactory.getLogger(TopicSync.class);

  /** The bound of the source calls. */
  static final long SOURCE_TIMEOUT_MS = 3_000L;

  /** How long a source that failed is not asked again. */
  static final long SOURCE_RETRY_MS = 30_000L;

  /** The bound of status.topicSync.partitionsPending. */
  static final int MAX_TOPICS_LISTED = 100;

  /** What the sync remembers of one ClusterMirror. */
  private static final class Memory {
    Map<String, Integer> sourceCounts = new TreeMap<>();
    List<PartitionGrowthPlanner.Pending> pending = List.of();
    boolean sourceFailed;
    long sourceFailedNanos;
    String sourceAuthenticationError;
    TopicSyncStatus status;
  }

  private final AdminClients admins;
  private final Clock clock;
  private final LongSupplier nanoTime;
  private final Map<String, Memory> memory = new ConcurrentHashMap<>();

  public TopicSync(AdminClients admins, Clock clock, LongSupplier nanoTime) {
    this.admins = admins;
    this.clock = clock;
    this.nanoTime = nanoTime;
  }

  /**
   * What one check found.
   *
   * @param sourceAuthenticationError why the source refused the credentials of spec.source.security
   *     at the last call (never a secret), or null
   * @param destinationRefusal why the destination refused to add the partitions in a way waiting
   *     does not change (a policy, an ACL), or null
   */
  public record Result(
      List<PartitionGrowthPlanner.Pending> pending,
      boolean grew,
      String sourceAuthenticationError,
      String destinationRefusal) {}

  /**
   * Compares the source's and the destination's topics and adds the partitions the source gained.
   *
   * @param stoppedTopics topics with a STOPPING or STOPPED partition (never grown)
   * @param stopWanted a stop is wanted: the source is not asked and nothing is added
   */
  public Result check(
      String ref,
      ClusterMirror cr,
      ResolvedMirror mirror,
      ClusterAdmin destination,
      long adminTimeoutMs,
      Set<String> stoppedTopics,
      boolean stopWanted) {
    Memory m = memory(cr);
    String now = clock.instant().truncatedTo(ChronoUnit.SECONDS).toString();
    TopicSyncStatus status = new TopicSyncStatus();
    status.setLastCheckAt(now);
    status.setLastSuccessfulCheckAt(m.status == null ? null : m.status.getLastSuccessfulCheckAt());
    boolean grew = false;
    String error = null;
    String refusal = null;
    try {
      boolean askSource =
          !stopWanted
              && (!m.sourceFailed
                  || TimeUnit.NANOSECONDS.toMillis(nanoTime.getAsLong() - m.sourceFailedNanos)
                      >= SOURCE_RETRY_MS);
      if (askSource) {
        try {
          ClusterAdmin source =
              admins.source(
                  ref, mirror.sourceProperties(), Math.min(SOURCE_TIMEOUT_MS, adminTimeoutMs));
          List<String> selected = mirror.topics().select(source.topicNames());
          m.sourceCounts =
              selected.isEmpty()
                  ? new TreeMap<>()
                  : new TreeMap<>(source.partitionCounts(selected));
          m.sourceFailed = false;
          m.sourceAuthenticationError = null;
        } catch (ClusterAdmin.KafkaCallException e) {
          m.sourceFailed = true;
          m.sourceFailedNanos = nanoTime.getAsLong();
          m.sourceAuthenticationError = authenticationError(ref, mirror, e);
          throw new ClusterAdmin.KafkaCallException(
              "cannot read the source's partition counts ("
                  + e.getMessage()
                  + "); the partitions last seen stand, the source is asked again in "
                  + (SOURCE_RETRY_MS / 1000)
                  + " s: check spec.source.bootstrapServers and the source's health",
              e);
        }
      } else if (!stopWanted && m.sourceFailed) {
        error = m.status == null ? null : m.status.getLastError();
      }
      if (!m.sourceCounts.isEmpty()) {
        Set<String> onDestination = destination.topicNames();
        List<String> both =
            m.sourceCounts.keySet().stream().filter(onDestination::contains).toList();
        Map<String, Integer> destinationCounts =
            both.isEmpty() ? Map.of() : destination.partitionCounts(both);
        PartitionGrowthPlanner.Plan plan =
            PartitionGrowthPlanner.plan(
                m.sourceCounts, destinationCounts, stoppedTopics, stopWanted);
        m.pending = plan.pending();
        if (!plan.grow().isEmpty()) {
          LOG.info(
              "clusterMirror={} the source gained partitions; adding them on the destination: {}",
              ref,
              plan.grow());
          try {
            destination.createPartitions(plan.grow());
          } catch (ClusterAdmin.KafkaCallException e) {
            refusal = ClusterMirrorReconciler.destinationRefusal(ref, cr, e);
            throw new ClusterAdmin.KafkaCallException(
                e.getMessage()
                    + "; the partitions stay pending and are added again at the next reconcile:"
                    + " check the destination's quotas and the operator's ALTER permission on the"
                    + " topics",
                e);
          }
          grew = true;
        }
      } else if (askSource) {
        m.pending = List.of();
      }
      if (askSource) {
        status.setLastSuccessfulCheckAt(now);
      }
    } catch (ClusterAdmin.KafkaCallException e) {
      error = e.getMessage();
      LOG.info("clusterMirror={} topic partition check: {}", ref, error);
    }
    status.setLastError(error);
    List<PendingPartitions> rows = new ArrayList<>();
    for (PartitionGrowthPlanner.Pending p : m.pending) {
      if (rows.size() == MAX_TOPICS_LISTED) {
        break;
      }
      PendingPartitions row = new PendingPartitions();
      row.setTopic(p.topic());
      row.setPartitions(p.range());
      row.setSourcePartitions(p.sourcePartitions());
      row.setDestinationPartitions(p.destinationPartitions());
      row.setMessage(p.describe());
      rows.add(row);
    }
    status.setPartitionsPending(rows);
    m.status = status;
    return new Result(m.pending, grew, stopWanted ? null : m.sourceAuthenticationError, refusal);
  }

  /**
   * For a source call refused for its credentials: what happened, on which cluster, and what to
   * check; else null.
   */
  static String authenticationError(
      String ref, ResolvedMirror mirror, ClusterAdmin.KafkaCallException e) {
    var refusal = e.authenticationFailure();
    if (refusal == null) {
      return null;
    }
    return "ClusterMirror "
        + ref
        + ": the source cluster "
        + mirror.sourceBootstrapServers()
        + " refused the credentials of spec.source.security ("
        + refusal.getClass().getSimpleName()
        + ": "
        + refusal.getMessage()
        + "); nothing is mirrored until it accepts them: check the Secrets spec.source.security"
        + " names (the username and password of saslUser or saslCredentials, the client certificate"
        + " and key of tlsClientCertificate, the CA of tlsTrustedCertificate), that the source has"
        + " this user with this password or trusts the certificate's CA, and saslMechanism";
  }

  /**
   * The status to record: this process's last check, else the previous status's (the check did not
   * run this reconcile).
   */
  public TopicSyncStatus status(ClusterMirror cr, ClusterMirrorStatus previous) {
    Memory m = memory.get(cr.getMetadata().getUid());
    if (m != null && m.status != null) {
      return m.status;
    }
    return previous == null ? null : previous.getTopicSync();
  }

  /** The pending partitions last known for {@code cr} (none when never checked). */
  public List<PartitionGrowthPlanner.Pending> lastPending(ClusterMirror cr) {
    return memory(cr).pending;
  }

  private Memory memory(ClusterMirror cr) {
    return memory.computeIfAbsent(
        cr.getMetadata().getUid(),
        uid -> {
          // After a restart, what the last status said stands until the source is read again.
          Memory m = new Memory();
          ClusterMirrorStatus previous = cr.getStatus();
          if (previous != null && previous.getTopicSync() != null) {
            m.status = previous.getTopicSync();
            List<PartitionGrowthPlanner.Pending> pending = new ArrayList<>();
            for (PendingPartitions p : previous.getTopicSync().getPartitionsPending()) {
              if (p.getTopic() != null
                  && p.getSourcePartitions() != null
                  && p.getDestinationPartitions() != null) {
                m.sourceCounts.put(p.getTopic(), p.getSourcePartitions());
                // the row's message is describe(): keep only its "why", or describe() repeats the
                // topic and partitions
                String prefix =
                    new PartitionGrowthPlanner.Pending(
                            p.getTopic(), p.getSourcePartitions(), p.getDestinationPartitions(), "")
                        .describe();
                String why = p.getMessage() == null ? "" : p.getMessage();
                pending.add(
                    new PartitionGrowthPlanner.Pending(
                        p.getTopic(),
                        p.getSourcePartitions(),
                        p.getDestinationPartitions(),
                        why.startsWith(prefix) ? why.substring(prefix.length()) : why));
              }
            }
            m.pending = List.copyOf(pending);
          }
          return m;
        });
  }

  /** Forgets {@code uid} (deleted or released). */
  public void forget(String uid) {
    memory.remove(uid);
  }
}
