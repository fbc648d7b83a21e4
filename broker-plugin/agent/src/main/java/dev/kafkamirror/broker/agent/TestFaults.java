package dev.kafkamirror.broker.agent;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Set;
import java.util.stream.Collectors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * <b>Test-only</b> fault injection, off by default. Tests of the failure model use it to prove that
 * a fault the plugin cannot see from outside (a failed producer-state reset, a crash in the middle
 * of a stop step) is handled; nothing in a production deployment sets these properties. Both are
 * JVM system properties read once, when this class loads; a broker started without them has no
 * fault.
 *
 * <ul>
 *   <li>{@value #RESET_THROWS} — {@code true} (every broker) or a comma-separated list of broker
 *       ids: the producer-state reset on the <em>append</em> path throws instead of resetting, as a
 *       reflective call that broke would. The append itself goes on (the plugin never throws into
 *       the broker), so the barrier is in the log and the producer entries from before it remain.
 *   <li>{@value #CRASH_POINT_FILE} — a path. When a stop step reaches a {@link CrashPoint} and that
 *       file exists and names the point, the broker deletes the file (so that it crashes once) and
 *       halts at once with {@link Runtime#halt} (no shutdown hooks, no flush: like kill -9). A
 *       file, not the point's name itself, so that one test cluster can crash at each point in turn
 *       without restarting its brokers with other settings.
 * </ul>
 *
 * <p>Thread-safe.
 */
public final class TestFaults {

  /** System property: make the append-path reset throw (test only). */
  public static final String RESET_THROWS = "cmo.test.fault.resetThrows";

  /** System property: the file that names the crash point to halt at (test only). */
  public static final String CRASH_POINT_FILE = "cmo.test.crashPointFile";

  private static final Logger LOG =
      LoggerFactory.getLogger("dev.kafkamirror.broker.agent.TestFaults");

  private static final String RESET_THROWS_VALUE = System.getProperty(RESET_THROWS);
  private static final boolean RESET_THROWS_EVERYWHERE = "true".equals(RESET_THROWS_VALUE);
  private static final Set<Integer> RESET_THROWS_ON = brokerIds(RESET_THROWS_VALUE);
  private static final Path CRASH_FILE =
      System.getProperty(CRASH_POINT_FILE) == null
          ? null
          : Path.of(System.getProperty(CRASH_POINT_FILE));

  /** Where inside a stop step a test may crash the broker. */
  public enum CrashPoint {
    /** The truncate step recorded TRUNCATING and has not truncated yet. */
    AFTER_TRUNCATING_RECORDED("after-truncating-recorded"),
    /** The barrier is appended to the leader's log and BARRIER_WRITTEN is not recorded yet. */
    AFTER_BARRIER_APPENDED("after-barrier-appended"),
    /**
     * STOPPED is recorded, right after the leader's write of it, before the call that wrote it
     * opens the partition for writes (the broker's stop-state reader may adopt the record first).
     */
    AFTER_STOPPED_RECORDED("after-stopped-recorded"),
    /**
     * A follower truncated partitions in one batch and has not written their recovery-point
     * checkpoint yet (not a stop step: the window a batch of follower truncations opens).
     */
    INSIDE_FOLLOWER_TRUNCATION_BATCH("inside-follower-truncation-batch"),
    /**
     * A leader truncated the partitions of a stop call in one batch and has not synced their
     * producer-state snapshots nor written their recovery-point checkpoint yet.
     */
    INSIDE_LEADER_TRUNCATION_BATCH("inside-leader-truncation-batch");

    private final String fileContent;

    CrashPoint(String fileContent) {
      this.fileContent = fileContent;
    }

    /** What the crash-point file holds to crash here. */
    public String fileContent() {
      return fileContent;
    }
  }

  private TestFaults() {}

  /** Whether any fault is switched on in this JVM (for the startup log). */
  public static boolean anyConfigured() {
    return RESET_THROWS_VALUE != null || CRASH_FILE != null;
  }

  /**
   * Throws when {@value #RESET_THROWS} names this broker ({@code brokerId}, -1 when not known yet).
   */
  public static void beforeAppendReset(String partition, long barrierOffset, int brokerId) {
    if (RESET_THROWS_EVERYWHERE || (brokerId >= 0 && RESET_THROWS_ON.contains(brokerId))) {
      throw new IllegalStateException(
          "test fault "
              + RESET_THROWS
              + ": the producer-state reset of "
              + partition
              + " at the barrier at offset "
              + barrierOffset
              + " on broker "
              + brokerId
              + " throws");
    }
  }

  /** Halts this JVM when the crash-point file names {@code point}; does nothing otherwise. */
  public static void crashPoint(CrashPoint point, String where) {
    if (CRASH_FILE == null || !Files.isRegularFile(CRASH_FILE)) {
      return;
    }
    try {
      String named = Files.readString(CRASH_FILE, StandardCharsets.UTF_8).trim();
      if (!named.equals(point.fileContent()) || !Files.deleteIfExists(CRASH_FILE)) {
        return;
      }
    } catch (IOException e) {
      LOG.warn("test crash-point file {} cannot be read: {}", CRASH_FILE, e.toString());
      return;
    }
    String message =
        "test crash point " + point.fileContent() + " reached (" + where + "); halting";
    LOG.error(message);
    System.err.println(message);
    System.err.flush();
    Runtime.getRuntime().halt(137);
  }

  private static Set<Integer> brokerIds(String value) {
    if (value == null || value.isBlank() || value.equals("true") || value.equals("false")) {
      return Set.of();
    }
    try {
      return Arrays.stream(value.split(","))
          .map(String::trim)
          .filter(s -> !s.isEmpty())
          .map(Integer::valueOf)
          .collect(Collectors.toUnmodifiableSet());
    } catch (NumberFormatException e) {
      // A test-only switch with a typo: say so loudly and fault nowhere.
      LoggerFactory.getLogger("dev.kafkamirror.broker.agent.TestFaults")
          .error("{}={} is neither true nor a list of broker ids; ignored", RESET_THROWS, value);
      return Set.of();
    }
  }
}
