package dev.kafkamirror.broker.agent.control;

import dev.kafkamirror.contract.ControlLimits;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.time.Clock;
import java.util.function.Predicate;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The control endpoint's bearer secret, rotated without a restart: when it comes from {@code
 * cluster.mirror.control.secret.file}, the file is read again at most every {@value #CHECK_MS} ms
 * (on the next call), and after a change both the new and the previous secret are accepted for the
 * grace period, so that an operator still holding the old value finishes its calls; then only the
 * new one. A file that cannot be read, or holds a secret shorter than {@link
 * ControlLimits#MIN_SECRET_LENGTH}, changes nothing (the current secret stays) and is logged.
 *
 * <p>Every comparison is constant-time. Thread-safe: the state is one immutable snapshot swapped
 * atomically.
 */
public final class RotatingSecret implements Predicate<String> {

  private static final Logger LOG = LoggerFactory.getLogger(RotatingSecret.class);

  /** How often, at most, the file is read again. */
  static final long CHECK_MS = 1_000L;

  /** Broker setting: how long the previous secret stays valid after a rotation (default 5 min). */
  public static final String GRACE_MS = "cluster.mirror.control.secret.rotation.grace.ms";

  public static final long DEFAULT_GRACE_MS = 300_000L;

  private record State(byte[] current, byte[] previous, long previousUntilMs, long checkedAtMs) {}

  private final Path file;
  private final long graceMs;
  private final Clock clock;
  private volatile State state;

  /**
   * @param initial the secret the broker started with
   * @param file the file to watch, or null for a fixed secret
   */
  public RotatingSecret(String initial, Path file, long graceMs, Clock clock) {
    this.file = file;
    this.graceMs = graceMs;
    this.clock = clock;
    this.state = new State(bytes(initial), null, 0L, clock.millis());
  }

  @Override
  public boolean test(String presented) {
    State s = refresh();
    byte[] p = bytes(presented);
    boolean current = MessageDigest.isEqual(p, s.current());
    boolean previous =
        s.previous() != null
            && clock.millis() < s.previousUntilMs()
            && MessageDigest.isEqual(p, s.previous());
    return current | previous;
  }

  private State refresh() {
    State s = state;
    long now = clock.millis();
    if (file == null || now - s.checkedAtMs() < CHECK_MS) {
      return s;
    }
    synchronized (this) {
      s = state;
      if (now - s.checkedAtMs() < CHECK_MS) {
        return s;
      }
      byte[] read;
      try {
        read = bytes(Files.readString(file).trim());
      } catch (IOException e) {
        LOG.error(
            "cluster mirror control secret file {} cannot be read ({}); the current secret stays",
            file,
            e.toString());
        state = new State(s.current(), s.previous(), s.previousUntilMs(), now);
        return state;
      }
      if (MessageDigest.isEqual(read, s.current())) {
        state = new State(s.current(), s.previous(), s.previousUntilMs(), now);
      } else if (read.length < ControlLimits.MIN_SECRET_LENGTH) {
        LOG.error(
            "cluster mirror control secret file {} holds a secret shorter than {} characters; the"
                + " current secret stays",
            file,
            ControlLimits.MIN_SECRET_LENGTH);
        state = new State(s.current(), s.previous(), s.previousUntilMs(), now);
      } else {
        LOG.info(
            "cluster mirror control secret rotated from {}; the previous one is accepted for {} ms",
            file,
            graceMs);
        state = new State(read, s.current(), now + graceMs, now);
      }
      return state;
    }
  }

  private static byte[] bytes(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }
}
