package dev.kafkamirror.broker.core.stop.rules;

/**
 * Whether a broker asked to act as a partition's leader should wait a moment for that leadership to
 * arrive. Right after a leader moved (a stop's truncation fence moves hundreds at once), the
 * operator's metadata can name the new leader while that broker has not applied it: neither its
 * replica manager (Kafka publishes the metadata image first) nor, when another broker answered the
 * operator's metadata request, even its own image. A call it refused then cost the operator a whole
 * round; a short bounded wait costs at most that wait when the operator's view is the stale one.
 */
public final class LeadershipInFlight {

  private LeadershipInFlight() {}

  /**
   * @param self this broker's id
   * @param imageLeader the leader this broker's metadata image names, or -1 for none
   * @param imageEpoch the leader epoch in that image
   * @param hosted whether this broker hosts an online replica of the partition
   * @param leading whether that replica leads
   * @param localEpoch the replica's leader epoch (any value when not hosted)
   * @return true while a leadership the caller expects here may still be on its way: a replica that
   *     does not lead (yet), a leader behind its own image's epoch, or no replica yet where the
   *     image already names this broker; false for a leader up to date, and for a broker that holds
   *     no replica and is not named in its image (it will not lead)
   */
  public static boolean awaiting(
      int self, int imageLeader, int imageEpoch, boolean hosted, boolean leading, int localEpoch) {
    if (!hosted) {
      return imageLeader == self;
    }
    if (!leading) {
      return true;
    }
    return imageLeader == self && localEpoch < imageEpoch;
  }
}
