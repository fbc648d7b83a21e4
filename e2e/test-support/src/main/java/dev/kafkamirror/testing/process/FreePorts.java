package dev.kafkamirror.testing.process;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Picks free TCP ports on the loopback interface, without handing the same port to two test JVMs
 * that pick at the same time.
 *
 * <p>A picked port is only free when it is picked: the caller binds it later (a broker JVM seconds
 * later). Within one JVM the sockets of one call are held open until all are chosen, so they are
 * distinct. Across JVMs (Failsafe forks running IT classes side by side, or two builds on one
 * machine) every pick goes through one ledger file, {@code ports.ledger} in the run directory
 * ({@code cmo.cache.dir}/run, default {@code ~/.cache/cluster-mirror-operator/run}), under an
 * exclusive file lock: a port handed out in the last {@value #HOLD_MILLIS} ms is never handed out
 * again, whichever JVM asks. That bounds the pick-then-bind window it protects; a caller that binds
 * later than that is on its own.
 *
 * <p>Thread-safe (the file lock serialises JVMs; a JVM-wide monitor serialises its threads, which a
 * file lock held by the same JVM would not).
 */
public final class FreePorts {

  /** How long a handed-out port stays reserved for its picker. */
  static final long HOLD_MILLIS = 120_000;

  private static final Object LOCAL = new Object();

  private FreePorts() {}

  /**
   * Returns {@code count} distinct ports that were free on 127.0.0.1 when this method ran and that
   * no test JVM on this machine was handed in the last {@value #HOLD_MILLIS} ms.
   */
  public static List<Integer> pick(int count) {
    return pick(count, ledgerFile(), System.currentTimeMillis(), LOOPBACK);
  }

  /** Opens a listening socket on a port of the kernel's choice. */
  interface Offer {
    ServerSocket open() throws IOException;
  }

  private static final Offer LOOPBACK =
      () -> new ServerSocket(0, 1, InetAddress.getLoopbackAddress());

  static List<Integer> pick(int count, Path ledger, long nowMillis, Offer offer) {
    synchronized (LOCAL) {
      try {
        Files.createDirectories(ledger.getParent());
        try (FileChannel channel =
                FileChannel.open(
                    ledger,
                    StandardOpenOption.CREATE,
                    StandardOpenOption.READ,
                    StandardOpenOption.WRITE);
            FileLock lock = channel.lock()) {
          Map<Integer, Long> recent = read(channel, nowMillis);
          List<Integer> chosen = bindable(count, recent, offer);
          for (int port : chosen) {
            recent.put(port, nowMillis);
          }
          write(channel, recent);
          return chosen;
        }
      } catch (IOException e) {
        throw new UncheckedIOException(
            "cannot pick " + count + " free loopback ports (ledger " + ledger + ")", e);
      }
    }
  }

  /** Ports the kernel offers, skipping reserved ones, all held open until every one is chosen. */
  private static List<Integer> bindable(int count, Map<Integer, Long> reserved, Offer offer)
      throws IOException {
    List<ServerSocket> sockets = new ArrayList<>();
    List<Integer> out = new ArrayList<>();
    try {
      // Each skipped socket stays open too, so the kernel offers another port next time.
      for (int attempts = 0; out.size() < count; attempts++) {
        if (attempts > count + 1_000) {
          throw new IOException(
              "the kernel offered only reserved ports after " + attempts + " tries");
        }
        ServerSocket socket = offer.open();
        sockets.add(socket);
        int port = socket.getLocalPort();
        if (!reserved.containsKey(port) && !out.contains(port)) {
          out.add(port);
        }
      }
      return out;
    } finally {
      for (ServerSocket socket : sockets) {
        try {
          socket.close();
        } catch (IOException ignored) {
          // Closing a listening socket that was never accepted on cannot lose data.
        }
      }
    }
  }

  /** The ledger's entries younger than {@link #HOLD_MILLIS}; unreadable lines are dropped. */
  private static Map<Integer, Long> read(FileChannel channel, long nowMillis) throws IOException {
    ByteBuffer buffer = ByteBuffer.allocate((int) Math.min(channel.size(), 1 << 20));
    channel.read(buffer, 0);
    Map<Integer, Long> out = new LinkedHashMap<>();
    for (String line :
        new String(buffer.array(), 0, buffer.position(), StandardCharsets.UTF_8).split("\n")) {
      String[] parts = line.trim().split(" ");
      if (parts.length != 2) {
        continue;
      }
      try {
        int port = Integer.parseInt(parts[0]);
        long at = Long.parseLong(parts[1]);
        if (nowMillis - at < HOLD_MILLIS && at <= nowMillis + HOLD_MILLIS) {
          out.put(port, at);
        }
      } catch (NumberFormatException ignored) {
        // A line cut by a crash mid-write reserves nothing.
      }
    }
    return out;
  }

  private static void write(FileChannel channel, Map<Integer, Long> entries) throws IOException {
    StringBuilder text = new StringBuilder();
    entries.forEach((port, at) -> text.append(port).append(' ').append(at).append('\n'));
    byte[] bytes = text.toString().getBytes(StandardCharsets.UTF_8);
    channel.truncate(0);
    channel.write(ByteBuffer.wrap(bytes), 0);
    channel.force(false);
  }

  private static Path ledgerFile() {
    String cache = System.getProperty("cmo.cache.dir");
    Path base =
        cache == null || cache.isBlank()
            ? Path.of(System.getProperty("user.home"), ".cache", "cluster-mirror-operator")
            : Path.of(cache);
    return base.resolve("run").resolve("ports.ledger");
  }
}
