package dev.kafkamirror.broker.core.stop;

import java.util.Objects;

/**
 * Identifies one destination partition of one mirror. The topic id, not the name, so that a topic
 * deleted and created again under the same name never inherits a stop state.
 */
public record StopStateKey(String mirrorName, String topicId, int partition) {

  public StopStateKey {
    Objects.requireNonNull(mirrorName, "mirrorName");
    Objects.requireNonNull(topicId, "topicId");
    if (partition < 0) {
      throw new IllegalArgumentException("partition must be >= 0, got " + partition);
    }
  }

  @Override
  public String toString() {
    return "mirror " + mirrorName + " topic id " + topicId + " partition " + partition;
  }
}
