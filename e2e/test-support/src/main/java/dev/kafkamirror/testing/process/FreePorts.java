package dev.kafkamirror.testing.process;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.util.ArrayList;
import java.util.List;

/** Picks free TCP ports on the loopback interface. */
public final class FreePorts {

  private FreePorts() {}

  /**
   * Returns {@code count} distinct ports that were free on 127.0.0.1 when this method ran. All
   * sockets are held open until every port is chosen, so the ports are distinct from each other.
   */
  public static List<Integer> pick(int count) {
    List<ServerSocket> sockets = new ArrayList<>();
    try {
      for (int i = 0; i < count; i++) {
        ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress());
        socket.setReuseAddress(true);
        sockets.add(socket);
      }
      return sockets.stream().map(ServerSocket::getLocalPort).toList();
    } catch (IOException e) {
      throw new UncheckedIOException("cannot find " + count + " free loopback ports", e);
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
}
