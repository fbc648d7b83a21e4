package dev.kafkamirror.broker.agent.control;

import java.io.BufferedInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.Socket;
import java.net.SocketException;
import java.net.SocketTimeoutException;

/**
 * A socket's input with a deadline: every read waits at most until the deadline set by {@link
 * #startRequest}, so a client that sends one byte at a time gains nothing. Used by one connection
 * thread only.
 */
final class DeadlineInput extends InputStream {

  private final Socket socket;
  private final InputStream in;
  private long deadlineNanos;

  DeadlineInput(Socket socket) throws IOException {
    this.socket = socket;
    this.in = new BufferedInputStream(socket.getInputStream(), 8192);
  }

  /** Sets the deadline to {@code timeoutMs} from now. */
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
