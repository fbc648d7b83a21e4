package dev.kafkamirror.operator.it;

import static org.assertj.core.api.Assertions.assertThat;

import dev.kafkamirror.operator.api.v1alpha1.BrokerControlEndpoint;
import dev.kafkamirror.operator.api.v1alpha1.ClusterMirror;
import dev.kafkamirror.operator.api.v1alpha1.Conditions;
import dev.kafkamirror.testing.kafka.KafkaCluster;
import dev.kafkamirror.testing.kube.KubeApiServerHarness;
import dev.kafkamirror.testing.plugin.PluginControlClient;
import dev.kafkamirror.testing.process.Commands;
import dev.kafkamirror.testing.process.ProcessReaper;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * What a user does, with the real kubectl against the real API server: apply the CRD and the
 * samples, watch {@code kubectl get clustermirror -w}, fail over with {@code kubectl patch}, and
 * {@code kubectl wait --for=condition=Stopped}. The operator runs as its own process.
 */
class KubectlUserJourneyIT {

  private static final String NS = "default";

  private OperatorTestEnvironment env;
  private KubernetesClient client;
  private KafkaCluster source;
  private KafkaCluster destination;
  private OperatorProcess operator;

  @AfterEach
  void stopEverything() {
    if (env != null) {
      env.close();
    }
  }

  @Test
  void applyWatchPatchAndWaitShowTheFailoverAsAUserSeesIt() throws Exception {
    // Given the CRD and every sample accepted by the real API server
    env = OperatorTestEnvironment.start();
    client = env.client();
    Path samples = Path.of(System.getProperty("cmo.samples.dir", "../../samples"));
    Path crds = Path.of(System.getProperty("cmo.crds.dir", "../../crds"));
    kubectl(
        Duration.ofSeconds(60),
        "apply",
        "-f",
        crds.resolve("clustermirrors.kafkamirror.dev-v1.yml").toString());
    KubeApiServerHarness.awaitCrdsEstablished(
        env.apiServer().kubeconfigFile(), Duration.ofSeconds(30), "clustermirrors.kafkamirror.dev");
    kubectl(Duration.ofSeconds(60), "apply", "--dry-run=server", "-f", samples.toString());

    // And real clusters with an operator process
    source = env.startSource("user-a");
    destination = env.startDestination("user-b");
    source.createTopic("orders", 3, 1, Map.of());
    List<String> committed = SourceData.write(source, "orders", 3, 5, 5, "user");
    operator =
        env.newOperatorProcess(
            "operator-user",
            Map.of("CMO_WATCH_NAMESPACES", NS, "CMO_REQUEUE_MS", "500", "CMO_RESYNC_MS", "2000"));
    operator.start();
    Path watchOut = Files.createTempFile("cmo-watch-", ".txt");
    Process watch =
        new ProcessBuilder(kubectlCommand("get", "clustermirror", "-w"))
            .redirectErrorStream(true)
            .redirectOutput(watchOut.toFile())
            .start();
    env.register(() -> ProcessReaper.killTree(watch.toHandle()));
    ProcessReaper.instance().register(watch.toHandle());

    // When the user applies the control Secret and the sample, with this test's addresses filled in
    kubectl(
        Duration.ofSeconds(60), "apply", "-f", samples.resolve("control-secret.yaml").toString());
    Path rendered = render(samples.resolve("clustermirror.yaml"));
    kubectl(Duration.ofSeconds(60), "apply", "-f", rendered.toString());
    kubectl(
        Duration.ofSeconds(150),
        "wait",
        "--for=condition=" + Conditions.MIRRORING,
        "--timeout=120s",
        "clustermirror/orders");
    String listed = kubectl(Duration.ofSeconds(30), "get", "cmirror", "orders").stdout();

    // And fails over
    kubectl(
        Duration.ofSeconds(30),
        "patch",
        "clustermirror",
        "orders",
        "--type",
        "merge",
        "-p",
        "{\"spec\":{\"state\":\"Stopped\"}}");
    Commands.Result waited =
        kubectl(
            Duration.ofSeconds(150),
            "wait",
            "--for=condition=" + Conditions.STOPPED,
            "--timeout=120s",
            "clustermirror/orders");

    // Then kubectl wait returned, the short name lists the columns, and the watch showed the
    // transition
    assertThat(waited.stdout()).contains("condition met");
    // (the observed state first, AGE last: NAME, READY, PHASE, STOPPED, MAX LAG, AGE)
    List<String> listedLines = listed.lines().toList();
    assertThat(listedLines).as(listed).hasSize(2);
    assertThat(listedLines.get(0).trim().split("\\s{2,}"))
        .as(listed)
        .containsExactly("NAME", "READY", "PHASE", "STOPPED", "MAX LAG", "AGE");
    assertThat(listedLines.get(1).trim().split("\\s+"))
        .as(listed)
        .startsWith("orders", "True", "Mirroring", "0/3");
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
    String watched = "";
    while (System.nanoTime() < deadline
        && !(watched = Files.readString(watchOut, StandardCharsets.UTF_8)).contains("3/3")) {
      Thread.sleep(200);
    }
    System.out.println("kubectl get clustermirror -w:\n" + watched);
    assertThat(
            watched
                .lines()
                .filter(l -> l.startsWith("NAME"))
                .findFirst()
                .orElse("")
                .trim()
                .split("\\s{2,}"))
        .as(watched)
        .containsExactly("NAME", "READY", "PHASE", "STOPPED", "MAX LAG", "AGE");
    assertThat(watched.lines().filter(l -> l.startsWith("orders")).toList())
        .anySatisfy(l -> assertThat(l).contains("Mirroring", "0/3"))
        .anySatisfy(l -> assertThat(l).contains("Stopped", "3/3"));
    String described =
        kubectl(Duration.ofSeconds(30), "describe", "clustermirror", "orders").stdout();
    assertThat(described).contains("AllPartitionsStopped");
    assertThat(committed).isNotEmpty();
  }

  /** The sample with this test's source, destination and control endpoints put in. */
  private Path render(Path sample) throws Exception {
    ClusterMirror cr;
    try (var in = Files.newInputStream(sample)) {
      cr = client.getKubernetesSerialization().unmarshal(in, ClusterMirror.class);
    }
    cr.getSpec().getSource().setBootstrapServers(source.bootstrapServers());
    cr.getSpec().getSource().setClusterId(source.clusterId());
    cr.getSpec().getDestination().setBootstrapServers(destination.bootstrapServers());
    String first = destination.listenerOf(1, PluginControlClient.LISTENER_PROPERTY);
    cr.getSpec()
        .getDestination()
        .getControl()
        .setPort(Integer.parseInt(first.substring(first.lastIndexOf(':') + 1)));
    List<BrokerControlEndpoint> endpoints = new ArrayList<>();
    for (int id : destination.brokerIds()) {
      endpoints.add(
          new BrokerControlEndpoint(
              id, destination.listenerOf(id, PluginControlClient.LISTENER_PROPERTY)));
    }
    cr.getSpec().getDestination().getControl().setBrokerEndpoints(endpoints);
    // The sample's Secret holds a placeholder; the test brokers use the test secret.
    client
        .secrets()
        .inNamespace(NS)
        .withName("destination-control")
        .edit(
            s -> {
              s.setData(null);
              s.setStringData(Map.of("secret", PluginControlClient.TEST_SECRET));
              return s;
            });
    Path out = Files.createTempFile("cmo-sample-", ".yaml");
    Files.writeString(out, client.getKubernetesSerialization().asYaml(cr), StandardCharsets.UTF_8);
    return out;
  }

  private List<String> kubectlCommand(String... args) {
    List<String> command = new ArrayList<>();
    command.add(KubeApiServerHarness.kubectl().toString());
    command.add("--kubeconfig");
    command.add(env.apiServer().kubeconfigFile().toString());
    command.add("-n");
    command.add(NS);
    command.addAll(List.of(args));
    return command;
  }

  private Commands.Result kubectl(Duration timeout, String... args) {
    Commands.Result r = Commands.run(timeout, kubectlCommand(args));
    assertThat(r.exitCode())
        .as("%s%noperator log:%n%s", r, operator == null ? "" : operator.tail(40))
        .isZero();
    return r;
  }
}
