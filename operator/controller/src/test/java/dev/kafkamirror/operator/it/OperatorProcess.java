package dev.kafkamirror.operator.it;

import dev.kafkamirror.testing.process.Commands;
import dev.kafkamirror.testing.process.ProcessReaper;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * The operator as its own JVM ({@code OperatorMain} on the classpath the build wrote to {@code
 * target/operator.classpath}), so that a test can kill it with SIGKILL and start it again. Its
 * output goes to a log file; the process is registered with the {@link ProcessReaper}.
 */
final class OperatorProcess implements AutoCloseable {

  private static final String MAIN = "dev.kafkamirror.operator.app.OperatorMain";

  private final Path logFile;
  private final Map<String, String> environment;
  private final List<String> command;
  private Process process;
  private int starts;

  /** The JVM options of every test operator unless a test gives its own. */
  static final List<String> TEST_JVM_OPTIONS = List.of("-Xmx256m", "-XX:+UseSerialGC");

  OperatorProcess(Path workDir, Path kubeconfig, Map<String, String> extraEnvironment) {
    this(workDir, kubeconfig, extraEnvironment, TEST_JVM_OPTIONS);
  }

  /**
   * An operator JVM started with {@code jvmOptions} (for example the image's flags, to measure what
   * it costs as installed) instead of {@link #TEST_JVM_OPTIONS}.
   */
  OperatorProcess(
      Path workDir,
      Path kubeconfig,
      Map<String, String> extraEnvironment,
      List<String> jvmOptions) {
    try {
      Files.createDirectories(workDir);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    this.logFile = workDir.resolve("operator.log");
    Path argFile = workDir.resolve("operator.args");
    String classpath = classes() + ":" + read(Path.of(property("cmo.operator.classpath.file")));
    try {
      Files.writeString(argFile, "-cp \"" + classpath + "\"\n", StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot write " + argFile, e);
    }
    List<String> cmd = new ArrayList<>();
    cmd.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    cmd.addAll(jvmOptions);
    cmd.add("@" + argFile);
    cmd.add(MAIN);
    this.command = List.copyOf(cmd);
    Map<String, String> env = new LinkedHashMap<>();
    env.put("KUBECONFIG", kubeconfig.toString());
    env.put("CMO_POD_NAME", "operator-0");
    env.put("CMO_HEALTH_PORT", "0");
    env.put("CMO_METRICS_PORT", "0");
    env.put("CMO_LOG_LEVEL", "info");
    env.putAll(extraEnvironment);
    this.environment = env;
  }

  private static String classes() {
    return property("cmo.operator.classes");
  }

  private static String property(String name) {
    String value = System.getProperty(name);
    if (value == null) {
      throw new IllegalStateException(
          "system property " + name + " is not set; run the ITs through Maven (failsafe)");
    }
    return value;
  }

  private static String read(Path file) {
    try {
      return Files.readString(file, StandardCharsets.UTF_8).trim();
    } catch (IOException e) {
      throw new UncheckedIOException(
          "cannot read the operator classpath " + file + "; run generate-resources first", e);
    }
  }

  /** Starts the JVM (again, after a kill). */
  synchronized void start() {
    if (process != null && process.isAlive()) {
      throw new IllegalStateException("operator pid " + process.pid() + " is still running");
    }
    ProcessBuilder builder = new ProcessBuilder(command);
    builder.environment().putAll(environment);
    builder.redirectErrorStream(true);
    builder.redirectOutput(ProcessBuilder.Redirect.appendTo(logFile.toFile()));
    try {
      process = builder.start();
    } catch (IOException e) {
      throw new UncheckedIOException("cannot start the operator: " + command, e);
    }
    starts++;
    ProcessReaper.instance().register(process.toHandle());
  }

  /** SIGKILL, and wait until the JVM is gone. */
  synchronized void kill() {
    if (process == null) {
      return;
    }
    process.destroyForcibly();
    try {
      if (!process.waitFor(30, TimeUnit.SECONDS)) {
        throw new IllegalStateException("operator pid " + process.pid() + " survived SIGKILL");
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted", e);
    }
    ProcessReaper.instance().unregister(process.toHandle());
  }

  /** SIGSTOP: the JVM freezes mid-whatever (a zombie Lease holder), until {@link #resume}. */
  synchronized void pause() {
    signal("-STOP");
  }

  /** SIGCONT after {@link #pause}: the JVM goes on where it froze. */
  synchronized void resume() {
    signal("-CONT");
  }

  private void signal(String signal) {
    if (process == null || !process.isAlive()) {
      throw new IllegalStateException("the operator is not running");
    }
    Commands.run(Duration.ofSeconds(10), List.of("kill", signal, Long.toString(process.pid())))
        .requireSuccess();
  }

  /** The pid of the running JVM. */
  long pid() {
    return process.pid();
  }

  boolean isAlive() {
    return process != null && process.isAlive();
  }

  int starts() {
    return starts;
  }

  Path logFile() {
    return logFile;
  }

  /** The last lines of the operator's log, for failure messages. */
  String tail(int lines) {
    try {
      List<String> all = Files.readAllLines(logFile, StandardCharsets.UTF_8);
      return String.join(
          "\n", new ArrayList<>(all.subList(Math.max(0, all.size() - lines), all.size())));
    } catch (IOException e) {
      return "(no log: " + e + ")";
    }
  }

  @Override
  public void close() {
    kill();
  }
}
