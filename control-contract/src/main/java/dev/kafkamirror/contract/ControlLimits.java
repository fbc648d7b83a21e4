package dev.kafkamirror.contract;

/** The limits of the control channel, enforced by the agent and respected by every client. */
public final class ControlLimits {

  /** At most this many partitions in one call; clients split larger batches. */
  public static final int MAX_PARTITIONS = 10_000;

  /** Bounds of {@code timeoutMs}: how long the broker may work on one call. */
  public static final long MIN_TIMEOUT_MS = 1L;

  public static final long MAX_TIMEOUT_MS = 300_000L;

  /** The {@code timeoutMs} the broker uses when a request names none. */
  public static final long DEFAULT_TIMEOUT_MS = 30_000L;

  /**
   * The largest request body; the endpoint stops reading and answers 413 as soon as more arrives.
   * 10,000 partitions with a source cluster id each fit with room to spare.
   */
  public static final int MAX_BODY_BYTES = 4 * 1024 * 1024;

  /** The shortest shared secret a broker accepts. */
  public static final int MIN_SECRET_LENGTH = 16;

  /** A legal Kafka topic name (and not {@code .} or {@code ..}, checked separately). */
  public static final String TOPIC_PATTERN = "[a-zA-Z0-9._-]{1,249}";

  /** A mirror's name: a DNS label, as Kubernetes names a ClusterMirror. */
  public static final String MIRROR_NAME_PATTERN = "[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?";

  /** The longest source cluster id. */
  public static final int MAX_SOURCE_CLUSTER_ID_LENGTH = 0x7fff;

  /**
   * The prefixes of source client settings {@code /v1/mirror/start} passes to the clients that read
   * the source; any other key is refused.
   */
  public static final java.util.List<String> SOURCE_PROPERTY_PREFIXES =
      java.util.List.of("security.protocol", "ssl.", "sasl.", "client.dns.lookup");

  private ControlLimits() {}
}
