package dev.kafkamirror.broker.agent.control;

import dev.kafkamirror.broker.agent.control.ControlServer.Answer;
import dev.kafkamirror.broker.agent.control.ControlServer.Handler;
import dev.kafkamirror.broker.agent.control.ControlServer.Limits;
import dev.kafkamirror.contract.ControlCall;
import dev.kafkamirror.contract.ControlHeaders;
import dev.kafkamirror.contract.ControlLimits;
import dev.kafkamirror.contract.RequestError;
import java.io.IOException;
import java.io.OutputStream;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.util.function.BooleanSupplier;
import java.util.function.Predicate;
import javax.net.ssl.SSLSocket;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One connection to the control endpoint: reads its requests one after the other, checks each in
 * the order that keeps a caller from holding anything but this connection (time limits,
 * authentication before the body, method, call, body length) and hands the calls that pass to the
 * {@link ControlDispatcher}. Part of {@link ControlServer}.
 *
 * <p>Invariants: a request is refused with a typed error ({@link RequestError.Code}) before any of
 * its body is read unless it is authenticated, names a known call and declares a length within
 * {@link ControlLimits#MAX_BODY_BYTES}; a refused request closes the connection; the head and body
 * of a request must arrive within {@link Limits#requestReadTimeoutMs()} of its first byte; the
 * connection is {@link #idle} exactly while it waits for the first byte of its next request.
 *
 * <p>Threading: {@link #serve} runs on one connection thread; {@link #idle} is read by the acceptor
 * (eviction at the connection limit).
 */
final class ControlConnection {

  private static final Logger LOG = LoggerFactory.getLogger(ControlServer.class);

  /** How much of an unread body is drained before closing, so that the answer is not reset. */
  private static final int LINGER_BYTES = 64 * 1024;

  private static final long LINGER_MS = 200L;

  final Socket socket;

  /** Between two requests of a keep-alive connection, before the first byte of the next one. */
  volatile boolean idle;

  private final Predicate<String> authenticator;
  private final Handler handler;
  private final Limits limits;
  private final ControlDispatcher dispatcher;
  private final BooleanSupplier serverClosed;

  ControlConnection(
      Socket socket,
      Predicate<String> authenticator,
      Handler handler,
      Limits limits,
      ControlDispatcher dispatcher,
      BooleanSupplier serverClosed) {
    this.socket = socket;
    this.authenticator = authenticator;
    this.handler = handler;
    this.limits = limits;
    this.dispatcher = dispatcher;
    this.serverClosed = serverClosed;
  }

  /** Serves requests until the client or the server ends the connection; never throws. */
  void serve() {
    try {
      socket.setTcpNoDelay(true);
      DeadlineInput in = new DeadlineInput(socket);
      OutputStream out = socket.getOutputStream();
      if (socket instanceof SSLSocket ssl) {
        // Each handshake read waits at most the read time; the handshake holds only this thread.
        socket.setSoTimeout((int) Math.min(Integer.MAX_VALUE, limits.requestReadTimeoutMs()));
        ssl.startHandshake();
      }
      while (!serverClosed.getAsBoolean()) {
        if (!serveOne(in, out)) {
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
    }
  }

  /** Serves one request; false when the connection is to be closed. */
  private boolean serveOne(DeadlineInput in, OutputStream out) throws IOException {
    // Wait for the next request at most the idle time, then give it the read time from its first
    // byte.
    in.startRequest(limits.idleTimeoutMs());
    idle = true;
    int first;
    try {
      first = in.read();
    } finally {
      idle = false;
    }
    if (first < 0) {
      return false;
    }
    in.startRequest(limits.requestReadTimeoutMs());
    HttpRequestHead head;
    try {
      head = HttpRequestHead.read(first, in);
    } catch (SocketTimeoutException e) {
      refuse(out, RequestError.Code.REQUEST_TIMEOUT, "the request head did not arrive in time");
      return false;
    } catch (HttpRequestHead.Malformed e) {
      refuse(out, RequestError.Code.INVALID_REQUEST, e.getMessage());
      return false;
    }
    String auth = head.header(ControlHeaders.AUTHORIZATION);
    if (auth == null
        || !auth.startsWith(ControlHeaders.BEARER_PREFIX)
        || !authenticator.test(auth.substring(ControlHeaders.BEARER_PREFIX.length()).trim())) {
      refuseAndLinger(
          out,
          in,
          RequestError.Code.UNAUTHENTICATED,
          "missing or wrong " + ControlHeaders.AUTHORIZATION + ": Bearer secret");
      return false;
    }
    if (!ControlCall.METHOD.equals(head.method())) {
      refuseAndLinger(
          out,
          in,
          RequestError.Code.METHOD_NOT_ALLOWED,
          "use " + ControlCall.METHOD + "; got " + head.method());
      return false;
    }
    ControlCall call = ControlCall.forPath(head.path()).orElse(null);
    if (call == null) {
      refuseAndLinger(out, in, RequestError.Code.UNKNOWN_CALL, "unknown call " + head.path());
      return false;
    }
    if (head.header("transfer-encoding") != null) {
      refuseAndLinger(
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
    Answer answer = dispatcher.dispatch(call, body);
    boolean keepAlive = head.keepAlive();
    write(out, answer.status(), answer.body(), keepAlive);
    return keepAlive;
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
      OutputStream out, DeadlineInput in, RequestError.Code code, String message) {
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
}
