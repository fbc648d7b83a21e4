package dev.kafkamirror.demo;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

/** The README's demo, run as a user runs it, checked on its own verification summary. */
class LocalFailoverDemoIT {

  @Test
  void theDemoFailsOverAndBackWithEveryCommittedRecordOnceAndOneBarrierPerPartition()
      throws Exception {
    // Given the demo's narration captured
    ByteArrayOutputStream captured = new ByteArrayOutputStream();
    PrintStream tee =
        new PrintStream(new TeeStream(captured, System.out), true, StandardCharsets.UTF_8);

    // When it runs from start to end, with the failback leg (./demo.sh --failback: the same
    // failover first, so one run covers both)
    LocalFailoverDemo.Summary summary = new LocalFailoverDemo(tee, true).run();

    // Then every record committed on A before it died, and every record written on B, is read once
    assertThat(summary.expected()).isEqualTo(30 + 12 + 9 + 3);
    assertThat(summary.found()).isEqualTo(summary.expected());
    assertThat(summary.duplicates()).isZero();
    assertThat(summary.missing()).isZero();
    assertThat(summary.unexpected()).isZero();
    // And each partition has its barrier, and the collision the barrier defuses really happened
    assertThat(summary.barrierOffsets()).hasSize(LocalFailoverDemo.PARTITIONS);
    assertThat(summary.producerIdCollided()).isTrue();
    assertThat(summary.ok()).isTrue();
    // And the narration showed the status changing on the way to Stopped
    String narration = captured.toString(StandardCharsets.UTF_8);
    assertThat(narration)
        .contains("status: every partition mirrored and caught up")
        .contains("Stopped=True")
        // And the kubectl commands a user types were really run: apply of a file, get, patch
        .containsPattern("\\$ kubectl apply -f \\S+clustermirror-payments\\.yaml")
        .contains("clustermirror.kafkamirror.dev/payments created")
        .contains("$ kubectl get cmirror -n demo")
        .containsPattern("(?m)^\\s+payments\\s+\\S")
        .contains("clustermirror.kafkamirror.dev/payments patched")
        .contains("Done: the failover kept every committed record, once.");

    // And the failback leg: A, truncated to B's recorded end and mirrored, switched back behind
    // its own barrier, holds A's committed records, B's and its new ones, each once, and none of
    // the records it held alone (a transaction open when it died, records written after it came
    // back)
    LocalFailoverDemo.Summary back = summary.failback();
    assertThat(back).as("the failback leg ran").isNotNull();
    assertThat(back.expected()).isEqualTo(30 + 12 + 9 + 3 + 3 + 6);
    assertThat(back.found()).isEqualTo(back.expected());
    assertThat(back.duplicates()).isZero();
    assertThat(back.missing()).isZero();
    assertThat(back.unexpected()).isZero();
    assertThat(back.barrierOffsets()).hasSize(LocalFailoverDemo.PARTITIONS);
    assertThat(back.ok()).isTrue();
    assertThat(narration)
        .contains("status: the discard report is written before anything is truncated")
        .contains("status: A truncated to the alignment point and mirroring B")
        .containsPattern("(?m)Warning\\s+FailbackDiscards")
        .contains("clustermirror.kafkamirror.dev/payments-back created")
        .contains("Done: failed back; A holds every committed record of both sides, once.");
  }

  /** Writes to two streams. */
  private static final class TeeStream extends java.io.OutputStream {
    private final java.io.OutputStream a;
    private final java.io.OutputStream b;

    TeeStream(java.io.OutputStream a, java.io.OutputStream b) {
      this.a = a;
      this.b = b;
    }

    @Override
    public void write(int x) throws java.io.IOException {
      a.write(x);
      b.write(x);
    }

    @Override
    public void write(byte[] bytes, int off, int len) throws java.io.IOException {
      a.write(bytes, off, len);
      b.write(bytes, off, len);
    }
  }
}
