package dev.kafkamirror.testing.broker;

import java.lang.reflect.Method;
import java.util.Arrays;
import java.util.Optional;

/**
 * Entry point of a test Kafka JVM: {@code KafkaBrokerMain <main class> <args...>} runs the given
 * Kafka main class ({@code kafka.Kafka} for a node, {@code kafka.tools.StorageTool} for formatting)
 * unchanged, and halts the JVM when the process that started it is gone.
 *
 * <p>A test JVM killed with {@code kill -9} runs no shutdown hook, so without this watchdog its
 * brokers would live on as orphans. The parent's pid comes from the system property {@value
 * #PARENT_PID_PROPERTY}; without it, the main class runs exactly as it would on its own. Naming the
 * main class on the command line also keeps {@code kafka.Kafka} visible in the process list.
 *
 * <p>Threading: one daemon thread polls the parent once a second; the main thread is Kafka's.
 */
public final class KafkaBrokerMain {

  /** System property naming the pid of the process whose death must stop this JVM. */
  public static final String PARENT_PID_PROPERTY = "cmo.parent.pid";

  private static final long POLL_INTERVAL_MS = 1_000L;

  private KafkaBrokerMain() {}

  public static void main(String[] args) throws Exception {
    if (args.length < 1) {
      System.err.println("usage: KafkaBrokerMain <main class> [args...]");
      System.exit(2);
    }
    Optional.ofNullable(System.getProperty(PARENT_PID_PROPERTY))
        .map(Long::parseLong)
        .ifPresent(KafkaBrokerMain::haltWhenParentDies);
    Method main = Class.forName(args[0]).getMethod("main", String[].class);
    main.invoke(null, (Object) Arrays.copyOfRange(args, 1, args.length));
  }

  private static void haltWhenParentDies(long parentPid) {
    Thread watchdog =
        new Thread(
            () -> {
              while (true) {
                boolean alive =
                    ProcessHandle.of(parentPid).map(ProcessHandle::isAlive).orElse(false);
                if (!alive) {
                  System.err.printf(
                      "cmo: parent process %d is gone; halting so that no orphan survives it%n",
                      parentPid);
                  Runtime.getRuntime().halt(137);
                }
                try {
                  Thread.sleep(POLL_INTERVAL_MS);
                } catch (InterruptedException e) {
                  return;
                }
              }
            },
            "cmo-parent-watchdog");
    watchdog.setDaemon(true);
    watchdog.start();
  }
}
