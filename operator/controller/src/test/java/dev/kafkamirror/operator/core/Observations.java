package dev.kafkamirror.operator.core;

import java.util.List;

/** Builders of observations for the pure tests. */
final class Observations {

  static final String SOURCE = "AAAAAAAAAAAAAAAAAAAAAA";
  static final String OTHER_SOURCE = "BBBBBBBBBBBBBBBBBBBBBB";
  static final String MIRROR = "orders";

  private Observations() {}

  static PartitionKey key(int partition) {
    return new PartitionKey("orders", partition);
  }

  /** The id of the source topic the mirrors of these observations copied. */
  static final String SOURCE_TOPIC_ID = "TTTTTTTTTTTTTTTTTTTTTw";

  static PartitionObservation.Mirror mirror(String state, long lag) {
    return new PartitionObservation.Mirror(
        MIRROR, state, SOURCE, SOURCE, 99L, lag, null, null, SOURCE_TOPIC_ID);
  }

  static PartitionObservation.Stop stop(String step, Long barrierOffset) {
    return new PartitionObservation.Stop(step, 5, 100L, 99L, barrierOffset, SOURCE, 4);
  }

  static PartitionObservation described(
      int partition, PartitionObservation.Mirror mirror, PartitionObservation.Stop stop) {
    return PartitionObservation.described(
        key(partition),
        1,
        List.of(1, 2, 3),
        new PartitionObservation.Described(
            true, "LEADER", 5, 101L, 101L, 101L, mirror, stop, List.of()));
  }

  static PartitionObservation legacy(
      int partition, String state, List<PartitionObservation.BarrierReset> resets) {
    return PartitionObservation.described(
        key(partition),
        1,
        List.of(1),
        new PartitionObservation.Described(
            false, "LEADER", 0, 101L, 101L, 101L, mirror(state, 0), null, resets));
  }

  static MirrorIntent intent(MirrorIntent.Target target) {
    return new MirrorIntent(target, MIRROR, SOURCE, false);
  }

  static MirrorIntent afterCatchUp() {
    return new MirrorIntent(MirrorIntent.Target.STOPPED, MIRROR, SOURCE, true);
  }
}
