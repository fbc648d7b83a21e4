package dev.kafkamirror.broker.agent.control;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The broker-side control endpoint the operator calls: HTTP with JSON bodies on a listener of its
 * own.
 *
 * <ul>
 *   <li>Authenticated: every call presents {@code Authorization: Bearer <shared secret>}; anything
 *       else is 401 and changes nothing. The secret is compared in constant time.
 *   <li>Validated: a malformed body is 400 with a message naming the field, and changes nothing.
 *   <li>Batched: one call names many partitions; each gets its own result or error.
 * </ul>
 *
 * <p>Calls (all POST): {@code /v1/describe}, {@code /v1/barrier}. See docs/broker-plugin.md.
 *
 * <p>Threading: a small daemon pool serves requests; partition operations are thread-safe.
 */
public final class ControlEndpoint implements AutoCloseable {

  private static final Logger LOG = LoggerFactory.getLogger(ControlEndpoint.class);
  private static final int MAX_BODY_BYTES = 4 * 1024 * 1024;

  private final HttpServer server;
  private final ExecutorService executor;
  private final byte[] secret;
  private final PartitionControl control;
  private final ControlRequests requests = new ControlRequests();
  private final ObjectMapper mapper = new ObjectMapper();

  private ControlEndpoint(HttpServer server, String secret, PartitionControl control) {
    this.server = server;
    this.secret = secret.getBytes(StandardCharsets.UTF_8);
    this.control = control;
    this.executor =
        Executors.newFixedThreadPool(
            2,
            r -> {
              Thread t = new Thread(r, "cluster-mirror-control");
              t.setDaemon(true);
              return t;
            });
    server.setExecutor(executor);
    server.createContext("/", this::handle);
  }

  /** Starts listening on {@code hostPort} ("host:port"). */
  public static ControlEndpoint start(String hostPort, String secret, PartitionControl control)
      throws IOException {
    int colon = hostPort.lastIndexOf(':');
    if (colon < 0) {
      throw new IllegalArgumentException("control listener must be host:port, got " + hostPort);
    }
    String host = hostPort.substring(0, colon);
    int port = Integer.parseInt(hostPort.substring(colon + 1));
    HttpServer server = HttpServer.create(new InetSocketAddress(host, port), 64);
    ControlEndpoint endpoint = new ControlEndpoint(server, secret, control);
    server.start();
    LOG.info("cluster mirror control endpoint listening on {}", server.getAddress());
    return endpoint;
  }

  public InetSocketAddress address() {
    return server.getAddress();
  }

  private void handle(HttpExchange exchange) throws IOException {
    // The exchange is closed only after the answer is written, also on the error paths.
    try (exchange) {
      try {
        route(exchange);
      } catch (ControlRequestException e) {
        respond(exchange, e.status(), Map.of("error", e.getMessage()));
      } catch (RuntimeException | LinkageError e) {
        LOG.error("control call {} failed", exchange.getRequestURI(), e);
        respond(exchange, 500, Map.of("error", "internal error: " + e));
      }
    }
  }

  private void route(HttpExchange exchange) throws IOException, ControlRequestException {
    // Read the body first, whatever the answer: a keep-alive connection must not carry unread bytes
    // into the
    // next exchange.
    byte[] body = readBody(exchange);
    if (!authenticated(exchange)) {
      respond(exchange, 401, Map.of("error", "missing or wrong Authorization: Bearer secret"));
      return;
    }
    if (!"POST".equals(exchange.getRequestMethod())) {
      respond(exchange, 405, Map.of("error", "use POST; got " + exchange.getRequestMethod()));
      return;
    }
    if (body == null) {
      respond(exchange, 413, Map.of("error", "the body exceeds " + MAX_BODY_BYTES + " bytes"));
      return;
    }
    String path = exchange.getRequestURI().getPath();
    switch (path) {
      case "/v1/describe" -> respond(exchange, 200, perPartition(body, false, this::describe));
      case "/v1/barrier", "/v1/stop/barrier" ->
          respond(exchange, 200, stopStep(body, PartitionControl.StopCall.BARRIER));
      case "/v1/mirror/remove-fetchers", "/v1/stop/remove-fetchers" ->
          respond(exchange, 200, stopStep(body, PartitionControl.StopCall.REMOVE_FETCHERS));
      case "/v1/stop/truncate" ->
          respond(exchange, 200, stopStep(body, PartitionControl.StopCall.TRUNCATE));
      case "/v1/stop/persist-offsets" ->
          respond(exchange, 200, stopStep(body, PartitionControl.StopCall.PERSIST_OFFSETS));
      case "/v1/mirror/make-writable", "/v1/stop/make-writable" ->
          respond(exchange, 200, stopStep(body, PartitionControl.StopCall.MAKE_WRITABLE));
      case "/v1/mirror/start" -> respond(exchange, 200, startMirroring(body));
      case "/v1/mirror/pause", "/v1/mirror/resume" -> {
        String action = path.substring("/v1/mirror/".length());
        respond(
            exchange,
            200,
            perPartition(
                body, false, (partition, timeoutMs) -> control.transition(partition, action)));
      }
      default -> respond(exchange, 404, Map.of("error", "unknown call " + path));
    }
  }

  private interface Operation {
    Map<String, Object> apply(PartitionRef partition, long timeoutMs)
        throws PartitionOperationException;
  }

  private Map<String, Object> describe(PartitionRef partition, long timeoutMs)
      throws PartitionOperationException {
    return control.describe(partition);
  }

  private Map<String, Object> stopStep(byte[] body, PartitionControl.StopCall step)
      throws ControlRequestException {
    ControlRequests.Parsed parsed = requests.parse(body, step.needsSourceClusterId());
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
                    PartitionOperationException.Code.INTERNAL,
                    p.key() + ": " + step.path() + " failed: " + e)));
      }
    }
    for (StepOutcome o : outcomes) {
      Map<String, Object> result = new LinkedHashMap<>();
      result.put("topic", o.partition().topic());
      result.put("partition", o.partition().partition());
      if (o.error() != null) {
        result.put(
            "error", Map.of("code", o.error().code().name(), "message", o.error().getMessage()));
      } else {
        result.putAll(o.result());
      }
      results.add(result);
    }
    return Map.of("results", results);
  }

  private Map<String, Object> startMirroring(byte[] body) throws ControlRequestException {
    ControlRequests.Parsed parsed = requests.parseStart(body);
    return perPartition(
        parsed,
        (partition, timeoutMs) ->
            control.startMirroring(partition, parsed.mirrorName(), parsed.source()));
  }

  private Map<String, Object> perPartition(byte[] body, boolean requireSource, Operation operation)
      throws ControlRequestException {
    return perPartition(requests.parse(body, requireSource), operation);
  }

  private Map<String, Object> perPartition(ControlRequests.Parsed parsed, Operation operation) {
    long deadline = System.nanoTime() + parsed.timeoutMs() * 1_000_000L;
    List<Map<String, Object>> results = new ArrayList<>();
    for (PartitionRef partition : parsed.partitions()) {
      Map<String, Object> result = new LinkedHashMap<>();
      result.put("topic", partition.topic());
      result.put("partition", partition.partition());
      long remainingMs = Math.max(1L, (deadline - System.nanoTime()) / 1_000_000L);
      try {
        result.putAll(operation.apply(partition, remainingMs));
      } catch (PartitionOperationException e) {
        result.put("error", Map.of("code", e.code().name(), "message", e.getMessage()));
      } catch (RuntimeException | LinkageError e) {
        LOG.error("control operation on {} failed", partition.key(), e);
        result.put(
            "error",
            Map.of(
                "code",
                PartitionOperationException.Code.INTERNAL.name(),
                "message",
                partition.key() + ": " + e));
      }
      results.add(result);
    }
    return Map.of("results", results);
  }

  private boolean authenticated(HttpExchange exchange) {
    String header = exchange.getRequestHeaders().getFirst("Authorization");
    if (header == null || !header.startsWith("Bearer ")) {
      return false;
    }
    byte[] presented = header.substring("Bearer ".length()).trim().getBytes(StandardCharsets.UTF_8);
    return MessageDigest.isEqual(presented, secret);
  }

  /**
   * The body, or null when it exceeds the limit (the rest is drained so the connection stays
   * usable).
   */
  private static byte[] readBody(HttpExchange exchange) throws IOException {
    try (InputStream in = exchange.getRequestBody()) {
      byte[] body = in.readNBytes(MAX_BODY_BYTES + 1);
      if (body.length > MAX_BODY_BYTES) {
        in.transferTo(OutputStream.nullOutputStream());
        return null;
      }
      return body;
    }
  }

  private void respond(HttpExchange exchange, int status, Object body) throws IOException {
    byte[] bytes = mapper.writeValueAsBytes(body);
    exchange.getResponseHeaders().set("Content-Type", "application/json");
    exchange.sendResponseHeaders(status, bytes.length);
    try (OutputStream out = exchange.getResponseBody()) {
      out.write(bytes);
    }
  }

  @Override
  public void close() {
    server.stop(0);
    executor.shutdownNow();
  }
}
