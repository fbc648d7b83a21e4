package dev.kafkamirror.operator.core;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Instant;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;

/**
 * Decides whether an Event about a resource is a new object or a repeat of one already written, so
 * that a condition that flaps, or a warning that a stop repeats, grows the {@code count} and {@code
 * lastTimestamp} of one Event ({@code kubectl describe}: "x5 over 3m") instead of flooding the
 * namespace with one object per reconcile.
 *
 * <p>Two Events are the same when the involved object (its uid), the type, the reason and the
 * message are the same. The Event's name is derived from those ({@link #eventName}), so that an
 * operator that restarted, or a new leader, finds the object its predecessor wrote: its create is
 * refused as already existing, and it continues the count it reads ({@link #seen}).
 *
 * <p>Invariants: at most {@code capacity} series are remembered (least recently used forgotten
 * first: a forgotten series continues from the object it reads back); counts only grow within a
 * series; the first timestamp of a series never changes. Thread-safe: reconciles of different
 * resources call it concurrently.
 */
public final class EventAggregator {

  /** The longest name of a Kubernetes object (a DNS subdomain). */
  static final int MAX_NAME = 253;

  /** The key of a series: which object, and what was said about it. */
  public record Key(
      String namespace, String objectName, String uid, String type, String reason, String message) {
    public Key {
      Objects.requireNonNull(namespace, "namespace");
      Objects.requireNonNull(objectName, "objectName");
      Objects.requireNonNull(type, "type");
      Objects.requireNonNull(reason, "reason");
      Objects.requireNonNull(message, "message");
    }
  }

  /**
   * What to write.
   *
   * @param create true: create the object named {@code name}; false: update its count and last
   *     timestamp
   * @param name the Event's name
   * @param count the count it carries after this write
   * @param firstTimestamp when the series began
   * @param lastTimestamp now
   */
  public record Write(
      boolean create, String name, int count, Instant firstTimestamp, Instant lastTimestamp) {}

  private record Series(int count, Instant first) {}

  private final Map<Key, Series> series;

  public EventAggregator(int capacity) {
    if (capacity < 1) {
      throw new IllegalArgumentException(
          "event aggregation capacity must be at least 1: " + capacity);
    }
    this.series =
        new LinkedHashMap<>(16, 0.75f, true) {
          @Override
          protected boolean removeEldestEntry(Map.Entry<Key, Series> eldest) {
            return size() > capacity;
          }
        };
  }

  /** The write for an Event {@code key} said at {@code now}; remembered as written. */
  public synchronized Write next(Key key, Instant now) {
    Series known = series.get(key);
    Series after =
        known == null
            ? new Series(1, now)
            : new Series(saturatedIncrement(known.count), known.first);
    series.put(key, after);
    return new Write(known == null, eventName(key), after.count, after.first, now);
  }

  /**
   * The object of {@code key} exists already with {@code count} and {@code first} (read back after
   * a create was refused: written before a restart or by another leader): the write that continues
   * it at {@code now}.
   */
  public synchronized Write seen(Key key, int count, Instant first, Instant now) {
    Series after = new Series(saturatedIncrement(Math.max(count, 0)), first == null ? now : first);
    series.put(key, after);
    return new Write(false, eventName(key), after.count, after.first, now);
  }

  /** The object of {@code key} is gone (expired, deleted) or was never written: start again. */
  public synchronized void forget(Key key) {
    series.remove(key);
  }

  /** How many series are remembered. */
  public synchronized int size() {
    return series.size();
  }

  /**
   * The name of the Event of {@code key}: the object's name (cut so that the whole is a valid
   * name), a dot, and 16 hex digits of a SHA-256 of the key. The same key always gives the same
   * name.
   */
  public static String eventName(Key key) {
    String suffix = "." + hash(key);
    String prefix = key.objectName();
    if (prefix.length() + suffix.length() > MAX_NAME) {
      prefix = prefix.substring(0, MAX_NAME - suffix.length());
    }
    return prefix + suffix;
  }

  private static String hash(Key key) {
    try {
      MessageDigest sha = MessageDigest.getInstance("SHA-256");
      for (String part :
          new String[] {
            key.namespace(),
            key.objectName(),
            key.uid() == null ? "" : key.uid(),
            key.type(),
            key.reason(),
            key.message()
          }) {
        sha.update(part.getBytes(StandardCharsets.UTF_8));
        sha.update((byte) 0);
      }
      return HexFormat.of().formatHex(sha.digest(), 0, 8);
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("SHA-256 is not available in this JVM", e);
    }
  }

  private static int saturatedIncrement(int count) {
    return count == Integer.MAX_VALUE ? count : count + 1;
  }
}
