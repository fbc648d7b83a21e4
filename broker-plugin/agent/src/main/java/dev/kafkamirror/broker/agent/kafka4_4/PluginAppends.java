package dev.kafkamirror.broker.agent.kafka4_4;

import java.util.function.Supplier;

/**
 * Marks the plugin's own appends on the current thread, so that the guards can tell them from a
 * transaction coordinator's: the plugin writes ABORT markers into a stopping mirror partition
 * before its barrier, which {@link MarkerGuard} refuses from anyone else.
 *
 * <p>Thread-confined: a flag per thread, set only around a synchronous append.
 */
public final class PluginAppends {

  private static final ThreadLocal<Boolean> ACTIVE = new ThreadLocal<>();

  private PluginAppends() {}

  /** Runs {@code append} as the plugin's own write. */
  public static <T> T run(Supplier<T> append) {
    Boolean before = ACTIVE.get();
    ACTIVE.set(Boolean.TRUE);
    try {
      return append.get();
    } finally {
      if (before == null) {
        ACTIVE.remove();
      } else {
        ACTIVE.set(before);
      }
    }
  }

  /** Whether the current thread appends for the plugin. */
  static boolean active() {
    return Boolean.TRUE.equals(ACTIVE.get());
  }
}
