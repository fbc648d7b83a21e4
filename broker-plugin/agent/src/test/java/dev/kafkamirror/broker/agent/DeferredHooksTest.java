package dev.kafkamirror.broker.agent;

import static org.assertj.core.api.Assertions.assertThat;

import java.lang.instrument.ClassFileTransformer;
import java.security.ProtectionDomain;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The agent's class-file hook and the race between the broker loading a hooked class and the
 * background preparation: a hooked class never loads untransformed while the preparation may still
 * install, and the outcome (transform all, or transform none after the start-up guard) is decided
 * once.
 */
class DeferredHooksTest {

  private static final String UNIFIED_LOG = "org/apache/kafka/storage/internals/log/UnifiedLog";
  private static final String LOG_SEGMENT = "org/apache/kafka/storage/internals/log/LogSegment";
  private static final byte[] ORIGINAL = {1, 2, 3};
  private static final byte[] PREBUILT = {7, 8, 9};
  private static final byte[] TRANSFORMED = {4, 5, 6};

  /** Stands for ByteBuddy's transformer: records what it is offered, transforms each. */
  private static final class RecordingTransformer implements ClassFileTransformer {
    final List<String> offered = Collections.synchronizedList(new ArrayList<>());

    @Override
    public byte[] transform(
        Module module,
        ClassLoader loader,
        String className,
        Class<?> classBeingRedefined,
        ProtectionDomain protectionDomain,
        byte[] classfileBuffer) {
      offered.add(className);
      return TRANSFORMED;
    }

    @Override
    public byte[] transform(
        ClassLoader loader,
        String className,
        Class<?> classBeingRedefined,
        ProtectionDomain protectionDomain,
        byte[] classfileBuffer) {
      offered.add(className);
      return TRANSFORMED;
    }
  }

  /** Stands for the start-up guard: counts its calls and their reasons. */
  private static final class RecordingOutcomes implements DeferredHooks.Outcomes {
    final List<String> notInstalled = Collections.synchronizedList(new ArrayList<>());
    final AtomicInteger allTransformed = new AtomicInteger();
    volatile CountDownLatch guardRuns = new CountDownLatch(0);

    @Override
    public void notInstalled(DeferredHooks hooks, String reason) {
      notInstalled.add(reason);
      try {
        guardRuns.await();
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }

    @Override
    public void allTransformed(DeferredHooks hooks) {
      allTransformed.incrementAndGet();
    }
  }

  private final RecordingTransformer byteBuddy = new RecordingTransformer();
  private final RecordingOutcomes outcomes = new RecordingOutcomes();
  private final StartupCost cost = new StartupCost(Set.of(UNIFIED_LOG, LOG_SEGMENT));
  private final ClassLoader loader = getClass().getClassLoader();
  private final ExecutorService threads = Executors.newCachedThreadPool();

  @AfterEach
  void stopThreads() {
    threads.shutdownNow();
  }

  private DeferredHooks hooks(Duration bound) {
    return new DeferredHooks(
        Set.of(UNIFIED_LOG.replace('/', '.'), LOG_SEGMENT.replace('/', '.')),
        bound,
        outcomes,
        cost);
  }

  private DeferredHooks.Installed installed() {
    return new DeferredHooks.Installed(
        byteBuddy,
        loader,
        Map.of(
            UNIFIED_LOG, new DeferredHooks.Prebuilt(ORIGINAL, PREBUILT),
            LOG_SEGMENT, new DeferredHooks.Prebuilt(ORIGINAL, PREBUILT)));
  }

  private Future<byte[]> load(DeferredHooks hooks, String className) {
    return threads.submit(
        () -> hooks.transform(Object.class.getModule(), loader, className, null, null, ORIGINAL));
  }

  @Test
  void aClassTheAgentDoesNotHookLoadsUnchangedAtOnceEvenWhileThePreparationRuns() throws Exception {
    // Given a preparation that has not finished
    DeferredHooks hooks = hooks(Duration.ofMinutes(2));

    // When the broker loads other classes, through both of the JVM's entry points
    byte[] viaModule =
        hooks.transform(
            Object.class.getModule(),
            loader,
            "org/apache/kafka/storage/internals/log/LogConfig",
            null,
            null,
            ORIGINAL);
    byte[] viaLoader = hooks.transform(loader, "kafka/server/KafkaApis", null, null, ORIGINAL);
    byte[] hidden = hooks.transform(loader, null, null, null, ORIGINAL);

    // Then each loads as it is without waiting, and nothing is settled
    assertThat(viaModule).isNull();
    assertThat(viaLoader).isNull();
    assertThat(hidden).isNull();
    assertThat(hooks.outcome()).isNull();
    assertThat(byteBuddy.offered).isEmpty();
  }

  @Test
  void aHookedClassLoadedBeforeThePreparationIsDoneWaitsForItAndLoadsTransformed()
      throws Exception {
    // Given a preparation that has not finished
    DeferredHooks hooks = hooks(Duration.ofMinutes(2));

    // When the broker loads UnifiedLog
    Future<byte[]> loading = load(hooks, UNIFIED_LOG);

    // Then the load waits: it does not return the class untransformed
    Thread.sleep(300);
    assertThat(loading).isNotDone();

    // When the preparation finishes, Then the class loads with the bytes built ahead for it
    hooks.settle(installed());
    assertThat(loading.get(10, TimeUnit.SECONDS)).isEqualTo(PREBUILT);
    assertThat(byteBuddy.offered).isEmpty();
    assertThat(outcomes.notInstalled).isEmpty();
  }

  @Test
  void classBytesOtherThanThePreparedOnesAreTransformedByByteBuddyThere() throws Exception {
    // Given a finished preparation
    DeferredHooks hooks = hooks(Duration.ofMinutes(2));
    hooks.settle(installed());

    // When UnifiedLog loads with other bytes than the preparation read (another agent changed
    // them), and LogSegment from another class loader, through either entry point
    byte[] otherBytes =
        hooks.transform(Object.class.getModule(), loader, UNIFIED_LOG, null, null, new byte[] {0});
    byte[] otherLoader =
        hooks.transform(new ClassLoader(loader) {}, LOG_SEGMENT, null, null, ORIGINAL);

    // Then ByteBuddy transforms both there and then
    assertThat(otherBytes).isEqualTo(TRANSFORMED);
    assertThat(otherLoader).isEqualTo(TRANSFORMED);
    assertThat(byteBuddy.offered).containsExactly(UNIFIED_LOG, LOG_SEGMENT);
  }

  /** The prebuilt path's outcome: ByteBuddy built on demand by {@code build}. */
  private DeferredHooks.Installed prebuiltPath(
      java.util.function.Supplier<ClassFileTransformer> build) {
    return new DeferredHooks.Installed(
        new ByteBuddyTransformations.OnDemand(build),
        loader,
        Map.of(
            UNIFIED_LOG, new DeferredHooks.Prebuilt(ORIGINAL, PREBUILT),
            LOG_SEGMENT, new DeferredHooks.Prebuilt(ORIGINAL, PREBUILT)));
  }

  @Test
  void onThePrebuiltPathByteBuddyIsBuiltOnlyForAClassWithOtherBytesAndOnlyOnce() throws Exception {
    // Given the prebuilt path's outcome, whose ByteBuddy is built on demand
    AtomicInteger builds = new AtomicInteger();
    DeferredHooks hooks = hooks(Duration.ofMinutes(2));
    hooks.settle(
        prebuiltPath(
            () -> {
              builds.incrementAndGet();
              return byteBuddy;
            }));

    // When UnifiedLog loads with the bytes read ahead, Then it takes the prebuilt bytes and
    // ByteBuddy is not built
    assertThat(hooks.transform(loader, UNIFIED_LOG, null, null, ORIGINAL)).isEqualTo(PREBUILT);
    assertThat(builds).hasValue(0);

    // When LogSegment loads with other bytes (another agent changed them), twice, through either
    // entry point
    byte[] first =
        hooks.transform(Object.class.getModule(), loader, LOG_SEGMENT, null, null, new byte[] {0});
    byte[] second = hooks.transform(loader, LOG_SEGMENT, null, null, new byte[] {0});

    // Then ByteBuddy is built once, at that first need, and transforms both, as on the ByteBuddy
    // path
    assertThat(first).isEqualTo(TRANSFORMED);
    assertThat(second).isEqualTo(TRANSFORMED);
    assertThat(builds).hasValue(1);
    assertThat(byteBuddy.offered).containsExactly(LOG_SEGMENT, LOG_SEGMENT);
  }

  @Test
  void onThePrebuiltPathAByteBuddyThatCannotBeBuiltLeavesOnlyThatClassStockAndIsNotRetried()
      throws Exception {
    // Given the prebuilt path's outcome, whose ByteBuddy cannot be built
    AtomicInteger builds = new AtomicInteger();
    DeferredHooks hooks = hooks(Duration.ofMinutes(2));
    hooks.settle(
        prebuiltPath(
            () -> {
              builds.incrementAndGet();
              throw new NoClassDefFoundError("net/bytebuddy/agent/builder/AgentBuilder");
            }));

    // When LogSegment loads with other bytes, twice, and UnifiedLog with the bytes read ahead
    byte[] other = hooks.transform(loader, LOG_SEGMENT, null, null, new byte[] {0});
    byte[] otherAgain = hooks.transform(loader, LOG_SEGMENT, null, null, new byte[] {0});
    byte[] prebuilt = hooks.transform(loader, UNIFIED_LOG, null, null, ORIGINAL);

    // Then the hook does not throw into the class load: that class loads stock (as when ByteBuddy
    // fails to transform it on the ByteBuddy path), the build is tried once, and the class with
    // the bytes read ahead still takes its prebuilt bytes
    assertThat(other).isNull();
    assertThat(otherAgain).isNull();
    assertThat(builds).hasValue(1);
    assertThat(prebuilt).isEqualTo(PREBUILT);
  }

  @Test
  void aFailedPreparationRunsTheGuardOnceAndNoHookedClassIsEverTransformed() throws Exception {
    // Given a preparation that found a hook target missing
    DeferredHooks hooks = hooks(Duration.ofMinutes(2));
    hooks.settle(new DeferredHooks.NotInstalled("Kafka 4.4.9 lacks methods the plugin hooks"));

    // When both hooked classes load, and a late Installed result arrives
    byte[] unifiedLog = load(hooks, UNIFIED_LOG).get(10, TimeUnit.SECONDS);
    DeferredHooks.Outcome late = hooks.settle(installed());
    byte[] logSegment = load(hooks, LOG_SEGMENT).get(10, TimeUnit.SECONDS);

    // Then the guard ran once with the reason, both load stock, and the late result is discarded
    assertThat(outcomes.notInstalled).containsExactly("Kafka 4.4.9 lacks methods the plugin hooks");
    assertThat(unifiedLog).isNull();
    assertThat(logSegment).isNull();
    assertThat(late).isInstanceOf(DeferredHooks.NotInstalled.class);
    assertThat(byteBuddy.offered).isEmpty();
    assertThat(outcomes.allTransformed).hasValue(0);
  }

  @Test
  void aPreparationThatOverrunsItsBoundIsGivenUpAndItsLateResultDiscarded() throws Exception {
    // Given a preparation that hangs, and a bound of 200 ms
    DeferredHooks hooks = hooks(Duration.ofMillis(200));

    // When the broker loads UnifiedLog
    byte[] unifiedLog = load(hooks, UNIFIED_LOG).get(10, TimeUnit.SECONDS);

    // Then after the bound the agent gives up: the guard runs, naming the bound and the class
    assertThat(unifiedLog).isNull();
    assertThat(outcomes.notInstalled)
        .singleElement()
        .asString()
        .contains("did not finish within 200 ms")
        .contains("org.apache.kafka.storage.internals.log.UnifiedLog");

    // When the preparation then finishes, Then its result is discarded: LogSegment loads stock too
    assertThat(hooks.settle(installed())).isInstanceOf(DeferredHooks.NotInstalled.class);
    assertThat(load(hooks, LOG_SEGMENT).get(10, TimeUnit.SECONDS)).isNull();
    assertThat(byteBuddy.offered).isEmpty();
    assertThat(outcomes.notInstalled).hasSize(1);
  }

  @Test
  void noHookedClassLoadsWhileTheGuardIsStillDeciding() throws Exception {
    // Given a failed preparation whose guard is still reading the registry files
    DeferredHooks hooks = hooks(Duration.ofMinutes(2));
    outcomes.guardRuns = new CountDownLatch(1);
    CompletableFuture<DeferredHooks.Outcome> settling =
        CompletableFuture.supplyAsync(
            () -> hooks.settle(new DeferredHooks.NotInstalled("no binding")), threads);
    while (outcomes.notInstalled.isEmpty()) {
      Thread.sleep(10);
    }

    // When the broker loads UnifiedLog meanwhile
    Future<byte[]> loading = load(hooks, UNIFIED_LOG);

    // Then it waits for the guard (which may still end the JVM), and loads stock once it let the
    // broker start
    Thread.sleep(300);
    assertThat(loading).isNotDone();
    outcomes.guardRuns.countDown();
    assertThat(loading.get(10, TimeUnit.SECONDS)).isNull();
    assertThat(settling.get(10, TimeUnit.SECONDS)).isInstanceOf(DeferredHooks.NotInstalled.class);
  }

  @Test
  void aHookedClassThatThePreparationLoadsItselfGivesUpAtOnceInsteadOfWaitingForItself()
      throws Exception {
    // Given the preparation's own thread, with a bound of two minutes
    DeferredHooks hooks = hooks(Duration.ofMinutes(2));
    Future<byte[]> loading =
        threads.submit(
            () -> {
              hooks.preparedBy(Thread.currentThread());
              // When it loads a hooked class itself
              return hooks.transform(loader, UNIFIED_LOG, null, null, ORIGINAL);
            });

    // Then the agent gives up at once (no two-minute wait), saying why
    assertThat(loading.get(10, TimeUnit.SECONDS)).isNull();
    assertThat(outcomes.notInstalled)
        .singleElement()
        .asString()
        .contains("loaded the hooked class org.apache.kafka.storage.internals.log.UnifiedLog");
  }

  @Test
  void racingLoadsAndAPreparationNeverMixTransformedAndUntransformedHookedClasses()
      throws Exception {
    for (int round = 0; round < 200; round++) {
      // Given a preparation that finishes at about the time the bound of the loads runs out
      RecordingOutcomes roundOutcomes = new RecordingOutcomes();
      DeferredHooks hooks =
          new DeferredHooks(
              Set.of(UNIFIED_LOG.replace('/', '.'), LOG_SEGMENT.replace('/', '.')),
              Duration.ofMillis(ThreadLocalRandom.current().nextInt(0, 4)),
              roundOutcomes,
              new StartupCost(Set.of(UNIFIED_LOG, LOG_SEGMENT)));
      int delayMicros = ThreadLocalRandom.current().nextInt(0, 5_000);
      Future<?> preparation =
          threads.submit(
              () -> {
                TimeUnit.MICROSECONDS.sleep(delayMicros);
                return hooks.settle(installed());
              });

      // When four threads load hooked classes meanwhile
      List<Future<byte[]>> loads = new ArrayList<>();
      for (int i = 0; i < 4; i++) {
        loads.add(load(hooks, i % 2 == 0 ? UNIFIED_LOG : LOG_SEGMENT));
      }
      List<byte[]> results = new ArrayList<>();
      for (Future<byte[]> f : loads) {
        results.add(f.get(10, TimeUnit.SECONDS));
      }
      preparation.get(10, TimeUnit.SECONDS);

      // Then either every load is transformed and the guard never ran, or none is and the guard
      // ran exactly once
      if (results.get(0) == null) {
        assertThat(results).allMatch(r -> r == null);
        assertThat(roundOutcomes.notInstalled).hasSize(1);
      } else {
        assertThat(results).allMatch(r -> java.util.Arrays.equals(r, PREBUILT));
        assertThat(roundOutcomes.notInstalled).isEmpty();
        assertThat(roundOutcomes.allTransformed).hasValue(1);
      }
    }
  }

  @Test
  void theLastTwoHookedClassesLoadingAtOnceReportTheHookDoneOnlyOnce() throws Exception {
    for (int round = 0; round < 2_000; round++) {
      // Given a finished preparation
      RecordingOutcomes roundOutcomes = new RecordingOutcomes();
      DeferredHooks hooks =
          new DeferredHooks(
              Set.of(UNIFIED_LOG.replace('/', '.'), LOG_SEGMENT.replace('/', '.')),
              Duration.ofMinutes(2),
              roundOutcomes,
              new StartupCost(Set.of(UNIFIED_LOG, LOG_SEGMENT)));
      hooks.settle(installed());

      // When the two hooked classes load on two threads released together
      java.util.concurrent.CyclicBarrier together = new java.util.concurrent.CyclicBarrier(2);
      List<Future<byte[]>> loads = new ArrayList<>();
      for (String name : List.of(UNIFIED_LOG, LOG_SEGMENT)) {
        loads.add(
            threads.submit(
                () -> {
                  together.await(10, TimeUnit.SECONDS);
                  return hooks.transform(
                      Object.class.getModule(), loader, name, null, null, ORIGINAL);
                }));
      }
      for (Future<byte[]> f : loads) {
        assertThat(f.get(10, TimeUnit.SECONDS)).isEqualTo(PREBUILT);
      }

      // Then the hook is reported done exactly once (both threads may see the set complete)
      assertThat(roundOutcomes.allTransformed).as("round %d", round).hasValue(1);
    }
  }

  @Test
  void theHookIsReportedDoneOnceEveryHookedClassIsTransformed() throws Exception {
    // Given a finished preparation
    DeferredHooks hooks = hooks(Duration.ofMinutes(2));
    hooks.settle(installed());

    // When UnifiedLog loads, Then the hook is not done yet
    hooks.transform(loader, UNIFIED_LOG, null, null, ORIGINAL);
    assertThat(outcomes.allTransformed).hasValue(0);

    // When LogSegment loads too, Then it is, once
    hooks.transform(loader, LOG_SEGMENT, null, null, ORIGINAL);
    hooks.transform(loader, LOG_SEGMENT, null, null, ORIGINAL);
    assertThat(outcomes.allTransformed).hasValue(1);
  }

  @Test
  void theStartUpCostIsReportedOnlyOnceEveryPartIsIn() throws Exception {
    // Given a premain, a finished preparation and applied settings
    DeferredHooks hooks = hooks(Duration.ofMinutes(2));
    cost.premainDone(12_000_000L);
    cost.preparedInBackground(900_000_000L);
    cost.settingsApplied(30_000_000L);
    hooks.settle(installed());
    hooks.transform(loader, UNIFIED_LOG, null, null, ORIGINAL);
    assertThat(cost.summary()).isEmpty();

    // When the last hooked class is transformed
    hooks.transform(loader, LOG_SEGMENT, null, null, ORIGINAL);

    // Then the line names each part, the background preparation apart from the broker's own
    assertThat(cost.summary())
        .get()
        .asString()
        .startsWith("start-up cost ")
        .contains("premain 12 ms")
        .contains("transforming 2 hooked classes")
        .contains("waiting for the background preparation 0 ms")
        .contains("applying the plugin's settings 30 ms")
        .contains("the background preparation 900 ms");
  }
}
