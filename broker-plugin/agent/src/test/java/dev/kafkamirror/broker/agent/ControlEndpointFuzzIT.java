package dev.kafkamirror.broker.agent;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.kafkamirror.contract.ControlCall;
import dev.kafkamirror.contract.ControlRequest;
import dev.kafkamirror.contract.RequestError;
import dev.kafkamirror.testing.kafka.KafkaCluster;
import dev.kafkamirror.testing.plugin.PluginControlClient;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.TreeMap;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * HTTP-level fuzzing of a real broker's control endpoint: malformed JSON, wrong types, huge
 * numbers, unknown fields, truncated bodies, wrong methods, paths and headers, with and without the
 * secret. The broker must answer every request with one of the contract's statuses and, for a
 * refusal, a typed error body; it must not crash; and its partitions must be unchanged.
 * State-changing calls with the secret name only a topic that does not exist, so that a mutation
 * that stays valid cannot change anything either.
 */
class ControlEndpointFuzzIT {

  private static final Logger LOG = LoggerFactory.getLogger(ControlEndpointFuzzIT.class);
  private static final String REAL = "fuzz-real";
  private static final String GHOST = "fuzz-ghost";
  private static final int REQUESTS = 1_500;
  private static final Set<Integer> STATUSES = Set.of(200, 400, 401, 403, 404, 405, 408, 413, 503);

  private static KafkaCluster cluster;
  private static String hostPort;
  private final ObjectMapper mapper = new ObjectMapper();

  @BeforeAll
  static void start() throws Exception {
    cluster = AgentClusters.withAgent("fuzz").singleNode().start();
    cluster.createTopic(REAL, 1, 1, Map.of());
    ProducerWrites.newProducerWrites(cluster.bootstrapServers(), REAL, 20, 10);
    hostPort = cluster.listenerOf(1, PluginControlClient.LISTENER_PROPERTY);
  }

  @AfterAll
  static void stop() {
    if (cluster != null) {
      cluster.close();
    }
  }

  @Test
  void everyFuzzedRequestGetsATypedAnswerAndNothingChanges() throws Exception {
    PluginControlClient control =
        new PluginControlClient(hostPort, PluginControlClient.TEST_SECRET);
    JsonNode before = control.describe(REAL, 0).result(REAL, 0);
    Random random = new Random(20261201L);
    Map<Integer, Integer> byStatus = new TreeMap<>();
    for (int i = 0; i < REQUESTS; i++) {
      byte[] request = request(random);
      Answer answer = send(request);
      byStatus.merge(answer.status(), 1, Integer::sum);
      // Then the status is one of the contract's, and a refusal names its code
      assertThat(STATUSES).as("request %d: %s", i, answer).contains(answer.status());
      if (answer.status() != 200) {
        JsonNode body = mapper.readTree(answer.body());
        String code = body.path("error").path("code").asText();
        assertThat(RequestError.Code.valueOf(code).httpStatus())
            .as("request %d: %s", i, answer)
            .isEqualTo(answer.status());
      }
    }
    LOG.info("fuzzed {} requests; answers by status: {}", REQUESTS, byStatus);
    // And the broker still serves, with the partition as it was
    JsonNode after = control.describe(REAL, 0).result(REAL, 0);
    for (String field :
        List.of("logEndOffset", "highWatermark", "lastStableOffset", "leaderEpoch")) {
      assertThat(after.get(field)).as(field).isEqualTo(before.get(field));
    }
    assertThat(after.has("mirror")).isFalse();
    assertThat(after.get("barrierResets")).isEqualTo(before.get("barrierResets"));
    assertThat(byStatus.keySet()).contains(200, 400, 401, 404, 405);
  }

  private record Answer(int status, String body) {}

  private static final String[] METHODS = {"POST", "POST", "POST", "GET", "PUT", "DELETE", "PATCH"};

  private byte[] request(Random random) {
    ControlCall call = ControlCall.values()[random.nextInt(ControlCall.values().length)];
    String path =
        switch (random.nextInt(8)) {
          case 0 -> "/v1/barrier";
          case 1 -> "/v1/" + "x".repeat(random.nextInt(300));
          case 2 -> call.path() + "?a=b";
          default -> call.path();
        };
    String method = METHODS[random.nextInt(METHODS.length)];
    String secret =
        switch (random.nextInt(4)) {
          case 0 -> null;
          case 1 -> "wrong-secret-0123456789abcdef";
          default -> PluginControlClient.TEST_SECRET;
        };
    // With the right secret, a valid body of a state-changing call names only the ghost topic.
    String topic =
        call == ControlCall.DESCRIBE || secret != PluginControlClient.TEST_SECRET ? REAL : GHOST;
    String body = mutate(validBody(call, topic, random), random);
    byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
    StringBuilder head = new StringBuilder();
    head.append(method).append(' ').append(path).append(" HTTP/1.1\r\nHost: fuzz\r\n");
    if (secret != null) {
      head.append("Authorization: Bearer ").append(secret).append("\r\n");
    }
    switch (random.nextInt(10)) {
      case 0 ->
          head.append("Content-Length: ").append(bytes.length + 1_000_000_000L).append("\r\n");
      case 1 -> head.append("Content-Length: abc\r\n");
      case 2 -> head.append("Transfer-Encoding: chunked\r\n");
      case 3 -> head.append("X-Long: ").append("y".repeat(20_000)).append("\r\n");
      case 4 ->
          head.append("Content-Length: ").append(bytes.length).append("\r\nContent-Length: 1\r\n");
      default -> head.append("Content-Length: ").append(bytes.length).append("\r\n");
    }
    head.append("Content-Type: application/json\r\nConnection: close\r\n\r\n");
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    out.writeBytes(head.toString().getBytes(StandardCharsets.ISO_8859_1));
    out.writeBytes(bytes);
    return out.toByteArray();
  }

  private static String validBody(ControlCall call, String topic, Random random) {
    String source = call.sourceClusterIdRequired() ? "fuzz-source" : null;
    if (call.takesMirrorSource()) {
      return new ControlRequest(
              ControlRequest.partitions(topic, null, 0),
              5_000L,
              "fuzz",
              new ControlRequest.MirrorSource("127.0.0.1:1", null, Map.of()))
          .toJson();
    }
    return ControlRequest.of(ControlRequest.partitions(topic, source, 0, 1), 5_000L).toJson();
  }

  private static String mutate(String json, Random random) {
    int at = random.nextInt(json.length() + 1);
    return switch (random.nextInt(9)) {
      case 0 -> json;
      case 1 -> json.substring(0, at);
      case 2 -> json.substring(0, at) + "\u0000{[\"" + json.substring(at);
      case 3 -> json.replaceAll("[0-9]+", "123456789012345678901234567890");
      case 4 -> json.replace("\"partition\":", "\"partition\":\"zero\",\"p\":");
      case 5 -> json.replaceFirst("\\{", "{\"unknown\":{\"deep\":[1,2,3]},");
      case 6 -> json.replace("5000", "-1");
      case 7 -> "[" + json + "]";
      default -> "{\"partitions\":" + "[".repeat(random.nextInt(2_000)) + "}";
    };
  }

  private static Answer send(byte[] request) throws IOException {
    int colon = hostPort.lastIndexOf(':');
    try (Socket socket = new Socket()) {
      socket.connect(
          new InetSocketAddress(
              hostPort.substring(0, colon), Integer.parseInt(hostPort.substring(colon + 1))),
          5_000);
      socket.setSoTimeout(30_000);
      OutputStream out = socket.getOutputStream();
      try {
        out.write(request);
        out.flush();
      } catch (IOException e) {
        // the broker may refuse before reading everything; its answer is still there to read
      }
      InputStream in = socket.getInputStream();
      ByteArrayOutputStream answer = new ByteArrayOutputStream();
      byte[] buffer = new byte[8192];
      try {
        int n;
        while ((n = in.read(buffer)) >= 0) {
          answer.write(buffer, 0, n);
        }
      } catch (IOException e) {
        // reset after the answer
      }
      String text = answer.toString(StandardCharsets.UTF_8);
      int space = text.indexOf(' ');
      int headEnd = text.indexOf("\r\n\r\n");
      if (!text.startsWith("HTTP/1.1 ") || space < 0 || headEnd < 0) {
        return new Answer(-1, text.length() > 200 ? text.substring(0, 200) : text);
      }
      return new Answer(
          Integer.parseInt(text.substring(space + 1, space + 4)), text.substring(headEnd + 4));
    }
  }
}
