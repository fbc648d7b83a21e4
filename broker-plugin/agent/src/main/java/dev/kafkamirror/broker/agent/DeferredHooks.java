package dev.kafkamirror.broker.agent;

import java.lang.instrument.ClassFileTransformer;
import java.lang.instrument.IllegalClassFormatException;
import java.security.ProtectionDomain;
import java.time.Duration;
import java.util.Arrays;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import java.util.stream.Collectors;

/**
 * The agent's class-file hook, installed by {@code premain} before the broker's {@code main} while
 * the rest of the installation (taking the hooked classes' transformed bytes from the agent jar, or
 * when it holds none for the broker's Kafka build loading ByteBuddy, the hook check, building and
 * pre-applying the transformations) runs on a background thread in parallel with Kafka's own start.
 *
 * <p>Every class the broker loads whose name is not one of the hooked classes ({@link
 * KafkaBinding#hookedTypes}) is returned untouched after one set lookup. A hooked class waits, on
 * the thread that loads it, until the background preparation has {@linkplain #settle settled}, at
 * most {@code bound}; then:
 *
 * <ul>
 *   <li>{@link Installed}: the class is transformed (with the bytes the preparation built ahead for
 *       exactly these class-file bytes, else by ByteBuddy there and then);
 *   <li>{@link NotInstalled} (the hook check failed, the preparation failed, or it did not finish
 *       within {@code bound}): no hooked class is ever transformed, as when the agent cannot
 *       install; {@link Outcomes#notInstalled} (the {@link StartupGuard}) runs exactly once, before
 *       any hooked class loads, and ends the JVM when the broker holds mirror partitions.
 * </ul>
 *
 * <p>The outcome is decided once: whichever comes first, the preparation's result or a hooked
 * class's bound running out, wins, and a result that comes later is discarded. So no hooked class
 * loads untransformed while another one is transformed, and none loads untransformed before the
 * guard has decided that the broker may start stock.
 *
 * <p>Thread-safe: the JVM calls {@code transform} from every thread that loads a class, in
 * parallel; the outcome is an atomic reference published by a latch.
 */
final class DeferredHooks implements ClassFileTransformer {

  /** The logger, created at first use: {@code premain} must not initialize the broker's logging. */
  private static final class Log {
    static final org.slf4j.Logger LOG =
        org.slf4j.LoggerFactory.getLogger("dev.kafkamirror.broker.agent");
  }

  /** What happens at the outcome; called by {@link DeferredHooks}, never concurrently twice. */
  interface Outcomes {

    /**
     * The agent does not install; {@code reason} says why. Runs exactly once, before any hooked
     * class loads, on the thread that settled the outcome; may end the JVM ({@link StartupGuard}).
     * The hook must stay registered with the JVM until this has decided: a hooked class loaded
     * meanwhile waits in it.
     */
    void notInstalled(DeferredHooks hooks, String reason);

    /** Every hooked class is transformed: the hook has nothing left to do. */
    void allTransformed(DeferredHooks hooks);
  }

  /** How the preparation settled. */
  sealed interface Outcome permits Installed, NotInstalled {}

  /**
   * Installed: {@code prebuilt} holds, per internal name, the transformation already applied to the
   * bytes {@code loader} holds for it (prebuilt into the agent jar, or made ahead by ByteBuddy);
   * {@code byteBuddy} transforms a hooked class that loads with other bytes or through another
   * loader (on the prebuilt path, ByteBuddy is loaded and built at that first need).
   */
  record Installed(
      ClassFileTransformer byteBuddy, ClassLoader loader, Map<String, Prebuilt> prebuilt)
      implements Outcome {}

  /** Not installed, and why. */
  record NotInstalled(String reason) implements Outcome {}

  /** A hooked class's original bytes and what the transformation made of them. */
  record Prebuilt(byte[] original, byte[] transformed) {}

  /** Internal names ({@code a/b/C}), as the JVM passes them. */
  private final Set<String> internalNames;

  private final Duration bound;
  private final Outcomes outcomes;
  private final StartupCost cost;
  private final AtomicReference<Outcome> outcome = new AtomicReference<>();
  private final CountDownLatch settled = new CountDownLatch(1);
  private final Set<String> transformed = ConcurrentHashMap.newKeySet();
  private final AtomicBoolean allTransformedReported = new AtomicBoolean();
  private volatile Thread preparer;

  /**
   * @param binaryNames the hooked classes ({@code a.b.C})
   * @param bound how long a hooked class's load waits for the preparation before the agent gives up
   *     installing
   */
  DeferredHooks(Set<String> binaryNames, Duration bound, Outcomes outcomes, StartupCost cost) {
    this.internalNames =
        binaryNames.stream().map(n -> n.replace('.', '/')).collect(Collectors.toUnmodifiableSet());
    this.bound = bound;
    this.outcomes = outcomes;
    this.cost = cost;
  }

  /** The thread that prepares; a hooked class it loads itself settles {@link NotInstalled}. */
  void preparedBy(Thread thread) {
    this.preparer = thread;
  }

  /**
   * Settles the outcome unless it is settled already, and returns the one in force. When {@code
   * proposed} wins and is {@link NotInstalled}, runs {@link Outcomes#notInstalled} before any
   * hooked class may load.
   */
  Outcome settle(Outcome proposed) {
    if (outcome.compareAndSet(null, proposed)) {
      try {
        if (proposed instanceof NotInstalled notInstalled) {
          outcomes.notInstalled(this, notInstalled.reason());
        }
      } finally {
        settled.countDown();
      }
      return proposed;
    }
    awaitSettled();
    return outcome.get();
  }

  /** The outcome, once settled; null before. */
  Outcome outcome() {
    return settled.getCount() == 0 ? outcome.get() : null;
  }

  private void awaitSettled() {
    boolean interrupted = false;
    while (true) {
      try {
        settled.await();
        break;
      } catch (InterruptedException e) {
        interrupted = true;
      }
    }
    if (interrupted) {
      Thread.currentThread().interrupt();
    }
  }

  /** Waits for the outcome, at most {@link #bound}; settles {@link NotInstalled} past it. */
  private Outcome awaitOutcome(String className) {
    Outcome known = outcome();
    if (known != null) {
      return known;
    }
    if (Thread.currentThread() == preparer) {
      return settle(
          new NotInstalled(
              "the agent's preparation loaded the hooked class "
                  + className.replace('/', '.')
                  + " itself, which must stay unloaded until it is transformed"));
    }
    try {
      if (settled.await(bound.toMillis(), TimeUnit.MILLISECONDS)) {
        return outcome.get();
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return settle(
          new NotInstalled(
              "the thread loading "
                  + className.replace('/', '.')
                  + " was interrupted while waiting for the agent's preparation"));
    }
    return settle(
        new NotInstalled(
            "the agent's preparation (thread "
                + (preparer == null ? "?" : preparer.getName())
                + ") did not finish within "
                + bound.toMillis()
                + " ms of the broker loading "
                + className.replace('/', '.')
                + "; if the machine was overloaded, restart the broker when it is less so, else"
                + " report this with a thread dump"));
  }

  @Override
  public byte[] transform(
      ClassLoader loader,
      String className,
      Class<?> classBeingRedefined,
      ProtectionDomain protectionDomain,
      byte[] classfileBuffer)
      throws IllegalClassFormatException {
    return transform(
        null, loader, className, classBeingRedefined, protectionDomain, classfileBuffer);
  }

  @Override
  public byte[] transform(
      Module module,
      ClassLoader loader,
      String className,
      Class<?> classBeingRedefined,
      ProtectionDomain protectionDomain,
      byte[] classfileBuffer)
      throws IllegalClassFormatException {
    if (className == null || !internalNames.contains(className)) {
      return null;
    }
    long started = System.nanoTime();
    Outcome settledOutcome = awaitOutcome(className);
    long waited = System.nanoTime() - started;
    if (!(settledOutcome instanceof Installed installed)) {
      cost.hookedTypeSeen(className, false, System.nanoTime() - started, waited);
      return null;
    }
    byte[] result;
    Prebuilt prebuilt = installed.prebuilt().get(className);
    if (prebuilt != null
        && loader == installed.loader()
        && classBeingRedefined == null
        && Arrays.equals(prebuilt.original(), classfileBuffer)) {
      result = prebuilt.transformed().clone();
    } else if (module == null) {
      result =
          installed
              .byteBuddy()
              .transform(loader, className, classBeingRedefined, protectionDomain, classfileBuffer);
    } else {
      result =
          installed
              .byteBuddy()
              .transform(
                  module,
                  loader,
                  className,
                  classBeingRedefined,
                  protectionDomain,
                  classfileBuffer);
    }
    cost.hookedTypeSeen(className, result != null, System.nanoTime() - started, waited);
    if (result == null) {
      return null;
    }
    Log.LOG.info("cluster mirror agent: instrumented {}", className.replace('/', '.'));
    // Two threads that add the last two names at once may both see the set complete: only one
    // reports it.
    if (transformed.add(className)
        && transformed.containsAll(internalNames)
        && allTransformedReported.compareAndSet(false, true)) {
      outcomes.allTransformed(this);
    }
    return result;
  }
}
