package dev.kafkamirror.testing.net;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketException;
import java.time.Duration;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A TCP proxy on the loopback interface that injects network faults between a client and one
 * upstream address, switchable while it runs: forward, delay, drop (close every connection with a
 * FIN and refuse new ones the same way), reset (close with an RST), a black hole in one direction
 * or both (bytes are held, not delivered, connections stay open, so the peer sees silence, not an
 * error; healed, the held bytes flow on, as TCP retransmission delivers them after a partition),
 * and a swappable upstream for new connections.
 *
 * <p>Only loopback: it listens on 127.0.0.1 and refuses an upstream that is not a loopback address,
 * so that a test can never inject faults into anything but its own processes.
 *
 * <p>Threading: one acceptor thread, two pump threads per connection (daemon threads); every setter
 * may be called from any thread and takes effect for the next chunk of bytes each pump moves.
 * {@link #close()} closes every socket it opened and returns when the acceptor has ended.
 */
public final class FaultProxy implements AutoCloseable {

  private static final Logger LOG = LoggerFactory.getLogger(FaultProxy.class);
  private static final int BUFFER_BYTES = 64 * 1024;

  /** A direction of the byte stream. */
  public enum Direction {
    /** From the client that connected to the proxy to the upstream. */
    TO_UPSTREAM,
    /** From the upstream back to the client. */
    TO_CLIENT
  }

  /** What the proxy does with new and open connections. */
  public enum Mode {
    /** Forwards bytes (subject to the delay and black holes). */
    FORWARD,
    /** Closes every open connection with a FIN; new connections are accepted and closed. */
    DROP,
    /** Closes every open connection with an RST; new connections are accepted and reset. */
    RESET
  }

  private final String name;
  private final ServerSocket server;
  private final Thread acceptor;
  private final Set<Connection> connections = ConcurrentHashMap.newKeySet();
  private final AtomicLong accepted = new AtomicLong();
  private volatile InetSocketAddress upstream;
  private volatile Mode mode = Mode.FORWARD;
  private volatile long delayMillis;
  private volatile boolean blackHoleToUpstream;
  private volatile boolean blackHoleToClient;
  private volatile boolean closed;

  private FaultProxy(String name, InetSocketAddress upstream, int port) {
    this.name = Objects.requireNonNull(name, "name");
    this.upstream = requireLoopback(upstream);
    try {
      this.server = new ServerSocket();
      server.setReuseAddress(true);
      server.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), port), 50);
    } catch (IOException e) {
      throw new UncheckedIOException(
          "fault proxy " + name + " cannot listen on 127.0.0.1:" + port, e);
    }
    this.acceptor = new Thread(this::acceptLoop, "fault-proxy-" + name + "-accept");
    acceptor.setDaemon(true);
    acceptor.start();
    LOG.info("fault proxy {} listens on {} for {}", name, address(), upstream);
  }

  /** Starts a proxy on a free loopback port in front of {@code upstream} ({@code host:port}). */
  public static FaultProxy start(String name, String upstream) {
    return new FaultProxy(name, parse(upstream), 0);
  }

  /** Starts a proxy on the given loopback port (0 for a free one) in front of {@code upstream}. */
  public static FaultProxy start(String name, String upstream, int port) {
    return new FaultProxy(name, parse(upstream), port);
  }

  /** {@code 127.0.0.1:port} clients connect to. */
  public String address() {
    return "127.0.0.1:" + server.getLocalPort();
  }

  public int port() {
    return server.getLocalPort();
  }

  /** The upstream new connections go to. */
  public String upstream() {
    InetSocketAddress u = upstream;
    return u.getHostString() + ":" + u.getPort();
  }

  /** How many connections the proxy has accepted so far. */
  public long acceptedConnections() {
    return accepted.get();
  }

  /** Forwards again: no delay, no black hole, new connections accepted. */
  public FaultProxy heal() {
    delayMillis = 0;
    blackHoleToUpstream = false;
    blackHoleToClient = false;
    mode = Mode.FORWARD;
    LOG.info("fault proxy {}: healed", name);
    return this;
  }

  /** Delays every chunk of bytes in both directions by {@code delay}. */
  public FaultProxy delay(Duration delay) {
    delayMillis = delay.toMillis();
    LOG.info("fault proxy {}: delay {} ms", name, delayMillis);
    return this;
  }

  /**
   * Holds the bytes of one direction from now on; the connections stay open, so the receiver waits
   * for bytes that do not come until {@link #heal()}.
   */
  public FaultProxy blackHole(Direction direction) {
    if (direction == Direction.TO_UPSTREAM) {
      blackHoleToUpstream = true;
    } else {
      blackHoleToClient = true;
    }
    LOG.info("fault proxy {}: black hole {}", name, direction);
    return this;
  }

  /** Holds the bytes of both directions from now on (a silent partition). */
  public FaultProxy blackHole() {
    blackHoleToUpstream = true;
    blackHoleToClient = true;
    LOG.info("fault proxy {}: black hole both directions", name);
    return this;
  }

  /** Closes every open connection with a FIN and does the same to new ones until healed. */
  public FaultProxy drop() {
    mode = Mode.DROP;
    closeAll(false);
    LOG.info("fault proxy {}: drop", name);
    return this;
  }

  /** Resets every open connection (RST) and does the same to new ones until healed. */
  public FaultProxy reset() {
    mode = Mode.RESET;
    closeAll(true);
    LOG.info("fault proxy {}: reset", name);
    return this;
  }

  /**
   * Sends new connections to {@code newUpstream} ({@code host:port}, loopback) and resets the open
   * ones, so that every client reconnects to the new upstream.
   */
  public FaultProxy swapUpstream(String newUpstream) {
    upstream = requireLoopback(parse(newUpstream));
    closeAll(true);
    LOG.info("fault proxy {}: upstream is now {}", name, newUpstream);
    return this;
  }

  /** Resets the open connections once, without changing the mode. */
  public FaultProxy resetOpenConnections() {
    closeAll(true);
    return this;
  }

  public Mode mode() {
    return mode;
  }

  @Override
  public void close() {
    closed = true;
    try {
      server.close();
    } catch (IOException ignored) {
      // Closing the listening socket of a test proxy cannot lose data.
    }
    closeAll(false);
    try {
      acceptor.join(5_000);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  private void closeAll(boolean rst) {
    for (Connection c : connections) {
      c.close(rst);
    }
  }

  private void acceptLoop() {
    while (!closed) {
      Socket client;
      try {
        client = server.accept();
      } catch (IOException e) {
        if (!closed) {
          LOG.warn("fault proxy {}: accept failed: {}", name, e.toString());
        }
        return;
      }
      accepted.incrementAndGet();
      Mode now = mode;
      if (now != Mode.FORWARD) {
        closeQuietly(client, now == Mode.RESET);
        continue;
      }
      Socket up = new Socket();
      try {
        up.connect(upstream, 10_000);
      } catch (IOException e) {
        // The upstream is down: the client sees its connection reset, as it would without us.
        closeQuietly(up, false);
        closeQuietly(client, true);
        continue;
      }
      Connection c = new Connection(client, up);
      connections.add(c);
      if (closed) {
        c.close(false);
        return;
      }
      c.start();
    }
  }

  private boolean blackHoled(Direction direction) {
    return direction == Direction.TO_UPSTREAM ? blackHoleToUpstream : blackHoleToClient;
  }

  private static void closeQuietly(Socket socket, boolean rst) {
    try {
      if (rst) {
        socket.setSoLinger(true, 0);
      }
      socket.close();
    } catch (IOException ignored) {
      // Best effort: the point is that the peer sees the connection end.
    }
  }

  private static InetSocketAddress parse(String hostPort) {
    int colon = hostPort.lastIndexOf(':');
    if (colon < 0) {
      throw new IllegalArgumentException("expected host:port, got " + hostPort);
    }
    return new InetSocketAddress(
        hostPort.substring(0, colon), Integer.parseInt(hostPort.substring(colon + 1)));
  }

  private static InetSocketAddress requireLoopback(InetSocketAddress address) {
    if (address.getAddress() == null || !address.getAddress().isLoopbackAddress()) {
      throw new IllegalArgumentException(
          "a fault proxy only forwards to loopback addresses, not " + address);
    }
    return address;
  }

  /** One proxied connection: the client's socket, the upstream socket and their two pumps. */
  private final class Connection {
    private final Socket client;
    private final Socket up;

    Connection(Socket client, Socket up) {
      this.client = client;
      this.up = up;
    }

    void start() {
      Thread toUp = new Thread(() -> pump(client, up, Direction.TO_UPSTREAM), threadName("up"));
      Thread toClient = new Thread(() -> pump(up, client, Direction.TO_CLIENT), threadName("down"));
      toUp.setDaemon(true);
      toClient.setDaemon(true);
      toUp.start();
      toClient.start();
    }

    private String threadName(String direction) {
      return "fault-proxy-" + name + "-" + client.getPort() + "-" + direction;
    }

    private void pump(Socket from, Socket to, Direction direction) {
      byte[] buffer = new byte[BUFFER_BYTES];
      try (InputStream in = from.getInputStream();
          OutputStream out = to.getOutputStream()) {
        int n;
        while ((n = in.read(buffer)) >= 0) {
          long delay = delayMillis;
          if (delay > 0) {
            Thread.sleep(delay);
          }
          // A black hole holds the bytes, as a network partition does to TCP segments: nothing
          // arrives until it heals (or the peer gives up and closes), and nothing is lost.
          while (blackHoled(direction) && !closed && !from.isClosed()) {
            Thread.sleep(20);
          }
          out.write(buffer, 0, n);
          out.flush();
        }
      } catch (SocketException e) {
        // Closed by the peer, by a fault or by close(): the other pump ends the same way.
      } catch (IOException e) {
        LOG.debug("fault proxy {}: {} pump ended: {}", name, direction, e.toString());
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      } finally {
        close(false);
      }
    }

    void close(boolean rst) {
      connections.remove(this);
      closeQuietly(client, rst);
      closeQuietly(up, rst);
    }
  }
}
