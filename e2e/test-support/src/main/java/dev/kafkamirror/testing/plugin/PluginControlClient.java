package dev.kafkamirror.testing.plugin;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.kafkamirror.contract.ControlCall;
import dev.kafkamirror.contract.ControlHeaders;
import dev.kafkamirror.contract.ControlRequest;
import dev.kafkamirror.contract.Fields;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * A test client of the broker plugin's control endpoint (HTTP + JSON, bearer secret); calls, bodies
 * and field names are the contract's ({@link ControlCall}, {@link ControlRequest}, {@link Fields}).
 */
public final class PluginControlClient {

  /** The broker property naming the control listener. */
  public static final String LISTENER_PROPERTY = "cluster.mirror.control.listener";

  /** The broker property holding the shared secret. */
  public static final String SECRET_PROPERTY = "cluster.mirror.control.secret";

  /** The secret the tests configure. */
  public static final String TEST_SECRET = "test-secret-0123456789abcdef";

  /** The broker property that allows a plain-HTTP control endpoint. */
  public static final String INSECURE_PLAINTEXT_PROPERTY =
      "cluster.mirror.control.insecure.plaintext";

  private static final ObjectMapper MAPPER = new ObjectMapper();
  private static final HttpClient SHARED_PLAIN = builder().build();

  private static HttpClient.Builder builder() {
    return HttpClient.newBuilder()
        .connectTimeout(Duration.ofSeconds(10))
        .version(HttpClient.Version.HTTP_1_1);
  }

  private final HttpClient http;
  private final String baseUrl;
  private final String secret;

  /** A client of a plain-HTTP endpoint ({@value #INSECURE_PLAINTEXT_PROPERTY}=true). */
  public PluginControlClient(String hostPort, String secret) {
    this(hostPort, secret, null);
  }

  /** A client of a TLS endpoint trusted by {@code tls}; plain HTTP when {@code tls} is null. */
  public PluginControlClient(String hostPort, String secret, javax.net.ssl.SSLContext tls) {
    if (tls == null) {
      // One connection pool for every plain client of the test JVM: tests make a client per call
      // in their polling loops, and a pool per client left one idle keep-alive connection per call
      // on the broker until its idle timeout.
      this.http = SHARED_PLAIN;
    } else {
      this.http = builder().sslContext(tls).build();
    }
    this.baseUrl = (tls == null ? "http://" : "https://") + hostPort;
    this.secret = secret;
  }

  /** An HTTP status and the JSON body. */
  public record Response(int status, JsonNode body) {
    /** The per-partition result for {@code topic}-{@code partition}. */
    public JsonNode result(String topic, int partition) {
      for (JsonNode r : body.get(Fields.RESULTS)) {
        if (r.get(Fields.TOPIC).asText().equals(topic)
            && r.get(Fields.PARTITION).asInt() == partition) {
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
            .header(ControlHeaders.CONTENT_TYPE, ControlHeaders.JSON)
            .POST(HttpRequest.BodyPublishers.ofString(body));
    if (secretToSend != null) {
      request.header(ControlHeaders.AUTHORIZATION, ControlHeaders.BEARER_PREFIX + secretToSend);
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
    return call(
        ControlCall.DESCRIBE,
        ControlRequest.of(ControlRequest.partitions(topic, null, partitions), null));
  }

  /** Describe of partitions of any topics. */
  public Response describe(
      java.util.Collection<org.apache.kafka.common.TopicPartition> partitions) {
    List<ControlRequest.Partition> body = new ArrayList<>();
    for (org.apache.kafka.common.TopicPartition tp : partitions) {
      body.add(new ControlRequest.Partition(tp.topic(), tp.partition(), null));
    }
    return call(ControlCall.DESCRIBE, ControlRequest.of(body, null));
  }

  /** Writes a barrier on each partition (this broker must lead them): the stop's barrier step. */
  public Response barrier(String topic, String sourceClusterId, int... partitions) {
    return call(
        ControlCall.BARRIER,
        ControlRequest.of(ControlRequest.partitions(topic, sourceClusterId, partitions), 60_000L));
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
    return call(
        ControlCall.START_MIRRORING,
        new ControlRequest(
            ControlRequest.partitions(topic, null, partitions),
            null,
            mirrorName,
            new ControlRequest.MirrorSource(
                sourceBootstrap, expectedSourceClusterId, sourceProperties)));
  }

  /**
   * A failback start ({@code initialSync: TRUNCATE_AND_RESTORE}) of partitions of one topic, each
   * aligned to the new source's recorded stop of it ({@code alignTo}, by partition); with {@code
   * dryRun} the broker only plans and reports.
   */
  public Response startFailback(
      String mirrorName,
      String sourceBootstrap,
      String expectedSourceClusterId,
      boolean dryRun,
      String topic,
      Map<Integer, ControlRequest.AlignTo> alignTo) {
    java.util.List<ControlRequest.Partition> partitions = new java.util.ArrayList<>();
    new java.util.TreeMap<>(alignTo)
        .forEach((p, a) -> partitions.add(new ControlRequest.Partition(topic, p, null, a)));
    return call(
        ControlCall.START_MIRRORING,
        new ControlRequest(
            partitions,
            null,
            mirrorName,
            new ControlRequest.MirrorSource(sourceBootstrap, expectedSourceClusterId, Map.of()),
            dev.kafkamirror.contract.InitialSync.TRUNCATE_AND_RESTORE,
            dryRun));
  }

  /**
   * One call without a source for partitions of one topic; {@code sourceClusterId} is sent with
   * each partition when not null.
   */
  public Response call(ControlCall call, String topic, String sourceClusterId, int... partitions) {
    return call(
        call,
        ControlRequest.of(ControlRequest.partitions(topic, sourceClusterId, partitions), null));
  }

  /** Sends {@code request} as {@code call}. */
  public Response call(ControlCall call, ControlRequest request) {
    return postRaw(call.path(), request.toJson(), secret);
  }

  /**
   * One step of the stop sequence ({@code remove-fetchers}, {@code truncate}, {@code
   * persist-offsets}, {@code barrier}, {@code make-writable}) for partitions of one topic; {@code
   * sourceClusterId} is sent with each partition when not null.
   */
  public Response stopStep(String step, String topic, String sourceClusterId, int... partitions) {
    return call(stopCall(step), topic, sourceClusterId, partitions);
  }

  /** One step of the stop sequence for any partitions, as {@code topic}/{@code partition} maps. */
  public Response stopStep(String step, List<Map<String, Object>> partitions, long timeoutMs) {
    List<ControlRequest.Partition> body = new ArrayList<>();
    for (Map<String, Object> p : partitions) {
      body.add(
          new ControlRequest.Partition(
              (String) p.get(Fields.TOPIC),
              ((Number) p.get(Fields.PARTITION)).intValue(),
              (String) p.get(Fields.SOURCE_CLUSTER_ID)));
    }
    return call(stopCall(step), ControlRequest.of(body, timeoutMs));
  }

  private static ControlCall stopCall(String step) {
    return ControlCall.forPath("/v1/stop/" + step)
        .filter(ControlCall::isStopStep)
        .orElseThrow(() -> new IllegalArgumentException("no stop step named " + step));
  }
}
