package dev.kafkamirror.broker.core.mirror;

/**
 * Whether a broker's mirror registration of a destination partition still belongs to a live topic,
 * or belongs to a destination topic that was deleted (and possibly created again under its name,
 * with a new topic id) and must be removed: otherwise a plain topic created under the name stays
 * read-only and is mirrored again.
 *
 * <p>A registration is tied to the id of the destination topic its source topic id was recorded for
 * (before the first mirrored append). It is removed only when the broker's metadata, caught up with
 * the cluster, holds no topic with that id: a topic id is never reused, so it can never be live
 * again. Everything else keeps it:
 *
 * <ul>
 *   <li>no recorded destination topic id (a registration that never had a source topic id pinned,
 *       so never appended a record, or a registry file from before the field): which topic it was
 *       made for is unknown, so no metadata can prove it obsolete;
 *   <li>metadata not caught up yet (at broker start the cache may not hold the topic yet);
 *   <li>the broker hosts a log with that id (the topic lives, whatever the cache says).
 * </ul>
 */
public final class DestinationTopicCheck {

  private DestinationTopicCheck() {}

  /** What to do with one registration. */
  public enum Verdict {
    KEEP,
    REMOVE
  }

  /**
   * The verdict for a registration tied to the destination topic {@code registeredForTopicId}
   * (null: none recorded).
   *
   * @param metadataCaughtUp whether the broker's metadata holds an image caught up with the cluster
   * @param registeredTopicInMetadata whether that metadata holds a topic with the registered id
   * @param hostedLogTopicId the topic id of the log the broker hosts for the partition, or null
   */
  public static Verdict decide(
      String registeredForTopicId,
      boolean metadataCaughtUp,
      boolean registeredTopicInMetadata,
      String hostedLogTopicId) {
    if (registeredForTopicId == null || !metadataCaughtUp || registeredTopicInMetadata) {
      return Verdict.KEEP;
    }
    if (registeredForTopicId.equals(hostedLogTopicId)) {
      return Verdict.KEEP;
    }
    return Verdict.REMOVE;
  }
}
