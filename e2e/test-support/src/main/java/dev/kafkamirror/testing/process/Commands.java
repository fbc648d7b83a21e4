package dev.kafkamirror.testing.process;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/** Runs an external command (kcat, kubectl, helm) with a bound on its running time. */
public final class Commands {

  private Commands() {}

  /** What a finished command printed and returned. */
  public record Result(List<String> command, int exitCode, String stdout, String stderr) {
    /** Throws with the command, its exit code and its stderr unless the exit code is 0. */
    public Result requireSuccess() {
      if (exitCode != 0) {
        throw new IllegalStateException(
            "command "
                + command
                + " exited with "
                + exitCode
                + "; stderr:\n"
                + stderr
                + "\nstdout:\n"
                + stdout);
      }
      return this;
    }
  }

  /**
   * Runs {@code command} and waits at most {@code timeout}; kills it (and its children) past that.
   */
  public static Result run(Duration timeout, List<String> command) {
    return run(timeout, command, Map.of());
  }

  /** As {@link #run(Duration, List)}, with extra environment variables. */
  public static Result run(
      Duration timeout, List<String> command, Map<String, String> environment) {
    Path out = null;
    Path err = null;
    try {
      out = Files.createTempFile("cmo-cmd-", ".out");
      err = Files.createTempFile("cmo-cmd-", ".err");
      ProcessBuilder builder =
          new ProcessBuilder(command).redirectOutput(out.toFile()).redirectError(err.toFile());
      builder.environment().putAll(environment);
      Process process = builder.start();
      ProcessReaper.instance().register(process.toHandle());
      try {
        if (!process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
          ProcessReaper.killTree(process.toHandle());
          throw new IllegalStateException(
              "command "
                  + command
                  + " did not finish within "
                  + timeout
                  + "; stderr so far:\n"
                  + Files.readString(err, StandardCharsets.UTF_8));
        }
      } finally {
        ProcessReaper.instance().unregister(process.toHandle());
      }
      return new Result(
          List.copyOf(command),
          process.exitValue(),
          Files.readString(out, StandardCharsets.UTF_8),
          Files.readString(err, StandardCharsets.UTF_8));
    } catch (IOException e) {
      throw new UncheckedIOException("cannot run " + command, e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while running " + command, e);
    } finally {
      deleteQuietly(out);
      deleteQuietly(err);
    }
  }

  private static void deleteQuietly(Path file) {
    if (file != null) {
      try {
        Files.deleteIfExists(file);
      } catch (IOException ignored) {
        // A leftover temp file is harmless.
      }
    }
  }
}
