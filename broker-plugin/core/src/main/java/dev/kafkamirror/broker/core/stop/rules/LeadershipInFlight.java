package dev.kafkamirror.broker.core.stop.rules;

/**
 * Whether a broker is about to lead a partition: its metadata image names it the leader in a leader
 * epoch its replica has not reached yet (not hosted, not leading, or leading in an older epoch).
 * Kafka publishes a new image to the metadata cache before the replica manager applies it, so right
 * after a leader moved, the cluster (and the operator, which asks it) names a broker the leader
 * that still answers as a follower for a moment.
 */
public final class LeadershipInFlight {

  private LeadershipInFlight() {}

  /**
   * @param self this broker's id
   * @param imageLeader the leader the broker's metadata image names, or -1 for none
   * @param imageEpoch the leader epoch in that image
   * @param hosted whether the broker hosts an online replica of the partition
   * @param leading whether that replica leads
   * @param localEpoch the replica's leader epoch (any value when not hosted)
   */
  public static boolean awaiting(
      int self, int imageLeader, int imageEpoch, boolean hosted, boolean leading, int localEpoch) {
    if (imageLeader != self) {
      return false;
    }
    return !hosted || !leading || localEpoch < imageEpoch;
  }
}
