package dev.kafkamirror.broker.agent.control;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.Locale;
import java.util.Map;

/**
 * The request line and headers of one HTTP/1.1 request to the control endpoint, read with a size
 * limit ({@value #MAX_HEAD_BYTES} bytes). Header names are kept lower-case; a second value of a
 * header is ignored, except a second Content-Length, which is malformed (request smuggling).
 * Immutable.
 */
record HttpRequestHead(String method, String target, String version, Map<String, String> headers) {

  /** The largest request line plus headers. */
  static final int MAX_HEAD_BYTES = 16 * 1024;

  /** A malformed request head. */
  static final class Malformed extends Exception {
    private static final long serialVersionUID = 1L;

    Malformed(String message) {
      super(message);
    }
  }

  /** The target without its query. */
  String path() {
    int q = target.indexOf('?');
    return q < 0 ? target : target.substring(0, q);
  }

  /** The value of header {@code name} (any case), or null. */
  String header(String name) {
    return headers.get(name.toLowerCase(Locale.ROOT));
  }

  /** Whether the connection stays open after the answer. */
  boolean keepAlive() {
    String connection = header("connection");
    if (connection != null && connection.toLowerCase(Locale.ROOT).contains("close")) {
      return false;
    }
    return "HTTP/1.1".equals(version);
  }

  /**
   * Reads the head up to the empty line that ends it; {@code first} is its first byte, already
   * read.
   *
   * @throws Malformed when it is not an HTTP/1.x head, ends early or exceeds {@value
   *     #MAX_HEAD_BYTES} bytes
   */
  static HttpRequestHead read(int first, InputStream in) throws IOException, Malformed {
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
        throw new Malformed("the request head ended early");
      }
      bytes.write(c);
      if (bytes.size() > MAX_HEAD_BYTES) {
        throw new Malformed("the request head exceeds " + MAX_HEAD_BYTES + " bytes");
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
      throw new Malformed("not an HTTP/1.1 request line");
    }
    Map<String, String> headers = new HashMap<>();
    for (int i = 1; i < lines.length; i++) {
      if (lines[i].isEmpty()) {
        break;
      }
      int colon = lines[i].indexOf(':');
      if (colon <= 0) {
        throw new Malformed("malformed header line " + (i + 1));
      }
      String name = lines[i].substring(0, colon).trim().toLowerCase(Locale.ROOT);
      String value = lines[i].substring(colon + 1).trim();
      if (headers.putIfAbsent(name, value) != null && name.equals("content-length")) {
        throw new Malformed("Content-Length given twice");
      }
    }
    return new HttpRequestHead(requestLine[0], requestLine[1], requestLine[2], headers);
  }
}
