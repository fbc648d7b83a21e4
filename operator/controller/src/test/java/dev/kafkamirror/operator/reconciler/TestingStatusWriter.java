package dev.kafkamirror.operator.reconciler;

import dev.kafkamirror.operator.api.v1alpha1.ClusterMirror;
import dev.kafkamirror.operator.api.v1alpha1.ClusterMirrorStatus;
import dev.kafkamirror.operator.api.v1alpha1.Conditions;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The status subresource in memory: every write is kept and journaled, and produces the next
 * resource version, which it also sets on the resource (as the API server's answer would). A write
 * can be made to fail.
 */
final class TestingStatusWriter implements StatusWriter {

  private final Journal journal;
  private final List<ClusterMirrorStatus> writes = new CopyOnWriteArrayList<>();
  private final AtomicInteger version = new AtomicInteger(100);
  private volatile String failure;

  TestingStatusWriter(Journal journal) {
    this.journal = journal;
  }

  /** Every later write throws with {@code message}; null heals. */
  void failWith(String message) {
    this.failure = message;
  }

  List<ClusterMirrorStatus> writes() {
    return List.copyOf(writes);
  }

  ClusterMirrorStatus last() {
    return writes.isEmpty() ? null : writes.get(writes.size() - 1);
  }

  @Override
  public String write(ClusterMirror cr, ClusterMirrorStatus status) {
    if (failure != null) {
      journal.add("status write failed");
      throw new IllegalStateException(
          "cannot write the status of ClusterMirror "
              + cr.getMetadata().getNamespace()
              + "/"
              + cr.getMetadata().getName()
              + ": "
              + failure);
    }
    writes.add(status);
    journal.add(
        "status stopStartedAt="
            + status.getStopStartedAt()
            + " Stopped="
            + Conditions.statusOf(status, Conditions.STOPPED)
            + " Degraded="
            + Conditions.statusOf(status, Conditions.DEGRADED));
    String rv = Integer.toString(version.incrementAndGet());
    cr.getMetadata().setResourceVersion(rv);
    cr.setStatus(status);
    return rv;
  }
}
