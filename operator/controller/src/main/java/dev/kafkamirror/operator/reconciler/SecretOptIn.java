package dev.kafkamirror.operator.reconciler;

import io.fabric8.kubernetes.api.model.Secret;
import java.util.Map;

/**
 * Whether a ClusterMirror may read a Secret. Without this check anyone allowed to create a
 * ClusterMirror could read every Secret of its namespace: name it as SASL credentials or as the
 * control secret and point the source bootstrap (or a broker endpoint) at a host of theirs. So a
 * Secret is read only when its owner opted in: the annotation {@value #ANNOTATION} lists the
 * ClusterMirror names (comma-separated) that may read it, or {@code *} for every ClusterMirror of
 * the namespace.
 *
 * <p>Pure and thread-safe.
 */
public final class SecretOptIn {

  /** The annotation a Secret carries to be readable by ClusterMirrors. */
  public static final String ANNOTATION = "kafkamirror.dev/cluster-mirrors";

  private SecretOptIn() {}

  /** Whether {@code secret} opts in for the ClusterMirror named {@code mirror}. */
  public static boolean allows(Secret secret, String mirror) {
    Map<String, String> annotations =
        secret.getMetadata() == null ? null : secret.getMetadata().getAnnotations();
    String value = annotations == null ? null : annotations.get(ANNOTATION);
    if (value == null) {
      return false;
    }
    for (String name : value.split(",")) {
      String n = name.trim();
      if (n.equals("*") || n.equals(mirror)) {
        return true;
      }
    }
    return false;
  }
}
