package dev.kafkamirror.testing.net;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketException;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** The fault proxy on loopback, against two small echo servers that prefix what they echo. */
class FaultProxyTest {

  private EchoServer first;
  private EchoServer second;
  private FaultProxy proxy;

  @BeforeEach
  void start() throws IOException {
    first = new EchoServer("first:");
    second = new EchoServer("second:");
    proxy = FaultProxy.start("test", first.address());
  }

  @AfterEach
  void stop() {
    proxy.close();
    first.close();
    second.close();
  }

  @Test
  void forwardsBothWays() throws Exception {
    try (Socket s = connect()) {
      assertThat(roundTrip(s, "a")).isEqualTo("first:a");
    }
  }

  @Test
  void aBlackHoleHoldsTheBytesUntilHealedAndLosesNone() throws Exception {
    try (Socket s = connect()) {
      assertThat(roundTrip(s, "a")).isEqualTo("first:a");
      // Given a black hole towards the upstream
      proxy.blackHole(FaultProxy.Direction.TO_UPSTREAM);
      // When the client sends, nothing comes back
      send(s, "b");
      s.setSoTimeout(700);
      assertThatThrownBy(() -> s.getInputStream().read())
          .isInstanceOf(SocketTimeoutException.class);
      // Then healed, the held bytes arrive and the answer comes
      proxy.heal();
      s.setSoTimeout(5_000);
      assertThat(readLine(s)).isEqualTo("first:b");
    }
  }

  @Test
  void resetGivesAConnectionResetAndRefusesNewConnectionsUntilHealed() throws Exception {
    try (Socket s = connect()) {
      assertThat(roundTrip(s, "a")).isEqualTo("first:a");
      proxy.reset();
      assertThatThrownBy(
              () -> {
                for (int i = 0; i < 10; i++) {
                  send(s, "b");
                  if (s.getInputStream().read() < 0) {
                    throw new SocketException("end of stream instead of a reset");
                  }
                }
              })
          .isInstanceOf(SocketException.class)
          .hasMessageContaining("reset");
    }
    try (Socket s = connect()) {
      s.setSoTimeout(5_000);
      assertThatThrownBy(() -> roundTrip(s, "c")).isInstanceOf(IOException.class);
    }
    proxy.heal();
    try (Socket s = connect()) {
      assertThat(roundTrip(s, "d")).isEqualTo("first:d");
    }
  }

  @Test
  void dropClosesWithAnEndOfStream() throws Exception {
    try (Socket s = connect()) {
      assertThat(roundTrip(s, "a")).isEqualTo("first:a");
      proxy.drop();
      s.setSoTimeout(5_000);
      assertThat(s.getInputStream().read()).isEqualTo(-1);
    }
  }

  @Test
  void delaySlowsEveryChunk() throws Exception {
    proxy.delay(Duration.ofMillis(300));
    try (Socket s = connect()) {
      long started = System.nanoTime();
      assertThat(roundTrip(s, "a")).isEqualTo("first:a");
      assertThat(Duration.ofNanos(System.nanoTime() - started))
          .isGreaterThan(Duration.ofMillis(550));
    }
  }

  @Test
  void swappingTheUpstreamResetsOpenConnectionsAndSendsNewOnesElsewhere() throws Exception {
    try (Socket s = connect()) {
      assertThat(roundTrip(s, "a")).isEqualTo("first:a");
      proxy.swapUpstream(second.address());
      s.setSoTimeout(5_000);
      assertThatThrownBy(() -> roundTrip(s, "b")).isInstanceOf(IOException.class);
    }
    try (Socket s = connect()) {
      assertThat(roundTrip(s, "c")).isEqualTo("second:c");
    }
  }

  @Test
  void refusesAnUpstreamThatIsNotLoopback() {
    assertThatThrownBy(() -> FaultProxy.start("outside", "192.0.2.1:9092"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("loopback");
    assertThatThrownBy(() -> proxy.swapUpstream("192.0.2.1:9092"))
        .isInstanceOf(IllegalArgumentException.class);
  }

  private Socket connect() throws IOException {
    Socket s = new Socket(InetAddress.getLoopbackAddress(), proxy.port());
    s.setSoTimeout(5_000);
    return s;
  }

  private static String roundTrip(Socket s, String line) throws IOException {
    send(s, line);
    return readLine(s);
  }

  private static void send(Socket s, String line) throws IOException {
    OutputStream out = s.getOutputStream();
    out.write((line + "\n").getBytes(StandardCharsets.UTF_8));
    out.flush();
  }

  private static String readLine(Socket s) throws IOException {
    InputStream in = s.getInputStream();
    StringBuilder b = new StringBuilder();
    int c;
    while ((c = in.read()) != '\n') {
      if (c < 0) {
        throw new IOException("end of stream after '" + b + "'");
      }
      b.append((char) c);
    }
    return b.toString();
  }

  /** Answers every line with the prefix and the line. */
  private static final class EchoServer implements AutoCloseable {
    private final ServerSocket server;

    EchoServer(String prefix) throws IOException {
      server = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
      Thread t =
          new Thread(
              () -> {
                while (!server.isClosed()) {
                  try {
                    Socket s = server.accept();
                    Thread h = new Thread(() -> echo(s, prefix));
                    h.setDaemon(true);
                    h.start();
                  } catch (IOException e) {
                    return;
                  }
                }
              });
      t.setDaemon(true);
      t.start();
    }

    private static void echo(Socket s, String prefix) {
      try (s) {
        while (true) {
          String line = readLine(s);
          send(s, prefix + line);
        }
      } catch (IOException e) {
        // the client went away
      }
    }

    String address() {
      return "127.0.0.1:" + server.getLocalPort();
    }

    @Override
    public void close() {
      try {
        server.close();
      } catch (IOException ignored) {
        // test cleanup
      }
    }
  }
}
