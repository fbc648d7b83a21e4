package dev.kafkamirror.operator.it;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/** The JDK's {@code jcmd} against a JVM the benchmarks started, for diagnostics and profiling. */
final class Jcmd {

  /** What one jcmd printed (stdout and stderr) and its exit code. */
  record Result(int exitCode, String output) {}

  private Jcmd() {}

  /**
   * Runs {@code jcmd pid command...} (this JVM's jcmd) and waits at most 60 s: the output goes to a
   * file, so a jcmd that never ends cannot block the caller on its pipe.
   *
   * @throws IllegalStateException when it did not finish within 60 s (it is then killed)
   */
  static Result run(long pid, String... command) throws IOException, InterruptedException {
    List<String> cmd = new ArrayList<>();
    cmd.add(Path.of(System.getProperty("java.home"), "bin", "jcmd").toString());
    cmd.add(Long.toString(pid));
    cmd.addAll(List.of(command));
    Path log = Files.createTempFile("jcmd", ".log");
    try {
      Process jcmd =
          new ProcessBuilder(cmd).redirectErrorStream(true).redirectOutput(log.toFile()).start();
      if (!jcmd.waitFor(60, TimeUnit.SECONDS)) {
        jcmd.destroyForcibly();
        throw new IllegalStateException(cmd + " did not finish within 60 s");
      }
      return new Result(jcmd.exitValue(), Files.readString(log, StandardCharsets.UTF_8));
    } finally {
      Files.deleteIfExists(log);
    }
  }
}
