package dev.kafkamirror.operator.reconciler;

import dev.kafkamirror.operator.api.v1alpha1.ClusterMirror;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/** Keeps every Event as "Type Reason: message". */
final class TestingEventRecorder implements EventRecorder {

  private final List<String> events = new CopyOnWriteArrayList<>();

  List<String> events() {
    return List.copyOf(events);
  }

  @Override
  public void normal(ClusterMirror cr, String reason, String message) {
    events.add("Normal " + reason + ": " + message);
  }

  @Override
  public void warning(ClusterMirror cr, String reason, String message) {
    events.add("Warning " + reason + ": " + message);
  }
}
