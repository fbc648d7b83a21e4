package dev.kafkamirror.operator.reconciler;

import dev.kafkamirror.operator.api.v1alpha1.ClusterMirror;
import io.javaoperatorsdk.operator.api.reconciler.Context;
import java.lang.reflect.Proxy;

/**
 * A JOSDK {@link Context} that answers only what the reconciler asks of it directly (whether the
 * primary resource is deleted); anything else fails the test, so a new use of the context is seen.
 * Finalizer updates go through {@link TestingFinalizers}, never through this context.
 */
final class TestingContext {

  private TestingContext() {}

  @SuppressWarnings("unchecked")
  static Context<ClusterMirror> of(boolean primaryDeleted) {
    return (Context<ClusterMirror>)
        Proxy.newProxyInstance(
            TestingContext.class.getClassLoader(),
            new Class<?>[] {Context.class},
            (proxy, method, args) ->
                switch (method.getName()) {
                  case "isPrimaryResourceDeleted" -> primaryDeleted;
                  case "toString" -> "TestingContext[primaryDeleted=" + primaryDeleted + "]";
                  case "hashCode" -> System.identityHashCode(proxy);
                  case "equals" -> proxy == args[0];
                  default ->
                      throw new UnsupportedOperationException(
                          "the reconciler asked the context for " + method.getName());
                });
  }
}
