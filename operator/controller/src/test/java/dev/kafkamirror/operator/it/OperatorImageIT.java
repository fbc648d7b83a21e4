package dev.kafkamirror.operator.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.kafkamirror.operator.api.v1alpha1.ClusterMirror;
import dev.kafkamirror.operator.api.v1alpha1.Condition;
import dev.kafkamirror.operator.api.v1alpha1.Conditions;
import dev.kafkamirror.operator.api.v1alpha1.MirrorState;
import dev.kafkamirror.testing.kafka.KafkaCluster;
import dev.kafkamirror.testing.process.Commands;
import dev.kafkamirror.testing.process.FreePorts;
import dev.kafkamirror.testing.process.ProcessReaper;
import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.EnvVar;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.Volume;
import io.fabric8.kubernetes.api.model.VolumeMount;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.api.model.authentication.TokenRequestBuilder;
import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.URL;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;

/**
 * The operator as users get it: the OCI image the build wrote ({@code target/jib-image.tar}) and
 * the distribution tarball, each started for real against a real kube-apiserver and real brokers.
 *
 * <p>The image runs as a kubelet would run the chart's pod: the chart is rendered with helm and its
 * objects (ServiceAccount, Roles, Deployment, ...) are created in the API server; the image's
 * layers are unpacked into a root filesystem; its entrypoint runs as the image's numeric user,
 * read-only root with a tmpfs /tmp, in its own mount and PID namespaces, with the Deployment's
 * environment and a token of the chart's ServiceAccount mounted where Kubernetes mounts it, so that
 * the chart's least-privilege RBAC is what the operator gets. It must become ready and reconcile a
 * ClusterMirror. Needs root (unshare, mount), as the test machines give.
 *
 * <p>One API server and one source and destination cluster for both tests; every process is stopped
 * in {@link #stop()}, also after a failure.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class OperatorImageIT {

  private static final String RELEASE = "cmo";
  private static final String RELEASE_NS = "mirror-system";
  private static final String DIST_NS = "dist";
  private static final String POD = RELEASE + "-cluster-mirror-operator-7d9f-abcde";
  private static final Duration READY_WITHIN = Duration.ofSeconds(120);
  private static final Duration RECONCILED_WITHIN = Duration.ofSeconds(120);
  private static final String SA_DIR = "var/run/secrets/kubernetes.io/serviceaccount";
  private static final ObjectMapper JSON = new ObjectMapper();

  private static OperatorTestEnvironment env;
  private static KubernetesClient client;
  private static KafkaCluster source;
  private static KafkaCluster destination;
  private static Path workDir;

  @BeforeAll
  static void start() throws Exception {
    workDir =
        Files.createDirectories(
            Path.of(
                System.getProperty("cmo.test.workdir", "target/test-work"),
                "operator-image-" + System.nanoTime()));
    env = OperatorTestEnvironment.start();
    client = env.client();
    env.installCrdAndNamespaces(RELEASE_NS, DIST_NS);
    source = env.startSource("image-src");
    destination = env.startDestination("image-dst");
    source.createTopic("image-orders", 1, 1, Map.of());
    source.createTopic("dist-orders", 1, 1, Map.of());
  }

  @AfterAll
  static void stop() {
    if (env != null) {
      env.close();
    }
  }

  @Test
  @Order(1)
  void theImageRunsTheChartsPodAsANonRootUserBecomesReadyAndReconcilesAClusterMirror()
      throws Exception {
    assertThat(System.getProperty("cmo.image.skip", "false"))
        .as("the image was not built (-Dcmo.image.skip=true), so it cannot be tested")
        .isEqualTo("false");
    assertThat(runCommand("id", "-u").trim())
        .as("running the image needs root (unshare, mount), as on the test machines")
        .isEqualTo("0");

    // Given the image the build wrote
    ContainerImage image =
        ContainerImage.unpack(
            Path.of(System.getProperty("cmo.image.tarball")), workDir.resolve("image"));
    assertThat(image.reference()).isEqualTo(System.getProperty("cmo.image.reference"));
    assertThat(image.user()).isEqualTo("65532:65532");
    assertThat(image.entrypoint())
        .startsWith("java")
        .contains(
            "-XX:MaxRAMPercentage=60.0",
            "-XX:InitialRAMPercentage=5.0",
            "-XX:+UseSerialGC",
            "-XX:MinHeapFreeRatio=10",
            "-XX:MaxHeapFreeRatio=20",
            "-XX:TieredStopAtLevel=1",
            "-XX:TrimNativeHeapInterval=10000",
            "-XX:+ExitOnOutOfMemoryError")
        .endsWith("dev.kafkamirror.operator.app.OperatorMain");
    // (glibc's malloc arenas bounded: the operator's RSS, docs/benchmarks.md)
    assertThat(image.environment()).containsEntry("MALLOC_ARENA_MAX", "2");
    assertThat(image.labels()).containsEntry("org.opencontainers.image.licenses", "Apache-2.0");

    // And the chart, rendered for the release namespace and installed in the API server
    List<Integer> ports = FreePorts.pick(2);
    int health = ports.get(0);
    int metrics = ports.get(1);
    List<HasMetadata> objects =
        renderChart(
            "--set",
            "replicas=1,health.port="
                + health
                + ",metrics.port="
                + metrics
                + ",logLevelsRefreshSeconds=1",
            "--set-string",
            "extraEnv[0].name=CMO_REQUEUE_MS,extraEnv[0].value=500,"
                + "extraEnv[1].name=CMO_RESYNC_MS,extraEnv[1].value=1000");
    Deployment deployment =
        objects.stream()
            .filter(Deployment.class::isInstance)
            .map(Deployment.class::cast)
            .findFirst()
            .orElseThrow();
    Container container = deployment.getSpec().getTemplate().getSpec().getContainers().get(0);
    assertThat(container.getImage())
        .as("the chart's default image is the one the build produced")
        .isEqualTo(image.reference());
    assertThat(deployment.getSpec().getTemplate().getSpec().getSecurityContext().getRunAsUser())
        .isEqualTo(65532L);
    for (HasMetadata object : objects) {
      client.resource(object).create();
    }

    // And the pod's service account token, CA and namespace where Kubernetes mounts them
    String serviceAccount = deployment.getSpec().getTemplate().getSpec().getServiceAccountName();
    mountServiceAccount(image.rootfs(), serviceAccount);
    Path levelsFile = mountConfigMaps(image.rootfs(), objects, deployment);
    Map<String, String> environment = new LinkedHashMap<>(image.environment());
    environment.putAll(podEnvironment(container));
    environment.putAll(serviceHostAndPort());

    // When its entrypoint runs as a container
    Path log = workDir.resolve("image-operator.log");
    try (RunningProcess operator = RunningProcess.start(image.runCommand(), environment, log)) {
      // Then it becomes ready, as the chart's readiness probe asks
      awaitReady(operator, health);
      // And it reconciles a ClusterMirror in the watched namespace, with the chart's RBAC only
      client
          .resource(
              MirrorFixtures.clusterMirror(
                  RELEASE_NS,
                  "image-orders",
                  source,
                  source.clusterId(),
                  destination,
                  MirrorState.Mirroring,
                  List.of("image-orders")))
          .create();
      awaitCondition(operator, RELEASE_NS, "image-orders", Conditions.MIRRORING, Conditions.TRUE);
      // And it holds the Lease as the pod it runs as
      assertThat(
              client
                  .leases()
                  .inNamespace(RELEASE_NS)
                  .withName("cluster-mirror-operator")
                  .get()
                  .getSpec()
                  .getHolderIdentity())
          .isEqualTo(POD);
      // And it logs JSON lines, those of the reconcile with JOSDK's resource fields
      List<JsonNode> lines = jsonLines(log);
      assertThat(lines)
          .allSatisfy(
              l ->
                  assertThat(l.fieldNames())
                      .toIterable()
                      .contains("timestamp", "level", "logger", "thread", "message"));
      assertThat(lines)
          .as("a line of the reconciler about image-orders")
          .anySatisfy(
              l -> {
                assertThat(l.get("logger").asText())
                    .startsWith("dev.kafkamirror.operator.reconciler.");
                assertThat(l.path("resource.name").asText()).isEqualTo("image-orders");
                assertThat(l.path("resource.namespace").asText()).isEqualTo(RELEASE_NS);
              });
      assertThat(lines).noneSatisfy(l -> assertThat(l.get("level").asText()).isEqualTo("DEBUG"));
      // And a level written to the chart's logging ConfigMap (the mounted file, replaced the way
      // the kubelet replaces it) takes effect without a restart
      String levels = Files.readString(levelsFile, StandardCharsets.UTF_8);
      assertThat(levels).contains("monitorInterval = 1").contains("rootLogger.level = INFO");
      replaceAsTheKubeletDoes(
          levelsFile,
          levels + "logger.cmo.name = dev.kafkamirror.operator\n" + "logger.cmo.level = DEBUG\n");
      // (a reconcile every second: CMO_RESYNC_MS=1000, and each begins with a debug line)
      await()
          .atMost(Duration.ofSeconds(60))
          .pollInterval(Duration.ofMillis(500))
          .untilAsserted(
              () -> {
                assertThat(operator.isAlive())
                    .as("the operator exited; log:%n%s", operator.tail(40))
                    .isTrue();
                assertThat(jsonLines(log))
                    .as("a DEBUG line of the operator after the level change")
                    .anySatisfy(
                        l -> {
                          assertThat(l.get("level").asText()).isEqualTo("DEBUG");
                          assertThat(l.get("logger").asText()).startsWith("dev.kafkamirror.");
                        });
              });
      // And it renewed the Lease all along (every 2 s): the chart's Role lets it (a 403 on the
      // renewal's PATCH made it give up leadership and exit after 10 s)
      assertThat(operator.isAlive())
          .as("the operator exited; log:%n%s", operator.tail(40))
          .isTrue();
      assertThat(jsonLines(log))
          .noneSatisfy(
              l -> {
                assertThat(l.get("logger").asText())
                    .isEqualTo(
                        "io.fabric8.kubernetes.client.extended.leaderelection.LeaderElector");
                assertThat(l.get("level").asText()).isIn("WARN", "ERROR");
              });
      // And its JVM is the image's, as the numeric non-root user, with the container flags
      ProcessHandle java = operator.entrypoint();
      assertThat(runCommand("ps", "-o", "uid=,comm=", "-p", Long.toString(java.pid())).trim())
          .matches("65532\\s+java");
      assertThat(
              Files.readString(Path.of("/proc", Long.toString(java.pid()), "environ")).split("\0"))
          .as("the JVM's environment has the image's MALLOC_ARENA_MAX")
          .contains("MALLOC_ARENA_MAX=2");
      // And a SIGTERM stops it
      assertThat(operator.terminate(Duration.ofSeconds(30)))
          .as("the operator stops on SIGTERM; log:%n%s", operator.tail(30))
          .isTrue();
    }
  }

  @Test
  @Order(2)
  void theDistributionStartsFromItsScriptBecomesReadyAndReconcilesAClusterMirror()
      throws Exception {
    // Given the distribution unpacked
    Path archive = Path.of(System.getProperty("cmo.dist.archive"));
    assertThat(archive).as("the distribution tarball (mvn package)").isRegularFile();
    Path dist = Files.createDirectories(workDir.resolve("dist"));
    Commands.run(
            Duration.ofSeconds(120),
            List.of("tar", "-xzf", archive.toString(), "-C", dist.toString()))
        .requireSuccess();
    Path script;
    try (var found = Files.list(dist)) {
      script = found.findFirst().orElseThrow().resolve("bin/cluster-mirror-operator");
    }
    assertThat(Files.isExecutable(script)).as("%s is executable", script).isTrue();

    // When its start script runs with a kubeconfig and the documented settings
    int health = FreePorts.pick(1).get(0);
    Map<String, String> environment = new LinkedHashMap<>();
    environment.put("PATH", System.getenv("PATH"));
    environment.put("JAVA_HOME", System.getProperty("java.home"));
    environment.put("KUBECONFIG", env.apiServer().kubeconfigFile().toString());
    environment.put("CMO_WATCH_NAMESPACES", DIST_NS);
    environment.put("CMO_POD_NAME", "dist-operator");
    environment.put("CMO_HEALTH_PORT", Integer.toString(health));
    environment.put("CMO_METRICS_PORT", "-1");
    environment.put("CMO_REQUEUE_MS", "500");
    environment.put("CMO_LOG_FORMAT", "plain");
    environment.put("JAVA_OPTS", "-Xmx256m -XX:+UseSerialGC");
    Path log = workDir.resolve("dist-operator.log");
    try (RunningProcess operator =
        RunningProcess.start(List.of(script.toString()), environment, log)) {
      // Then it becomes ready and reconciles a ClusterMirror of its namespace
      awaitReady(operator, health);
      client
          .resource(
              MirrorFixtures.clusterMirror(
                  DIST_NS,
                  "dist-orders",
                  source,
                  source.clusterId(),
                  destination,
                  MirrorState.Mirroring,
                  List.of("dist-orders")))
          .create();
      awaitCondition(operator, DIST_NS, "dist-orders", Conditions.MIRRORING, Conditions.TRUE);
      // And it logs plain text for humans (CMO_LOG_FORMAT=plain), reconcile lines with the resource
      assertThat(Files.readString(log, StandardCharsets.UTF_8))
          .containsPattern(
              "(?m)^\\d{4}-\\d\\d-\\d\\dT[\\d:.]+Z INFO  \\[[^]]+\\] d\\.k\\.o\\.a\\.OperatorMain -"
                  + " cluster-mirror-operator started: identity=dist-operator")
          .containsPattern("(?m)^\\S+ INFO  \\[[^]]+\\] \\S+ \\[dist/dist-orders\\] - ")
          .doesNotContain("{\"timestamp\"");
      // And the script exec'd the JVM (SIGTERM reaches it) and it stops on SIGTERM
      assertThat(
              runCommand("ps", "-o", "comm=", "-p", Long.toString(operator.entrypoint().pid()))
                  .trim())
          .isEqualTo("java");
      assertThat(operator.terminate(Duration.ofSeconds(30)))
          .as("the operator stops on SIGTERM; log:%n%s", operator.tail(30))
          .isTrue();
    }
  }

  /** helm template of the chart in the release namespace, with these arguments (values). */
  private static List<HasMetadata> renderChart(String... arguments) {
    List<String> command =
        new ArrayList<>(
            List.of(
                helm(),
                "template",
                RELEASE,
                System.getProperty("cmo.chart.dir", "../../charts/cluster-mirror-operator"),
                "--namespace",
                RELEASE_NS));
    command.addAll(List.of(arguments));
    String rendered = Commands.run(Duration.ofSeconds(60), command).requireSuccess().stdout();
    return client.load(new ByteArrayInputStream(rendered.getBytes(StandardCharsets.UTF_8))).items();
  }

  private static String helm() {
    return Path.of(
            System.getProperty(
                "cmo.cache.dir",
                System.getProperty("user.home") + "/.cache/cluster-mirror-operator"),
            "bin",
            "helm")
        .toString();
  }

  /** The Deployment's environment as the kubelet resolves it (fieldRefs: namespace, pod name). */
  private static Map<String, String> podEnvironment(Container container) {
    Map<String, String> environment = new LinkedHashMap<>();
    for (EnvVar variable : container.getEnv()) {
      if (variable.getValueFrom() == null) {
        environment.put(variable.getName(), variable.getValue() == null ? "" : variable.getValue());
        continue;
      }
      String field = variable.getValueFrom().getFieldRef().getFieldPath();
      environment.put(
          variable.getName(),
          switch (field) {
            case "metadata.namespace" -> RELEASE_NS;
            case "metadata.name" -> POD;
            default ->
                throw new IllegalStateException(
                    "the chart's env " + variable.getName() + " uses fieldRef " + field);
          });
    }
    return environment;
  }

  /** KUBERNETES_SERVICE_HOST and _PORT, as the kubelet sets them, for this API server. */
  private static Map<String, String> serviceHostAndPort() throws IOException {
    URL url = URI.create(client.getConfiguration().getMasterUrl()).toURL();
    return Map.of(
        "KUBERNETES_SERVICE_HOST", url.getHost(),
        "KUBERNETES_SERVICE_PORT", Integer.toString(url.getPort()));
  }

  /** token, ca.crt and namespace of {@code serviceAccount}, readable by the image's user. */
  private static void mountServiceAccount(Path rootfs, String serviceAccount) throws IOException {
    String token =
        client
            .serviceAccounts()
            .inNamespace(RELEASE_NS)
            .withName(serviceAccount)
            .tokenRequest(
                new TokenRequestBuilder()
                    .withNewSpec()
                    .withExpirationSeconds(3600L)
                    .endSpec()
                    .build())
            .getStatus()
            .getToken();
    Config config = Config.fromKubeconfig(env.apiServer().kubeConfigYaml());
    String ca =
        config.getCaCertData() != null
            ? new String(Base64.getDecoder().decode(config.getCaCertData()), StandardCharsets.UTF_8)
            : Files.readString(Path.of(config.getCaCertFile()), StandardCharsets.UTF_8);
    Path dir = Files.createDirectories(rootfs.resolve(SA_DIR));
    for (Path d = dir; !d.equals(rootfs); d = d.getParent()) {
      Files.setPosixFilePermissions(d, PosixFilePermissions.fromString("rwxr-xr-x"));
    }
    Files.writeString(dir.resolve("token"), token, StandardCharsets.UTF_8);
    Files.writeString(dir.resolve("ca.crt"), ca, StandardCharsets.UTF_8);
    Files.writeString(dir.resolve("namespace"), RELEASE_NS, StandardCharsets.UTF_8);
    for (String file : List.of("token", "ca.crt", "namespace")) {
      Files.setPosixFilePermissions(
          dir.resolve(file), PosixFilePermissions.fromString("rw-r--r--"));
    }
  }

  /**
   * Each ConfigMap volume of the chart's pod, at its container mount path in {@code rootfs} with
   * the ConfigMap's data as files readable by the image's user, as the kubelet mounts it; returns
   * the logging ConfigMap's levels file.
   */
  private static Path mountConfigMaps(Path rootfs, List<HasMetadata> objects, Deployment deployment)
      throws IOException {
    Path levels = null;
    Container container = deployment.getSpec().getTemplate().getSpec().getContainers().get(0);
    for (Volume volume : deployment.getSpec().getTemplate().getSpec().getVolumes()) {
      if (volume.getConfigMap() == null) {
        continue;
      }
      ConfigMap map =
          objects.stream()
              .filter(ConfigMap.class::isInstance)
              .map(ConfigMap.class::cast)
              .filter(m -> m.getMetadata().getName().equals(volume.getConfigMap().getName()))
              .findFirst()
              .orElseThrow(
                  () ->
                      new AssertionError(
                          "the chart mounts ConfigMap "
                              + volume.getConfigMap().getName()
                              + " but renders none"));
      VolumeMount mount =
          container.getVolumeMounts().stream()
              .filter(m -> m.getName().equals(volume.getName()))
              .findFirst()
              .orElseThrow();
      assertThat(mount.getSubPath())
          .as("a subPath mount is never updated by the kubelet: volume %s", volume.getName())
          .isNull();
      Path dir = Files.createDirectories(rootfs.resolve(mount.getMountPath().substring(1)));
      for (Path d = dir; !d.equals(rootfs); d = d.getParent()) {
        Files.setPosixFilePermissions(d, PosixFilePermissions.fromString("rwxr-xr-x"));
      }
      for (Map.Entry<String, String> file : map.getData().entrySet()) {
        Path path = dir.resolve(file.getKey());
        Files.writeString(path, file.getValue(), StandardCharsets.UTF_8);
        Files.setPosixFilePermissions(path, PosixFilePermissions.fromString("rw-r--r--"));
      }
    }
    for (EnvVar variable : container.getEnv()) {
      if (variable.getName().equals("CMO_LOG_LEVELS_FILE")) {
        levels = rootfs.resolve(variable.getValue().substring(1));
      }
    }
    assertThat(levels).as("the chart's CMO_LOG_LEVELS_FILE").isNotNull().isRegularFile();
    return levels;
  }

  /** New content in a new file renamed over the old one: an atomic swap, a new mtime. */
  private static void replaceAsTheKubeletDoes(Path file, String content) throws IOException {
    Path next = file.resolveSibling(".." + file.getFileName() + ".next");
    Files.writeString(next, content, StandardCharsets.UTF_8);
    Files.setPosixFilePermissions(next, PosixFilePermissions.fromString("rw-r--r--"));
    Files.setLastModifiedTime(
        next,
        java.nio.file.attribute.FileTime.from(
            Files.getLastModifiedTime(file).toInstant().plusSeconds(2)));
    Files.move(
        next,
        file,
        java.nio.file.StandardCopyOption.REPLACE_EXISTING,
        java.nio.file.StandardCopyOption.ATOMIC_MOVE);
  }

  /** The operator's log, each line parsed as a JSON object (fails on a line that is not one). */
  private static List<JsonNode> jsonLines(Path log) throws IOException {
    List<JsonNode> lines = new ArrayList<>();
    for (String line : Files.readAllLines(log, StandardCharsets.UTF_8)) {
      if (line.isBlank()) {
        continue;
      }
      try {
        lines.add(JSON.readTree(line));
      } catch (IOException e) {
        throw new AssertionError("not a JSON line of the operator's log: " + line, e);
      }
    }
    return lines;
  }

  private static void awaitReady(RunningProcess operator, int healthPort) {
    HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();
    HttpRequest readyz =
        HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + healthPort + "/readyz"))
            .timeout(Duration.ofSeconds(5))
            .build();
    await()
        .atMost(READY_WITHIN)
        .pollInterval(Duration.ofMillis(500))
        .untilAsserted(
            () -> {
              assertThat(operator.isAlive())
                  .as("the operator exited; log:%n%s", operator.tail(40))
                  .isTrue();
              int status;
              try {
                status = http.send(readyz, HttpResponse.BodyHandlers.discarding()).statusCode();
              } catch (IOException e) {
                status = -1;
              }
              assertThat(status).as("GET /readyz on port %d", healthPort).isEqualTo(200);
            });
  }

  private static void awaitCondition(
      RunningProcess operator, String ns, String name, String type, String value) {
    await()
        .atMost(RECONCILED_WITHIN)
        .pollInterval(Duration.ofMillis(300))
        .untilAsserted(
            () -> {
              assertThat(operator.isAlive())
                  .as("the operator exited; log:%n%s", operator.tail(40))
                  .isTrue();
              ClusterMirror cr =
                  client.resources(ClusterMirror.class).inNamespace(ns).withName(name).get();
              assertThat(cr.getStatus())
                  .as("status of %s/%s; operator log:%n%s", ns, name, operator.tail(20))
                  .isNotNull();
              Condition c = Conditions.find(cr.getStatus(), type).orElse(null);
              assertThat(c)
                  .as("condition %s of %s/%s in %s", type, ns, name, cr.getStatus().getConditions())
                  .isNotNull();
              assertThat(c.getStatus())
                  .as("%s: %s %s", type, c.getReason(), c.getMessage())
                  .isEqualTo(value);
            });
  }

  private static String runCommand(String... command) {
    return Commands.run(Duration.ofSeconds(30), List.of(command)).requireSuccess().stdout();
  }

  /**
   * A started process (the outer one of a container, or a start script that execs the JVM) whose
   * output goes to a log file; registered with the {@link ProcessReaper}, killed with its tree on
   * {@link #close()}.
   */
  private static final class RunningProcess implements AutoCloseable {
    private final Process process;
    private final Path log;

    private RunningProcess(Process process, Path log) {
      this.process = process;
      this.log = log;
    }

    static RunningProcess start(List<String> command, Map<String, String> environment, Path log)
        throws IOException {
      ProcessBuilder builder = new ProcessBuilder(command);
      builder.environment().clear();
      builder.environment().putAll(environment);
      builder.redirectErrorStream(true);
      builder.redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile()));
      Process process = builder.start();
      ProcessReaper.instance().register(process.toHandle());
      return env.register(new RunningProcess(process, log));
    }

    boolean isAlive() {
      return process.isAlive();
    }

    /** The JVM: the deepest process of the tree (the process itself when it exec'd java). */
    ProcessHandle entrypoint() {
      ProcessHandle deepest = process.toHandle();
      for (ProcessHandle child = deepest; child != null; ) {
        deepest = child;
        child = child.children().findFirst().orElse(null);
      }
      return deepest;
    }

    /**
     * SIGTERM to the entrypoint, as a kubelet's runtime sends it to the container's PID 1, then
     * wait until every process of the tree is gone. (Not to the outer process: {@code unshare
     * --fork} ignores SIGTERM while its child runs, so an operator that did not exit by itself
     * would never get it.)
     */
    boolean terminate(Duration within) throws InterruptedException {
      List<ProcessHandle> tree = new ArrayList<>();
      process.toHandle().descendants().forEach(tree::add);
      entrypoint().destroy();
      long deadline = System.nanoTime() + within.toNanos();
      for (ProcessHandle handle : tree) {
        long left = deadline - System.nanoTime();
        try {
          handle.onExit().get(Math.max(0, left), TimeUnit.NANOSECONDS);
        } catch (java.util.concurrent.ExecutionException
            | java.util.concurrent.TimeoutException e) {
          return false;
        }
      }
      return process.waitFor(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
    }

    String tail(int lines) {
      try {
        List<String> all = Files.readAllLines(log, StandardCharsets.UTF_8);
        return String.join("\n", all.subList(Math.max(0, all.size() - lines), all.size()));
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    }

    @Override
    public void close() {
      ProcessReaper.killTree(process.toHandle());
      ProcessReaper.instance().unregister(process.toHandle());
    }
  }
}
