package dev.kafkamirror.broker.agent.control;

import dev.kafkamirror.contract.ControlCall;
import dev.kafkamirror.contract.ControlLimits;
import dev.kafkamirror.contract.RequestError;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.SynchronousQueue;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Predicate;
import javax.net.ServerSocketFactory;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The HTTP/1.1 server under the control endpoint, written so that its own callers cannot stop it
 * from serving the operator:
 *
 * <ul>
 *   <li><b>Authentication before the body.</b> The request line and headers are read (at most
 *       {@value #MAX_HEAD_BYTES} bytes); a call without the right bearer secret is answered 401 and
 *       the connection closed without reading its body.
 *   <li><b>Time limits per request.</b> The head and the body of a request must arrive within
 *       {@link Limits#requestReadTimeoutMs()} from its first byte, however slowly they trickle; an
 *       idle keep-alive connection is closed after {@link Limits#idleTimeoutMs()}.
 *   <li><b>Body limit while reading.</b> A declared length above {@link
 *       ControlLimits#MAX_BODY_BYTES} is answered 413 before a byte of the body is read; chunked
 *       bodies are refused (every client sends Content-Length).
 *   <li><b>Bounded work.</b> Reading and writing happen on one thread per connection (at most
 *       {@link Limits#maxConnections()}; more are closed at once), the calls themselves on {@link
 *       Limits#workerThreads()} workers behind a queue of {@link Limits#queueCapacity()}; a call
 *       that finds the queue full is answered 503 {@code OVERLOADED} and changes nothing.
 * </ul>
 *
 * <p>So slow or unauthenticated connections hold only their own connection thread, never a worker:
 * an authenticated call is served while they trickle.
 *
 * <p>Structure: this class admits connections (the acceptor, the connection limit, eviction of idle
 * ones); {@link ControlConnection} serves one connection's requests (limits, authentication,
 * parsing with {@link HttpRequestHead} over a {@link DeadlineInput}); {@link ControlDispatcher}
 * runs the calls on the workers.
 *
 * <p>Threading: one acceptor thread, one thread per open connection, the worker pool; {@link
 * Handler} must be thread-safe. {@link #close()} stops all of them.
 */
final class ControlServer implements AutoCloseable {

  private static final Logger LOG = LoggerFactory.getLogger(ControlServer.class);

  /** The largest request line plus headers. */
  static final int MAX_HEAD_BYTES = HttpRequestHead.MAX_HEAD_BYTES;

  /**
   * The server's bounds.
   *
   * @param workerThreads threads that run calls
   * @param queueCapacity calls waiting for a worker before 503
   * @param maxConnections open connections; more are closed at once
   * @param requestReadTimeoutMs time for one request's head and body to arrive
   * @param idleTimeoutMs time a keep-alive connection may wait for its next request
   */
  record Limits(
      int workerThreads,
      int queueCapacity,
      int maxConnections,
      long requestReadTimeoutMs,
      long idleTimeoutMs) {

    static final Limits DEFAULT =
        new Limits(
            ControlLimits.ENDPOINT_WORKERS, ControlLimits.ENDPOINT_QUEUE, 64, 10_000L, 30_000L);

    Limits {
      if (workerThreads < 1
          || queueCapacity < 1
          || maxConnections < 1
          || requestReadTimeoutMs < 1
          || idleTimeoutMs < 1) {
        throw new IllegalArgumentException("control server limits must be positive: " + this);
      }
    }
  }

  /** A call the server has authenticated and read in full. */
  interface Handler {
    /** The status and JSON body of the answer. Runs on a worker. */
    Answer handle(ControlCall call, byte[] body);

    /** The JSON body of a refusal. */
    byte[] error(RequestError.Code code, String message);
  }

  /** An answer: HTTP status and JSON body. */
  record Answer(int status, byte[] body) {}

  /** Makes the object that serves one accepted connection (a seam for tests). */
  @FunctionalInterface
  interface ConnectionFactory {
    ControlConnection open(Socket socket);
  }

  private final ServerSocket serverSocket;
  private final Predicate<String> authenticator;
  private final Handler handler;
  private final Limits limits;
  private final ControlDispatcher dispatcher;
  private final ExecutorService connections;
  private final AtomicInteger open = new AtomicInteger();

  /**
   * Every open connection, each knowing whether it is idle: between two requests of a keep-alive
   * connection, before the first byte of the next one. At the connection limit an idle one is
   * closed to admit a new caller, so that clients that keep their connections (every HTTP client
   * pool does) never lock out the operator. A connection whose next request has begun is not idle.
   */
  private final Set<ControlConnection> live = ConcurrentHashMap.newKeySet();

  private final Thread acceptor;
  private final ConnectionFactory connectionFactory;
  private volatile boolean closed;

  /**
   * @param authenticator whether a presented bearer secret is accepted (constant time)
   */
  ControlServer(
      InetSocketAddress address,
      ServerSocketFactory sockets,
      Predicate<String> authenticator,
      Handler handler,
      Limits limits)
      throws IOException {
    this(address, sockets, authenticator, handler, limits, real -> real);
  }

  /**
   * @param decorate wraps the factory of the real connections (tests make it fail)
   */
  ControlServer(
      InetSocketAddress address,
      ServerSocketFactory sockets,
      Predicate<String> authenticator,
      Handler handler,
      Limits limits,
      java.util.function.UnaryOperator<ConnectionFactory> decorate)
      throws IOException {
    this.serverSocket = sockets.createServerSocket();
    serverSocket.setReuseAddress(true);
    serverSocket.bind(address, 64);
    this.authenticator = authenticator;
    this.handler = handler;
    this.limits = limits;
    this.dispatcher = new ControlDispatcher(handler, limits);
    this.connectionFactory =
        decorate.apply(
            socket ->
                new ControlConnection(
                    socket, authenticator, handler, limits, dispatcher, () -> closed));
    this.connections =
        new ThreadPoolExecutor(
            0,
            // Headroom over the limit that `open` enforces: an evicted idle connection's thread may
            // still be finishing when the connection that replaced it starts.
            2 * limits.maxConnections(),
            30L,
            TimeUnit.SECONDS,
            new SynchronousQueue<>(),
            daemon("cluster-mirror-control-connection"));
    this.acceptor = new Thread(this::acceptLoop, "cluster-mirror-control-acceptor");
    acceptor.setDaemon(true);
    acceptor.start();
  }

  InetSocketAddress address() {
    return (InetSocketAddress) serverSocket.getLocalSocketAddress();
  }

  static ThreadFactory daemon(String name) {
    AtomicInteger n = new AtomicInteger();
    return r -> {
      Thread t = new Thread(r, name + "-" + n.incrementAndGet());
      t.setDaemon(true);
      return t;
    };
  }

  private void acceptLoop() {
    while (!closed) {
      Socket socket;
      try {
        socket = serverSocket.accept();
      } catch (IOException e) {
        if (!closed) {
          LOG.warn("control endpoint: accept failed: {}", e.toString());
        }
        continue;
      }
      if (open.incrementAndGet() > limits.maxConnections() && !evictIdle()) {
        open.decrementAndGet();
        LOG.warn(
            "control endpoint: {} connections are open, the limit; closing the one from {}",
            limits.maxConnections(),
            socket.getRemoteSocketAddress());
        closeQuietly(socket);
        continue;
      }
      try {
        connections.execute(() -> serve(socket));
      } catch (RejectedExecutionException e) {
        open.decrementAndGet();
        closeQuietly(socket);
      }
    }
  }

  /**
   * Closes one idle keep-alive connection to make room for a new one; false when none is idle. The
   * closed connection's thread gives its slot back when it ends, which the caller has already
   * counted for the new connection.
   */
  private boolean evictIdle() {
    for (ControlConnection c : live) {
      if (c.idle && live.remove(c)) {
        c.idle = false;
        LOG.debug(
            "control endpoint: at the limit of {} connections; closing the idle one from {}",
            limits.maxConnections(),
            c.socket.getRemoteSocketAddress());
        open.decrementAndGet();
        closeQuietly(c.socket);
        return true;
      }
    }
    return false;
  }

  /**
   * Serves one accepted connection on its own thread. Whatever ends it, also an {@link Error}
   * before the connection is registered (a class that cannot be loaded, for example after the
   * agent's jar was replaced under a running broker), its slot is given back exactly once: a leaked
   * slot would lock every caller out once {@link Limits#maxConnections()} had leaked.
   */
  private void serve(Socket socket) {
    ControlConnection connection = null;
    try {
      connection = connectionFactory.open(socket);
      live.add(connection);
      connection.serve();
    } finally {
      // The slot first, then the socket: a caller that sees this connection end and connects
      // again at once must find the slot free (closing first let the acceptor refuse it at the
      // limit, ControlServerTest's failing-connections case, seen once under load).
      if (connection == null || live.remove(connection)) {
        // Not evicted: an eviction already gave this connection's slot back.
        open.decrementAndGet();
      }
      closeQuietly(socket);
    }
  }

  private static void closeQuietly(Socket socket) {
    try {
      socket.close();
    } catch (IOException e) {
      // closing anyway
    }
  }

  @Override
  public void close() {
    closed = true;
    try {
      serverSocket.close();
    } catch (IOException e) {
      // closing anyway
    }
    acceptor.interrupt();
    connections.shutdownNow();
    dispatcher.close();
  }
}
