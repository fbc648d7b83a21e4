package dev.kafkamirror.operator.reconciler;

import dev.kafkamirror.operator.api.v1alpha1.ClusterMirror;
import dev.kafkamirror.operator.api.v1alpha1.ClusterMirrorStatus;
import dev.kafkamirror.operator.api.v1alpha1.Conditions;
import dev.kafkamirror.operator.api.v1alpha1.InitialSync;
import dev.kafkamirror.operator.api.v1alpha1.KeepDiscarded;
import dev.kafkamirror.operator.api.v1alpha1.MirrorState;
import dev.kafkamirror.operator.api.v1alpha1.StopMode;
import dev.kafkamirror.operator.api.v1alpha1.StopPolicy;
import dev.kafkamirror.operator.app.ClusterMirrorMetrics;
import dev.kafkamirror.operator.core.Action;
import dev.kafkamirror.operator.core.MirrorIntent;
import dev.kafkamirror.operator.core.PartitionDecision;
import dev.kafkamirror.operator.core.PartitionPhase;
import dev.kafkamirror.operator.core.StatusInputs;
import dev.kafkamirror.operator.kafka.ClusterAdmin;
import dev.kafkamirror.operator.kafka.DiscardKeeper;
import io.javaoperatorsdk.operator.api.reconciler.Context;
import io.javaoperatorsdk.operator.api.reconciler.ControllerConfiguration;
import io.javaoperatorsdk.operator.api.reconciler.Reconciler;
import io.javaoperatorsdk.operator.api.reconciler.UpdateControl;
import io.javaoperatorsdk.operator.processing.event.ResourceID;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.Objects;
import java.util.OptionalLong;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The one reconciler of ClusterMirror. It only orchestrates, in this order, each step a named
 * collaborator:
 *
 * <ol>
 *   <li><b>filter</b>: the echo of this process's own status write is skipped ({@link
 *       OwnWriteFilter}); the finalizer is added or removed ({@link FinalizerPolicy}, {@link
 *       FinalizerWriter});
 *   <li><b>validate</b>: the spec's Secrets and patterns ({@link SpecResolver}); an invalid spec is
 *       recorded and nothing is called;
 *   <li><b>observe and act</b>: missing topics ({@link MissingTopics}), then rounds of observe,
 *       plan ({@link dev.kafkamirror.operator.core.FailoverPlanner}, whose refusals are the
 *       plan's), act ({@link FailoverRounds} over {@link MirrorDriver}); consumer group offsets
 *       ({@link GroupOffsetSync}: periodically while Mirroring or Paused, and once more inside a
 *       stop right before partitions are made writable; it never throws, so it never holds a stop);
 *       partitions the source gained ({@link TopicSync}: added on the destination, reported while
 *       missing; never throws); topic configs ({@link TopicConfigSync}: at creation and
 *       periodically while Mirroring or Paused; never throws);
 *   <li><b>record</b>: the status, Events and metrics ({@link StatusRecorder}).
 * </ol>
 *
 * <p>The stop's progress lives on the destination (each broker persists its partitions' stop step),
 * so a reconcile after an operator crash resumes exactly where the brokers are. Before the first
 * destructive step the status records that the stop began.
 *
 * <p>Errors map to conditions: an invalid spec to Degraded/InvalidSpec, a destination that cannot
 * be read to Degraded/DestinationUnreachable (both with the message naming what to fix); a status
 * that cannot be written fails the reconcile (JOSDK retries it).
 *
 * <p>Deletion: with deletionPolicy StopMirroring the resource carries a finalizer and deleting it
 * first stops every partition; with Retain there is no finalizer and deleting it changes nothing.
 */
@ControllerConfiguration(name = "clustermirror", triggerReconcilerOnAllEvents = true)
public final class ClusterMirrorReconciler implements Reconciler<ClusterMirror>, AutoCloseable {

  /** The finalizer of a StopMirroring resource ({@link FinalizerPolicy#FINALIZER}). */
  public static final String FINALIZER = FinalizerPolicy.FINALIZER;

  private static final Logger LOG = LoggerFactory.getLogger(ClusterMirrorReconciler.class);

  /** The catch-up bound of an AfterCatchUp stop without {@code catchUpTimeoutSeconds}. */
  private static final long DEFAULT_CATCH_UP_TIMEOUT_SECONDS = 300;

  private final SpecResolver resolver;
  private final AdminClients admins;
  private final MissingTopics topics;
  private final FailoverRounds rounds;
  private final OwnWriteFilter ownWrites;
  private final StatusRecorder status;
  private final FinalizerWriter finalizers;
  private final ClusterMirrorMetrics metrics;
  private final Clock clock;
  private final ReconcilerSettings settings;
  private final GroupOffsetSync groupSync;
  private final TopicSync topicSync;
  private final EventRecorder events;
  private final TopicConfigSync topicConfigs;
  private final DiscardKeeper.Factory keepers;

  /** Built from {@code c}: {@link ReconcilerCollaborators#production} or fakes in unit tests. */
  public ClusterMirrorReconciler(ReconcilerCollaborators c) {
    this.keepers = c.keepers();
    this.groupSync = c.groupSync();
    this.events = c.events();
    this.resolver = c.resolver();
    this.admins = c.admins();
    this.topicConfigs =
        new TopicConfigSync(
            c.admins(), c.events(), c.clock(), c.nanoTime(), c.settings().adminTimeoutMs());
    this.topics = new MissingTopics(c.admins(), topicConfigs);
    this.topicSync = new TopicSync(c.admins(), c.clock(), c.nanoTime());
    this.rounds = new FailoverRounds(c.driver());
    this.ownWrites = new OwnWriteFilter(c.nanoTime());
    this.status =
        new StatusRecorder(c.statusWriter(), c.events(), c.metrics(), ownWrites, c.clock());
    this.finalizers = c.finalizers();
    this.metrics = c.metrics();
    this.clock = c.clock();
    this.settings = c.settings();
  }

  @Override
  public UpdateControl<ClusterMirror> reconcile(ClusterMirror cr, Context<ClusterMirror> ctx) {
    String ref = cr.getMetadata().getNamespace() + "/" + cr.getMetadata().getName();
    boolean ok = true;
    try {
      return doReconcile(cr, ctx, ref);
    } catch (RuntimeException e) {
      ok = false;
      LOG.warn("clusterMirror={} reconcile failed: {}", ref, e.toString(), e);
      throw e;
    } finally {
      metrics.reconciled(cr.getMetadata().getUid(), ok);
    }
  }

  private UpdateControl<ClusterMirror> doReconcile(
      ClusterMirror cr, Context<ClusterMirror> ctx, String ref) {
    if (ctx.isPrimaryResourceDeleted()) {
      forget(cr, ref);
      return UpdateControl.noUpdate();
    }
    OptionalLong echo = ownWrites.echoDelayMs(cr);
    if (echo.isPresent()) {
      LOG.debug(
          "clusterMirror={} unchanged since this operator's status write (resourceVersion {});"
              + " next reconcile in {} ms",
          ref,
          cr.getMetadata().getResourceVersion(),
          echo.getAsLong());
      return UpdateControl.<ClusterMirror>noUpdate().rescheduleAfter(echo.getAsLong());
    }
    switch (FinalizerPolicy.decide(cr)) {
      case RELEASE -> {
        if (cr.hasFinalizer(FINALIZER)) {
          finalizers.remove(ctx, cr, FINALIZER);
        }
        forget(cr, ref);
        LOG.info("clusterMirror={} deleted with deletionPolicy Retain: partitions unchanged", ref);
        return UpdateControl.noUpdate();
      }
      case GONE -> {
        return UpdateControl.noUpdate();
      }
      case ADD -> cr = finalizers.add(ctx, cr, FINALIZER);
      case REMOVE -> cr = finalizers.remove(ctx, cr, FINALIZER);
      case NONE, STOP_THEN_RELEASE -> {}
    }
    boolean deleting = cr.isMarkedForDeletion();
    Scope scope = new Scope(cr, ctx, ref, deleting);
    LOG.debug(
        "clusterMirror={} reconcile begins: generation={} target={} observedGeneration={}",
        ref,
        scope.generation,
        scope.target,
        scope.previous.getObservedGeneration());
    scope.previous = status.seedOnFirstVisit(cr, ref, scope.previous, scope.generation);

    // validate
    ResolvedMirror mirror;
    ResolvedMirror sourceControl = null;
    try {
      mirror = resolver.resolve(cr);
      if (cr.getSpec().getInitialSync() == InitialSync.TruncateAndRestore) {
        sourceControl = resolver.resolveSourceControl(cr, mirror);
      }
    } catch (SpecResolver.InvalidSpecException e) {
      return record(scope, scope.inputs().specError(e.getMessage()).build(), true);
    }

    // observe and act
    ClusterAdmin destination =
        admins.destination(ref, mirror.destinationProperties(), settings.adminTimeoutMs());
    FailoverRounds.Progress progress = new FailoverRounds.Progress();
    KeepDiscarded keep =
        sourceControl == null || cr.getSpec().getFailback() == null
            ? null
            : cr.getSpec().getFailback().getKeepDiscarded();
    DiscardKeeper keeper =
        keep == null
            ? null
            : keepers.open(
                "destination of " + ref, mirror.destinationProperties(), settings.adminTimeoutMs());
    try {
      if (scope.target != MirrorIntent.Target.STOPPED) {
        topics.create(ref, cr, mirror, destination, settings.adminTimeoutMs());
      }
      FailoverRounds.FailbackSource failback =
          sourceControl == null
              ? null
              : new FailoverRounds.FailbackSource(
                  sourceControl,
                  admins.source(ref, mirror.sourceProperties(), settings.adminTimeoutMs()),
                  cr.getSpec().getFailback() != null
                      && Boolean.TRUE.equals(cr.getSpec().getFailback().getPlanOnly()),
                  FailbackReports.reported(scope.previous.getFailback()),
                  keeper == null
                      ? null
                      : new FailoverRounds.Keep(
                          keep.getTopicSuffix() == null
                              ? new KeepDiscarded().getTopicSuffix()
                              : keep.getTopicSuffix(),
                          ref + "/" + cr.getMetadata().getUid(),
                          FailbackReports.ranges(scope.previous.getFailback()),
                          FailbackReports.copiedThrough(scope.previous.getFailback()),
                          keeper));
      rounds.run(
          roundRequest(scope, mirror, destination, failback),
          settings.maxRoundsPerReconcile(),
          progress);
    } catch (ClusterAdmin.KafkaCallException e) {
      status.recordHaltedStops(cr, ref, progress.haltedStops());
      String refused = destinationAuthenticationError(ref, cr, e);
      String rejected = refused == null ? destinationRefusal(ref, cr, e) : null;
      return record(
          scope,
          scope
              .inputs()
              .plan(progress.plan())
              .observations(observations(progress))
              .destinationError(refused == null && rejected == null ? e.getMessage() : null)
              .destinationAuthenticationError(refused)
              .destinationRefusal(rejected)
              .pendingPartitions(topicSync.lastPending(cr))
              .build(),
          true);
    } finally {
      if (keeper != null) {
        keeper.close();
      }
    }
    status.recordHaltedStops(cr, ref, progress.haltedStops());
    if (scope.target != MirrorIntent.Target.STOPPED
        && progress.alignments().isEmpty()
        && progress.kept().isEmpty()
        && stopWaiting(scope)) {
      // The status write is most of what is left of this reconcile (0.2 to 0.9 s at 1,000
      // partitions under a failover's load) and the stop's reconcile would wait for it; the stop's
      // own status replaces it. Not when a failback reported what it discards or copied it
      // (status.failback and its Events): the stop's status starts from the last one written and
      // would never hold them.
      LOG.debug(
          "clusterMirror={} a newer generation stops the mirror: this reconcile of generation {}"
              + " ends without its status write, the stop's reconcile follows at once",
          ref,
          scope.generation);
      return UpdateControl.noUpdate();
    }
    scope.failback = failbackRows(scope, progress, keep);
    var plan = progress.planWithErrors();
    if (scope.target != MirrorIntent.Target.STOPPED && plan != null) {
      // topic configs, while Mirroring or Paused: never a topic stopping or stopped
      topicConfigs.periodic(
          scope.ref,
          scope.cr,
          mirror,
          destination,
          plan.decisions().stream()
              .filter(
                  d -> d.phase() == PartitionPhase.STOPPING || d.phase() == PartitionPhase.STOPPED)
              .map(d -> d.key().topic())
              .collect(java.util.stream.Collectors.toSet()));
      // consumer group offsets, while Mirroring or Paused: never a writable partition
      groupSync.periodic(
          scope.ref,
          scope.cr,
          mirror,
          plan.decisions().stream()
              .filter(d -> d.phase() != PartitionPhase.STOPPED)
              .map(PartitionDecision::key)
              .collect(java.util.stream.Collectors.toSet()));
    }

    // partitions the source gained: added on the destination (never to a topic failed over,
    // never during a stop); the next round starts mirroring them
    TopicSync.Result shape =
        topicSync.check(
            scope.ref,
            scope.cr,
            mirror,
            destination,
            settings.adminTimeoutMs(),
            plan.decisions().stream()
                .filter(
                    d ->
                        d.phase() == PartitionPhase.STOPPED || d.phase() == PartitionPhase.STOPPING)
                .map(d -> d.key().topic())
                .collect(java.util.stream.Collectors.toSet()),
            scope.target == MirrorIntent.Target.STOPPED);

    // record
    UpdateControl<ClusterMirror> control =
        record(
            scope,
            scope
                .inputs()
                .plan(plan)
                .observations(observations(progress))
                .pendingPartitions(shape.pending())
                .sourceAuthenticationError(shape.sourceAuthenticationError())
                .destinationRefusal(shape.destinationRefusal())
                .build(),
            shape.grew()
                || plan.hasWork()
                || plan.decisions().stream().anyMatch(d -> d.action() == Action.WAIT));
    if (deleting && Conditions.isStopped(status.lastWritten(cr))) {
      LOG.info("clusterMirror={} every partition STOPPED; removing the finalizer", ref);
      finalizers.remove(ctx, cr, FINALIZER);
      forget(cr, ref);
      return UpdateControl.noUpdate();
    }
    return control;
  }

  /**
   * For a destination call refused for the operator's credentials: what happened, on which cluster,
   * and what to check; else null. The reconcile's catch takes every {@link
   * ClusterAdmin.KafkaCallException} as the destination's (as {@code DestinationUnreachable} always
   * did): the rounds catch the source's failures themselves, and the topic creation gives up
   * quietly when the source cannot be listed, which is the first source call a refused credential
   * fails. Kafka's message of a refusal names the mechanism, never the password or the key.
   */
  static String destinationAuthenticationError(
      String ref, ClusterMirror cr, ClusterAdmin.KafkaCallException e) {
    var refusal = e.authenticationFailure();
    if (refusal == null) {
      return null;
    }
    return "ClusterMirror "
        + ref
        + ": the destination cluster "
        + cr.getSpec().getDestination().getBootstrapServers()
        + " refused the credentials of spec.destination.security ("
        + refusal.getClass().getSimpleName()
        + ": "
        + refusal.getMessage()
        + "); nothing is created, mirrored or stopped on it until it accepts them: check the"
        + " Secrets spec.destination.security names (the username and password of saslUser or"
        + " saslCredentials, the client certificate and key of tlsClientCertificate, the CA of"
        + " tlsTrustedCertificate), that the listener spec.destination.bootstrapServers names has"
        + " this user with this password or trusts the certificate's CA, and saslMechanism";
  }

  /**
   * For a destination call the destination refused in a way waiting does not change (a policy, an
   * ACL, a config or topic name it rejects; {@link ClusterAdmin.KafkaCallException#refusal()}):
   * what happened, on which cluster, and what to change; else null.
   */
  static String destinationRefusal(
      String ref, ClusterMirror cr, ClusterAdmin.KafkaCallException e) {
    var refusal = e.refusal();
    if (refusal == null) {
      return null;
    }
    String what;
    if (refusal instanceof org.apache.kafka.common.errors.AuthorizationException) {
      what =
          "grant the operator's destination principal the ACLs the call needs (CREATE and ALTER on"
              + " the mirrored topics to create them and add partitions, DESCRIBE and"
              + " DESCRIBE_CONFIGS to observe them, ALTER_CONFIGS to sync their configs;"
              + " docs/troubleshooting.md)";
    } else if (refusal instanceof org.apache.kafka.common.errors.PolicyViolationException) {
      what =
          "the destination's create.topic.policy.class.name or alter.config.policy.class.name"
              + " refused it: change the policy, or create the topic on the destination yourself"
              + " with the source's partition count";
    } else {
      what =
          "the destination rejects a topic config or name the source has (a newer or older Kafka,"
              + " a broker setting): create the topic on the destination yourself, or select"
              + " fewer topics";
    }
    return "ClusterMirror "
        + ref
        + ": the destination cluster "
        + cr.getSpec().getDestination().getBootstrapServers()
        + " refused a call of the operator ("
        + e.getMessage()
        + "); it is refused again at every reconcile until this changes: "
        + what;
  }

  /** What one reconcile works from: the resource, its previous status, the target. */
  private final class Scope {
    final ClusterMirror cr;
    final Context<ClusterMirror> ctx;
    final String ref;
    final long generation;
    final MirrorIntent.Target target;

    /** The status before this reconcile; replaced once the stop's start is recorded. */
    ClusterMirrorStatus previous;

    /** status.failback to write: the previous rows with this reconcile's reports merged in. */
    java.util.List<dev.kafkamirror.operator.api.v1alpha1.FailbackDiscard> failback;

    Scope(ClusterMirror cr, Context<ClusterMirror> ctx, String ref, boolean deleting) {
      this.cr = cr;
      this.ctx = ctx;
      this.ref = ref;
      this.generation = Objects.requireNonNullElse(cr.getMetadata().getGeneration(), 0L);
      this.target = deleting ? MirrorIntent.Target.STOPPED : target(cr.getSpec().getState());
      this.previous = status.previous(cr);
      this.failback = previous.getFailback();
    }

    /** The one place StatusInputs are started: what every status of this reconcile shares. */
    StatusInputs.Builder inputs() {
      return StatusInputs.builder(generation, target, previous, settings.maxPartitionsListed());
    }
  }

  private FailoverRounds.Request roundRequest(
      Scope scope,
      ResolvedMirror mirror,
      ClusterAdmin destination,
      FailoverRounds.FailbackSource failback)
      throws ClusterAdmin.KafkaCallException {
    StopPolicy stop = scope.cr.getSpec().getStop();
    boolean allowUnclean =
        stop != null && Boolean.TRUE.equals(stop.getAllowUncleanLeaderElection());
    // A stop must not write a barrier that an unclean leader election could truncate away: read
    // the mirror topics' effective setting once per reconcile (fail closed: an error is recorded
    // as a destination error and nothing is called).
    Map<String, String> uncleanElectionTopics =
        scope.target == MirrorIntent.Target.STOPPED && !allowUnclean
            ? destination.uncleanLeaderElectionTopics(mirror.topics())
            : Map.of();
    LOG.debug("clusterMirror={} spec resolved, destination admin ready", scope.ref);
    return new FailoverRounds.Request(
        scope.ref,
        mirror,
        destination,
        new MirrorIntent(
            scope.target,
            mirror.mirrorName(),
            mirror.sourceClusterId(),
            stop != null && stop.getMode() == StopMode.AfterCatchUp,
            failback != null),
        TimeUnit.SECONDS.toMillis(
            stop == null || stop.getCatchUpTimeoutSeconds() == null
                ? DEFAULT_CATCH_UP_TIMEOUT_SECONDS
                : stop.getCatchUpTimeoutSeconds()),
        uncleanElectionTopics,
        allowUnclean,
        () -> catchUpElapsedMs(scope.previous),
        scope.previous.getStopStartedAt() != null,
        () ->
            scope.previous =
                status.recordStopStarted(scope.cr, scope.ref, scope.previous, scope.generation),
        keys -> groupSync.beforeMakeWritable(scope.ref, scope.cr, mirror, keys),
        failback,
        () -> superseded(scope));
  }

  /**
   * Whether the informer's cache holds a newer spec of the resource than the one this reconcile
   * acts on (a higher generation, or a deletion): JOSDK reconciles it again as soon as this
   * reconcile returns.
   */
  private static boolean superseded(Scope scope) {
    return latestInCache(scope)
        .map(
            latest ->
                newerGeneration(scope, latest)
                    || latest.isMarkedForDeletion() && !scope.cr.isMarkedForDeletion())
        .orElse(false);
  }

  /**
   * Whether the informer's cache holds a newer generation of the resource that stops it (spec state
   * Stopped, or a deletion under StopMirroring): JOSDK reconciles it as soon as this reconcile
   * returns. Any other newer spec ends a reconcile's rounds ({@link #superseded}) but still lets it
   * write its status, so that a spec that keeps changing keeps a status.
   */
  private static boolean stopWaiting(Scope scope) {
    return latestInCache(scope)
        .map(
            latest ->
                latest.isMarkedForDeletion()
                        && FinalizerPolicy.decide(latest) == FinalizerPolicy.Step.STOP_THEN_RELEASE
                    || newerGeneration(scope, latest)
                        && latest.getSpec() != null
                        && latest.getSpec().getState() == MirrorState.Stopped)
        .orElse(false);
  }

  /** The informer's newest copy of the resource; empty without a context (unit tests). */
  private static java.util.Optional<ClusterMirror> latestInCache(Scope scope) {
    if (scope.ctx == null) {
      return java.util.Optional.empty();
    }
    return scope.ctx.getPrimaryCache().get(ResourceID.fromResource(scope.cr));
  }

  private static boolean newerGeneration(Scope scope, ClusterMirror latest) {
    return Objects.requireNonNullElse(latest.getMetadata().getGeneration(), 0L) > scope.generation;
  }

  private UpdateControl<ClusterMirror> record(
      Scope scope, StatusInputs inputs, boolean workRemains) {
    // An idle resource is looked at again when its next group offset sync is due.
    long syncDue =
        scope.target == MirrorIntent.Target.STOPPED ? Long.MAX_VALUE : groupSync.dueInMs(scope.cr);
    ReconcilerSettings effective =
        syncDue >= settings.idleRequeueMs()
            ? settings
            : new ReconcilerSettings(
                settings.maxRoundsPerReconcile(),
                settings.requeueMs(),
                Math.max(settings.requeueMs(), syncDue),
                settings.adminTimeoutMs(),
                settings.maxPartitionsListed());
    long delay =
        status.record(
            scope.cr,
            scope.ref,
            scope.previous,
            inputs,
            workRemains,
            effective,
            new StatusRecorder.Extras(
                groupSync.status(scope.cr, scope.previous),
                topicSync.status(scope.cr, scope.previous),
                topicConfigs.status(scope.cr, scope.previous),
                scope.failback));
    return UpdateControl.<ClusterMirror>noUpdate().rescheduleAfter(delay);
  }

  /**
   * The failback's discard rows: the previous ones with this reconcile's answers merged in; a new
   * or changed row is announced by a Warning Event naming topic, partition and offsets (a planned
   * one before anything is truncated).
   */
  private java.util.List<dev.kafkamirror.operator.api.v1alpha1.FailbackDiscard> failbackRows(
      Scope scope, FailoverRounds.Progress progress, KeepDiscarded keep) {
    java.util.List<dev.kafkamirror.operator.api.v1alpha1.FailbackDiscard> rows =
        scope.previous.getFailback();
    if (!progress.kept().isEmpty()) {
      // keepDiscarded: the copy's progress, persisted with this status before any truncation
      FailbackReports.KeptMerge kept = FailbackReports.withKept(scope.ref, rows, progress.kept());
      rows = kept.rows();
      for (String message : kept.keptMessages()) {
        LOG.info("clusterMirror={} {}", scope.ref, message);
        events.normal(scope.cr, FailbackReports.KEPT_REASON, message);
      }
      for (String message : kept.failed()) {
        events.warning(scope.cr, FailbackReports.KEEP_FAILED_REASON, message);
      }
    }
    if (progress.alignments().isEmpty()) {
      return rows;
    }
    FailbackReports.Merge merge =
        FailbackReports.merge(rows, progress.alignments(), clock.instant().toString());
    if (!merge.changed().isEmpty()) {
      String message =
          FailbackReports.eventMessage(
              scope.ref,
              merge.changed(),
              keep == null
                  ? null
                  : keep.getTopicSuffix() == null
                      ? new KeepDiscarded().getTopicSuffix()
                      : keep.getTopicSuffix());
      LOG.warn("clusterMirror={} {}", scope.ref, message);
      events.warning(scope.cr, FailbackReports.EVENT_REASON, message);
    }
    return merge.rows();
  }

  private static java.util.List<dev.kafkamirror.operator.core.PartitionObservation> observations(
      FailoverRounds.Progress progress) {
    return progress.observation() == null
        ? java.util.List.of()
        : progress.observation().partitions();
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

  private void forget(ClusterMirror cr, String ref) {
    groupSync.forget(ref, cr.getMetadata().getUid());
    topicSync.forget(cr.getMetadata().getUid());
    topicConfigs.forget(cr.getMetadata().getUid());
    status.forget(cr.getMetadata().getUid());
    admins.forget(ref);
  }

  @Override
  public void close() {
    admins.close();
    groupSync.close();
  }
}
