package dev.kafkamirror.operator.reconciler;

import dev.kafkamirror.operator.kafka.ClusterAdmin;
import dev.kafkamirror.operator.kafka.KafkaClusterAdmin;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.ConcurrentHashMap;

/**
 * One {@link ClusterAdmin} per ClusterMirror and cluster (source, destination), kept across
 * reconciles and replaced (the old one closed) when the connection settings change. Thread-safe.
 */
public final class AdminClients implements AutoCloseable {

  /** Creates a client; {@link KafkaClusterAdmin#KafkaClusterAdmin} in production. */
  @FunctionalInterface
  public interface Factory {
    ClusterAdmin create(String clusterLabel, Properties properties, long timeoutMs);
  }

  /** A client and the settings it was made with; its string redacts the secret settings. */
  private record Cached(Properties properties, ClusterAdmin admin) {
    @Override
    public String toString() {
      return "Cached[properties=" + Redaction.of(properties) + "]";
    }
  }

  private final Factory factory;
  private final Map<String, Cached> admins = new ConcurrentHashMap<>();

  public AdminClients(Factory factory) {
    this.factory = factory;
  }

  /** The destination's client of the ClusterMirror {@code ref} (namespace/name). */
  public ClusterAdmin destination(String ref, Properties properties, long timeoutMs) {
    return admin(ref + " destination", properties, timeoutMs);
  }

  /** The source's client of the ClusterMirror {@code ref} (namespace/name). */
  public ClusterAdmin source(String ref, Properties properties, long timeoutMs) {
    return admin(ref + " source", properties, timeoutMs);
  }

  private ClusterAdmin admin(String label, Properties properties, long timeoutMs) {
    return admins
        .compute(
            label,
            (k, existing) -> {
              if (existing != null && existing.properties().equals(properties)) {
                return existing;
              }
              if (existing != null) {
                existing.admin().close();
              }
              return new Cached(properties, factory.create(label, properties, timeoutMs));
            })
        .admin();
  }

  /** Closes and forgets the clients of the ClusterMirror {@code ref}. */
  public void forget(String ref) {
    for (String label : List.of(ref + " destination", ref + " source")) {
      Cached cached = admins.remove(label);
      if (cached != null) {
        cached.admin().close();
      }
    }
  }

  @Override
  public void close() {
    admins.values().forEach(a -> a.admin().close());
    admins.clear();
  }
}
