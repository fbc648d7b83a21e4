package dev.kafkamirror.operator.app;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.Executors;
import java.util.function.BooleanSupplier;

/**
 * /healthz and /readyz on the health port, /metrics (Prometheus text) on the metrics port. A port
 * of -1 disables the server.
 */
public final class HttpEndpoints implements AutoCloseable {

  private final HttpServer health;
  private final HttpServer metrics;

  public HttpEndpoints(
      int healthPort,
      int metricsPort,
      BooleanSupplier live,
      BooleanSupplier ready,
      PrometheusMeterRegistry registry)
      throws IOException {
    health = healthPort < 0 ? null : HttpServer.create(new InetSocketAddress(healthPort), 16);
    metrics = metricsPort < 0 ? null : HttpServer.create(new InetSocketAddress(metricsPort), 16);
    if (health != null) {
      health.createContext("/healthz", ex -> probe(ex, live.getAsBoolean()));
      health.createContext("/readyz", ex -> probe(ex, ready.getAsBoolean()));
      health.setExecutor(Executors.newSingleThreadExecutor(daemon("cmo-health")));
      health.start();
    }
    if (metrics != null) {
      metrics.createContext(
          "/metrics",
          ex -> respond(ex, 200, "text/plain; version=0.0.4; charset=utf-8", registry.scrape()));
      metrics.setExecutor(Executors.newSingleThreadExecutor(daemon("cmo-metrics")));
      metrics.start();
    }
  }

  public int healthPort() {
    return health == null ? -1 : health.getAddress().getPort();
  }

  public int metricsPort() {
    return metrics == null ? -1 : metrics.getAddress().getPort();
  }

  private static java.util.concurrent.ThreadFactory daemon(String name) {
    return r -> {
      Thread t = new Thread(r, name);
      t.setDaemon(true);
      return t;
    };
  }

  private static void probe(HttpExchange ex, boolean ok) throws IOException {
    respond(ex, ok ? 200 : 503, "text/plain", ok ? "ok\n" : "not ok\n");
  }

  private static void respond(HttpExchange ex, int status, String type, String body)
      throws IOException {
    try (ex) {
      byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
      ex.getResponseHeaders().set("Content-Type", type);
      ex.sendResponseHeaders(status, bytes.length);
      try (OutputStream out = ex.getResponseBody()) {
        out.write(bytes);
      }
    }
  }

  @Override
  public void close() {
    if (health != null) {
      health.stop(0);
    }
    if (metrics != null) {
      metrics.stop(0);
    }
  }
}
