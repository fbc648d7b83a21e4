package dev.kafkamirror.testing.plugin;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** A test client of the broker plugin's control endpoint (HTTP + JSON, bearer secret). */
public final class PluginControlClient {

  /** The broker property naming the control listener. */
  public static final String LISTENER_PROPERTY = "cluster.mirror.control.listener";

  /** The broker property holding the shared secret. */
  public static final String SECRET_PROPERTY = "cluster.mirror.control.secret";

  /** The secret the tests configure. */
  public static final String TEST_SECRET = "test-secret-0123456789abcdef";

  private static final ObjectMapper MAPPER = new ObjectMapper();
  private final HttpClient http =
      HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(10)).build();
  private final String baseUrl;
  private final String secret;

  public PluginControlClient(String hostPort, String secret) {
    this.baseUrl = "http://" + hostPort;
    this.secret = secret;
  }

  /** An HTTP status and the JSON body. */
  public record Response(int status, JsonNode body) {
    /** The per-partition result for {@code topic}-{@code partition}. */
    public JsonNode result(String topic, int partition) {
      for (JsonNode r : body.get("results")) {
        if (r.get("topic").asText().equals(topic) && r.get("partition").asInt() == partition) {
          return r;
        }
      }
      throw new AssertionError("no result for " + topic + "-" + partition + " in " + body);
    }
  }

  /**
   * POSTs a raw body to {@code path} with an Authorization header (none when {@code secretToSend}
   * is null).
   */
  public Response postRaw(String path, String body, String secretToSend) {
    HttpRequest.Builder request =
        HttpRequest.newBuilder(URI.create(baseUrl + path))
            .timeout(Duration.ofSeconds(120))
            .header("Content-Type", "application/json")
            .POST(HttpRequest.BodyPublishers.ofString(body));
    if (secretToSend != null) {
      request.header("Authorization", "Bearer " + secretToSend);
    }
    try {
      HttpResponse<String> response =
          http.send(request.build(), HttpResponse.BodyHandlers.ofString());
      return new Response(response.statusCode(), MAPPER.readTree(response.body()));
    } catch (IOException e) {
      throw new IllegalStateException(
          "control call " + path + " to " + baseUrl + " failed: " + e, e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted", e);
    }
  }

  /** Describes partitions. */
  public Response describe(String topic, int... partitions) {
    return post("/v1/describe", partitions(topic, null, partitions), null);
  }

  /** Writes a barrier on each partition (this broker must lead them). */
  /** Describe of partitions of any topics. */
  public Response describe(
      java.util.Collection<org.apache.kafka.common.TopicPartition> partitions) {
    List<Map<String, Object>> body = new ArrayList<>();
    for (org.apache.kafka.common.TopicPartition tp : partitions) {
      Map<String, Object> entry = new LinkedHashMap<>();
      entry.put("topic", tp.topic());
      entry.put("partition", tp.partition());
      body.add(entry);
    }
    return post("/v1/describe", body, null);
  }

  public Response barrier(String topic, String sourceClusterId, int... partitions) {
    return post("/v1/barrier", partitions(topic, sourceClusterId, partitions), 60_000L);
  }

  /** Starts mirroring {@code partitions} of {@code topic} from a source cluster. */
  public Response startMirroring(
      String mirrorName,
      String sourceBootstrap,
      String expectedSourceClusterId,
      String topic,
      int... partitions) {
    return startMirroring(
        mirrorName, sourceBootstrap, expectedSourceClusterId, Map.of(), topic, partitions);
  }

  /** Starts mirroring with client security properties for the source (SASL, TLS). */
  public Response startMirroring(
      String mirrorName,
      String sourceBootstrap,
      String expectedSourceClusterId,
      Map<String, String> sourceProperties,
      String topic,
      int... partitions) {
    Map<String, Object> body = new LinkedHashMap<>();
    body.put("mirrorName", mirrorName);
    Map<String, Object> source = new LinkedHashMap<>();
    source.put("bootstrapServers", sourceBootstrap);
    if (expectedSourceClusterId != null) {
      source.put("clusterId", expectedSourceClusterId);
    }
    if (!sourceProperties.isEmpty()) {
      source.put("properties", sourceProperties);
    }
    body.put("source", source);
    body.put("partitions", partitions(topic, null, partitions));
    try {
      return postRaw("/v1/mirror/start", MAPPER.writeValueAsString(body), secret);
    } catch (com.fasterxml.jackson.core.JsonProcessingException e) {
      throw new IllegalStateException(e);
    }
  }

  /** {@code pause}, {@code resume}, {@code remove-fetchers} or {@code make-writable}. */
  public Response mirrorTransition(String action, String topic, int... partitions) {
    return post("/v1/mirror/" + action, partitions(topic, null, partitions), null);
  }

  /**
   * One step of the stop sequence ({@code remove-fetchers}, {@code truncate}, {@code
   * persist-offsets}, {@code barrier}, {@code make-writable}) for partitions of one topic; {@code
   * sourceClusterId} is sent with each partition when not null.
   */
  public Response stopStep(String step, String topic, String sourceClusterId, int... partitions) {
    return post("/v1/stop/" + step, partitions(topic, sourceClusterId, partitions), null);
  }

  /** One step of the stop sequence for any partitions, as {@code topic}/{@code partition} maps. */
  public Response stopStep(String step, List<Map<String, Object>> partitions, long timeoutMs) {
    return post("/v1/stop/" + step, partitions, timeoutMs);
  }

  private Response post(String path, List<Map<String, Object>> partitions, Long timeoutMs) {
    Map<String, Object> body = new LinkedHashMap<>();
    body.put("partitions", partitions);
    if (timeoutMs != null) {
      body.put("timeoutMs", timeoutMs);
    }
    try {
      return postRaw(path, MAPPER.writeValueAsString(body), secret);
    } catch (com.fasterxml.jackson.core.JsonProcessingException e) {
      throw new IllegalStateException(e);
    }
  }

  private static List<Map<String, Object>> partitions(
      String topic, String source, int... partitions) {
    List<Map<String, Object>> out = new ArrayList<>();
    for (int p : partitions) {
      Map<String, Object> entry = new LinkedHashMap<>();
      entry.put("topic", topic);
      entry.put("partition", p);
      if (source != null) {
        entry.put("sourceClusterId", source);
      }
      out.add(entry);
    }
    return out;
  }
}
