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
 * and the plugin's settings are applied: the {@code premain} (version check, hook check,
 * installation), the transformation of the hooked classes when the broker loads them, and the
 * application of the plugin's settings inside the broker's start-up (registry reload, control
 * endpoint). Not included: the JVM's own cost of calling a class-file hook for every class, which
 * only a comparison with a stock broker shows (docs/benchmarks.md).
 *
 * <p>Thread-safe: the parts are reported from {@code premain}, from whichever thread loads a hooked
 * class, and from the broker's start-up thread; the line is logged by the last of them.
 */
final class StartupCost {

  private static final Logger LOG = LoggerFactory.getLogger("dev.kafkamirror.broker.agent");

  private final Set<String> hookedTypes;
  private final Set<String> transformed = ConcurrentHashMap.newKeySet();
  private final AtomicLong premainNanos = new AtomicLong(-1);
  private final AtomicLong transformNanos = new AtomicLong();
  private final AtomicLong settingsNanos = new AtomicLong(-1);
  private final AtomicBoolean logged = new AtomicBoolean();

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

  void hookedTypeSeen(String internalName, boolean wasTransformed, long nanos) {
    transformNanos.addAndGet(nanos);
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
        .ifPresent(line -> LOG.info("cluster mirror agent: {}", line));
  }

  /** The start-up cost line once every part is in, else empty. */
  Optional<String> summary() {
    long premain = premainNanos.get();
    long settings = settingsNanos.get();
    if (premain < 0 || settings < 0 || !transformed.containsAll(hookedTypes)) {
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
            + " ms, applying the plugin's settings "
            + millis(settings)
            + " ms)");
  }

  private static long millis(long nanos) {
    return nanos / 1_000_000;
  }
}
