package dev.kafkamirror.operator.reconciler;

import io.fabric8.kubernetes.api.model.Secret;
import io.fabric8.kubernetes.api.model.SecretBuilder;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;

/** Secrets of namespaces in memory; every read is kept ("ns/name"). */
final class TestingSecrets implements SpecResolver.SecretSource {

  private final Map<String, Secret> secrets = new ConcurrentHashMap<>();
  private final List<String> reads = new CopyOnWriteArrayList<>();

  /** A Secret {@code ns/name} holding {@code data}, readable by {@code optIn} (null: nobody). */
  TestingSecrets put(String ns, String name, String optIn, Map<String, String> data) {
    SecretBuilder b =
        new SecretBuilder().withNewMetadata().withNamespace(ns).withName(name).endMetadata();
    if (optIn != null) {
      b.editMetadata().addToAnnotations(SecretOptIn.ANNOTATION, optIn).endMetadata();
    }
    secrets.put(ns + "/" + name, b.withStringData(data).build());
    return this;
  }

  List<String> reads() {
    return List.copyOf(reads);
  }

  @Override
  public Secret get(String namespace, String name) {
    reads.add(namespace + "/" + name);
    return secrets.get(namespace + "/" + name);
  }
}
