package dev.kafkamirror.operator.control;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.kafkamirror.operator.core.Action;
import dev.kafkamirror.operator.core.PartitionKey;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The client of the broker plugin's control endpoint: HTTP + JSON, every call a POST with a bearer
 * secret, batched per broker (at most {@value #MAX_PARTITIONS_PER_CALL} partitions per call), one
 * result per partition.
 *
 * <p>Plugins older than the five-step stop sequence serve remove-fetchers, barrier and
 * make-writable under their first names only ({@code /v1/mirror/remove-fetchers}, {@code
 * /v1/barrier}, {@code /v1/mirror/make-writable}); a 404 on a {@code /v1/stop/*} path falls back to
 * them. Truncate and persist-offsets have no older name: a 404 answers UNSUPPORTED.
 *
 * <p>Thread-safe: one instance serves every reconcile.
 */
public final class ControlClient {

  /** The plugin's limit per call. */
  public static final int MAX_PARTITIONS_PER_CALL = 10_000;

  private static final Map<String, String> OLD_NAMES =
      Map.of(
          "/v1/stop/remove-fetchers", "/v1/mirror/remove-fetchers",
          "/v1/stop/barrier", "/v1/barrier",
          "/v1/stop/make-writable", "/v1/mirror/make-writable");

  private final ObjectMapper mapper = new ObjectMapper();
  private final HttpClient http;
  private final long stepTimeoutMs;

  /** Broker address + path pairs known to answer 404, so that the old name is used directly. */
  private final Set<String> missingPaths = ConcurrentHashMap.newKeySet();

  /**
   * @param connectTimeoutMs how long to wait for a TCP connection to a broker's endpoint
   * @param stepTimeoutMs the {@code timeoutMs} sent with each call (how long the broker may work)
   */
  public ControlClient(long connectTimeoutMs, long stepTimeoutMs) {
    this.http =
        HttpClient.newBuilder()
            .connectTimeout(Duration.ofMillis(connectTimeoutMs))
            .version(HttpClient.Version.HTTP_1_1)
            .build();
    this.stepTimeoutMs = stepTimeoutMs;
  }

  /** The source of a mirror, for {@link Action#START_MIRRORING}. */
  public record MirrorSource(
      String bootstrapServers, String clusterId, Map<String, String> properties) {}

  /** Describes partitions on one broker. */
  public List<ControlResult> describe(
      int brokerId, String address, String secret, List<PartitionKey> partitions) {
    return post(brokerId, address, secret, "/v1/describe", partitions, null, null, null);
  }

  /**
   * Sends one action for {@code partitions} to one broker.
   *
   * @param sourceClusterId sent with every partition (persist-offsets and barrier require it)
   * @param mirrorName and {@code source}: for START_MIRRORING only
   */
  public List<ControlResult> act(
      Action action,
      int brokerId,
      String address,
      String secret,
      List<PartitionKey> partitions,
      String sourceClusterId,
      String mirrorName,
      MirrorSource source) {
    if (action.path() == null) {
      throw new IllegalArgumentException("action " + action + " makes no control call");
    }
    boolean withSource =
        action == Action.PERSIST_OFFSETS
            || action == Action.WRITE_BARRIER
            || action == Action.TRUNCATE;
    return post(
        brokerId,
        address,
        secret,
        action.path(),
        partitions,
        withSource ? sourceClusterId : null,
        mirrorName,
        source);
  }

  private List<ControlResult> post(
      int brokerId,
      String address,
      String secret,
      String path,
      List<PartitionKey> partitions,
      String sourceClusterId,
      String mirrorName,
      MirrorSource source) {
    List<ControlResult> out = new ArrayList<>();
    for (int from = 0; from < partitions.size(); from += MAX_PARTITIONS_PER_CALL) {
      List<PartitionKey> batch =
          partitions.subList(from, Math.min(partitions.size(), from + MAX_PARTITIONS_PER_CALL));
      out.addAll(
          postBatch(brokerId, address, secret, path, batch, sourceClusterId, mirrorName, source));
    }
    return out;
  }

  private List<ControlResult> postBatch(
      int brokerId,
      String address,
      String secret,
      String path,
      List<PartitionKey> batch,
      String sourceClusterId,
      String mirrorName,
      MirrorSource source) {
    String effectivePath =
        missingPaths.contains(address + path) && OLD_NAMES.containsKey(path)
            ? OLD_NAMES.get(path)
            : path;
    if (missingPaths.contains(address + path) && !OLD_NAMES.containsKey(path)) {
      return allFailed(
          batch,
          brokerId,
          ControlResult.UNSUPPORTED,
          "broker " + brokerId + " (" + address + ") does not serve " + path);
    }
    String body = body(batch, sourceClusterId, mirrorName, source);
    HttpRequest request =
        HttpRequest.newBuilder(URI.create("http://" + address + effectivePath))
            .timeout(Duration.ofMillis(stepTimeoutMs + 15_000L))
            .header("Content-Type", "application/json")
            .header("Authorization", "Bearer " + secret)
            .POST(HttpRequest.BodyPublishers.ofString(body))
            .build();
    HttpResponse<String> response;
    try {
      response = http.send(request, HttpResponse.BodyHandlers.ofString());
    } catch (IOException e) {
      return allFailed(
          batch,
          brokerId,
          ControlResult.UNREACHABLE,
          "control endpoint of broker " + brokerId + " at " + address + " unreachable: " + e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return allFailed(batch, brokerId, ControlResult.UNREACHABLE, "interrupted");
    }
    if (response.statusCode() == 404 && effectivePath.equals(path)) {
      missingPaths.add(address + path);
      return postBatch(brokerId, address, secret, path, batch, sourceClusterId, mirrorName, source);
    }
    if (response.statusCode() != 200) {
      return allFailed(
          batch,
          brokerId,
          ControlResult.HTTP_ERROR,
          "broker "
              + brokerId
              + " at "
              + address
              + " answered "
              + effectivePath
              + " with HTTP "
              + response.statusCode()
              + ": "
              + abbreviate(response.body()));
    }
    JsonNode root;
    try {
      root = mapper.readTree(response.body());
    } catch (IOException e) {
      return allFailed(
          batch,
          brokerId,
          ControlResult.HTTP_ERROR,
          "broker " + brokerId + " answered " + effectivePath + " with invalid JSON: " + e);
    }
    Map<PartitionKey, JsonNode> byKey = new HashMap<>();
    for (JsonNode r : root.path("results")) {
      byKey.put(new PartitionKey(r.path("topic").asText(), r.path("partition").asInt()), r);
    }
    List<ControlResult> out = new ArrayList<>();
    for (PartitionKey key : batch) {
      JsonNode r = byKey.get(key);
      if (r == null) {
        out.add(
            new ControlResult(
                key,
                brokerId,
                null,
                ControlResult.MISSING_RESULT,
                "broker " + brokerId + " returned no result for " + key + " on " + effectivePath));
      } else if (r.has("error")) {
        JsonNode error = r.get("error");
        String code = error.isObject() ? error.path("code").asText("INTERNAL") : "INTERNAL";
        String message = error.isObject() ? error.path("message").asText() : error.asText();
        out.add(
            new ControlResult(
                key,
                brokerId,
                r,
                code,
                effectivePath + " on broker " + brokerId + " for " + key + ": " + message));
      } else {
        out.add(new ControlResult(key, brokerId, r, null, null));
      }
    }
    return out;
  }

  private String body(
      List<PartitionKey> batch, String sourceClusterId, String mirrorName, MirrorSource source) {
    ObjectNode root = mapper.createObjectNode();
    ArrayNode partitions = root.putArray("partitions");
    for (PartitionKey key : batch) {
      ObjectNode p = partitions.addObject();
      p.put("topic", key.topic());
      p.put("partition", key.partition());
      if (sourceClusterId != null) {
        p.put("sourceClusterId", sourceClusterId);
      }
    }
    root.put("timeoutMs", stepTimeoutMs);
    if (mirrorName != null) {
      root.put("mirrorName", mirrorName);
    }
    if (source != null) {
      ObjectNode s = root.putObject("source");
      s.put("bootstrapServers", source.bootstrapServers());
      if (source.clusterId() != null) {
        s.put("clusterId", source.clusterId());
      }
      if (source.properties() != null && !source.properties().isEmpty()) {
        ObjectNode props = s.putObject("properties");
        new LinkedHashMap<>(source.properties()).forEach(props::put);
      }
    }
    return root.toString();
  }

  private static List<ControlResult> allFailed(
      List<PartitionKey> batch, int brokerId, String code, String message) {
    List<ControlResult> out = new ArrayList<>();
    for (PartitionKey key : batch) {
      out.add(new ControlResult(key, brokerId, null, code, message));
    }
    return out;
  }

  private static String abbreviate(String text) {
    return text == null || text.length() <= 300 ? text : text.substring(0, 300) + "...";
  }
}
