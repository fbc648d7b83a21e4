package dev.kafkamirror.testing.process;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Makes sure that no process a test started outlives the test JVM.
 *
 * <p>Three layers, because each covers a way the others fail:
 *
 * <ol>
 *   <li>Owners stop their processes in {@code close()}, also when a test fails.
 *   <li>A JVM shutdown hook kills every process still registered, with its descendants (a normal
 *       exit, an uncaught error, SIGTERM or SIGINT of the test JVM).
 *   <li>Every registered pid is written to a pid file under {@code
 *       <cache>/run/<test-jvm-pid>.pids}. When a test JVM was killed with SIGKILL, no hook ran; the
 *       next reaper to start finds that pid file, sees its owner is gone, and kills the listed
 *       processes whose command line still matches what was recorded.
 * </ol>
 *
 * <p>Thread-safe: registration may happen from any thread.
 */
public final class ProcessReaper {

  private static final Logger LOG = LoggerFactory.getLogger(ProcessReaper.class);
  private static final long KILL_WAIT_MS = 10_000L;
  private static final ProcessReaper INSTANCE = new ProcessReaper(defaultRunDir());

  private final Path runDir;
  private final Path pidFile;
  private final Map<Long, String> registered = new ConcurrentHashMap<>();

  private ProcessReaper(Path runDir) {
    this.runDir = runDir;
    this.pidFile = runDir.resolve(ProcessHandle.current().pid() + ".pids");
    try {
      Files.createDirectories(runDir);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot create the pid directory " + runDir, e);
    }
    reapOrphansOfDeadJvms();
    Runtime.getRuntime().addShutdownHook(new Thread(this::killAllRegistered, "cmo-process-reaper"));
  }

  /** The reaper of this JVM. */
  public static ProcessReaper instance() {
    return INSTANCE;
  }

  private static Path defaultRunDir() {
    String cache =
        Optional.ofNullable(System.getProperty("cmo.cache.dir"))
            .orElse(System.getProperty("user.home") + "/.cache/cluster-mirror-operator");
    return Path.of(cache, "run");
  }

  /**
   * Registers a process to be killed, with its descendants, if its owner does not stop it first.
   */
  public void register(ProcessHandle process) {
    String command = commandLine(process).orElse("");
    registered.put(process.pid(), command);
    writePidFile();
  }

  /** Forgets a process its owner has stopped. */
  public void unregister(ProcessHandle process) {
    registered.remove(process.pid());
    writePidFile();
  }

  /**
   * Kills a process and all its descendants with SIGKILL and waits, bounded, until they are gone.
   *
   * @return true when every process of the tree is gone
   */
  public static boolean killTree(ProcessHandle root) {
    List<ProcessHandle> tree = new ArrayList<>();
    root.descendants().forEach(tree::add);
    tree.add(root);
    tree.forEach(ProcessHandle::destroyForcibly);
    boolean allGone = true;
    for (ProcessHandle handle : tree) {
      try {
        handle.onExit().get(KILL_WAIT_MS, TimeUnit.MILLISECONDS);
      } catch (Exception e) {
        allGone &= !handle.isAlive();
      }
    }
    return allGone;
  }

  private void killAllRegistered() {
    for (Long pid : List.copyOf(registered.keySet())) {
      ProcessHandle.of(pid).ifPresent(ProcessReaper::killTree);
    }
    registered.clear();
    try {
      Files.deleteIfExists(pidFile);
    } catch (IOException e) {
      // The JVM is going away; a stale pid file is harmless because its owner pid will be dead.
    }
  }

  private synchronized void writePidFile() {
    StringBuilder content = new StringBuilder();
    registered.forEach((pid, cmd) -> content.append(pid).append('\t').append(cmd).append('\n'));
    try {
      Files.writeString(
          pidFile,
          content,
          StandardCharsets.UTF_8,
          StandardOpenOption.CREATE,
          StandardOpenOption.TRUNCATE_EXISTING);
    } catch (IOException e) {
      LOG.warn("cannot write pid file {}: orphans of a SIGKILLed test JVM may survive", pidFile, e);
    }
  }

  private void reapOrphansOfDeadJvms() {
    try (Stream<Path> files = Files.list(runDir)) {
      files
          .filter(f -> f.getFileName().toString().endsWith(".pids"))
          .filter(f -> !f.equals(pidFile))
          .forEach(this::reapIfOwnerDead);
    } catch (IOException e) {
      LOG.warn("cannot list pid directory {}", runDir, e);
    }
  }

  private void reapIfOwnerDead(Path file) {
    String name = file.getFileName().toString();
    long ownerPid;
    try {
      ownerPid = Long.parseLong(name.substring(0, name.length() - ".pids".length()));
    } catch (NumberFormatException e) {
      return;
    }
    if (ProcessHandle.of(ownerPid).map(ProcessHandle::isAlive).orElse(false)) {
      return;
    }
    try {
      for (String line : Files.readAllLines(file, StandardCharsets.UTF_8)) {
        String[] parts = line.split("\t", 2);
        if (parts.length < 2 || parts[1].isEmpty()) {
          continue;
        }
        long pid = Long.parseLong(parts[0]);
        String recorded = parts[1];
        ProcessHandle.of(pid)
            .filter(p -> commandLine(p).map(recorded::equals).orElse(false))
            .ifPresent(
                p -> {
                  LOG.warn(
                      "killing orphan pid {} left by dead test JVM {}: {}",
                      pid,
                      ownerPid,
                      recorded);
                  killTree(p);
                });
      }
      Files.deleteIfExists(file);
    } catch (IOException | RuntimeException e) {
      LOG.warn("cannot reap orphans listed in {}", file, e);
    }
  }

  private static Optional<String> commandLine(ProcessHandle process) {
    return process.info().commandLine();
  }
}
