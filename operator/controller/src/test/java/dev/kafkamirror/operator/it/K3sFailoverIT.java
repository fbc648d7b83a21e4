package dev.kafkamirror.operator.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.kafkamirror.operator.api.v1alpha1.ClusterMirror;
import dev.kafkamirror.operator.api.v1alpha1.ClusterMirrorStatus;
import dev.kafkamirror.operator.api.v1alpha1.Condition;
import dev.kafkamirror.operator.api.v1alpha1.Conditions;
import dev.kafkamirror.operator.api.v1alpha1.MirrorState;
import dev.kafkamirror.testing.failover.FailoverChecker;
import dev.kafkamirror.testing.failover.LedgerWrites;
import dev.kafkamirror.testing.failover.WriteLedger;
import dev.kafkamirror.testing.kafka.KafkaCluster;
import dev.kafkamirror.testing.kafka.KafkaClusterConfig;
import dev.kafkamirror.testing.process.Commands;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import java.io.InputStream;
import java.net.InetAddress;
import java.net.NetworkInterface;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.testcontainers.DockerClientFactory;
import org.testcontainers.containers.Container.ExecResult;
import org.testcontainers.k3s.K3sContainer;
import org.testcontainers.utility.DockerImageName;
import org.testcontainers.utility.MountableFile;

/**
 * The operator as a user deploys it, in a real Kubernetes (k3s in Docker, through Testcontainers):
 * the image the build wrote ({@code target/jib-image.tar}) imported into k3s's containerd, the CRD
 * applied server-side as {@code docs/install.md} says, the Helm chart installed with {@code helm
 * install --wait}, and a failover of a ClusterMirror against real brokers, verified by the {@link
 * FailoverChecker}.
 *
 * <p>The brokers run on this machine, not in k3s: each binds and advertises its client listener and
 * its plugin control listener on the Docker bridge gateway, the host's own address on the network
 * the k3s container is attached to, so the operator's pod (its traffic masqueraded through the k3s
 * container) and this JVM reach the same advertised addresses. On an engine whose gateway is not an
 * address of this machine (Docker Desktop's VM, a remote engine) that cannot work, and the test
 * says so and skips.
 *
 * <p>Skipped, with the reason in the test report, where no Docker engine exists (as on the
 * project's build machines); the check costs well under a second. The k3s image is {@value
 * #K3S_IMAGE} unless {@code -Dcmo.k3s.image} names another. Everything it starts (k3s, two
 * clusters) is stopped in {@link #stop()}, also after a failure.
 */
class K3sFailoverIT {

  static final String K3S_IMAGE = "rancher/k3s:v1.32.3-k3s1";
  private static final String RELEASE = "cmo";
  private static final String NS = "mirror-system";
  private static final String TOPIC = "k3s-orders";
  private static final int PARTITIONS = 2;
  private static final Duration WAIT = Duration.ofMinutes(3);

  private static K3sContainer k3s;
  private static KubernetesClient client;
  private static KafkaCluster source;
  private static KafkaCluster destination;
  private static Path kubeconfig;
  private static Path image;

  private static final String NO_DOCKER =
      "no Docker engine found (Testcontainers looked at DOCKER_HOST, /var/run/docker.sock and"
          + " ~/.testcontainers.properties): K3sFailoverIT needs one to run k3s, so it is"
          + " skipped; run it where Docker runs to test the image and the chart in k3s";

  private static String skipReason;

  @BeforeAll
  static void start() throws Exception {
    if (!DockerClientFactory.instance().isDockerAvailable()) {
      // Nothing to start; each test reports itself skipped with the reason (see skipWithout...).
      skipReason = NO_DOCKER;
      return;
    }
    assertThat(System.getProperty("cmo.image.skip", "false"))
        .as("the image was not built (-Dcmo.image.skip=true), so k3s cannot run it")
        .isEqualTo("false");
    image = Path.of(System.getProperty("cmo.image.tarball", "target/jib-image.tar"));
    assertThat(image).as("the operator image tarball Jib writes").isRegularFile();

    // k3s first: its network's gateway is the address the brokers must advertise
    k3s = new K3sContainer(DockerImageName.parse(System.getProperty("cmo.k3s.image", K3S_IMAGE)));
    k3s.start();
    String gateway = bridgeGateway();
    if (!isAddressOfThisMachine(gateway)) {
      skipReason =
          "the Docker network's gateway "
              + gateway
              + " is not an address of this machine (Docker Desktop or a remote engine), so"
              + " brokers here cannot be advertised where the k3s pods reach them;"
              + " K3sFailoverIT is skipped";
      return;
    }
    kubeconfig = Files.createTempFile("k3s-kubeconfig", ".yaml");
    Files.writeString(kubeconfig, k3s.getKubeConfigYaml(), StandardCharsets.UTF_8);
    client =
        new KubernetesClientBuilder()
            .withConfig(Config.fromKubeconfig(k3s.getKubeConfigYaml()))
            .build();

    source = KafkaClusterConfig.builder("k3s-a").singleNode().listenerHost(gateway).start();
    destination = MirrorFixtures.destination("k3s-b").singleNode().listenerHost(gateway).start();
  }

  /**
   * An assumption per test rather than in {@link #start()}: a failed assumption in a
   * {@code @BeforeAll} leaves the report at "Tests run: 0", one here shows the test as skipped with
   * the reason.
   */
  @BeforeEach
  void skipWithoutAReachableDockerEngine() {
    Assumptions.assumeTrue(skipReason == null, () -> skipReason);
  }

  @AfterAll
  static void stop() throws Exception {
    if (client != null) {
      client.close();
    }
    for (AutoCloseable c : new AutoCloseable[] {destination, source}) {
      if (c != null) {
        c.close();
      }
    }
    if (k3s != null) {
      k3s.stop();
    }
    if (kubeconfig != null) {
      Files.deleteIfExists(kubeconfig);
    }
  }

  @Test
  void theImageInstalledByTheChartInK3sFailsOverAMirrorWithEveryCommittedRecordOnce()
      throws Exception {
    // Given the operator image imported into k3s's containerd (no registry involved)
    k3s.copyFileToContainer(MountableFile.forHostPath(image), "/tmp/cmo-image.tar");
    ExecResult imported =
        k3s.execInContainer("ctr", "-n", "k8s.io", "images", "import", "/tmp/cmo-image.tar");
    assertThat(imported.getExitCode()).as("ctr images import: %s", imported).isZero();
    assertThat(imported.getStdout() + imported.getStderr())
        .contains(System.getProperty("cmo.image.reference"));

    // And the CRD applied server-side, then the release namespace with the control Secret
    applyCrdServerSide();
    MirrorFixtures.namespaceWithSecret(client, NS);

    // When the chart is installed with its default image, never pulled
    Commands.run(
            Duration.ofMinutes(6),
            List.of(
                helm(),
                "install",
                RELEASE,
                System.getProperty("cmo.chart.dir", "../../charts/cluster-mirror-operator"),
                "--kubeconfig",
                kubeconfig.toString(),
                "--namespace",
                NS,
                "--set",
                "replicas=1,image.pullPolicy=Never",
                "--wait",
                "--timeout",
                "5m"))
        .requireSuccess();

    // Then its Deployment is ready, as the image's non-root user
    Deployment deployment =
        client
            .apps()
            .deployments()
            .inNamespace(NS)
            .withName(RELEASE + "-cluster-mirror-operator")
            .get();
    assertThat(deployment.getStatus().getReadyReplicas()).isEqualTo(1);

    // Given records on A (idempotent, committed, aborted, one transaction left open), mirrored to B
    source.createTopic(TOPIC, PARTITIONS, 1, Map.of());
    WriteLedger ledger = new WriteLedger();
    LedgerWrites.idempotent(ledger, source.bootstrapServers(), TOPIC, PARTITIONS, 5, "k3s");
    LedgerWrites.transactions(ledger, source.bootstrapServers(), TOPIC, PARTITIONS, 3, 2, "k3s");
    client
        .resource(
            MirrorFixtures.clusterMirror(
                NS,
                "k3s-orders",
                source,
                source.clusterId(),
                destination,
                MirrorState.Mirroring,
                List.of(TOPIC)))
        .create();
    try (KafkaProducer<String, String> open =
        LedgerWrites.openTransaction(ledger, source.bootstrapServers(), TOPIC, PARTITIONS, "k3s")) {
      FailoverChecker.recordProducerIds(ledger, source, TOPIC, PARTITIONS);
      awaitCondition(Conditions.MIRRORING, Conditions.TRUE);
      awaitCaughtUp();

      // When A is lost and the ClusterMirror is set to Stopped
      source.killBroker(source.brokerIds().get(0));
      client
          .resources(ClusterMirror.class)
          .inNamespace(NS)
          .withName("k3s-orders")
          .edit(
              cr -> {
                cr.getSpec().setState(MirrorState.Stopped);
                return cr;
              });

      // Then the operator in k3s reports Stopped=True
      awaitCondition(Conditions.STOPPED, Conditions.TRUE);
      open.close(Duration.ZERO);
    }

    // And B holds none of A's producer state, a colliding new producer writes safely, and every
    // committed record is read once at its offset
    FailoverChecker checker = FailoverChecker.of(destination, ledger).withPlugin();
    checker.producerStateReset(TOPIC, PARTITIONS).assertOk();
    Set<Long> collided = checker.writeWithCollidingProducer(TOPIC, PARTITIONS, "k3s-b", 10);
    assertThat(collided).as("a new producer on B whose producer id A used").isNotEmpty();
    checker.verifyRecords(TOPIC).assertOk();
  }

  /** kubectl apply --server-side of the generated CRD, as docs/install.md installs it. */
  private static void applyCrdServerSide() throws Exception {
    Path crd =
        Path.of(System.getProperty("cmo.crds.dir", "../../crds"))
            .resolve("clustermirrors.kafkamirror.dev-v1.yml");
    try (InputStream in = Files.newInputStream(crd)) {
      var definitions = client.apiextensions().v1().customResourceDefinitions();
      definitions.resource(definitions.load(in).item()).forceConflicts().serverSideApply();
    }
    // Established can come a moment before the group's REST path serves lists.
    await()
        .atMost(Duration.ofSeconds(60))
        .pollInterval(Duration.ofMillis(200))
        .ignoreExceptions()
        .until(
            () -> {
              client.resources(ClusterMirror.class).inAnyNamespace().list();
              return true;
            });
  }

  /** The gateway of the (first) network the k3s container is attached to. */
  private static String bridgeGateway() {
    return k3s.getContainerInfo().getNetworkSettings().getNetworks().values().stream()
        .map(n -> n.getGateway())
        .filter(g -> g != null && !g.isBlank())
        .findFirst()
        .orElseThrow(
            () ->
                new IllegalStateException(
                    "the k3s container "
                        + k3s.getContainerId()
                        + " has no network gateway; attach it to a bridge network"));
  }

  private static boolean isAddressOfThisMachine(String address) throws Exception {
    return NetworkInterface.getByInetAddress(InetAddress.getByName(address)) != null;
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

  private static void awaitCondition(String type, String value) {
    await()
        .atMost(WAIT)
        .pollInterval(Duration.ofMillis(500))
        .untilAsserted(
            () -> {
              ClusterMirror cr =
                  client
                      .resources(ClusterMirror.class)
                      .inNamespace(NS)
                      .withName("k3s-orders")
                      .get();
              ClusterMirrorStatus s = cr == null ? null : cr.getStatus();
              assertThat(s)
                  .as("status of k3s-orders; operator log:%n%s", operatorLog())
                  .isNotNull();
              Condition c = Conditions.find(s, type).orElse(null);
              assertThat(c).as("%s in %s", type, s.getConditions()).isNotNull();
              assertThat(c.getStatus())
                  .as(
                      "%s: %s %s; operator log:%n%s",
                      type, c.getReason(), c.getMessage(), operatorLog())
                  .isEqualTo(value);
            });
  }

  private static String operatorLog() {
    try {
      return client
          .apps()
          .deployments()
          .inNamespace(NS)
          .withName(RELEASE + "-cluster-mirror-operator")
          .getLog();
    } catch (RuntimeException e) {
      return "(operator log unavailable: " + e.getMessage() + ")";
    }
  }

  private static void awaitCaughtUp() {
    await()
        .atMost(WAIT)
        .pollInterval(Duration.ofMillis(500))
        .ignoreExceptions()
        .untilAsserted(() -> assertThat(logEnds(destination)).isEqualTo(logEnds(source)));
  }

  private static Map<Integer, Long> logEnds(KafkaCluster cluster) throws Exception {
    Map<TopicPartition, OffsetSpec> latest = new HashMap<>();
    for (int p = 0; p < PARTITIONS; p++) {
      latest.put(new TopicPartition(TOPIC, p), OffsetSpec.latest());
    }
    Map<Integer, Long> out = new TreeMap<>();
    try (Admin admin = cluster.admin()) {
      admin
          .listOffsets(latest)
          .all()
          .get(30, TimeUnit.SECONDS)
          .forEach((tp, info) -> out.put(tp.partition(), info.offset()));
    }
    return out;
  }
}
