package dev.kafkamirror.operator.kafka;

import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Function;
import org.apache.kafka.clients.admin.Admin;

/**
 * Kafka Admin clients shared by every ClusterMirror that reaches the same cluster with the same
 * settings: one Admin (one network thread, one copy of the cluster's metadata) per distinct set of
 * connection properties, instead of one per ClusterMirror and side. With 100 ClusterMirrors of one
 * source and one destination, two Admins instead of 200.
 *
 * <p>{@link #open} hands each caller a {@link ClusterAdmin} of its own: its error messages name the
 * caller's label, and closing it releases only the caller's share; the Admin is closed when its
 * last share is released. Settings that differ in anything (a credential, a timeout) get different
 * Admins, so a ClusterMirror never uses another's credentials.
 *
 * <p>Thread-safe: shares are counted under this object's lock. The last release removes the entry,
 * then closes the Admin outside the lock; a client of the same settings opened meanwhile gets a new
 * Admin, never a closing one.
 */
public final class SharedKafkaAdmins {

  private record Key(Properties properties, long timeoutMs) {}

  private static final class Entry {
    private final Admin admin;
    private int shares;

    private Entry(Admin admin) {
      this.admin = admin;
    }
  }

  private final Function<Properties, Admin> opener;

  /** Guarded by {@code this}. */
  private final Map<Key, Entry> entries = new HashMap<>();

  /** Admins created with Kafka's {@link Admin#create(Properties)}. */
  public SharedKafkaAdmins() {
    this(Admin::create);
  }

  /** Admins created by {@code opener} (tests). */
  SharedKafkaAdmins(Function<Properties, Admin> opener) {
    this.opener = opener;
  }

  /**
   * A client of the cluster {@code properties} reach, labelled {@code clusterLabel} in its error
   * messages, over the Admin shared by every open client with equal settings.
   */
  public ClusterAdmin open(String clusterLabel, Properties properties, long timeoutMs) {
    Properties props = KafkaClusterAdmin.adminProperties(properties, timeoutMs);
    Key key = new Key(props, timeoutMs);
    Admin admin;
    synchronized (this) {
      Entry entry = entries.get(key);
      if (entry == null) {
        entry = new Entry(opener.apply(props));
        entries.put(key, entry);
      }
      entry.shares++;
      admin = entry.admin;
    }
    AtomicBoolean released = new AtomicBoolean();
    return new KafkaClusterAdmin(
        clusterLabel,
        admin,
        timeoutMs,
        () -> {
          if (released.compareAndSet(false, true)) {
            release(key, admin);
          }
        });
  }

  /** How many distinct Admins are open. */
  public synchronized int openAdmins() {
    return entries.size();
  }

  private void release(Key key, Admin admin) {
    boolean last;
    synchronized (this) {
      Entry entry = entries.get(key);
      last = entry != null && entry.admin == admin && --entry.shares == 0;
      if (last) {
        entries.remove(key);
      }
    }
    if (last) {
      admin.close(Duration.ofSeconds(5));
    }
  }
}
