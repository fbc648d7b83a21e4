package dev.kafkamirror.operator.reconciler;

import dev.kafkamirror.operator.api.v1alpha1.ClusterMirror;
import dev.kafkamirror.operator.api.v1alpha1.ClusterMirrorSpec;
import dev.kafkamirror.operator.api.v1alpha1.ControlEndpoint;
import dev.kafkamirror.operator.api.v1alpha1.DeletionPolicy;
import dev.kafkamirror.operator.api.v1alpha1.DestinationCluster;
import dev.kafkamirror.operator.api.v1alpha1.MirrorState;
import dev.kafkamirror.operator.api.v1alpha1.SecretKeyRef;
import dev.kafkamirror.operator.api.v1alpha1.SourceCluster;
import dev.kafkamirror.operator.api.v1alpha1.TopicSelection;
import dev.kafkamirror.operator.app.ClusterMirrorMetrics;
import dev.kafkamirror.operator.core.DiscardKeeping;
import dev.kafkamirror.operator.core.PartitionKey;
import dev.kafkamirror.operator.kafka.DiscardKeeper;
import dev.kafkamirror.testing.time.SettableClock;
import io.fabric8.kubernetes.api.model.Secret;
import io.fabric8.kubernetes.api.model.SecretBuilder;
import io.javaoperatorsdk.operator.api.reconciler.UpdateControl;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A {@link ClusterMirrorReconciler} wired to the Testing* fakes: a destination of three brokers
 * (broker 1 leads), its plugins, the status subresource, finalizers, Events, Secrets. Close it.
 */
final class ReconcilerRig implements AutoCloseable {

  static final String NS = "ns";
  static final String NAME = "orders-mirror";
  static final String SOURCE_ID = "SRCSRCSRCSRCSRCSRCSRC1";
  static final String TOPIC = "orders";
  static final String CONTROL_SECRET = "control";
  static final Instant NOW = Instant.parse("2026-12-01T05:00:00Z");

  final Journal journal = new Journal();
  final TestingClusterAdmin destination =
      new TestingClusterAdmin("destination", List.of(1, 2, 3), journal);
  final TestingClusterAdmin source = new TestingClusterAdmin("source", List.of(7), journal);
  final TestingBrokerControl control = new TestingBrokerControl(journal);
  final SettableClock wallClock = new SettableClock(NOW);
  final TestingStatusWriter statusWriter = new TestingStatusWriter(journal);
  final TestingFinalizers finalizers = new TestingFinalizers(journal);
  final TestingEventRecorder events = new TestingEventRecorder();
  final Map<String, Secret> secrets = new ConcurrentHashMap<>();
  final TestingGroupOffsets sourceGroups = new TestingGroupOffsets("source", SOURCE_ID, journal);
  final TestingGroupOffsets destinationGroups =
      new TestingGroupOffsets("destination", "DSTDSTDSTDSTDSTDSTDST1", journal);
  final AtomicLong nanoTime = new AtomicLong(1_000_000_000L);

  /**
   * What the failbacks' keepDiscarded copies were asked, in order, as "topic-partition [from, to)
   * into side".
   */
  final List<String> keptCopies = new java.util.concurrent.CopyOnWriteArrayList<>();

  final SimpleMeterRegistry registry = new SimpleMeterRegistry();
  final ReconcilerSettings settings = new ReconcilerSettings(12, 1_000L, 30_000L, 1_000L, 1_000);
  private final ExecutorService executor = Executors.newFixedThreadPool(4);
  final ClusterMirrorReconciler reconciler;

  /**
   * How many metadata reads after a fence ({@code LEADER_MOVED}) still show the old leader; the
   * fence moves the leadership to the next destination broker.
   */
  volatile int fenceStaleReads = 0;

  /**
   * How many metadata reads after a fence, every other one from the first that shows the move on,
   * still show the old leader (a broker that has not applied the election answers them); used
   * instead of {@link #fenceStaleReads} when positive.
   */
  volatile int fenceLaggingReads = 0;

  ReconcilerRig() {
    control.leaders(destination::leaderOf);
    control.onFence(
        (key, broker) -> {
          if (fenceLaggingReads > 0) {
            destination.moveLeaderSeenByOneBrokerFirst(
                key, destination.nextBroker(broker), fenceLaggingReads);
          } else {
            destination.moveLeader(key, destination.nextBroker(broker), fenceStaleReads);
          }
        });
    secrets.put(
        CONTROL_SECRET,
        new SecretBuilder()
            .withNewMetadata()
            .withName(CONTROL_SECRET)
            .withNamespace(NS)
            .addToAnnotations(SecretOptIn.ANNOTATION, "*")
            .endMetadata()
            .withStringData(Map.of("secret", "control-secret-0123456789"))
            .build());
    reconciler =
        new ClusterMirrorReconciler(
            new ReconcilerCollaborators(
                new SpecResolver((ns, name) -> NS.equals(ns) ? secrets.get(name) : null),
                new AdminClients(
                    (label, properties, timeoutMs) ->
                        label.endsWith(" destination") ? destination : source),
                new MirrorDriver(control, executor),
                statusWriter,
                finalizers,
                events,
                new ClusterMirrorMetrics(
                    registry,
                    Clock.fixed(NOW, ZoneOffset.UTC),
                    new ClusterMirrorMetrics.BuildInfo("test", "test")),
                wallClock,
                nanoTime::get,
                settings,
                new GroupOffsetSync(
                    (label, properties, timeoutMs) ->
                        label.endsWith(" destination") ? destinationGroups : sourceGroups,
                    Clock.fixed(NOW, ZoneOffset.UTC),
                    nanoTime::get,
                    settings.adminTimeoutMs()),
                (label, properties, timeoutMs) -> new CopyingKeeper()));
  }

  /**
   * A keepDiscarded copy that copies every record of the range at once (one per offset), and
   * journals it.
   */
  private final class CopyingKeeper implements DiscardKeeper {
    @Override
    public DiscardKeeping.Outcome keep(
        String failbackId, PartitionKey key, DiscardKeeping.Range range, String sideTopic) {
      String copy =
          key.topic()
              + "-"
              + key.partition()
              + " ["
              + range.from()
              + ", "
              + range.to()
              + ") into "
              + sideTopic;
      keptCopies.add(copy);
      journal.add("kept " + copy);
      return new DiscardKeeping.Outcome(range.to(), range.to() - range.from(), null);
    }

    @Override
    public void close() {}
  }

  /** {@code partitions} partitions of {@link #TOPIC} on the destination, each mirroring. */
  ReconcilerRig mirroring(int partitions) {
    destination.topic(TOPIC, partitions);
    source.topic(TOPIC, partitions);
    for (int p = 0; p < partitions; p++) {
      control.mirroring(TOPIC, p, NAME, SOURCE_ID);
    }
    return this;
  }

  /** Key {@code key} of Secret {@code name}. */
  static SecretKeyRef ref(String name, String key) {
    SecretKeyRef ref = new SecretKeyRef();
    ref.setName(name);
    ref.setKey(key);
    return ref;
  }

  /** A ClusterMirror of {@link #TOPIC} wanting {@code state}, with {@code deletionPolicy}. */
  static ClusterMirror clusterMirror(MirrorState state, DeletionPolicy deletionPolicy) {
    ClusterMirror cr = new ClusterMirror();
    cr.getMetadata().setNamespace(NS);
    cr.getMetadata().setName(NAME);
    cr.getMetadata().setUid("uid-" + NAME);
    cr.getMetadata().setGeneration(1L);
    cr.getMetadata().setResourceVersion("1");
    ClusterMirrorSpec spec = new ClusterMirrorSpec();
    SourceCluster s = new SourceCluster();
    s.setBootstrapServers("source.example:9092");
    s.setClusterId(SOURCE_ID);
    spec.setSource(s);
    DestinationCluster d = new DestinationCluster();
    d.setBootstrapServers("destination.example:9092");
    ControlEndpoint c = new ControlEndpoint();
    c.setPort(9443);
    c.setSecretRef(ref(CONTROL_SECRET, "secret"));
    d.setControl(c);
    spec.setDestination(d);
    TopicSelection topics = new TopicSelection();
    topics.setNames(List.of(TOPIC));
    spec.setTopics(topics);
    spec.setState(state);
    spec.setDeletionPolicy(deletionPolicy);
    cr.setSpec(spec);
    return cr;
  }

  UpdateControl<ClusterMirror> reconcile(ClusterMirror cr) {
    return reconciler.reconcile(cr, TestingContext.of(false));
  }

  /**
   * Reconciles {@code cr} while the informer's newest copy of it is {@code latest} (asked anew at
   * every lookup).
   */
  UpdateControl<ClusterMirror> reconcile(
      ClusterMirror cr, java.util.function.Supplier<java.util.Optional<ClusterMirror>> latest) {
    return reconciler.reconcile(cr, TestingContext.of(false, latest));
  }

  /** Lets {@code ms} pass on the reconciler's wall clock (status timestamps), from {@link #NOW}. */
  void advanceWallClockMs(long ms) {
    wallClock.advanceMillis(ms);
  }

  /** Lets {@code ms} pass on the reconciler's monotonic clock. */
  void advanceMs(long ms) {
    nanoTime.addAndGet(ms * 1_000_000L);
  }

  @Override
  public void close() {
    reconciler.close();
    executor.shutdownNow();
  }
}
