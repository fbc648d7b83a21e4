package dev.kafkamirror.broker.agent.control;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.kafkamirror.broker.agent.PluginConfig;
import dev.kafkamirror.contract.ControlCall;
import dev.kafkamirror.contract.ControlLimits;
import dev.kafkamirror.contract.ControlRequest;
import dev.kafkamirror.contract.Fields;
import dev.kafkamirror.contract.PartitionError;
import dev.kafkamirror.contract.RequestError;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Predicate;
import javax.net.ServerSocketFactory;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The broker-side control endpoint the operator calls: HTTP with JSON bodies on a listener of its
 * own, served by {@link ControlServer} (authentication before the body, per-request time limits, a
 * bounded work queue answering 503, the body limit enforced while reading).
 *
 * <ul>
 *   <li>Authenticated: every call presents {@code Authorization: Bearer <shared secret>}; anything
 *       else is 401 and changes nothing. The secret is compared in constant time.
 *   <li>Validated: a malformed body is 400 with a message naming the field, and changes nothing.
 *   <li>Batched: one call names many partitions; each gets its own result or error.
 * </ul>
 *
 * <p>Calls, request and answer shapes, error codes and limits are the contract's ({@link
 * ControlCall}, {@link ControlRequest}, {@link Fields}, {@link PartitionError}, {@link
 * RequestError}, {@link ControlLimits}). See docs/broker-plugin.md.
 *
 * <p>Threading: the server's workers run the calls; partition operations are thread-safe.
 */
public final class ControlEndpoint implements AutoCloseable {

  private static final Logger LOG = LoggerFactory.getLogger(ControlEndpoint.class);

  private final ControlServer server;
  private final PartitionControl control;
  private final ControlRequests requests;

  private ControlEndpoint(
      InetSocketAddress address,
      ServerSocketFactory sockets,
      Predicate<String> authenticator,
      PartitionControl control,
      SourceSettingsPolicy policy,
      ControlServer.Limits limits)
      throws IOException {
    this.control = control;
    this.requests = new ControlRequests(policy);
    this.server =
        new ControlServer(
            address,
            sockets,
            authenticator,
            new ControlServer.Handler() {
              @Override
              public ControlServer.Answer handle(ControlCall call, byte[] body) {
                return ControlEndpoint.this.handle(call, body);
              }

              @Override
              public byte[] error(RequestError.Code code, String message) {
                return errorBody(code, message);
              }
            },
            limits);
  }

  /** Starts listening on {@code hostPort} ("host:port") with one fixed secret and the defaults. */
  public static ControlEndpoint start(String hostPort, String secret, PartitionControl control)
      throws IOException {
    byte[] expected = secret.getBytes(StandardCharsets.UTF_8);
    return start(
        hostPort,
        ServerSocketFactory.getDefault(),
        presented -> MessageDigest.isEqual(presented.getBytes(StandardCharsets.UTF_8), expected),
        control,
        SourceSettingsPolicy.STRICT,
        ControlServer.Limits.DEFAULT);
  }

  /**
   * Starts the endpoint the broker's configuration describes: its listener, secret, TLS ({@link
   * ControlTls}: required unless plain HTTP is explicitly allowed), limits and source settings
   * policy ({@link PluginConfig}).
   */
  public static ControlEndpoint start(PluginConfig config, PartitionControl control)
      throws IOException {
    String listener =
        config
            .controlListener()
            .orElseThrow(
                () -> new IllegalArgumentException(PluginConfig.CONTROL_LISTENER + " is not set"));
    String file = config.raw().get(PluginConfig.CONTROL_SECRET_FILE);
    RotatingSecret secret =
        new RotatingSecret(
            config.controlSecret().orElseThrow(),
            file == null || file.isBlank() ? null : java.nio.file.Path.of(file.trim()),
            positive(
                config.raw(),
                RotatingSecret.GRACE_MS,
                RotatingSecret.DEFAULT_GRACE_MS,
                86_400_000L),
            java.time.Clock.systemUTC());
    ServerSocketFactory sockets = ControlTls.serverSockets(config.raw());
    if (!ControlTls.configured(config.raw())) {
      LOG.warn(
          "cluster mirror control endpoint {} serves PLAIN HTTP ({}=true): the bearer secret and the"
              + " source clusters' passwords cross the network in clear text",
          listener,
          ControlTls.INSECURE_PLAINTEXT);
    }
    return start(
        listener,
        sockets,
        secret,
        control,
        SourceSettingsPolicy.from(config.raw()),
        limits(config.raw()));
  }

  /**
   * Checks the source settings of the {@code /v1/mirror/start} calls that arrive from now on
   * against {@code policy} (a dynamic broker config changed the allowed lists); calls already
   * parsed keep the policy they were checked against. Thread-safe.
   */
  public void sourceSettingsPolicy(SourceSettingsPolicy policy) {
    requests.policy(policy);
  }

  /** Broker setting: threads that run control calls (default 4). */
  public static final String THREADS = "cluster.mirror.control.threads";

  /** Broker setting: control calls that may wait for a thread before 503 (default 16). */
  public static final String QUEUE_SIZE = "cluster.mirror.control.queue.size";

  /** Broker setting: open control connections (default 64). */
  public static final String MAX_CONNECTIONS = "cluster.mirror.control.max.connections";

  /** Broker setting: time for a request's head and body to arrive (default 10000). */
  public static final String REQUEST_READ_TIMEOUT_MS =
      "cluster.mirror.control.request.read.timeout.ms";

  /** Broker setting: time an idle keep-alive connection stays open (default 30000). */
  public static final String IDLE_TIMEOUT_MS = "cluster.mirror.control.idle.timeout.ms";

  static ControlServer.Limits limits(Map<String, String> settings) {
    ControlServer.Limits d = ControlServer.Limits.DEFAULT;
    return new ControlServer.Limits(
        (int) positive(settings, THREADS, d.workerThreads(), 256),
        (int) positive(settings, QUEUE_SIZE, d.queueCapacity(), 10_000),
        (int) positive(settings, MAX_CONNECTIONS, d.maxConnections(), 10_000),
        positive(settings, REQUEST_READ_TIMEOUT_MS, d.requestReadTimeoutMs(), 600_000),
        positive(settings, IDLE_TIMEOUT_MS, d.idleTimeoutMs(), 3_600_000));
  }

  private static long positive(Map<String, String> settings, String key, long def, long max) {
    String value = settings.get(key);
    if (value == null || value.isBlank()) {
      return def;
    }
    try {
      long n = Long.parseLong(value.trim());
      if (n >= 1 && n <= max) {
        return n;
      }
    } catch (NumberFormatException e) {
      // reported below
    }
    throw new IllegalArgumentException(
        key + " must be an integer from 1 to " + max + ", got '" + value + "'");
  }

  /**
   * Starts listening on {@code hostPort} ("host:port").
   *
   * @param sockets plain or TLS server sockets
   * @param authenticator whether a presented bearer secret is accepted; must compare in constant
   *     time
   */
  static ControlEndpoint start(
      String hostPort,
      ServerSocketFactory sockets,
      Predicate<String> authenticator,
      PartitionControl control,
      SourceSettingsPolicy policy,
      ControlServer.Limits limits)
      throws IOException {
    int colon = hostPort.lastIndexOf(':');
    if (colon < 0) {
      throw new IllegalArgumentException("control listener must be host:port, got " + hostPort);
    }
    String host = hostPort.substring(0, colon);
    int port = Integer.parseInt(hostPort.substring(colon + 1));
    ControlEndpoint endpoint =
        new ControlEndpoint(
            new InetSocketAddress(host, port), sockets, authenticator, control, policy, limits);
    LOG.info("cluster mirror control endpoint listening on {}", endpoint.address());
    return endpoint;
  }

  public InetSocketAddress address() {
    return server.address();
  }

  /** One authenticated call, read in full; runs on a worker of the server. */
  private ControlServer.Answer handle(ControlCall call, byte[] body) {
    try {
      return new ControlServer.Answer(
          200, Json.MAPPER.writeValueAsBytes(answer(call, requests.parse(body, call))));
    } catch (ControlRequestException e) {
      return new ControlServer.Answer(e.status(), errorBody(e.code(), e.getMessage()));
    } catch (IOException | RuntimeException | LinkageError e) {
      LOG.error("control call {} failed", call.path(), e);
      return new ControlServer.Answer(
          RequestError.Code.INTERNAL.httpStatus(),
          errorBody(RequestError.Code.INTERNAL, "internal error: " + e));
    }
  }

  private byte[] errorBody(RequestError.Code code, String message) {
    try {
      return Json.MAPPER.writeValueAsBytes(
          Map.of(
              Fields.ERROR,
              Map.of(Fields.CODE, code.name(), Fields.MESSAGE, String.valueOf(message))));
    } catch (IOException e) {
      return ("{\"error\":{\"code\":\"" + code.name() + "\"}}").getBytes(StandardCharsets.UTF_8);
    }
  }

  /** The answer to a valid request of {@code call}. */
  private Map<String, Object> answer(ControlCall call, ControlRequests.Parsed parsed) {
    return switch (call) {
      case DESCRIBE -> perPartition(parsed, this::describe);
      case START_MIRRORING -> {
        java.util.function.Supplier<Map<String, Object>> starts =
            () ->
                perPartition(
                    parsed,
                    (partition, timeoutMs) ->
                        control.startMirroring(
                            partition,
                            parsed.mirrorName(),
                            parsed.source(),
                            parsed.request().initialSync(),
                            parsed.request().dryRun()));
        // A failback start truncates after its registration is durable: per partition, as it is.
        yield parsed.request().initialSync() == null
            ? control.startsOfOneCall(starts)
            : starts.get();
      }
      case PAUSE -> perPartition(parsed, (p, t) -> control.transition(p, ControlCall.PAUSE));
      case RESUME -> perPartition(parsed, (p, t) -> control.transition(p, ControlCall.RESUME));
      case REMOVE_FETCHERS -> stopStep(parsed, PartitionControl.StopCall.REMOVE_FETCHERS);
      case TRUNCATE -> stopStep(parsed, PartitionControl.StopCall.TRUNCATE);
      case PERSIST_OFFSETS -> stopStep(parsed, PartitionControl.StopCall.PERSIST_OFFSETS);
      case BARRIER -> stopStep(parsed, PartitionControl.StopCall.BARRIER);
      case MAKE_WRITABLE -> stopStep(parsed, PartitionControl.StopCall.MAKE_WRITABLE);
    };
  }

  private interface Operation {
    Map<String, Object> apply(PartitionRef partition, long timeoutMs)
        throws PartitionOperationException;
  }

  private Map<String, Object> describe(PartitionRef partition, long timeoutMs)
      throws PartitionOperationException {
    return control.describe(partition);
  }

  private Map<String, Object> stopStep(
      ControlRequests.Parsed parsed, PartitionControl.StopCall step) {
    List<Map<String, Object>> results = new ArrayList<>();
    List<StepOutcome> outcomes;
    long startNanos = System.nanoTime();
    try {
      outcomes = control.stopStep(step, parsed.partitions(), parsed.timeoutMs());
      long failed = outcomes.stream().filter(o -> o.error() != null).count();
      LOG.info(
          "stop step {}: {} partitions, {} failed, {} ms",
          step.path(),
          outcomes.size(),
          failed,
          (System.nanoTime() - startNanos) / 1_000_000L);
    } catch (RuntimeException | LinkageError e) {
      LOG.error("stop step {} failed", step, e);
      outcomes = new ArrayList<>();
      for (PartitionRef p : parsed.partitions()) {
        outcomes.add(
            StepOutcome.failed(
                p,
                new PartitionOperationException(
                    PartitionError.Code.INTERNAL, p.key() + ": " + step.path() + " failed: " + e)));
      }
    }
    for (StepOutcome o : outcomes) {
      Map<String, Object> result = new LinkedHashMap<>();
      result.put(Fields.TOPIC, o.partition().topic());
      result.put(Fields.PARTITION, o.partition().partition());
      if (o.error() != null) {
        result.put(Fields.ERROR, error(o.error().code(), o.error().getMessage()));
      } else {
        result.putAll(o.result());
      }
      results.add(result);
    }
    return Map.of(Fields.RESULTS, results);
  }

  private Map<String, Object> perPartition(ControlRequests.Parsed parsed, Operation operation) {
    long deadline = System.nanoTime() + parsed.timeoutMs() * 1_000_000L;
    List<Map<String, Object>> results = new ArrayList<>();
    for (PartitionRef partition : parsed.partitions()) {
      Map<String, Object> result = new LinkedHashMap<>();
      result.put(Fields.TOPIC, partition.topic());
      result.put(Fields.PARTITION, partition.partition());
      long remainingMs = Math.max(1L, (deadline - System.nanoTime()) / 1_000_000L);
      try {
        result.putAll(operation.apply(partition, remainingMs));
      } catch (PartitionOperationException e) {
        result.put(Fields.ERROR, error(e.code(), e.getMessage()));
      } catch (RuntimeException | LinkageError e) {
        LOG.error("control operation on {} failed", partition.key(), e);
        result.put(Fields.ERROR, error(PartitionError.Code.INTERNAL, partition.key() + ": " + e));
      }
      results.add(result);
    }
    return Map.of(Fields.RESULTS, results);
  }

  private static Map<String, Object> error(PartitionError.Code code, String message) {
    return Map.of(Fields.CODE, code.name(), Fields.MESSAGE, String.valueOf(message));
  }

  @Override
  public void close() {
    server.close();
  }

  /**
   * Jackson, created at the first request rather than when the endpoint starts: building an
   * ObjectMapper loads some 370 classes, which would otherwise run on the broker's start-up thread
   * (docs/benchmarks.md, "Restart after kill -9"). Thread-safe once built.
   */
  private static final class Json {
    static final ObjectMapper MAPPER = new ObjectMapper();

    private Json() {}
  }
}
