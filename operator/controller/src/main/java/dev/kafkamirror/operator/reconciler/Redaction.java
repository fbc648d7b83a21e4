package dev.kafkamirror.operator.reconciler;

import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;

/**
 * Client settings made printable: the value of every key that can hold a secret is replaced by
 * {@link #REDACTED}, every other value is kept (so a log line still shows which settings are in
 * use).
 *
 * <p>Invariant: a key is treated as secret when it is {@code sasl.jaas.config}, or its name
 * contains {@code password}, {@code secret}, {@code credential} or {@code token}, or it ends in
 * {@code .key} (e.g. {@code ssl.keystore.key}); the rendering never contains such a key's value.
 */
public final class Redaction {

  /** What a secret value is printed as. */
  public static final String REDACTED = "[redacted]";

  private Redaction() {}

  /** Whether the value of client setting {@code key} may hold a secret. */
  public static boolean isSecret(Object key) {
    String k = String.valueOf(key).toLowerCase(Locale.ROOT);
    return k.equals("sasl.jaas.config")
        || k.contains("password")
        || k.contains("secret")
        || k.contains("credential")
        || k.contains("token")
        || k.endsWith(".key");
  }

  /** {@code settings} as {@code {key=value, ...}}, sorted by key, secret values redacted. */
  public static String of(Map<?, ?> settings) {
    if (settings == null) {
      return "null";
    }
    Map<String, Object> sorted = new TreeMap<>();
    settings.forEach(
        (k, v) -> sorted.put(String.valueOf(k), isSecret(k) ? REDACTED : String.valueOf(v)));
    return sorted.toString();
  }
}
