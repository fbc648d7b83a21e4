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
 * that pick at the same time, and outside the kernel's ephemeral port range ({@link #outside}).
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

  private static final Offer KERNEL =
      () -> new ServerSocket(0, 1, InetAddress.getLoopbackAddress());

  private static final Offer LOOPBACK = outside(pickRange(ephemeralRange()));

  /**
   * Listening sockets on random loopback ports of {@code range} (a port in use is skipped); the
   * kernel's choice when {@code range} is null. A port the kernel chooses lies in its ephemeral
   * range, the one it also takes source ports of outgoing connections from: while a test's broker
   * is down for a restart, any connection on the machine may take its port, and the broker then
   * cannot bind it again ("Address already in use", seen in CI). Outside that range only an
   * explicit bind can take it.
   */
  static Offer outside(int[] range) {
    if (range == null) {
      return KERNEL;
    }
    java.util.Random random = new java.util.Random();
    return () -> {
      IOException last = null;
      for (int attempt = 0; attempt < 1_000; attempt++) {
        int port = range[0] + random.nextInt(range[1] - range[0] + 1);
        try {
          return new ServerSocket(port, 1, InetAddress.getLoopbackAddress());
        } catch (IOException e) {
          last = e;
        }
      }
      throw new IOException(
          "no free loopback port in " + range[0] + " to " + range[1] + " after 1,000 tries", last);
    };
  }

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

  /** The lowest port picked from below the ephemeral range: under it lie well-known services. */
  static final int LOWEST = 10_000;

  /**
   * The kernel's range of source ports for outgoing connections, {@code
   * /proc/sys/net/ipv4/ip_local_port_range}; Linux's default (32768 to 60999) where it cannot be
   * read.
   */
  static int[] ephemeralRange() {
    try {
      String[] parts =
          Files.readString(Path.of("/proc/sys/net/ipv4/ip_local_port_range")).trim().split("\\s+");
      return new int[] {Integer.parseInt(parts[0]), Integer.parseInt(parts[1])};
    } catch (IOException | RuntimeException e) {
      return new int[] {32768, 60999};
    }
  }

  /**
   * The ports to pick from, outside {@code ephemeral}: from {@link #LOWEST} to just below it when
   * that leaves at least 4,000 ports, else from just above it to 65535 when that does; null when
   * neither does (the kernel then chooses, inside the range).
   */
  static int[] pickRange(int[] ephemeral) {
    if (ephemeral[0] - LOWEST >= 4_000) {
      return new int[] {LOWEST, ephemeral[0] - 1};
    }
    if (65535 - ephemeral[1] >= 4_000) {
      return new int[] {ephemeral[1] + 1, 65535};
    }
    return null;
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
