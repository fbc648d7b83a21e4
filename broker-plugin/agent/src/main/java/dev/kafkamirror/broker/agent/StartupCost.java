package dev.kafkamirror.broker.agent;

import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What the agent itself costs the broker's start-up, measured where it happens and logged once as
 * {@code cluster mirror agent: start-up cost N ms (...)}, when every hooked class is transformed
 * and the plugin's settings are applied. N counts what the broker's own threads spend: the {@code
 * premain} (installing the class-file hook, starting the preparation), the hooked classes' loads
 * (waiting for the preparation, if it is not done yet, and transforming), and the application of
 * the plugin's settings inside the broker's start-up (registry reload, control endpoint). The
 * background preparation (reading and hashing the hooked classes' class files, and unless the agent
 * jar holds them prebuilt the hook check and building the transformations with ByteBuddy, see
 * {@link DeferredHooks}) is logged beside it, with the path it took: it runs in parallel with the
 * broker's start and costs its threads only what they wait for it. Not included: the JVM's own cost
 * of calling a class-file hook for every class, which only a comparison with a stock broker shows
 * (docs/benchmarks.md).
 *
 * <p>Thread-safe: the parts are reported from {@code premain}, from the preparation's thread, from
 * whichever thread loads a hooked class, and from the broker's start-up thread; the line is logged
 * by the last of them.
 */
final class StartupCost {

  /** The logger, created at first use: {@code premain} must not initialize the broker's logging. */
  private static final class Log {
    static final Logger LOG = LoggerFactory.getLogger("dev.kafkamirror.broker.agent");
  }

  private final Set<String> hookedTypes;
  private final Set<String> transformed = ConcurrentHashMap.newKeySet();
  private final AtomicLong premainNanos = new AtomicLong(-1);
  private final AtomicLong transformNanos = new AtomicLong();
  private final AtomicLong waitNanos = new AtomicLong();
  private final AtomicLong preparationNanos = new AtomicLong(-1);
  private final AtomicLong settingsNanos = new AtomicLong(-1);
  private final AtomicBoolean logged = new AtomicBoolean();
  private final java.util.concurrent.atomic.AtomicReference<String> path =
      new java.util.concurrent.atomic.AtomicReference<>("");

  /** The preparation took the hooked classes' transformed bytes from the agent jar. */
  static final String PREBUILT_PATH = "on the prebuilt path, without ByteBuddy";

  /** The preparation built the transformations with ByteBuddy. */
  static final String BYTE_BUDDY_PATH = "on the ByteBuddy path";

  /**
   * @param hookedTypes internal names ({@code a/b/C}) of the classes the agent transforms
   */
  StartupCost(Set<String> hookedTypes) {
    this.hookedTypes = Set.copyOf(hookedTypes);
  }

  void premainDone(long nanos) {
    premainNanos.set(nanos);
    logWhenComplete();
  }

  /**
   * Which way the preparation made the transformed bytes: {@link #PREBUILT_PATH} or {@link
   * #BYTE_BUDDY_PATH}.
   */
  void preparedOn(String description) {
    path.set(description);
  }

  /** What {@link #preparedOn} said; empty before. */
  String path() {
    return path.get();
  }

  /** The background preparation took {@code nanos}, off the broker's threads. */
  void preparedInBackground(long nanos) {
    preparationNanos.set(nanos);
    logWhenComplete();
  }

  /**
   * A hooked class was handed to the agent and took {@code nanos} on the thread that loads it, of
   * which {@code waitedNanos} waiting for the background preparation.
   */
  void hookedTypeSeen(String internalName, boolean wasTransformed, long nanos, long waitedNanos) {
    transformNanos.addAndGet(nanos);
    waitNanos.addAndGet(waitedNanos);
    if (wasTransformed) {
      transformed.add(internalName);
    }
    logWhenComplete();
  }

  void settingsApplied(long nanos) {
    settingsNanos.set(nanos);
    logWhenComplete();
  }

  private void logWhenComplete() {
    summary()
        .filter(line -> logged.compareAndSet(false, true))
        .ifPresent(line -> Log.LOG.info("cluster mirror agent: {}", line));
  }

  /** The start-up cost line once every part is in, else empty. */
  Optional<String> summary() {
    long premain = premainNanos.get();
    long settings = settingsNanos.get();
    long preparation = preparationNanos.get();
    if (premain < 0 || settings < 0 || preparation < 0 || !transformed.containsAll(hookedTypes)) {
      return Optional.empty();
    }
    long transform = transformNanos.get();
    return Optional.of(
        "start-up cost "
            + millis(premain + transform + settings)
            + " ms (premain "
            + millis(premain)
            + " ms, transforming "
            + hookedTypes.size()
            + " hooked classes "
            + millis(transform)
            + " ms, of which waiting for the background preparation "
            + millis(waitNanos.get())
            + " ms, applying the plugin's settings "
            + millis(settings)
            + " ms; the background preparation "
            + millis(preparation)
            + " ms"
            + (path.get().isEmpty() ? "" : " " + path.get())
            + ", in parallel with the broker's start)");
  }

  private static long millis(long nanos) {
    return nanos / 1_000_000;
  }
}
