package dev.kafkamirror.operator.api;

import static org.assertj.core.api.Assertions.assertThat;

import dev.kafkamirror.testing.kube.KubeApiServerHarness;
import dev.kafkamirror.testing.process.Commands;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The Helm chart: lint-clean, its values schema refuses bad values, and what it renders (CRD
 * included) is accepted by a real kube-apiserver (server-side dry run through kubectl).
 */
class HelmChartIT {

  private static KubeApiServerHarness apiServer;
  private static final Path CHART =
      Path.of(System.getProperty("cmo.chart.dir", "../../charts/cluster-mirror-operator"));

  @BeforeAll
  static void start() {
    apiServer = KubeApiServerHarness.start();
  }

  @AfterAll
  static void stop() {
    if (apiServer != null) {
      apiServer.close();
    }
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

  private static Commands.Result kubectl(String... args) {
    List<String> command =
        new java.util.ArrayList<>(
            List.of(
                KubeApiServerHarness.kubectl().toString(),
                "--kubeconfig",
                apiServer.kubeconfigFile().toString()));
    command.addAll(List.of(args));
    return Commands.run(Duration.ofSeconds(60), command);
  }

  @Test
  void theChartLintsRendersAndIsAcceptedByARealApiServer() throws Exception {
    // Given a lint-clean chart
    Commands.Result lint =
        Commands.run(Duration.ofSeconds(60), List.of(helm(), "lint", "--strict", CHART.toString()))
            .requireSuccess();
    assertThat(lint.stdout()).contains("0 chart(s) failed");

    // When it is rendered for two watched namespaces, CRD included
    Commands.Result rendered =
        Commands.run(
                Duration.ofSeconds(60),
                List.of(
                    helm(),
                    "template",
                    "rel",
                    CHART.toString(),
                    "--namespace",
                    "mirror-system",
                    "--include-crds",
                    "--set",
                    "watchNamespaces={team-a,team-b}"))
            .requireSuccess();
    Path manifests = Files.createTempFile("cmo-chart-", ".yaml");
    Files.writeString(manifests, rendered.stdout(), StandardCharsets.UTF_8);

    // Then the real API server accepts every object (the CRD for real, the rest as a server-side
    // dry run)
    for (String ns : List.of("mirror-system", "team-a", "team-b")) {
      kubectl("create", "namespace", ns).requireSuccess();
    }
    kubectl("apply", "-f", CHART.resolve("crds").toString()).requireSuccess();
    Commands.Result dryRun =
        kubectl("apply", "--dry-run=server", "-f", manifests.toString()).requireSuccess();
    assertThat(dryRun.stdout())
        .contains("deployment.apps/rel-cluster-mirror-operator created (server dry run)")
        .contains(
            "role.rbac.authorization.k8s.io/rel-cluster-mirror-operator created (server dry run)")
        .contains("service/rel-cluster-mirror-operator-metrics created (server dry run)");
    assertThat(rendered.stdout()).contains("namespace: team-a").contains("namespace: team-b");
    Files.delete(manifests);
  }

  @Test
  void theValuesSchemaRefusesBadValues() {
    for (Map.Entry<String, String> bad :
        Map.of(
                "replicas=0", "replicas",
                "metrics.port=99999", "port",
                "unknownKey=1", "unknownKey",
                "watchNamespaces={Bad_Namespace}", "watchNamespaces")
            .entrySet()) {
      Commands.Result result =
          Commands.run(
              Duration.ofSeconds(60),
              List.of(helm(), "template", "rel", CHART.toString(), "--set", bad.getKey()));
      assertThat(result.exitCode()).as(bad.getKey()).isNotZero();
      assertThat(result.stderr())
          .as(bad.getKey())
          .contains("values don't meet the specifications")
          .contains(bad.getValue());
    }
  }
}
