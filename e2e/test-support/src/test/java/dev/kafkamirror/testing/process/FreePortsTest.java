package dev.kafkamirror.testing.process;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class FreePortsTest {

  @TempDir Path dir;

  @Test
  void aPortAnotherPickerWasHandedRecentlyIsSkippedEvenWhenTheKernelOffersItAgain()
      throws IOException {
    // Given a ledger in which another JVM was handed port 40001 a second ago
    Path ledger = dir.resolve("run/ports.ledger");
    Files.createDirectories(ledger.getParent());
    long now = 1_000_000L;
    Files.writeString(ledger, "40001 " + (now - 1_000) + "\n", StandardCharsets.UTF_8);

    // When the kernel offers 40001 (released by its picker, not yet bound by its broker), then
    // 40001 again, then 40002
    List<Integer> picked = FreePorts.pick(1, ledger, now, offers(40001, 40001, 40002));

    // Then the pick is 40002, and both reservations are in the ledger
    assertThat(picked).containsExactly(40002);
    assertThat(Files.readString(ledger))
        .contains("40001 " + (now - 1_000))
        .contains("40002 " + now);
  }

  @Test
  void reservationsOlderThanTheHoldAndUnreadableLinesAreForgotten() throws IOException {
    // Given a ledger with an expired reservation of 40001 and a line cut by a crash
    Path ledger = dir.resolve("ports.ledger");
    long now = 10_000_000L;
    Files.writeString(
        ledger, "40001 " + (now - FreePorts.HOLD_MILLIS - 1) + "\n4000", StandardCharsets.UTF_8);

    // When the kernel offers 40001
    List<Integer> picked = FreePorts.pick(1, ledger, now, offers(40001));

    // Then 40001 is handed out again, and the ledger holds that one reservation only
    assertThat(picked).containsExactly(40001);
    assertThat(Files.readString(ledger)).isEqualTo("40001 " + now + "\n");
  }

  @Test
  void oneCallNeverReturnsAPortTwice() throws IOException {
    // Given an empty ledger
    Path ledger = dir.resolve("ports.ledger");

    // When the kernel offers 40005 twice among others for a pick of three
    List<Integer> picked = FreePorts.pick(3, ledger, 5L, offers(40005, 40005, 40006, 40007));

    // Then the three ports are distinct
    assertThat(picked).containsExactly(40005, 40006, 40007);
  }

  @Test
  void realPicksInARowAreDistinctAndFreeOnLoopback() throws IOException {
    // When a JVM picks twice on the real loopback with one ledger
    Path ledger = dir.resolve("ports.ledger");
    long now = System.currentTimeMillis();
    List<Integer> first =
        FreePorts.pick(
            20,
            ledger,
            now,
            () -> new ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress()));
    List<Integer> second =
        FreePorts.pick(
            20,
            ledger,
            now,
            () -> new ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress()));

    // Then no port is handed out twice, and each can be bound
    assertThat(first).doesNotContainAnyElementsOf(second);
    for (int port : second) {
      try (ServerSocket s = new ServerSocket(port, 1, java.net.InetAddress.getLoopbackAddress())) {
        assertThat(s.getLocalPort()).isEqualTo(port);
      }
    }
  }

  @Test
  void portsArePickedBelowTheKernelsEphemeralRangeSoNoConnectionTakesOneWhileItsBrokerRestarts()
      throws IOException {
    // Given the kernel's range of source ports for outgoing connections (CI once lost a restarted
    // broker's port 33119 to one: "Address already in use")
    int[] ephemeral = FreePorts.ephemeralRange();

    // When a JVM picks ports as the tests do
    List<Integer> picked = FreePorts.pick(20);

    // Then every one is outside that range, and can be bound
    assertThat(picked).allSatisfy(p -> assertThat(p).isLessThan(ephemeral[0]).isGreaterThan(1023));
    for (int port : picked) {
      try (ServerSocket s = new ServerSocket(port, 1, java.net.InetAddress.getLoopbackAddress())) {
        assertThat(s.getLocalPort()).isEqualTo(port);
      }
    }
  }

  @Test
  void theRangeBelowTheEphemeralOneIsUsedWhenItIsWideEnough() {
    // Given Linux's default range, macOS's, and a range that leaves little below it
    // Then ports are picked from 10000 up to just below it; else above it; else by the kernel
    assertThat(FreePorts.pickRange(new int[] {32768, 60999})).containsExactly(10000, 32767);
    assertThat(FreePorts.pickRange(new int[] {49152, 65535})).containsExactly(10000, 49151);
    assertThat(FreePorts.pickRange(new int[] {10500, 50000})).containsExactly(50001, 65535);
    assertThat(FreePorts.pickRange(new int[] {1024, 65535})).isNull();
  }

  /** A kernel that offers the given ports in order. */
  private static FreePorts.Offer offers(int... ports) {
    Deque<Integer> queue = new ArrayDeque<>();
    for (int p : ports) {
      queue.add(p);
    }
    return () -> {
      Integer port = queue.poll();
      if (port == null) {
        throw new IOException("no more offers");
      }
      return new ServerSocket() {
        @Override
        public int getLocalPort() {
          return port;
        }
      };
    };
  }
}
