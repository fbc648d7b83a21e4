package dev.kafkamirror.broker.agent.control;

import dev.kafkamirror.contract.ControlCall;
import dev.kafkamirror.contract.ControlHeaders;
import dev.kafkamirror.contract.ControlLimits;
import dev.kafkamirror.contract.RequestError;
import java.io.BufferedInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketException;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Future;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.SynchronousQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Predicate;
import javax.net.ServerSocketFactory;
import javax.net.ssl.SSLSocket;
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
 * <p>Threading: one acceptor thread, one thread per open connection, the worker pool; {@link
 * Handler} must be thread-safe. {@link #close()} stops all of them.
 */
final class ControlServer implements AutoCloseable {

  private static final Logger LOG = LoggerFactory.getLogger(ControlServer.class);

  /** The largest request line plus headers. */
  static final int MAX_HEAD_BYTES = 16 * 1024;

  /** How much of an unread body is drained before closing, so that the answer is not reset. */
  private static final int LINGER_BYTES = 64 * 1024;

  private static final long LINGER_MS = 200L;

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

    static final Limits DEFAULT = new Limits(4, 16, 64, 10_000L, 30_000L);

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

  private final ServerSocket serverSocket;
  private final Predicate<String> authenticator;
  private final Handler handler;
  private final Limits limits;
  private final ThreadPoolExecutor workers;
  private final ExecutorService connections;
  private final AtomicInteger open = new AtomicInteger();

  /**
   * Every open connection and whether it is idle: between two requests of a keep-alive connection,
   * before the first byte of the next one. At the connection limit an idle one is closed to admit a
   * new caller, so that clients that keep their connections (every HTTP client pool does) never
   * lock out the operator. A connection whose next request has begun is not idle.
   */
  private final java.util.Set<Connection> live = java.util.concurrent.ConcurrentHashMap.newKeySet();

  private static final class Connection {
    final Socket socket;
    volatile boolean idle;

    Connection(Socket socket) {
      this.socket = socket;
    }
  }

  private final Thread acceptor;
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
    this.serverSocket = sockets.createServerSocket();
    serverSocket.setReuseAddress(true);
    serverSocket.bind(address, 64);
    this.authenticator = authenticator;
    this.handler = handler;
    this.limits = limits;
    this.workers =
        new ThreadPoolExecutor(
            limits.workerThreads(),
            limits.workerThreads(),
            60L,
            TimeUnit.SECONDS,
            new ArrayBlockingQueue<>(limits.queueCapacity()),
            daemon("cluster-mirror-control-worker"),
            new ThreadPoolExecutor.AbortPolicy());
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

  private static java.util.concurrent.ThreadFactory daemon(String name) {
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
    for (Connection c : live) {
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

  private void serve(Socket socket) {
    Connection connection = new Connection(socket);
    live.add(connection);
    try {
      socket.setTcpNoDelay(true);
      DeadlineInput in = new DeadlineInput(socket);
      OutputStream out = socket.getOutputStream();
      if (socket instanceof SSLSocket ssl) {
        // Each handshake read waits at most the read time; the handshake holds only this thread.
        socket.setSoTimeout((int) Math.min(Integer.MAX_VALUE, limits.requestReadTimeoutMs()));
        ssl.startHandshake();
      }
      while (!closed) {
        if (!serveOne(connection, in, out)) {
          break;
        }
      }
    } catch (SocketTimeoutException e) {
      LOG.debug("control endpoint: {} too slow: {}", socket.getRemoteSocketAddress(), e.toString());
    } catch (IOException e) {
      LOG.debug(
          "control endpoint: connection from {} ended: {}", socket.getRemoteSocketAddress(), e);
    } catch (RuntimeException e) {
      LOG.error("control endpoint: connection from {} failed", socket.getRemoteSocketAddress(), e);
    } finally {
      closeQuietly(socket);
      if (live.remove(connection)) {
        // Not evicted: an eviction already gave this connection's slot back.
        open.decrementAndGet();
      }
    }
  }

  /** Serves one request; false when the connection is to be closed. */
  private boolean serveOne(Connection connection, DeadlineInput in, OutputStream out)
      throws IOException {
    Socket socket = connection.socket;
    // Wait for the next request at most the idle time, then give it the read time from its first
    // byte.
    in.startRequest(limits.idleTimeoutMs());
    connection.idle = true;
    int first;
    try {
      first = in.read();
    } finally {
      connection.idle = false;
    }
    if (first < 0) {
      return false;
    }
    in.startRequest(limits.requestReadTimeoutMs());
    Head head;
    try {
      head = Head.read(first, in);
    } catch (SocketTimeoutException e) {
      refuse(out, RequestError.Code.REQUEST_TIMEOUT, "the request head did not arrive in time");
      return false;
    } catch (BadRequest e) {
      refuse(out, RequestError.Code.INVALID_REQUEST, e.getMessage());
      return false;
    }
    String auth = head.header(ControlHeaders.AUTHORIZATION);
    if (auth == null
        || !auth.startsWith(ControlHeaders.BEARER_PREFIX)
        || !authenticator.test(auth.substring(ControlHeaders.BEARER_PREFIX.length()).trim())) {
      refuseAndLinger(
          socket,
          out,
          in,
          RequestError.Code.UNAUTHENTICATED,
          "missing or wrong " + ControlHeaders.AUTHORIZATION + ": Bearer secret");
      return false;
    }
    if (!ControlCall.METHOD.equals(head.method)) {
      refuseAndLinger(
          socket,
          out,
          in,
          RequestError.Code.METHOD_NOT_ALLOWED,
          "use " + ControlCall.METHOD + "; got " + head.method);
      return false;
    }
    ControlCall call = ControlCall.forPath(head.path()).orElse(null);
    if (call == null) {
      refuseAndLinger(
          socket, out, in, RequestError.Code.UNKNOWN_CALL, "unknown call " + head.path());
      return false;
    }
    if (head.header("transfer-encoding") != null) {
      refuseAndLinger(
          socket,
          out,
          in,
          RequestError.Code.INVALID_REQUEST,
          "chunked bodies are not accepted; send Content-Length");
      return false;
    }
    long length;
    try {
      String declared = head.header("content-length");
      length = declared == null ? 0L : Long.parseLong(declared.trim());
    } catch (NumberFormatException e) {
      refuse(out, RequestError.Code.INVALID_REQUEST, "Content-Length is not a number");
      return false;
    }
    if (length < 0 || length > ControlLimits.MAX_BODY_BYTES) {
      refuseAndLinger(
          socket,
          out,
          in,
          RequestError.Code.BODY_TOO_LARGE,
          "the body has "
              + length
              + " bytes; at most "
              + ControlLimits.MAX_BODY_BYTES
              + " are accepted");
      return false;
    }
    if ("100-continue".equalsIgnoreCase(head.header("expect"))) {
      out.write("HTTP/1.1 100 Continue\r\n\r\n".getBytes(StandardCharsets.US_ASCII));
      out.flush();
    }
    byte[] body;
    try {
      body = in.readNBytes((int) length);
    } catch (SocketTimeoutException e) {
      refuse(out, RequestError.Code.REQUEST_TIMEOUT, "the request body did not arrive in time");
      return false;
    }
    if (body.length < length) {
      return false; // the client went away mid-body
    }
    Answer answer = run(call, body);
    boolean keepAlive = head.keepAlive();
    write(out, answer.status(), answer.body(), keepAlive);
    return keepAlive;
  }

  private Answer run(ControlCall call, byte[] body) {
    Future<Answer> future;
    try {
      future = workers.submit(() -> handler.handle(call, body));
    } catch (RejectedExecutionException e) {
      return new Answer(
          RequestError.Code.OVERLOADED.httpStatus(),
          handler.error(
              RequestError.Code.OVERLOADED,
              "the control endpoint is busy ("
                  + limits.workerThreads()
                  + " calls running, "
                  + limits.queueCapacity()
                  + " waiting); nothing was done, repeat the call"));
    }
    try {
      // The call bounds its own work by its timeoutMs; this only guards against a stuck worker.
      return future.get(ControlLimits.MAX_TIMEOUT_MS + 60_000L, TimeUnit.MILLISECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return internal(call, e);
    } catch (ExecutionException e) {
      return internal(call, e.getCause());
    } catch (TimeoutException e) {
      return internal(call, e);
    }
  }

  private Answer internal(ControlCall call, Throwable e) {
    LOG.error("control call {} failed", call.path(), e);
    return new Answer(
        RequestError.Code.INTERNAL.httpStatus(),
        handler.error(RequestError.Code.INTERNAL, call.path() + " failed: " + e));
  }

  private void refuse(OutputStream out, RequestError.Code code, String message) {
    try {
      write(out, code.httpStatus(), handler.error(code, message), false);
    } catch (IOException e) {
      // the client is gone; nothing to tell it
    }
  }

  /**
   * Answers a request whose body is not read, then closes gracefully: output shut, at most {@value
   * #LINGER_BYTES} bytes or {@value #LINGER_MS} ms of the body drained, so that a well-behaved
   * client reads the answer instead of a reset, and a flooding one is cut off at once.
   */
  private void refuseAndLinger(
      Socket socket, OutputStream out, DeadlineInput in, RequestError.Code code, String message) {
    refuse(out, code, message);
    try {
      if (!(socket instanceof SSLSocket)) {
        socket.shutdownOutput(); // TLS cannot half-close; its answer is flushed all the same
      }
      in.startRequest(LINGER_MS);
      long drained = 0;
      byte[] buffer = new byte[8192];
      while (drained < LINGER_BYTES) {
        int n = in.read(buffer, 0, buffer.length);
        if (n < 0) {
          break;
        }
        drained += n;
      }
    } catch (IOException e) {
      // timed out or reset: close now
    }
  }

  private static void write(OutputStream out, int status, byte[] body, boolean keepAlive)
      throws IOException {
    String head =
        "HTTP/1.1 "
            + status
            + " "
            + reason(status)
            + "\r\n"
            + ControlHeaders.CONTENT_TYPE
            + ": "
            + ControlHeaders.JSON
            + "\r\nContent-Length: "
            + body.length
            + "\r\nConnection: "
            + (keepAlive ? "keep-alive" : "close")
            + "\r\n\r\n";
    out.write(head.getBytes(StandardCharsets.US_ASCII));
    out.write(body);
    out.flush();
  }

  private static String reason(int status) {
    return switch (status) {
      case 200 -> "OK";
      case 400 -> "Bad Request";
      case 401 -> "Unauthorized";
      case 403 -> "Forbidden";
      case 404 -> "Not Found";
      case 405 -> "Method Not Allowed";
      case 408 -> "Request Timeout";
      case 413 -> "Content Too Large";
      case 503 -> "Service Unavailable";
      default -> "Internal Server Error";
    };
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
    workers.shutdownNow();
  }

  /** A malformed request head. */
  private static final class BadRequest extends Exception {
    private static final long serialVersionUID = 1L;

    BadRequest(String message) {
      super(message);
    }
  }

  /** The request line and headers. */
  private record Head(String method, String target, String version, Map<String, String> headers) {

    String path() {
      int q = target.indexOf('?');
      return q < 0 ? target : target.substring(0, q);
    }

    String header(String name) {
      return headers.get(name.toLowerCase(Locale.ROOT));
    }

    boolean keepAlive() {
      String connection = header("connection");
      if (connection != null && connection.toLowerCase(Locale.ROOT).contains("close")) {
        return false;
      }
      return "HTTP/1.1".equals(version);
    }

    static Head read(int first, InputStream in) throws IOException, BadRequest {
      ByteArrayOutputStream bytes = new ByteArrayOutputStream(512);
      bytes.write(first);
      int previous = first;
      int c;
      // Until the empty line that ends the head.
      int lineLength = first == '\n' ? 0 : 1;
      boolean done = false;
      while (!done) {
        c = in.read();
        if (c < 0) {
          throw new BadRequest("the request head ended early");
        }
        bytes.write(c);
        if (bytes.size() > MAX_HEAD_BYTES) {
          throw new BadRequest("the request head exceeds " + MAX_HEAD_BYTES + " bytes");
        }
        if (c == '\n') {
          if (lineLength == 0 || (lineLength == 1 && previous == '\r')) {
            done = true;
          }
          lineLength = 0;
        } else {
          lineLength++;
        }
        previous = c;
      }
      String[] lines = bytes.toString(StandardCharsets.ISO_8859_1).split("\r?\n");
      String[] requestLine = lines[0].split(" ");
      if (requestLine.length != 3 || !requestLine[2].startsWith("HTTP/1.")) {
        throw new BadRequest("not an HTTP/1.1 request line");
      }
      Map<String, String> headers = new HashMap<>();
      for (int i = 1; i < lines.length; i++) {
        if (lines[i].isEmpty()) {
          break;
        }
        int colon = lines[i].indexOf(':');
        if (colon <= 0) {
          throw new BadRequest("malformed header line " + (i + 1));
        }
        String name = lines[i].substring(0, colon).trim().toLowerCase(Locale.ROOT);
        String value = lines[i].substring(colon + 1).trim();
        if (headers.putIfAbsent(name, value) != null && name.equals("content-length")) {
          throw new BadRequest("Content-Length given twice");
        }
      }
      return new Head(requestLine[0], requestLine[1], requestLine[2], headers);
    }
  }

  /**
   * The socket's input with a deadline: every read waits at most until the deadline, so a client
   * that sends one byte at a time gains nothing.
   */
  private static final class DeadlineInput extends InputStream {
    private final Socket socket;
    private final InputStream in;
    private long deadlineNanos;

    DeadlineInput(Socket socket) throws IOException {
      this.socket = socket;
      this.in = new BufferedInputStream(socket.getInputStream(), 8192);
    }

    void startRequest(long timeoutMs) {
      deadlineNanos = System.nanoTime() + timeoutMs * 1_000_000L;
    }

    private void arm() throws IOException {
      long remainingMs = (deadlineNanos - System.nanoTime()) / 1_000_000L;
      if (remainingMs <= 0) {
        throw new SocketTimeoutException("deadline passed");
      }
      try {
        socket.setSoTimeout((int) Math.min(Integer.MAX_VALUE, remainingMs));
      } catch (SocketException e) {
        throw new SocketTimeoutException("socket closed: " + e.getMessage());
      }
    }

    @Override
    public int read() throws IOException {
      arm();
      return in.read();
    }

    @Override
    public int read(byte[] b, int off, int len) throws IOException {
      arm();
      return in.read(b, off, len);
    }
  }
}
