package dev.kafkamirror.operator.reconciler;

import dev.kafkamirror.operator.api.v1alpha1.ClusterMirror;
import dev.kafkamirror.operator.api.v1alpha1.ClusterMirrorStatus;
import dev.kafkamirror.operator.api.v1alpha1.Condition;
import dev.kafkamirror.operator.api.v1alpha1.Conditions;
import dev.kafkamirror.operator.api.v1alpha1.DeletionPolicy;
import dev.kafkamirror.operator.api.v1alpha1.MirrorState;
import dev.kafkamirror.operator.api.v1alpha1.StopMode;
import dev.kafkamirror.operator.app.ClusterMirrorMetrics;
import dev.kafkamirror.operator.core.Action;
import dev.kafkamirror.operator.core.FailoverPlan;
import dev.kafkamirror.operator.core.FailoverPlanner;
import dev.kafkamirror.operator.core.MirrorIntent;
import dev.kafkamirror.operator.core.PartitionDecision;
import dev.kafkamirror.operator.core.PartitionPhase;
import dev.kafkamirror.operator.core.StatusComputer;
import dev.kafkamirror.operator.core.StatusInputs;
import dev.kafkamirror.operator.kafka.ClusterAdmin;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.javaoperatorsdk.operator.api.reconciler.Context;
import io.javaoperatorsdk.operator.api.reconciler.ControllerConfiguration;
import io.javaoperatorsdk.operator.api.reconciler.PrimaryUpdateAndCacheUtils;
import io.javaoperatorsdk.operator.api.reconciler.Reconciler;
import io.javaoperatorsdk.operator.api.reconciler.UpdateControl;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Properties;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The one reconciler of ClusterMirror. It only orchestrates, in this order:
 *
 * <ol>
 *   <li><b>observe</b>: the destination's metadata and one describe per leader broker ({@link
 *       MirrorDriver#observe});
 *   <li><b>validate</b>: the spec's Secrets and patterns ({@link SpecResolver}), and the plan's
 *       refusals (another source cluster, another mirror) ({@link FailoverPlanner});
 *   <li><b>act</b>: the plan's calls, batched per broker ({@link MirrorDriver#execute}); then
 *       observe again, up to {@link ReconcilerSettings#maxRoundsPerReconcile} rounds;
 *   <li><b>record status</b>: {@link StatusComputer}, with an Event per condition transition.
 * </ol>
 *
 * <p>The stop's progress lives on the destination (each broker persists its partitions' stop step),
 * so a reconcile after an operator crash resumes exactly where the brokers are. Before the first
 * destructive step the status records that the stop began.
 *
 * <p>Deletion: with deletionPolicy StopMirroring the resource carries a finalizer and deleting it
 * first stops every partition; with Retain there is no finalizer and deleting it changes nothing.
 */
@ControllerConfiguration(name = "clustermirror", triggerReconcilerOnAllEvents = true)
public final class ClusterMirrorReconciler implements Reconciler<ClusterMirror>, AutoCloseable {

  public static final String FINALIZER = "kafkamirror.dev/stop-mirroring";

  private static final Logger LOG = LoggerFactory.getLogger(ClusterMirrorReconciler.class);

  /**
   * The source is only listed to create missing topics; a dead source must not stall a reconcile.
   */
  private static final long SOURCE_TIMEOUT_MS = 3_000L;

  private final KubernetesClient client;
  private final SpecResolver resolver;
  private final MirrorDriver driver;
  private final EventRecorder events;
  private final ClusterMirrorMetrics metrics;
  private final Clock clock;
  private final ReconcilerSettings settings;
  private final Map<String, CachedAdmin> admins = new ConcurrentHashMap<>();

  /** The last status this process wrote, per uid: the informer cache may lag behind it. */
  private final Map<String, ClusterMirrorStatus> written = new ConcurrentHashMap<>();

  /**
   * Per uid: the resource version this process's last end-of-reconcile status write produced, the
   * generation that reconcile worked from, and when the next reconcile it asked for is due. An
   * event whose resource still has that version and generation (and is not being deleted) is the
   * echo of that write: nothing else changed, so the reconcile is skipped until it is due. The
   * generation matters because the write reads the latest object first: a spec change made during
   * the reconcile is inside the version the write produced. A Mirroring reconcile describes every
   * follower; without this, each status write caused one more, and a spec change arriving meanwhile
   * (a stop) waited for it.
   */
  private final Map<String, OwnWrite> ownWrites = new ConcurrentHashMap<>();

  private record OwnWrite(String resourceVersion, long generation, long dueNanos) {}

  public ClusterMirrorReconciler(
      KubernetesClient client,
      MirrorDriver driver,
      EventRecorder events,
      ClusterMirrorMetrics metrics,
      Clock clock,
      ReconcilerSettings settings) {
    this.client = client;
    this.resolver = new SpecResolver(client);
    this.driver = driver;
    this.events = events;
    this.metrics = metrics;
    this.clock = clock;
    this.settings = settings;
  }

  private record CachedAdmin(Properties properties, ClusterAdmin admin) {}

  @Override
  public UpdateControl<ClusterMirror> reconcile(ClusterMirror cr, Context<ClusterMirror> ctx) {
    long started = System.nanoTime();
    String ref = cr.getMetadata().getNamespace() + "/" + cr.getMetadata().getName();
    boolean ok = true;
    try {
      return doReconcile(cr, ctx, ref);
    } catch (RuntimeException e) {
      ok = false;
      LOG.warn("clusterMirror={} reconcile failed: {}", ref, e.toString(), e);
      throw e;
    } finally {
      metrics.reconciled(ok, Duration.ofNanos(System.nanoTime() - started));
    }
  }

  private UpdateControl<ClusterMirror> doReconcile(
      ClusterMirror cr, Context<ClusterMirror> ctx, String ref) {
    if (ctx.isPrimaryResourceDeleted()) {
      forget(cr, ref);
      return UpdateControl.noUpdate();
    }
    OwnWrite own = ownWrites.get(cr.getMetadata().getUid());
    if (own != null
        && own.resourceVersion().equals(cr.getMetadata().getResourceVersion())
        && Objects.equals(own.generation(), cr.getMetadata().getGeneration())
        && !cr.isMarkedForDeletion()) {
      long leftMs = TimeUnit.NANOSECONDS.toMillis(own.dueNanos() - System.nanoTime());
      if (leftMs > 0) {
        LOG.debug(
            "clusterMirror={} unchanged since this operator's status write (resourceVersion {});"
                + " next reconcile in {} ms",
            ref,
            own.resourceVersion(),
            leftMs);
        return UpdateControl.<ClusterMirror>noUpdate().rescheduleAfter(leftMs);
      }
    }
    boolean deleting = cr.isMarkedForDeletion();
    boolean stopOnDelete =
        cr.getSpec() != null && cr.getSpec().getDeletionPolicy() == DeletionPolicy.StopMirroring;
    boolean hasFinalizer = cr.hasFinalizer(FINALIZER);
    if (deleting && !stopOnDelete) {
      if (hasFinalizer) {
        PrimaryUpdateAndCacheUtils.removeFinalizer(ctx, FINALIZER);
      }
      forget(cr, ref);
      LOG.info("clusterMirror={} deleted with deletionPolicy Retain: partitions unchanged", ref);
      return UpdateControl.noUpdate();
    }
    if (deleting && !hasFinalizer) {
      return UpdateControl.noUpdate();
    }
    if (!deleting && stopOnDelete && !hasFinalizer) {
      cr = PrimaryUpdateAndCacheUtils.addFinalizer(ctx, FINALIZER);
    } else if (!deleting && !stopOnDelete && hasFinalizer) {
      cr = PrimaryUpdateAndCacheUtils.removeFinalizer(ctx, FINALIZER);
    }

    ClusterMirrorStatus previous = previousStatus(cr);
    long generation = Objects.requireNonNullElse(cr.getMetadata().getGeneration(), 0L);
    MirrorIntent.Target target =
        deleting ? MirrorIntent.Target.STOPPED : target(cr.getSpec().getState());
    LOG.debug(
        "clusterMirror={} reconcile begins: generation={} target={} observedGeneration={}",
        ref,
        generation,
        target,
        previous.getObservedGeneration());

    ResolvedMirror mirror;
    try {
      mirror = resolver.resolve(cr);
    } catch (SpecResolver.InvalidSpecException e) {
      return record(
          cr,
          ref,
          previous,
          new StatusInputs(
              generation,
              target,
              null,
              List.of(),
              previous,
              e.getMessage(),
              null,
              settings.maxPartitionsListed()),
          true);
    }
    MirrorIntent intent =
        new MirrorIntent(
            target,
            mirror.mirrorName(),
            mirror.sourceClusterId(),
            cr.getSpec().getStop() != null
                && cr.getSpec().getStop().getMode() == StopMode.AfterCatchUp);
    long catchUpTimeoutMs =
        TimeUnit.SECONDS.toMillis(
            cr.getSpec().getStop() == null
                    || cr.getSpec().getStop().getCatchUpTimeoutSeconds() == null
                ? 300
                : cr.getSpec().getStop().getCatchUpTimeoutSeconds());
    ClusterAdmin destination =
        admin(ref + " destination", mirror.destinationProperties(), settings.adminTimeoutMs());

    MirrorDriver.Observation observation = null;
    FailoverPlan plan = null;
    Map<dev.kafkamirror.operator.core.PartitionKey, String> lastErrors = new HashMap<>();
    Map<Action, Long> callsByAction = new EnumMap<>(Action.class);
    boolean stopRecorded = previous.getStopStartedAt() != null;
    boolean allowUnclean =
        cr.getSpec().getStop() != null
            && Boolean.TRUE.equals(cr.getSpec().getStop().getAllowUncleanLeaderElection());
    Map<String, String> uncleanElectionTopics = Map.of();
    try {
      if (target != MirrorIntent.Target.STOPPED) {
        createMissingTopics(ref, mirror, destination);
      }
      // A stop must not write a barrier that an unclean leader election could truncate away: read
      // the mirror topics' effective setting once per reconcile (fail closed: an error is recorded
      // as a destination error and nothing is called).
      if (target == MirrorIntent.Target.STOPPED && !allowUnclean) {
        uncleanElectionTopics = destination.uncleanLeaderElectionTopics(mirror.topics());
      }
      LOG.debug("clusterMirror={} spec resolved, destination admin ready", ref);
      boolean observeAgain = true;
      for (int round = 0; round < settings.maxRoundsPerReconcile(); round++) {
        long observeStarted = System.nanoTime();
        observation = driver.observe(mirror, destination, target != MirrorIntent.Target.STOPPED);
        long observedNanos = System.nanoTime() - observeStarted;
        plan =
            FailoverPlanner.plan(
                intent,
                observation.partitions(),
                catchUpElapsedMs(previous),
                catchUpTimeoutMs,
                uncleanElectionTopics,
                allowUnclean);
        if (!plan.refusals().isEmpty() || !plan.hasWork()) {
          observeAgain = false;
          break;
        }
        if (!stopRecorded && plan.decisions().stream().anyMatch(d -> d.action().isStopStep())) {
          // Record that the stop began before the first destructive call.
          previous = recordStopStarted(cr, ref, previous, generation);
          stopRecorded = true;
        }
        long actStarted = System.nanoTime();
        MirrorDriver.RoundResult result =
            driver.execute(ref, mirror, plan, observation, callsByAction);
        long actNanos = System.nanoTime() - actStarted;
        lastErrors.clear();
        lastErrors.putAll(result.leaderErrors());
        LOG.debug(
            "clusterMirror={} round={} observeMs={} actMs={} actions={} calls={} succeeded={}",
            ref,
            round,
            TimeUnit.NANOSECONDS.toMillis(observedNanos),
            TimeUnit.NANOSECONDS.toMillis(actNanos),
            actionsOf(plan),
            result.calls(),
            result.succeeded());
        if (result.succeeded() == 0) {
          break;
        }
      }
      if (observeAgain) {
        observation = driver.observe(mirror, destination, target != MirrorIntent.Target.STOPPED);
        plan =
            FailoverPlanner.plan(
                intent,
                observation.partitions(),
                catchUpElapsedMs(previous),
                catchUpTimeoutMs,
                uncleanElectionTopics,
                allowUnclean);
      }
    } catch (ClusterAdmin.KafkaCallException e) {
      callsByAction.forEach(metrics::controlCalls);
      return record(
          cr,
          ref,
          previous,
          new StatusInputs(
              generation,
              target,
              plan,
              observation == null ? List.of() : observation.partitions(),
              previous,
              null,
              e.getMessage(),
              settings.maxPartitionsListed()),
          true);
    }
    callsByAction.forEach(metrics::controlCalls);
    plan = withErrors(plan, lastErrors);
    UpdateControl<ClusterMirror> control =
        record(
            cr,
            ref,
            previous,
            new StatusInputs(
                generation,
                target,
                plan,
                observation.partitions(),
                previous,
                null,
                null,
                settings.maxPartitionsListed()),
            plan.hasWork() || plan.decisions().stream().anyMatch(d -> d.action() == Action.WAIT));
    if (deleting && Conditions.isStopped(written.get(cr.getMetadata().getUid()))) {
      LOG.info("clusterMirror={} every partition STOPPED; removing the finalizer", ref);
      PrimaryUpdateAndCacheUtils.removeFinalizer(ctx, FINALIZER);
      forget(cr, ref);
      return UpdateControl.noUpdate();
    }
    return control;
  }

  private static Map<Action, Long> actionsOf(FailoverPlan plan) {
    Map<Action, Long> out = new EnumMap<>(Action.class);
    for (PartitionDecision d : plan.decisions()) {
      if (d.action().callsBroker()) {
        out.merge(d.action(), 1L, Long::sum);
      }
    }
    return out;
  }

  private static FailoverPlan withErrors(
      FailoverPlan plan, Map<dev.kafkamirror.operator.core.PartitionKey, String> errors) {
    if (errors.isEmpty()) {
      return plan;
    }
    List<PartitionDecision> decisions = new ArrayList<>();
    for (PartitionDecision d : plan.decisions()) {
      String error = errors.get(d.key());
      decisions.add(
          d.message() == null && error != null && d.phase() != PartitionPhase.STOPPED
              ? new PartitionDecision(d.key(), d.action(), d.phase(), d.step(), error)
              : d);
    }
    return new FailoverPlan(decisions, plan.refusals(), plan.catchUp(), plan.stopHazards());
  }

  private void createMissingTopics(String ref, ResolvedMirror mirror, ClusterAdmin destination)
      throws ClusterAdmin.KafkaCallException {
    java.util.Set<String> onDestination = destination.topicNames();
    if (!mirror.topics().hasPatterns() && onDestination.containsAll(mirror.topics().names())) {
      return; // every named topic exists: the source is not needed (it may be down)
    }
    ClusterAdmin source =
        admin(
            ref + " source",
            mirror.sourceProperties(),
            Math.min(SOURCE_TIMEOUT_MS, settings.adminTimeoutMs()));
    java.util.Set<String> sourceTopics;
    try {
      sourceTopics = source.topicNames();
    } catch (ClusterAdmin.KafkaCallException e) {
      LOG.info("clusterMirror={} source unreachable, no topics created: {}", ref, e.getMessage());
      return;
    }
    List<String> missing =
        mirror.topics().select(sourceTopics).stream()
            .filter(t -> !onDestination.contains(t))
            .toList();
    if (missing.isEmpty()) {
      return;
    }
    Map<String, Integer> counts = source.partitionCounts(missing);
    int brokers = destination.brokerHosts().size();
    short rf = (short) Math.max(1, Math.min(3, brokers));
    LOG.info(
        "clusterMirror={} creating destination topics {} (replication factor {})", ref, counts, rf);
    destination.createTopics(counts, rf);
  }

  private ClusterMirrorStatus recordStopStarted(
      ClusterMirror cr, String ref, ClusterMirrorStatus previous, long generation) {
    ClusterMirrorStatus marked = copy(previous);
    marked.setStopStartedAt(
        clock.instant().truncatedTo(java.time.temporal.ChronoUnit.SECONDS).toString());
    marked.setObservedGeneration(generation);
    ownWrites.remove(cr.getMetadata().getUid());
    writeStatus(cr, marked);
    events.normal(
        cr,
        "StopStarted",
        "stopping every partition of "
            + ref
            + " (remove fetchers, truncate to the LSO, persist offsets, barrier, make writable)");
    LOG.info("clusterMirror={} stop started", ref);
    return marked;
  }

  private UpdateControl<ClusterMirror> record(
      ClusterMirror cr,
      String ref,
      ClusterMirrorStatus previous,
      StatusInputs inputs,
      boolean workRemains) {
    ClusterMirrorStatus status = StatusComputer.compute(inputs, clock);
    status.setControlChannel(controlChannel(cr));
    announceTransitions(cr, ref, previous, status);
    if (previous.getStopFinishedAt() == null
        && status.getStopFinishedAt() != null
        && status.getStopStartedAt() != null) {
      metrics.stopFinished(
          Duration.between(
              Instant.parse(status.getStopStartedAt()), Instant.parse(status.getStopFinishedAt())));
    }
    Map<PartitionPhase, Long> counts = new EnumMap<>(PartitionPhase.class);
    if (inputs.plan() != null) {
      for (PartitionDecision d : inputs.plan().decisions()) {
        counts.merge(d.phase(), 1L, Long::sum);
      }
    }
    metrics.partitions(cr.getMetadata().getUid(), counts);
    String resourceVersion = writeStatus(cr, status);
    long delay = workRemains ? settings.requeueMs() : settings.idleRequeueMs();
    ownWrites.put(
        cr.getMetadata().getUid(),
        new OwnWrite(
            resourceVersion,
            inputs.generation(),
            System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(delay)));
    return UpdateControl.<ClusterMirror>noUpdate().rescheduleAfter(delay);
  }

  private void announceTransitions(
      ClusterMirror cr, String ref, ClusterMirrorStatus previous, ClusterMirrorStatus status) {
    for (Condition c : status.getConditions()) {
      Condition before =
          previous.getConditions() == null
              ? null
              : previous.getConditions().stream()
                  .filter(p -> c.getType().equals(p.getType()))
                  .findFirst()
                  .orElse(null);
      boolean changed =
          before == null
              ? Conditions.TRUE.equals(c.getStatus())
              : !Objects.equals(before.getStatus(), c.getStatus())
                  || !Objects.equals(before.getReason(), c.getReason());
      if (!changed) {
        continue;
      }
      String message =
          c.getType() + "=" + c.getStatus() + " (" + c.getReason() + "): " + c.getMessage();
      LOG.info("clusterMirror={} condition {}", ref, message);
      if (Conditions.DEGRADED.equals(c.getType()) && Conditions.TRUE.equals(c.getStatus())) {
        events.warning(cr, c.getReason(), message);
      } else if (!Conditions.READY.equals(c.getType()) || Conditions.TRUE.equals(c.getStatus())) {
        events.normal(cr, c.getReason(), message);
      }
    }
  }

  /** Writes the status; answers the resource version it produced. */
  private String writeStatus(ClusterMirror cr, ClusterMirrorStatus status) {
    try {
      ClusterMirror updated =
          client
              .resources(ClusterMirror.class)
              .inNamespace(cr.getMetadata().getNamespace())
              .withName(cr.getMetadata().getName())
              .editStatus(
                  current -> {
                    current.setStatus(status);
                    return current;
                  });
      written.put(cr.getMetadata().getUid(), updated.getStatus());
      return updated.getMetadata().getResourceVersion();
    } catch (KubernetesClientException e) {
      throw new IllegalStateException(
          "cannot write the status of ClusterMirror "
              + cr.getMetadata().getNamespace()
              + "/"
              + cr.getMetadata().getName()
              + ": "
              + e.getMessage(),
          e);
    }
  }

  private ClusterMirrorStatus previousStatus(ClusterMirror cr) {
    ClusterMirrorStatus mine = written.get(cr.getMetadata().getUid());
    if (mine != null) {
      return mine;
    }
    return cr.getStatus() == null ? new ClusterMirrorStatus() : cr.getStatus();
  }

  private Long catchUpElapsedMs(ClusterMirrorStatus previous) {
    if (previous.getCatchUpStartedAt() == null) {
      return null;
    }
    return Duration.between(Instant.parse(previous.getCatchUpStartedAt()), clock.instant())
        .toMillis();
  }

  private static MirrorIntent.Target target(MirrorState state) {
    if (state == null) {
      return MirrorIntent.Target.MIRRORING;
    }
    return switch (state) {
      case Mirroring -> MirrorIntent.Target.MIRRORING;
      case Paused -> MirrorIntent.Target.PAUSED;
      case Stopped -> MirrorIntent.Target.STOPPED;
    };
  }

  private ClusterAdmin admin(String label, Properties properties, long timeoutMs) {
    CachedAdmin cached =
        admins.compute(
            label,
            (k, existing) -> {
              if (existing != null && existing.properties().equals(properties)) {
                return existing;
              }
              if (existing != null) {
                existing.admin().close();
              }
              return new CachedAdmin(properties, new ClusterAdmin(label, properties, timeoutMs));
            });
    return cached.admin();
  }

  private void forget(ClusterMirror cr, String ref) {
    written.remove(cr.getMetadata().getUid());
    ownWrites.remove(cr.getMetadata().getUid());
    metrics.partitions(cr.getMetadata().getUid(), null);
    for (String label : List.of(ref + " destination", ref + " source")) {
      CachedAdmin cached = admins.remove(label);
      if (cached != null) {
        cached.admin().close();
      }
    }
  }

  private static ClusterMirrorStatus copy(ClusterMirrorStatus s) {
    ClusterMirrorStatus c = new ClusterMirrorStatus();
    c.setObservedGeneration(s.getObservedGeneration());
    c.setConditions(s.getConditions());
    c.setSourceClusterId(s.getSourceClusterId());
    c.setPartitionCounts(s.getPartitionCounts());
    c.setStoppedOfTotal(s.getStoppedOfTotal());
    c.setMaxLagRecords(s.getMaxLagRecords());
    c.setPartitions(s.getPartitions());
    c.setCatchUpStartedAt(s.getCatchUpStartedAt());
    c.setStopStartedAt(s.getStopStartedAt());
    c.setStopFinishedAt(s.getStopFinishedAt());
    return c;
  }

  @Override
  public void close() {
    admins.values().forEach(a -> a.admin().close());
    admins.clear();
  }

  /** TLS, or InsecurePlaintext when the spec names no CA for the control endpoints. */
  static String controlChannel(ClusterMirror cr) {
    var spec = cr.getSpec();
    boolean tls =
        spec != null
            && spec.getDestination() != null
            && spec.getDestination().getControl() != null
            && spec.getDestination().getControl().getTlsTrustedCertificate() != null;
    return tls ? "TLS" : "InsecurePlaintext";
  }
}
