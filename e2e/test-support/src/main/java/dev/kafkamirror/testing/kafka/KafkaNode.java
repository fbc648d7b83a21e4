package dev.kafkamirror.testing.kafka;

import dev.kafkamirror.testing.process.Commands;
import dev.kafkamirror.testing.process.ProcessReaper;
import java.io.IOException;
import java.io.RandomAccessFile;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One KRaft node of a test cluster, run as a separate JVM on the stock broker classpath.
 *
 * <p>Lifecycle: {@link #format} once, then any sequence of {@link #start}, {@link #kill} and {@link
 * #stop}. The data directory survives kill and stop, so a restart recovers from it as a real broker
 * would.
 *
 * <p>Not thread-safe: a cluster drives its nodes from one thread at a time.
 */
public final class KafkaNode {

  private static final Logger LOG = LoggerFactory.getLogger(KafkaNode.class);
  private static final String STARTED_MARKER = "Kafka Server started";
  private static final Duration STOP_TIMEOUT = Duration.ofSeconds(60);

  private final String clusterName;
  private final int nodeId;
  private final KafkaNodeRole role;
  private final Path nodeDir;
  private final Path logDir;
  private final Path propertiesFile;
  private final Path outputFile;
  private final int brokerPort;
  private final String listenerHost;
  private final int controllerPort;
  private final List<String> jvmArgs;
  private Process process;
  private long outputOffsetAtStart;
  private boolean suspended;

  KafkaNode(
      String clusterName,
      int nodeId,
      KafkaNodeRole role,
      Path nodeDir,
      int brokerPort,
      int controllerPort,
      List<String> jvmArgs,
      String listenerHost) {
    this.clusterName = clusterName;
    this.nodeId = nodeId;
    this.role = role;
    this.nodeDir = nodeDir;
    this.logDir = nodeDir.resolve("data");
    this.propertiesFile = nodeDir.resolve("server.properties");
    this.outputFile = nodeDir.resolve("node.log");
    this.brokerPort = brokerPort;
    this.controllerPort = controllerPort;
    this.jvmArgs = List.copyOf(jvmArgs);
    this.listenerHost = listenerHost;
  }

  public int nodeId() {
    return nodeId;
  }

  public KafkaNodeRole role() {
    return role;
  }

  /** The broker's {@code log.dirs}: one directory holding every partition's segments. */
  public Path logDir() {
    return logDir;
  }

  /** Everything the node's JVM printed, across restarts. */
  public Path outputFile() {
    return outputFile;
  }

  /**
   * {@code host:port} of the PLAINTEXT listener (host 127.0.0.1 unless the cluster was built with
   * {@link KafkaClusterConfig.Builder#listenerHost}); empty for a controller-only node.
   */
  public Optional<String> bootstrapAddress() {
    return role.isBroker() ? Optional.of(listenerHost + ":" + brokerPort) : Optional.empty();
  }

  int controllerPort() {
    return controllerPort;
  }

  public boolean isRunning() {
    return process != null && process.isAlive();
  }

  /** The pid of the running JVM. */
  public long pid() {
    if (process == null) {
      throw new IllegalStateException("node " + describe() + " was never started");
    }
    return process.pid();
  }

  void writeConfig(String controllerVoters, Map<String, String> extraProperties) {
    Properties props = new Properties();
    props.setProperty("node.id", Integer.toString(nodeId));
    props.setProperty("process.roles", role.processRoles());
    props.setProperty("controller.quorum.voters", controllerVoters);
    props.setProperty("controller.listener.names", "CONTROLLER");
    props.setProperty("log.dirs", logDir.toString());
    List<String> listeners = new ArrayList<>();
    if (role.isBroker()) {
      listeners.add("PLAINTEXT://" + listenerHost + ":" + brokerPort);
      props.setProperty("advertised.listeners", "PLAINTEXT://" + listenerHost + ":" + brokerPort);
      props.setProperty("inter.broker.listener.name", "PLAINTEXT");
    }
    if (role.isController()) {
      listeners.add("CONTROLLER://127.0.0.1:" + controllerPort);
    }
    props.setProperty("listeners", String.join(",", listeners));
    props.setProperty("listener.security.protocol.map", "PLAINTEXT:PLAINTEXT,CONTROLLER:PLAINTEXT");
    // Sized for a 2-core machine that runs several clusters at once.
    props.setProperty("num.network.threads", "2");
    props.setProperty("num.io.threads", "2");
    props.setProperty("num.recovery.threads.per.data.dir", "1");
    props.setProperty("background.threads", "2");
    props.setProperty("num.replica.fetchers", "1");
    props.setProperty("log.segment.bytes", Integer.toString(1024 * 1024));
    props.setProperty("group.initial.rebalance.delay.ms", "0");
    props.setProperty("auto.create.topics.enable", "false");
    props.setProperty("log.flush.interval.messages", Long.toString(Long.MAX_VALUE));
    props.setProperty("delete.topic.enable", "true");
    props.setProperty("controlled.shutdown.enable", "true");
    Map<String, String> sorted = new TreeMap<>(extraProperties);
    sorted.forEach(props::setProperty);
    try {
      Files.createDirectories(nodeDir);
      StringBuilder text = new StringBuilder("# written by the cmo test harness for cluster ");
      text.append(clusterName).append(", node ").append(nodeId).append('\n');
      new TreeMap<>(props).forEach((k, v) -> text.append(k).append('=').append(v).append('\n'));
      Files.writeString(propertiesFile, text, StandardCharsets.UTF_8);
      Files.writeString(
          nodeDir.resolve("log4j2.properties"), log4jConfig(), StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot write the config of " + describe(), e);
    }
  }

  /**
   * Kafka's log4j2 settings for a test node. The system property {@code cmo.broker.debugLoggers}
   * (logger names, comma-separated) sets those loggers to DEBUG on every node, for example the
   * plugin's stop-state timings in a benchmark.
   */
  private static String log4jConfig() {
    StringBuilder debug = new StringBuilder();
    int index = 0;
    for (String logger : System.getProperty("cmo.broker.debugLoggers", "").split(",")) {
      if (!logger.isBlank()) {
        debug.append("logger.debug").append(index).append(".name = ").append(logger.trim());
        debug.append("\nlogger.debug").append(index).append(".level = DEBUG\n");
        index++;
      }
    }
    return String.join(
        "\n",
        "status = warn",
        "appender.out.type = Console",
        "appender.out.name = STDOUT",
        "appender.out.layout.type = PatternLayout",
        "appender.out.layout.pattern = [%d] %p %m (%c)%n",
        "rootLogger.level = INFO",
        "rootLogger.appenderRef.out.ref = STDOUT",
        "logger.kafka.name = kafka",
        "logger.kafka.level = INFO",
        "logger.zk.name = org.apache.kafka.raft",
        "logger.zk.level = WARN",
        "logger.request.name = kafka.request.logger",
        "logger.request.level = WARN",
        "logger.controller.name = org.apache.kafka.controller",
        "logger.controller.level = INFO",
        "logger.state.name = state.change.logger",
        "logger.state.level = WARN",
        debug.toString());
  }

  /** Formats the storage directory for {@code clusterId} with Kafka's own StorageTool. */
  void format(String classpath, String clusterId, Map<String, Short> features, Duration timeout) {
    List<String> command = new ArrayList<>();
    command.add(BrokerRuntime.javaExecutable());
    command.add("-Xmx256m");
    command.add("-Dcmo.parent.pid=" + ProcessHandle.current().pid());
    command.add("-Dlog4j2.configurationFile=" + nodeDir.resolve("log4j2.properties"));
    command.add("@" + classpathArgFile(classpath));
    command.add(BrokerRuntime.MAIN_CLASS);
    command.add(BrokerRuntime.STORAGE_TOOL_CLASS);
    command.add("format");
    command.add("--cluster-id");
    command.add(clusterId);
    command.add("--config");
    command.add(propertiesFile.toString());
    command.add("--ignore-formatted");
    features.forEach(
        (name, level) -> {
          command.add("--feature");
          command.add(name + "=" + level);
        });
    Path formatLog = nodeDir.resolve("format.log");
    try {
      Process format =
          new ProcessBuilder(command)
              .redirectErrorStream(true)
              .redirectOutput(formatLog.toFile())
              .start();
      ProcessReaper.instance().register(format.toHandle());
      try {
        if (!format.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
          ProcessReaper.killTree(format.toHandle());
          throw new IllegalStateException(
              "formatting " + describe() + " took longer than " + timeout + "; see " + formatLog);
        }
      } finally {
        ProcessReaper.instance().unregister(format.toHandle());
      }
      if (format.exitValue() != 0) {
        throw new IllegalStateException(
            "formatting "
                + describe()
                + " failed with exit code "
                + format.exitValue()
                + ": "
                + Files.readString(formatLog));
      }
    } catch (IOException e) {
      throw new UncheckedIOException("cannot format " + describe(), e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while formatting " + describe(), e);
    }
  }

  /**
   * Sets a setting in the node's properties file for its next start, or removes it when {@code
   * value} is null (say, to restart a broker with a broken plugin setting).
   */
  public void setProperty(String key, String value) {
    try {
      List<String> lines = new ArrayList<>();
      for (String line : Files.readAllLines(propertiesFile, StandardCharsets.UTF_8)) {
        if (!line.startsWith(key + "=")) {
          lines.add(line);
        }
      }
      if (value != null) {
        lines.add(key + "=" + value);
      }
      Files.write(propertiesFile, lines, StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot change the config of " + describe(), e);
    }
  }

  /** Launches the JVM; returns without waiting. Use {@link #awaitStarted} to wait. */
  void launch(String classpath) {
    if (isRunning()) {
      throw new IllegalStateException(describe() + " is already running as pid " + process.pid());
    }
    List<String> command = new ArrayList<>();
    command.add(BrokerRuntime.javaExecutable());
    command.addAll(jvmArgs);
    command.add("-Dlog4j2.configurationFile=" + nodeDir.resolve("log4j2.properties"));
    command.add("-Dcmo.parent.pid=" + ProcessHandle.current().pid());
    command.add("-Dcmo.cluster=" + clusterName);
    command.add("-Dcmo.node.id=" + nodeId);
    // The classpath goes through an argument file: the command line stays short enough for ps and
    // /proc/<pid>/cmdline readers to show the main class.
    command.add("@" + classpathArgFile(classpath));
    command.add(BrokerRuntime.MAIN_CLASS);
    command.add(BrokerRuntime.KAFKA_MAIN_CLASS);
    command.add(propertiesFile.toString());
    try {
      outputOffsetAtStart = Files.exists(outputFile) ? Files.size(outputFile) : 0L;
      process =
          new ProcessBuilder(command)
              .redirectErrorStream(true)
              .redirectOutput(ProcessBuilder.Redirect.appendTo(outputFile.toFile()))
              .start();
      ProcessReaper.instance().register(process.toHandle());
      LOG.info("started {} as pid {}", describe(), process.pid());
    } catch (IOException e) {
      throw new UncheckedIOException("cannot start " + describe(), e);
    }
  }

  /** Waits until the node logged that it started, or fails naming the node and its log. */
  void awaitStarted(Duration timeout) {
    long deadline = System.nanoTime() + timeout.toNanos();
    while (System.nanoTime() < deadline) {
      if (outputSinceStart().contains(STARTED_MARKER)) {
        return;
      }
      if (!process.isAlive()) {
        throw new IllegalStateException(
            describe()
                + " exited with code "
                + process.exitValue()
                + " before it started; last output:\n"
                + tail(outputSinceStart(), 4000));
      }
      sleep(200);
    }
    throw new IllegalStateException(
        describe()
            + " did not start within "
            + timeout
            + "; last output:\n"
            + tail(outputSinceStart(), 4000));
  }

  /** Everything the JVM printed since its latest launch. */
  public String outputSinceStart() {
    try (RandomAccessFile file = new RandomAccessFile(outputFile.toFile(), "r")) {
      long length = file.length();
      if (length <= outputOffsetAtStart) {
        return "";
      }
      byte[] bytes = new byte[(int) Math.min(length - outputOffsetAtStart, 64L * 1024 * 1024)];
      file.seek(outputOffsetAtStart);
      file.readFully(bytes);
      return new String(bytes, StandardCharsets.UTF_8);
    } catch (IOException e) {
      return "";
    }
  }

  /** SIGKILL: the JVM gets no chance to flush or to shut down cleanly. */
  public void kill() {
    if (process == null) {
      return;
    }
    ProcessReaper.killTree(process.toHandle());
    ProcessReaper.instance().unregister(process.toHandle());
    suspended = false;
    LOG.info("killed {} (SIGKILL)", describe());
  }

  /**
   * SIGSTOP: the JVM stays alive with its sockets open but answers nothing, as a broker in a long
   * pause would (the kernel still accepts connections to it). Undone by {@link #resume}, and by
   * {@link #stop} before it asks for a controlled shutdown.
   */
  public void suspend() {
    signal("STOP");
    suspended = true;
    LOG.info("suspended {} (SIGSTOP)", describe());
  }

  /** SIGCONT: a node {@link #suspend suspended} runs again; nothing when it is not suspended. */
  public void resume() {
    if (!suspended || process == null || !process.isAlive()) {
      suspended = false;
      return;
    }
    signal("CONT");
    suspended = false;
    LOG.info("resumed {} (SIGCONT)", describe());
  }

  private void signal(String name) {
    Commands.run(Duration.ofSeconds(10), List.of("kill", "-" + name, Long.toString(pid())))
        .requireSuccess();
  }

  /** SIGTERM and a bounded wait for a controlled shutdown; SIGKILL if it takes longer. */
  public void stop() {
    if (process == null || !process.isAlive()) {
      return;
    }
    try {
      resume();
    } catch (RuntimeException e) {
      // A node that cannot be resumed cannot shut down either: SIGKILL ends a stopped process.
      LOG.warn("{} could not be resumed ({}); killing it", describe(), e.getMessage());
      kill();
      return;
    }
    process.destroy();
    try {
      if (!process.waitFor(STOP_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS)) {
        LOG.warn("{} did not stop within {}; killing it", describe(), STOP_TIMEOUT);
        ProcessReaper.killTree(process.toHandle());
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      ProcessReaper.killTree(process.toHandle());
    }
    ProcessReaper.instance().unregister(process.toHandle());
    LOG.info("stopped {}", describe());
  }

  private Path classpathArgFile(String classpath) {
    return BrokerRuntime.writeClasspathArgFile(nodeDir.resolve("classpath.args"), classpath);
  }

  String describe() {
    return "Kafka node " + nodeId + " (" + role + ") of cluster " + clusterName;
  }

  private static String tail(String text, int chars) {
    return text.length() <= chars ? text : text.substring(text.length() - chars);
  }

  private static void sleep(long ms) {
    try {
      Thread.sleep(ms);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted", e);
    }
  }
}
