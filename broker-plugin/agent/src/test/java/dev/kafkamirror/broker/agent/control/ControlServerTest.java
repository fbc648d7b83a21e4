package dev.kafkamirror.broker.agent.control;

import static org.assertj.core.api.Assertions.assertThat;

import dev.kafkamirror.contract.ControlCall;
import dev.kafkamirror.contract.RequestError;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import javax.net.ServerSocketFactory;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** The control server's bounds, in one JVM on a loopback port, with a handler that can block. */
class ControlServerTest {

  private static final String SECRET = "server-test-secret-0123456789";

  private final CountDownLatch release = new CountDownLatch(1);
  private final AtomicInteger handled = new AtomicInteger();
  private final HttpClient http =
      HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
  private ControlServer server;

  private ControlServer start(ControlServer.Limits limits, boolean blocking) throws IOException {
    return start(limits, blocking, real -> real);
  }

  private ControlServer start(
      ControlServer.Limits limits,
      boolean blocking,
      java.util.function.UnaryOperator<ControlServer.ConnectionFactory> decorate)
      throws IOException {
    server =
        new ControlServer(
            new InetSocketAddress("127.0.0.1", 0),
            ServerSocketFactory.getDefault(),
            SECRET::equals,
            new ControlServer.Handler() {
              @Override
              public ControlServer.Answer handle(ControlCall call, byte[] body) {
                handled.incrementAndGet();
                if (blocking) {
                  try {
                    release.await(30, TimeUnit.SECONDS);
                  } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                  }
                }
                return new ControlServer.Answer(200, "{\"results\":[]}".getBytes());
              }

              @Override
              public byte[] error(RequestError.Code code, String message) {
                return ("{\"error\":{\"code\":\"" + code + "\"}}").getBytes();
              }
            },
            limits,
            decorate);
    return server;
  }

  @AfterEach
  void stop() {
    release.countDown();
    if (server != null) {
      server.close();
    }
  }

  private CompletableFuture<HttpResponse<String>> post(String secret) {
    HttpRequest.Builder request =
        HttpRequest.newBuilder(
                URI.create("http://127.0.0.1:" + server.address().getPort() + "/v1/describe"))
            .timeout(Duration.ofSeconds(30))
            .POST(HttpRequest.BodyPublishers.ofString("{}"));
    if (secret != null) {
      request.header("Authorization", "Bearer " + secret);
    }
    return http.sendAsync(request.build(), HttpResponse.BodyHandlers.ofString());
  }

  @Test
  void aFullQueueIsAnswered503AndTheCallIsNotRun() throws Exception {
    // Given one worker and a queue of one, both taken by calls that block
    start(new ControlServer.Limits(1, 1, 16, 5_000L, 5_000L), true);
    List<CompletableFuture<HttpResponse<String>>> held = new ArrayList<>();
    held.add(post(SECRET));
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
    while (handled.get() < 1 && System.nanoTime() < deadline) {
      Thread.sleep(10);
    }
    held.add(post(SECRET));
    Thread.sleep(300);
    // When a third call arrives
    HttpResponse<String> third = post(SECRET).get(10, TimeUnit.SECONDS);
    // Then it is refused at once with OVERLOADED, and was not run
    assertThat(third.statusCode()).isEqualTo(503);
    assertThat(third.body()).contains("OVERLOADED");
    assertThat(handled.get()).isEqualTo(1);
    // And once the workers are free, the held calls complete
    release.countDown();
    for (CompletableFuture<HttpResponse<String>> f : held) {
      assertThat(f.get(10, TimeUnit.SECONDS).statusCode()).isEqualTo(200);
    }
  }

  @Test
  void aRequestThatTricklesIsCutOffAtTheReadTimeLimitWithoutAWorker() throws Exception {
    // Given a read time limit of 1 s
    start(new ControlServer.Limits(1, 1, 16, 1_000L, 5_000L), false);
    try (Socket slow = new Socket("127.0.0.1", server.address().getPort())) {
      slow.setSoTimeout(10_000);
      long started = System.nanoTime();
      // When a client sends its request line one byte every 300 ms
      byte[] line = "POST /v1/describe HTTP/1.1\r\n".getBytes(StandardCharsets.US_ASCII);
      String answer = "";
      try {
        for (byte b : line) {
          slow.getOutputStream().write(b);
          Thread.sleep(300);
        }
      } catch (IOException e) {
        // closed by the server: expected
      }
      answer = readAll(slow.getInputStream());
      long ms = (System.nanoTime() - started) / 1_000_000L;
      // Then the server answers 408 and closes after about a second, and ran nothing
      assertThat(answer).startsWith("HTTP/1.1 408");
      assertThat(ms).isBetween(900L, 5_000L);
      assertThat(handled.get()).isZero();
    }
    // And a valid call is served
    assertThat(post(SECRET).get(10, TimeUnit.SECONDS).statusCode()).isEqualTo(200);
  }

  @Test
  void aWrongSecretIsRefusedBeforeTheBodyAndRunsNothing() throws Exception {
    start(ControlServer.Limits.DEFAULT, false);
    // When a call comes without, or with a wrong, secret
    assertThat(post(null).get(10, TimeUnit.SECONDS).statusCode()).isEqualTo(401);
    assertThat(post("wrong-secret-0123456789").get(10, TimeUnit.SECONDS).statusCode())
        .isEqualTo(401);
    // Then nothing ran; the right secret runs the call
    assertThat(handled.get()).isZero();
    assertThat(post(SECRET).get(10, TimeUnit.SECONDS).statusCode()).isEqualTo(200);
    assertThat(handled.get()).isEqualTo(1);
  }

  @Test
  void idleKeepAliveConnectionsMakeRoomForANewCallerAtTheConnectionLimit() throws Exception {
    // Given a limit of two connections, both held open by callers that finished a call and keep
    // their connection alive (as every HTTP client pool does)
    start(new ControlServer.Limits(1, 1, 2, 5_000L, 60_000L), false);
    List<Socket> idle = new ArrayList<>();
    try {
      for (int i = 0; i < 2; i++) {
        Socket s = new Socket("127.0.0.1", server.address().getPort());
        s.setSoTimeout(10_000);
        s.getOutputStream()
            .write(
                ("POST /v1/describe HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer "
                        + SECRET
                        + "\r\nContent-Length: 2\r\n\r\n{}")
                    .getBytes(StandardCharsets.US_ASCII));
        byte[] head = new byte[12];
        assertThat(s.getInputStream().readNBytes(head, 0, 12)).isEqualTo(12);
        assertThat(new String(head, StandardCharsets.US_ASCII)).isEqualTo("HTTP/1.1 200");
        idle.add(s);
      }
      // When a new caller (another client, or a fresh pool) calls
      HttpResponse<String> fresh = post(SECRET).get(10, TimeUnit.SECONDS);
      // Then it is served: an idle connection is closed to make room, not the caller's
      assertThat(fresh.statusCode()).isEqualTo(200);
      assertThat(handled.get()).isEqualTo(3);
    } finally {
      for (Socket s : idle) {
        s.close();
      }
    }
  }

  private static String readAll(InputStream in) {
    StringBuilder out = new StringBuilder();
    byte[] buffer = new byte[1024];
    try {
      int n;
      while ((n = in.read(buffer)) >= 0) {
        out.append(new String(buffer, 0, n, StandardCharsets.ISO_8859_1));
      }
    } catch (IOException e) {
      // reset after the answer
    }
    return out.toString();
  }

  @Test
  void connectionsThatFailBeforeTheyAreServedGiveTheirSlotBackSoTheEndpointNeverLocksCallersOut()
      throws Exception {
    // Given an endpoint of 2 connections whose first 5 connections fail with an Error before they
    // are served (as a class that cannot be loaded does when the agent jar was replaced)
    AtomicInteger failuresLeft = new AtomicInteger(5);
    start(
        new ControlServer.Limits(1, 1, 2, 5_000L, 5_000L),
        false,
        real ->
            socket -> {
              if (failuresLeft.getAndDecrement() > 0) {
                throw new NoClassDefFoundError("dev/kafkamirror/broker/agent/control/Missing");
              }
              return real.open(socket);
            });
    for (int i = 0; i < 5; i++) {
      try (Socket s = new Socket("127.0.0.1", server.address().getPort())) {
        s.setSoTimeout(5_000);
        // the server closes it without an answer
        assertThat(s.getInputStream().read()).isEqualTo(-1);
      }
    }

    // When a caller arrives afterwards
    HttpResponse<String> answer = post(SECRET).get(10, TimeUnit.SECONDS);

    // Then it is served: the failed connections hold no slot
    assertThat(answer.statusCode()).isEqualTo(200);
    assertThat(handled.get()).isEqualTo(1);
  }
}
