package dev.kafkamirror.operator.control;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import dev.kafkamirror.contract.ControlCall;
import dev.kafkamirror.contract.ControlLimits;
import dev.kafkamirror.contract.Fields;
import dev.kafkamirror.operator.core.Action;
import dev.kafkamirror.operator.core.PartitionKey;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Function;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * How the client turns a broker's HTTP answers into one result per partition, against a JDK
 * HttpServer fake on a loopback port: batching, the bearer secret, and every kind of failure.
 */
class ControlClientTest {

  private static final String SECRET = "client-test-secret-0123456789";
  private static final ControlClient.Channel CHANNEL = new ControlClient.Channel(SECRET, null);
  private static final ObjectMapper MAPPER = new ObjectMapper();

  /** One request as the fake server received it. */
  private record Received(String path, String authorization, JsonNode body) {}

  private final List<Received> received = new CopyOnWriteArrayList<>();
  private volatile Function<JsonNode, Answer> answer = ControlClientTest::everyPartitionOk;
  private HttpServer server;
  private String address;
  private final ControlClient client = new ControlClient(2_000L, 1_000L);

  private record Answer(int status, String body) {}

  @BeforeEach
  void start() throws IOException {
    server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
    server.createContext("/", this::handle);
    // Calls are served concurrently, as the plugin's endpoint serves them.
    server.setExecutor(java.util.concurrent.Executors.newCachedThreadPool());
    server.start();
    address = "127.0.0.1:" + server.getAddress().getPort();
  }

  @AfterEach
  void stop() {
    server.stop(0);
  }

  private final java.util.concurrent.atomic.AtomicInteger inFlight =
      new java.util.concurrent.atomic.AtomicInteger();
  private final java.util.concurrent.atomic.AtomicInteger mostInFlight =
      new java.util.concurrent.atomic.AtomicInteger();
  private volatile long answerAfterMs;

  private void handle(HttpExchange exchange) throws IOException {
    mostInFlight.accumulateAndGet(inFlight.incrementAndGet(), Math::max);
    try {
      if (answerAfterMs > 0) {
        Thread.sleep(answerAfterMs);
      }
      answer(exchange);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } finally {
      inFlight.decrementAndGet();
    }
  }

  private void answer(HttpExchange exchange) throws IOException {
    JsonNode body = MAPPER.readTree(exchange.getRequestBody().readAllBytes());
    received.add(
        new Received(
            exchange.getRequestURI().getPath(),
            exchange.getRequestHeaders().getFirst("Authorization"),
            body));
    Answer a = answer.apply(body);
    byte[] bytes = a.body().getBytes(StandardCharsets.UTF_8);
    exchange.sendResponseHeaders(a.status(), bytes.length);
    exchange.getResponseBody().write(bytes);
    exchange.close();
  }

  private static Answer everyPartitionOk(JsonNode request) {
    ObjectNode root = MAPPER.createObjectNode();
    ArrayNode results = root.putArray(Fields.RESULTS);
    for (JsonNode p : request.path(Fields.PARTITIONS)) {
      ObjectNode r = results.addObject();
      r.put(Fields.TOPIC, p.path(Fields.TOPIC).asText());
      r.put(Fields.PARTITION, p.path(Fields.PARTITION).asInt());
    }
    return new Answer(200, root.toString());
  }

  private static List<PartitionKey> keys(int n) {
    List<PartitionKey> out = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      out.add(new PartitionKey("orders", i));
    }
    return out;
  }

  @Test
  void aLargeActionIsSplitIntoCallsOfAtMostTheContractsLimitEachWithTheBearerSecret() {
    // Given more partitions than one call may carry
    int n = ControlLimits.MAX_PARTITIONS + 5;

    // When the barrier is written for all of them
    List<ControlResult> results =
        client.act(Action.WRITE_BARRIER, 2, address, CHANNEL, keys(n), "SRC", "ignored", null);

    // Then two calls went to the barrier path, the first full, each naming the source per partition
    assertThat(received).extracting(Received::path).containsOnly(ControlCall.BARRIER.path());
    assertThat(received)
        .extracting(r -> r.body().path(Fields.PARTITIONS).size())
        .containsExactly(ControlLimits.MAX_PARTITIONS, 5);
    assertThat(received)
        .allSatisfy(
            r -> {
              assertThat(r.authorization()).isEqualTo("Bearer " + SECRET);
              assertThat(
                      r.body()
                          .path(Fields.PARTITIONS)
                          .get(0)
                          .path(Fields.SOURCE_CLUSTER_ID)
                          .asText())
                  .isEqualTo("SRC");
              assertThat(r.body().has(Fields.MIRROR_NAME)).isFalse();
            });
    // And every partition has its successful result, in order
    assertThat(results).hasSize(n).allSatisfy(r -> assertThat(r.ok()).isTrue());
    assertThat(results).extracting(ControlResult::key).containsExactlyElementsOf(keys(n));
  }

  @Test
  void aCallThatTakesNoSourceClusterIdSendsNone() {
    client.act(Action.TRUNCATE, 1, address, CHANNEL, keys(1), "SRC", null, null);
    assertThat(received)
        .singleElement()
        .satisfies(
            r -> {
              assertThat(r.path()).isEqualTo(ControlCall.TRUNCATE.path());
              assertThat(r.body().path(Fields.PARTITIONS).get(0).has(Fields.SOURCE_CLUSTER_ID))
                  .isFalse();
            });
  }

  @Test
  void anHttpErrorFailsEveryPartitionOfTheCallNamingTheBrokerAndStatus() {
    answer = request -> new Answer(401, "{\"error\":\"unauthorized\"}");
    List<ControlResult> results = client.describe(3, address, CHANNEL, keys(2));
    assertThat(results)
        .hasSize(2)
        .allSatisfy(
            r -> {
              assertThat(r.errorCode()).isEqualTo(ControlResult.HTTP_ERROR);
              assertThat(r.errorMessage())
                  .contains("broker 3")
                  .contains(address)
                  .contains("HTTP 401")
                  .doesNotContain(SECRET);
            });
  }

  @Test
  void invalidJsonAMissingResultAndAPartitionErrorAreEachTheirOwnCode() {
    // Invalid JSON: every partition HTTP_ERROR
    answer = request -> new Answer(200, "{not json");
    assertThat(client.describe(1, address, CHANNEL, keys(1)))
        .singleElement()
        .satisfies(
            r -> {
              assertThat(r.errorCode()).isEqualTo(ControlResult.HTTP_ERROR);
              assertThat(r.errorMessage()).contains("invalid JSON");
            });

    // A result for partition 0 only, and it is an error: 0 keeps the plugin's code, 1 is missing
    answer =
        request -> {
          ObjectNode root = MAPPER.createObjectNode();
          ObjectNode r = root.putArray(Fields.RESULTS).addObject();
          r.put(Fields.TOPIC, "orders");
          r.put(Fields.PARTITION, 0);
          ObjectNode error = r.putObject(Fields.ERROR);
          error.put(Fields.CODE, "NOT_LEADER");
          error.put(Fields.MESSAGE, "broker 1 is not the leader of orders-0");
          return new Answer(200, root.toString());
        };
    List<ControlResult> results =
        client.act(Action.MAKE_WRITABLE, 1, address, CHANNEL, keys(2), null, null, null);
    assertThat(results.get(0).errorCode()).isEqualTo("NOT_LEADER");
    assertThat(results.get(0).errorMessage())
        .contains(ControlCall.MAKE_WRITABLE.path())
        .contains("broker 1")
        .contains("not the leader");
    assertThat(results.get(1).errorCode()).isEqualTo(ControlResult.MISSING_RESULT);
    assertThat(results.get(1).errorMessage()).contains("orders-1").contains("broker 1");
  }

  @Test
  void aBrokerNobodyListensOnIsUnreachableForEveryPartition() throws IOException {
    // Given a loopback port nothing listens on
    int port;
    try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      port = s.getLocalPort();
    }
    List<ControlResult> results = client.describe(4, "127.0.0.1:" + port, CHANNEL, keys(3));
    assertThat(results)
        .hasSize(3)
        .allSatisfy(
            r -> {
              assertThat(r.errorCode()).isEqualTo(ControlResult.UNREACHABLE);
              assertThat(r.errorMessage()).contains("broker 4").contains("unreachable");
            });
  }

  @Test
  void anActionThatCallsNothingIsRefused() {
    assertThatThrownBy(
            () -> client.act(Action.WAIT, 1, address, CHANNEL, keys(1), null, null, null))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("WAIT");
    assertThat(received).isEmpty();
  }

  @Test
  void manyReconcilesCallingOneBrokerAtOnceKeepAtMostTheEndpointsWorkersInFlight()
      throws Exception {
    // Given a broker that takes a while to answer, and far more callers than its workers
    answerAfterMs = 150;
    int callers = 3 * (ControlLimits.ENDPOINT_WORKERS + ControlLimits.ENDPOINT_QUEUE);
    java.util.concurrent.ExecutorService pool =
        java.util.concurrent.Executors.newFixedThreadPool(callers);
    try {
      // When every caller describes partitions on that broker at the same time
      List<java.util.concurrent.Future<List<ControlResult>>> calls = new ArrayList<>();
      java.util.concurrent.CountDownLatch go = new java.util.concurrent.CountDownLatch(1);
      for (int i = 0; i < callers; i++) {
        calls.add(
            pool.submit(
                () -> {
                  go.await();
                  return client.describe(1, address, CHANNEL, keys(2));
                }));
      }
      go.countDown();

      // Then every call is answered, and the broker never had more than its workers' worth
      for (java.util.concurrent.Future<List<ControlResult>> call : calls) {
        assertThat(call.get(60, java.util.concurrent.TimeUnit.SECONDS))
            .allSatisfy(r -> assertThat(r.ok()).as(r.errorMessage()).isTrue());
      }
      assertThat(received).hasSize(callers);
      assertThat(mostInFlight.get())
          .isPositive()
          .isLessThanOrEqualTo(ControlLimits.CLIENT_CALLS_IN_FLIGHT_PER_ENDPOINT);
    } finally {
      pool.shutdownNow();
    }
  }

  private static final String OVERLOADED_BODY =
      "{\"error\":{\"code\":\"OVERLOADED\",\"message\":\"busy; nothing was done\"}}";

  /** A client that paces as the contract says, with short pauses and waits. */
  private ControlClient pacedClient(long waitForTurnMs) {
    return new ControlClient(
        2_000L,
        1_000L,
        new ControlClient.Pacing(
            ControlLimits.CLIENT_CALLS_IN_FLIGHT_PER_ENDPOINT,
            waitForTurnMs,
            ControlLimits.OVERLOADED_RETRIES,
            10L));
  }

  @Test
  void aCallAnsweredOverloadedIsSentAgainAndItsLaterAnswerIsUsed() {
    // Given an endpoint whose queue is full for the first two attempts (it does nothing then)
    java.util.concurrent.atomic.AtomicInteger attempts =
        new java.util.concurrent.atomic.AtomicInteger();
    answer =
        request ->
            attempts.incrementAndGet() <= 2
                ? new Answer(503, OVERLOADED_BODY)
                : everyPartitionOk(request);

    // When a barrier is written
    List<ControlResult> results =
        pacedClient(1_000L)
            .act(Action.WRITE_BARRIER, 2, address, CHANNEL, keys(3), "SRC", null, null);

    // Then the third attempt's answer is the result, and the same call was sent three times
    assertThat(results).hasSize(3).allSatisfy(r -> assertThat(r.ok()).isTrue());
    assertThat(received).hasSize(3).extracting(Received::body).containsOnly(received.get(0).body());
  }

  @Test
  void aCallStillOverloadedAfterEveryRetryFailsNamingTheBrokerTheAttemptsAndThatNothingWasDone() {
    // Given an endpoint that stays overloaded
    answer = request -> new Answer(503, OVERLOADED_BODY);

    // When partitions are described
    List<ControlResult> results = pacedClient(1_000L).describe(5, address, CHANNEL, keys(2));

    // Then the call was sent once and repeated the contract's number of times, and it failed
    assertThat(received).hasSize(1 + ControlLimits.OVERLOADED_RETRIES);
    assertThat(results)
        .hasSize(2)
        .allSatisfy(
            r -> {
              assertThat(r.errorCode()).isEqualTo(ControlResult.HTTP_ERROR);
              assertThat(r.errorMessage())
                  .contains("broker 5")
                  .contains(address)
                  .contains("OVERLOADED")
                  .contains((1 + ControlLimits.OVERLOADED_RETRIES) + " times")
                  .contains("nothing was done")
                  .doesNotContain(SECRET);
            });
  }

  @Test
  void anotherHttpErrorIsNotSentAgain() {
    // Given an endpoint that fails the call itself
    answer = request -> new Answer(500, "{\"error\":{\"code\":\"INTERNAL\"}}");

    // When a truncate is sent
    List<ControlResult> results =
        pacedClient(1_000L).act(Action.TRUNCATE, 1, address, CHANNEL, keys(1), "SRC", null, null);

    // Then it was sent once: only OVERLOADED promises that nothing was done
    assertThat(received).hasSize(1);
    assertThat(results)
        .singleElement()
        .extracting(ControlResult::errorCode)
        .isEqualTo("HTTP_ERROR");
  }

  @Test
  void aCallThatGetsNoTurnInTimeIsNotSentAndSaysTheOperatorsCallsAreInFlight() throws Exception {
    // Given an endpoint whose every turn is held by calls that do not end
    java.util.concurrent.CountDownLatch release = new java.util.concurrent.CountDownLatch(1);
    answer =
        request -> {
          try {
            release.await(30, java.util.concurrent.TimeUnit.SECONDS);
          } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
          }
          return everyPartitionOk(request);
        };
    ControlClient paced = pacedClient(300L);
    java.util.concurrent.ExecutorService pool =
        java.util.concurrent.Executors.newFixedThreadPool(
            ControlLimits.CLIENT_CALLS_IN_FLIGHT_PER_ENDPOINT);
    try {
      List<java.util.concurrent.Future<List<ControlResult>>> holding = new ArrayList<>();
      for (int i = 0; i < ControlLimits.CLIENT_CALLS_IN_FLIGHT_PER_ENDPOINT; i++) {
        holding.add(pool.submit(() -> paced.describe(1, address, CHANNEL, keys(1))));
      }
      long deadline = System.nanoTime() + 10_000_000_000L;
      while (received.size() < ControlLimits.CLIENT_CALLS_IN_FLIGHT_PER_ENDPOINT
          && System.nanoTime() < deadline) {
        Thread.sleep(10);
      }
      assertThat(received).hasSize(ControlLimits.CLIENT_CALLS_IN_FLIGHT_PER_ENDPOINT);

      // When one more call is made
      List<ControlResult> results =
          paced.act(Action.MAKE_WRITABLE, 1, address, CHANNEL, keys(2), "SRC", null, null);

      // Then it fails as BUSY without reaching the endpoint, naming the broker and the address
      assertThat(received).hasSize(ControlLimits.CLIENT_CALLS_IN_FLIGHT_PER_ENDPOINT);
      assertThat(results)
          .hasSize(2)
          .allSatisfy(
              r -> {
                assertThat(r.errorCode()).isEqualTo(ControlResult.BUSY);
                assertThat(r.notDelivered()).isTrue();
                assertThat(r.errorMessage())
                    .contains("broker 1")
                    .contains(address)
                    .contains("was not sent");
              });

      // And the held calls end normally once the endpoint answers
      release.countDown();
      for (java.util.concurrent.Future<List<ControlResult>> call : holding) {
        assertThat(call.get(30, java.util.concurrent.TimeUnit.SECONDS))
            .allSatisfy(r -> assertThat(r.ok()).isTrue());
      }
    } finally {
      release.countDown();
      pool.shutdownNow();
    }
  }
}
