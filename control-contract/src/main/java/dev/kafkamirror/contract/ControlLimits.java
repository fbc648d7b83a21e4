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

  /**
   * The calls one control endpoint runs at once (its worker threads) unless the broker sets {@code
   * cluster.mirror.control.threads}. A call that finds all of them busy waits in a queue of {@link
   * #ENDPOINT_QUEUE} (setting {@code cluster.mirror.control.queue.size}); a call that finds the
   * queue full too is answered 503 {@link RequestError.Code#OVERLOADED} and nothing is done.
   */
  public static final int ENDPOINT_WORKERS = 4;

  /** The calls one control endpoint holds waiting for a worker, by default. */
  public static final int ENDPOINT_QUEUE = 16;

  /**
   * The most calls one client keeps in flight to one endpoint, however many reconciles want to call
   * it: the endpoint's workers. A client alone then never fills the endpoint's queue, which is left
   * for others (a second operator during a leader hand-over, a person with a tool); more calls wait
   * in the client.
   */
  public static final int CLIENT_CALLS_IN_FLIGHT_PER_ENDPOINT = ENDPOINT_WORKERS;

  /**
   * How often a client sends a call again that was answered {@link RequestError.Code#OVERLOADED}
   * (the endpoint did nothing, so repeating is safe), after pauses that start at {@link
   * #OVERLOADED_FIRST_PAUSE_MS} and double.
   */
  public static final int OVERLOADED_RETRIES = 4;

  /** The first pause before a call answered OVERLOADED is sent again. */
  public static final long OVERLOADED_FIRST_PAUSE_MS = 200L;

  private ControlLimits() {}
}
