package dev.kafkamirror.operator.reconciler;

import dev.kafkamirror.operator.api.v1alpha1.ClusterMirror;
import io.javaoperatorsdk.operator.api.reconciler.Context;
import io.javaoperatorsdk.operator.api.reconciler.IndexedResourceCache;
import java.lang.reflect.Proxy;
import java.util.Optional;
import java.util.function.Supplier;

/**
 * A JOSDK {@link Context} that answers only what the reconciler asks of it directly (whether the
 * primary resource is deleted, the informer's newest copy of it); anything else fails the test, so
 * a new use of the context is seen. Finalizer updates go through {@link TestingFinalizers}, never
 * through this context.
 */
final class TestingContext {

  private TestingContext() {}

  /** A context whose primary cache holds nothing (so no reconcile is ever superseded). */
  static Context<ClusterMirror> of(boolean primaryDeleted) {
    return of(primaryDeleted, Optional::empty);
  }

  /**
   * A context whose primary cache answers {@code latest} for the resource, asked anew at every
   * lookup (the informer's newest copy while the reconcile runs).
   */
  @SuppressWarnings("unchecked")
  static Context<ClusterMirror> of(
      boolean primaryDeleted, Supplier<Optional<ClusterMirror>> latest) {
    IndexedResourceCache<ClusterMirror> cache =
        (IndexedResourceCache<ClusterMirror>)
            Proxy.newProxyInstance(
                TestingContext.class.getClassLoader(),
                new Class<?>[] {IndexedResourceCache.class},
                (proxy, method, args) ->
                    switch (method.getName()) {
                      case "get" -> latest.get();
                      case "toString" -> "TestingContext.primaryCache";
                      case "hashCode" -> System.identityHashCode(proxy);
                      case "equals" -> proxy == args[0];
                      default ->
                          throw new UnsupportedOperationException(
                              "the reconciler asked the primary cache for " + method.getName());
                    });
    return (Context<ClusterMirror>)
        Proxy.newProxyInstance(
            TestingContext.class.getClassLoader(),
            new Class<?>[] {Context.class},
            (proxy, method, args) ->
                switch (method.getName()) {
                  case "isPrimaryResourceDeleted" -> primaryDeleted;
                  case "getPrimaryCache" -> cache;
                  case "toString" -> "TestingContext[primaryDeleted=" + primaryDeleted + "]";
                  case "hashCode" -> System.identityHashCode(proxy);
                  case "equals" -> proxy == args[0];
                  default ->
                      throw new UnsupportedOperationException(
                          "the reconciler asked the context for " + method.getName());
                });
  }
}
