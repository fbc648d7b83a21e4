package dev.kafkamirror.testing.kube;

import dev.kafkamirror.testing.process.Commands;
import dev.kafkamirror.testing.process.ProcessReaper;
import io.fabric8.kubeapitest.KubeAPIServer;
import io.fabric8.kubeapitest.KubeAPIServerConfigBuilder;
import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.LocalTime;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.stream.Collectors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A real kube-apiserver backed by a real etcd, started by Fabric8 kube-api-test in offline mode
 * over the binaries that {@code e2e/tools/install-test-tools.sh} built from Go modules.
 *
 * <p>Like controller-runtime's envtest, there is no controller-manager and no scheduler: namespaces
 * never finish deleting, Pods never run, owner references are never garbage-collected. Tests assert
 * on the objects the code under test writes.
 *
 * <p>The processes (etcd, kube-apiserver) are registered with the {@link ProcessReaper}, so they
 * die with the test JVM even when {@link #close()} is never reached.
 */
public final class KubeApiServerHarness implements AutoCloseable {

  private static final Logger LOG = LoggerFactory.getLogger(KubeApiServerHarness.class);
  private static final Duration STARTUP_TIMEOUT = Duration.ofSeconds(120);

  /**
   * Starts tried when a start fails only because a health check connected to itself, or because
   * kube-api-test's deadline wrapped past midnight.
   */
  private static final int START_ATTEMPTS = 3;

  private final KubeAPIServer server;
  private final Path testDir;
  private final String version;
  private final List<ProcessHandle> processes = new ArrayList<>();
  private Path kubeconfigFile;
  private long startMillis;

  private KubeApiServerHarness(Path testDir, String version) {
    this.testDir = testDir;
    this.version = version;
    this.server =
        new KubeAPIServer(
            KubeAPIServerConfigBuilder.anAPIServerConfig()
                .withTestDir(testDir.toString())
                .withApiServerVersion(version)
                // Only the builder may set these: kube-api-test 7.5.x throws on their environment
                // variables.
                .withOfflineMode(true)
                .withStartupTimeout((int) STARTUP_TIMEOUT.toMillis())
                .withWaitForEtcdHealthCheckOnStartup(true)
                // Serve on loopback only. kube-apiserver 1.37 refuses a loopback advertise address
                // (every
                // endpoint reconciler validates it), so it advertises the host's address; with the
                // reconciler
                // off, that address is written nowhere and nothing connects to it.
                .withApiServerFlags(
                    List.of("--bind-address", "127.0.0.1", "--endpoint-reconciler-type", "none"))
                .build());
  }

  /** The directory kube-api-test reads binaries from, set by the build (or the default cache). */
  public static Path testDir() {
    return Path.of(
        System.getProperty(
            "cmo.kubeapitest.dir",
            System.getProperty("user.home") + "/.cache/cluster-mirror-operator/kubeapitest"));
  }

  /** The Kubernetes version whose binaries the tests run, for example {@code 1.37.2}. */
  public static String kubernetesVersion() {
    return System.getProperty("cmo.k8s.version", "1.37.2");
  }

  /** The directory holding kube-apiserver, etcd and kubectl. */
  public static Path binaryDir() {
    return testDir().resolve("k8s").resolve(kubernetesVersion() + "-linux-amd64");
  }

  /** Starts etcd and kube-apiserver and waits until the API server is ready. */
  public static KubeApiServerHarness start() {
    Path binaries = binaryDir();
    for (String binary : List.of("kube-apiserver", "etcd", "kubectl")) {
      if (!Files.isExecutable(binaries.resolve(binary))) {
        throw new IllegalStateException(
            "no executable "
                + binaries.resolve(binary)
                + "; run e2e/tools/install-test-tools.sh (the Maven build runs it before the integration"
                + " tests) or point KUBEBUILDER_ASSETS at existing binaries");
      }
    }
    for (int attempt = 1; ; attempt++) {
      KubeApiServerHarness harness = new KubeApiServerHarness(testDir(), kubernetesVersion());
      long attemptStarted = System.nanoTime();
      try {
        harness.doStart();
        return harness;
      } catch (RuntimeException e) {
        harness.close();
        Duration attemptTook = Duration.ofNanos(System.nanoTime() - attemptStarted);
        LocalTime failedAt = LocalTime.now();
        if (attempt < START_ATTEMPTS && gaveUpOnAWrappedDeadline(e, failedAt, attemptTook)) {
          Duration wait = untilPastMidnight(failedAt);
          LOG.warn(
              "kube-api-test gave up on the start after {} ms at {} local time ({}): its start-up"
                  + " polls take their {} s deadline from LocalTime, which wraps at midnight, so a"
                  + " poll begun in the last {} s of the day gives up at its first unanswered check;"
                  + " starting etcd and kube-apiserver again in {} ms, after midnight (attempt {} of"
                  + " {})",
              attemptTook.toMillis(),
              failedAt,
              e.getCause() == null ? e : e.getCause(),
              STARTUP_TIMEOUT.toSeconds(),
              STARTUP_TIMEOUT.toSeconds(),
              wait.toMillis(),
              attempt + 1,
              START_ATTEMPTS);
          sleep(wait);
          continue;
        }
        if (attempt >= START_ATTEMPTS || !readItsOwnRequest(e)) {
          throw e;
        }
        LOG.warn(
            "kube-api-test's etcd health check read its own request back ({}): a loopback TCP"
                + " connection to etcd's port, in the ephemeral range, connected to itself before"
                + " etcd listened; starting etcd and kube-apiserver again on new ports (attempt {}"
                + " of {})",
            e.getCause() == null ? e : e.getCause(),
            attempt + 1,
            START_ATTEMPTS);
      }
    }
  }

  /**
   * Whether a start failed because an HTTP client read back its own request as the answer ({@code
   * Invalid status line: "GET /health HTTP/1.1"}). A connect to a loopback port in the ephemeral
   * range where nothing listens yet can pick that same port as its source and connect to itself
   * (TCP simultaneous open); etcd was not reached at all. Any other failure is not this.
   */
  static boolean readItsOwnRequest(Throwable failure) {
    return causedBy(
        failure,
        java.net.ProtocolException.class,
        m -> m.startsWith("Invalid status line: \"GET /"));
  }

  /**
   * Whether {@code failure} or one of its causes is a {@code type} whose message {@code matches}.
   */
  private static boolean causedBy(
      Throwable failure,
      Class<? extends Throwable> type,
      java.util.function.Predicate<String> matches) {
    for (Throwable t = failure; t != null; t = t.getCause()) {
      if (type.isInstance(t) && t.getMessage() != null && matches.test(t.getMessage())) {
        return true;
      }
    }
    return false;
  }

  /**
   * Whether a start failed only because kube-api-test's deadline wrapped past midnight: its polls
   * compute {@code LocalTime.now().plus(timeout)}, which lands early in the next day when the poll
   * begins less than the timeout before midnight, and then every check is "after the deadline".
   * Such a failure says "... did not start properly" well within the timeout, before midnight. A
   * poll that truly ran out its timeout, or failed for any other reason, is not this.
   *
   * @param failedAt the local time, in the JVM's default zone as kube-api-test reads it, of the
   *     failure
   * @param attemptTook how long the failed start took
   */
  static boolean gaveUpOnAWrappedDeadline(
      Throwable failure, LocalTime failedAt, Duration attemptTook) {
    if (attemptTook.compareTo(STARTUP_TIMEOUT) >= 0
        || untilPastMidnight(failedAt).compareTo(STARTUP_TIMEOUT.plusSeconds(1)) > 0) {
      return false;
    }
    return causedBy(
        failure,
        io.fabric8.kubeapitest.KubeAPITestException.class,
        m -> m.endsWith(" did not start properly"));
  }

  /** The time from {@code now} until one second after the next local midnight. */
  static Duration untilPastMidnight(LocalTime now) {
    return Duration.ofNanos(LocalTime.MAX.toNanoOfDay() - now.toNanoOfDay() + 1).plusSeconds(1);
  }

  private static void sleep(Duration wait) {
    try {
      Thread.sleep(wait.toMillis());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while waiting for midnight to pass", e);
    }
  }

  private void doStart() {
    Set<Long> before = childPids();
    long started = System.nanoTime();
    CompletableFuture<Void> start = CompletableFuture.runAsync(server::start);
    try {
      awaitStartOrEarlyDeath(start, before);
    } finally {
      // Register whatever came up, even when start() failed half-way.
      ProcessHandle.current()
          .children()
          .filter(p -> !before.contains(p.pid()))
          .forEach(
              p -> {
                processes.add(p);
                ProcessReaper.instance().register(p);
              });
    }
    startMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started);
    LOG.info("kube-apiserver {} with etcd ready in {} ms", version, startMillis);
  }

  /**
   * kube-api-test keeps polling {@code /readyz} until its timeout even after the API server process
   * died; this fails as soon as the process is gone instead.
   */
  private static void awaitStartOrEarlyDeath(CompletableFuture<Void> start, Set<Long> before) {
    boolean etcdSeen = false;
    long deadline = System.nanoTime() + STARTUP_TIMEOUT.toNanos() + TimeUnit.SECONDS.toNanos(10);
    while (System.nanoTime() < deadline) {
      try {
        start.get(500, TimeUnit.MILLISECONDS);
        return;
      } catch (TimeoutException e) {
        // etcd starts first; kube-api-test stops it when the API server exits unexpectedly.
        boolean etcdAlive =
            ProcessHandle.current()
                .children()
                .filter(p -> !before.contains(p.pid()))
                .anyMatch(p -> p.info().command().orElse("").endsWith("/etcd"));
        if (etcdSeen && !etcdAlive) {
          throw new IllegalStateException(
              "kube-apiserver or etcd exited during start-up; run the test with the slf4j logger"
                  + " io.fabric8.kubeapitest at debug level to see their output");
        }
        etcdSeen |= etcdAlive;
      } catch (ExecutionException e) {
        throw new IllegalStateException(
            "kube-api-test could not start the API server", e.getCause());
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new IllegalStateException("interrupted while starting the API server", e);
      }
    }
    throw new IllegalStateException("kube-apiserver was not ready within " + STARTUP_TIMEOUT);
  }

  private static Set<Long> childPids() {
    return ProcessHandle.current().children().map(ProcessHandle::pid).collect(Collectors.toSet());
  }

  /** How long {@link #start()} took until the API server answered {@code /readyz}. */
  public long startMillis() {
    return startMillis;
  }

  /** The pids of etcd and kube-apiserver. */
  public List<ProcessHandle> processes() {
    return List.copyOf(processes);
  }

  /** A kubeconfig (client certificate of a system:masters user) for this API server. */
  public String kubeConfigYaml() {
    return server.getKubeConfigYaml();
  }

  /** The kubeconfig written to a file, for kubectl and helm. */
  public synchronized Path kubeconfigFile() {
    if (kubeconfigFile == null) {
      try {
        kubeconfigFile = Files.createTempFile("cmo-kubeconfig-", ".yaml");
        kubeconfigFile.toFile().deleteOnExit();
        Files.writeString(kubeconfigFile, kubeConfigYaml(), StandardCharsets.UTF_8);
      } catch (IOException e) {
        throw new UncheckedIOException("cannot write a kubeconfig file", e);
      }
    }
    return kubeconfigFile;
  }

  /** A new Fabric8 client on this API server; the caller closes it. */
  public KubernetesClient newClient() {
    return new KubernetesClientBuilder()
        .withConfig(Config.fromKubeconfig(kubeConfigYaml()))
        .build();
  }

  /**
   * Creates a CustomResourceDefinition from YAML and waits, at most 30 s, until the API server
   * reports it Established, so that resources of its kind can be created right away.
   */
  public static void installCrd(KubernetesClient client, java.io.InputStream yaml) {
    io.fabric8.kubernetes.api.model.apiextensions.v1.CustomResourceDefinition crd =
        client.apiextensions().v1().customResourceDefinitions().load(yaml).item();
    client.apiextensions().v1().customResourceDefinitions().resource(crd).create();
    String name = crd.getMetadata().getName();
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
    while (System.nanoTime() < deadline) {
      var stored = client.apiextensions().v1().customResourceDefinitions().withName(name).get();
      if (stored != null
          && stored.getStatus() != null
          && stored.getStatus().getConditions() != null
          && stored.getStatus().getConditions().stream()
              .anyMatch(c -> "Established".equals(c.getType()) && "True".equals(c.getStatus()))) {
        return;
      }
      try {
        Thread.sleep(100);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new IllegalStateException("interrupted while waiting for CRD " + name, e);
      }
    }
    throw new IllegalStateException("CRD " + name + " was not Established within 30 s");
  }

  /**
   * Waits with {@code kubectl wait --for=condition=Established}, as a user's script does, until
   * every named CRD is Established, at most {@code timeout} in all. A CRD whose status has no
   * conditions yet (right after its creation) makes kubectl fail at once with ".status.conditions
   * accessor error" instead of waiting; that answer is asked again after 200 ms, any other failure
   * throws with kubectl's output.
   *
   * @param crdNames names such as {@code kafkas.kafka.strimzi.io}
   */
  public static void awaitCrdsEstablished(Path kubeconfig, Duration timeout, String... crdNames) {
    long deadline = System.nanoTime() + timeout.toNanos();
    while (true) {
      long leftSeconds = Math.max(1, TimeUnit.NANOSECONDS.toSeconds(deadline - System.nanoTime()));
      List<String> command =
          new java.util.ArrayList<>(
              List.of(
                  kubectl().toString(),
                  "--kubeconfig",
                  kubeconfig.toString(),
                  "wait",
                  "--for=condition=Established",
                  "--timeout=" + leftSeconds + "s"));
      for (String name : crdNames) {
        command.add("crd/" + name);
      }
      Commands.Result r = Commands.run(Duration.ofSeconds(leftSeconds + 30), command);
      if (r.exitCode() == 0) {
        return;
      }
      if (!r.stderr().contains(".status.conditions accessor error")
          || System.nanoTime() > deadline) {
        r.requireSuccess();
      }
      try {
        Thread.sleep(200);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new IllegalStateException("interrupted while waiting for CRDs to be Established", e);
      }
    }
  }

  /** The kubectl binary built with the API server. */
  public static Path kubectl() {
    return binaryDir().resolve("kubectl");
  }

  @Override
  public void close() {
    try {
      server.stop();
    } catch (RuntimeException e) {
      LOG.warn("kube-api-test could not stop cleanly; killing its processes", e);
    }
    for (ProcessHandle p : processes) {
      ProcessReaper.killTree(p);
      ProcessReaper.instance().unregister(p);
    }
    LOG.info("kube-apiserver and etcd stopped ({})", testDir);
  }
}
