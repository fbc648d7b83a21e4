package dev.kafkamirror.operator.api;

import static org.assertj.core.api.Assertions.assertThat;

import dev.kafkamirror.testing.kube.KubeApiServerHarness;
import dev.kafkamirror.testing.process.Commands;
import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.EnvVar;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.PodSpec;
import io.fabric8.kubernetes.api.model.Volume;
import io.fabric8.kubernetes.api.model.VolumeMount;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.api.model.policy.v1.PodDisruptionBudget;
import io.fabric8.kubernetes.api.model.rbac.ClusterRole;
import io.fabric8.kubernetes.api.model.rbac.ClusterRoleBinding;
import io.fabric8.kubernetes.api.model.rbac.PolicyRule;
import io.fabric8.kubernetes.api.model.rbac.Role;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.io.ByteArrayInputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The Helm chart: lint-clean, its values schema refuses bad values, and what it renders (CRD
 * included) is accepted by a real kube-apiserver (server-side dry run through kubectl).
 */
class HelmChartIT {

  private static KubeApiServerHarness apiServer;
  private static KubernetesClient client;
  private static final Path CHART =
      Path.of(System.getProperty("cmo.chart.dir", "../../charts/cluster-mirror-operator"));

  @BeforeAll
  static void start() {
    apiServer = KubeApiServerHarness.start();
    client = apiServer.newClient();
  }

  @AfterAll
  static void stop() {
    if (client != null) {
      client.close();
    }
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
                "watchNamespaces={Bad_Namespace}", "watchNamespaces",
                "logFormat=xml", "logFormat",
                "logLevels.org\\.apache\\.kafka=LOUD", "logLevels",
                "logLevelsRefreshSeconds=0", "logLevelsRefreshSeconds")
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

  @Test
  void byDefaultItWatchesTheReleaseNamespaceWithARoleThatOnlyGetsSecrets() {
    // When the chart is rendered with its defaults
    List<HasMetadata> objects = render();

    // Then the image is <repository>:<appVersion>, the one the build tags (operator/controller)
    Container container = container(objects);
    assertThat(container.getImage())
        .isEqualTo("ghcr.io/kafkamirror/cluster-mirror-operator:" + appVersion());
    // And it watches the release namespace only, through a Role there, which only gets Secrets
    assertThat(env(container, "CMO_WATCH_NAMESPACES")).isEqualTo("mirror-system");
    assertThat(of(objects, ClusterRole.class)).isEmpty();
    Role role =
        of(objects, Role.class).stream()
            .filter(r -> r.getMetadata().getName().equals("rel-cluster-mirror-operator"))
            .findFirst()
            .orElseThrow();
    assertThat(role.getMetadata().getNamespace()).isEqualTo("mirror-system");
    assertThat(secretsRule(role.getRules()).getVerbs()).containsExactly("get");
    // And a PodDisruptionBudget lets at most one of the two replicas go, no ServiceMonitor, no
    // pull secrets, a numeric non-root user
    PodDisruptionBudget pdb = of(objects, PodDisruptionBudget.class).get(0);
    assertThat(pdb.getSpec().getMaxUnavailable().getIntVal()).isEqualTo(1);
    assertThat(pdb.getSpec().getSelector().getMatchLabels())
        .isEqualTo(deployment(objects).getSpec().getSelector().getMatchLabels());
    assertThat(kinds(objects)).doesNotContain("ServiceMonitor");
    PodSpec pod = deployment(objects).getSpec().getTemplate().getSpec();
    assertThat(pod.getImagePullSecrets()).isEmpty();
    assertThat(pod.getSecurityContext().getRunAsUser()).isEqualTo(65532L);
    assertThat(pod.getSecurityContext().getRunAsNonRoot()).isTrue();
  }

  @Test
  void eachOptionRendersWhatItPromises() {
    // When every option is set
    List<HasMetadata> objects =
        render(
            "--set",
            "image.tag=1.2.3,imagePullSecrets[0].name=regcred,podAnnotations.team=payments,"
                + "podLabels.tier=platform,resources.limits.memory=1Gi,"
                + "podDisruptionBudget.maxUnavailable=0,metrics.serviceMonitor.enabled=true,"
                + "metrics.serviceMonitor.interval=15s,metrics.serviceMonitor.labels.release=prom",
            "--set-string",
            "extraEnv[0].name=CMO_RESYNC_MS,extraEnv[0].value=60000,"
                + "extraEnv[1].name=JAVA_TOOL_OPTIONS,extraEnv[1].value=-Xss512k",
            "--api-versions",
            "monitoring.coreos.com/v1/ServiceMonitor");

    // Then each shows up where Kubernetes reads it
    Deployment deployment = deployment(objects);
    PodSpec pod = deployment.getSpec().getTemplate().getSpec();
    Container container = container(objects);
    assertThat(container.getImage()).isEqualTo("ghcr.io/kafkamirror/cluster-mirror-operator:1.2.3");
    assertThat(pod.getImagePullSecrets()).extracting(r -> r.getName()).containsExactly("regcred");
    assertThat(deployment.getSpec().getTemplate().getMetadata().getAnnotations())
        .containsEntry("team", "payments");
    assertThat(deployment.getSpec().getTemplate().getMetadata().getLabels())
        .containsEntry("tier", "platform")
        .containsAllEntriesOf(deployment.getSpec().getSelector().getMatchLabels());
    assertThat(deployment.getSpec().getSelector().getMatchLabels()).doesNotContainKey("tier");
    assertThat(container.getResources().getLimits().get("memory").toString()).isEqualTo("1Gi");
    assertThat(env(container, "CMO_RESYNC_MS")).isEqualTo("60000");
    assertThat(env(container, "JAVA_TOOL_OPTIONS")).isEqualTo("-Xss512k");
    assertThat(
            of(objects, PodDisruptionBudget.class).get(0).getSpec().getMaxUnavailable().getIntVal())
        .isZero();
    GenericKubernetesResource monitor =
        objects.stream()
            .filter(o -> o.getKind().equals("ServiceMonitor"))
            .map(GenericKubernetesResource.class::cast)
            .findFirst()
            .orElseThrow();
    assertThat(monitor.getMetadata().getLabels()).containsEntry("release", "prom");
    assertThat(monitor.get("spec", "endpoints", 0, "port").toString()).isEqualTo("metrics");
    assertThat(monitor.get("spec", "endpoints", 0, "interval").toString()).isEqualTo("15s");

    // And with the PodDisruptionBudget off there is none
    assertThat(kinds(render("--set", "podDisruptionBudget.enabled=false")))
        .doesNotContain("PodDisruptionBudget");
  }

  @Test
  void logsAreJsonByDefaultWithLevelsInAConfigMapTheRunningOperatorReReads() {
    // When the chart is rendered with its defaults
    List<HasMetadata> objects = render();

    // Then the operator logs JSON and reads its levels from the logging ConfigMap's file
    Container container = container(objects);
    assertThat(env(container, "CMO_LOG_FORMAT")).isEqualTo("json");
    String levelsFile = env(container, "CMO_LOG_LEVELS_FILE");
    assertThat(levelsFile).isEqualTo("/etc/cluster-mirror-operator/logging/levels.properties");
    // And no level in the environment: changing it there would restart the pods
    assertThat(container.getEnv()).noneMatch(e -> e.getName().equals("CMO_LOG_LEVEL"));
    // And the ConfigMap is mounted as a directory (the kubelet never updates a subPath mount) at
    // the file's directory
    Deployment deployment = deployment(objects);
    Volume volume =
        deployment.getSpec().getTemplate().getSpec().getVolumes().stream()
            .filter(v -> v.getConfigMap() != null)
            .findFirst()
            .orElseThrow();
    assertThat(volume.getConfigMap().getName()).isEqualTo("rel-cluster-mirror-operator-logging");
    VolumeMount mount =
        container.getVolumeMounts().stream()
            .filter(m -> m.getName().equals(volume.getName()))
            .findFirst()
            .orElseThrow();
    assertThat(mount.getSubPath()).isNull();
    assertThat(levelsFile).isEqualTo(mount.getMountPath() + "/levels.properties");
    // And no annotation of the pod template changes with the ConfigMap (no rollout on a level
    // change)
    assertThat(deployment.getSpec().getTemplate().getMetadata().getAnnotations()).isNullOrEmpty();
    // And the file holds the default level, re-read every 10 s
    assertThat(levels(objects))
        .contains("monitorInterval = 10\n")
        .contains("rootLogger.level = INFO\n")
        .doesNotContain("logger.");

    // When the format, level, single loggers' levels and the refresh are set
    List<HasMetadata> set =
        render(
            "--set",
            "logFormat=plain,logLevel=DEBUG,logLevelsRefreshSeconds=3,"
                + "logLevels.org\\.apache\\.kafka=WARN,"
                + "logLevels.dev\\.kafkamirror\\.operator\\.reconciler=TRACE");

    // Then each shows up where the operator reads it, loggers in name order
    assertThat(env(container(set), "CMO_LOG_FORMAT")).isEqualTo("plain");
    assertThat(levels(set))
        .contains("monitorInterval = 3\n")
        .contains("rootLogger.level = DEBUG\n")
        .contains(
            "logger.l0.name = dev.kafkamirror.operator.reconciler\n"
                + "logger.l0.level = TRACE\n"
                + "logger.l1.name = org.apache.kafka\n"
                + "logger.l1.level = WARN");
  }

  private static String levels(List<HasMetadata> objects) {
    return of(objects, ConfigMap.class).stream()
        .filter(m -> m.getMetadata().getName().equals("rel-cluster-mirror-operator-logging"))
        .findFirst()
        .orElseThrow()
        .getData()
        .get("levels.properties");
  }

  @Test
  void watchingAllNamespacesUsesAClusterRoleThatTheApiServerAccepts() throws Exception {
    // When all namespaces are watched
    String rendered =
        helmTemplate("--namespace", "all-system", "--set", "watchAllNamespaces=true").stdout();
    List<HasMetadata> objects = parse(rendered);

    // Then the operator is told to watch everything (empty CMO_WATCH_NAMESPACES) through a
    // ClusterRole bound to its ServiceAccount, with Secrets still only get
    assertThat(env(container(objects), "CMO_WATCH_NAMESPACES")).isEmpty();
    ClusterRole role = of(objects, ClusterRole.class).get(0);
    assertThat(secretsRule(role.getRules()).getVerbs()).containsExactly("get");
    ClusterRoleBinding binding = of(objects, ClusterRoleBinding.class).get(0);
    assertThat(binding.getRoleRef().getName()).isEqualTo(role.getMetadata().getName());
    assertThat(binding.getSubjects().get(0).getNamespace()).isEqualTo("all-system");
    // And no per-namespace Role but the Lease's
    assertThat(of(objects, Role.class))
        .extracting(r -> r.getMetadata().getName())
        .containsExactly("rel-cluster-mirror-operator-leader-election");
    // And the real API server accepts it (server-side dry run)
    kubectl("create", "namespace", "all-system").requireSuccess();
    Path manifests = Files.createTempFile("cmo-chart-all-", ".yaml");
    Files.writeString(manifests, rendered, StandardCharsets.UTF_8);
    Commands.Result dryRun =
        kubectl("apply", "--dry-run=server", "-f", manifests.toString()).requireSuccess();
    assertThat(dryRun.stdout())
        .contains(
            "clusterrole.rbac.authorization.k8s.io/rel-cluster-mirror-operator-all-system created"
                + " (server dry run)")
        .contains(
            "poddisruptionbudget.policy/rel-cluster-mirror-operator created (server dry run)");
    Files.delete(manifests);
  }

  @Test
  void optionsThatCannotWorkAreRefusedWithWhatToDo() {
    for (Map.Entry<List<String>, String> bad :
        Map.of(
                List.of("--set", "watchAllNamespaces=true,watchNamespaces={team-a}"),
                "watchAllNamespaces=true and watchNamespaces are exclusive",
                List.of("--set", "metrics.serviceMonitor.enabled=true"),
                "no monitoring.coreos.com/v1 ServiceMonitor API",
                List.of(
                    "--set",
                    "metrics.serviceMonitor.enabled=true,metrics.service.enabled=false",
                    "--api-versions",
                    "monitoring.coreos.com/v1/ServiceMonitor"),
                "needs metrics.service.enabled=true",
                List.of("--set-string", "extraEnv[0].name=CMO_POD_NAME,extraEnv[0].value=x"),
                "extraEnv sets CMO_POD_NAME, which the chart sets from the pod name",
                List.of("--set-string", "extraEnv[0].name=CMO_LOG_FORMAT,extraEnv[0].value=x"),
                "extraEnv sets CMO_LOG_FORMAT, which the chart sets from logFormat",
                List.of("--set-string", "extraEnv[0].name=1BAD,extraEnv[0].value=x"),
                "extraEnv",
                List.of("--set", "imagePullSecrets[0].nam=regcred"),
                "imagePullSecrets")
            .entrySet()) {
      Commands.Result result = helm(bad.getKey());
      assertThat(result.exitCode()).as("%s", bad.getKey()).isNotZero();
      assertThat(result.stderr()).as("%s", bad.getKey()).contains(bad.getValue());
    }
  }

  private static Commands.Result helm(List<String> arguments) {
    List<String> command =
        new java.util.ArrayList<>(List.of(helm(), "template", "rel", CHART.toString()));
    command.addAll(arguments);
    return Commands.run(Duration.ofSeconds(60), command);
  }

  private static Commands.Result helmTemplate(String... arguments) {
    return helm(List.of(arguments)).requireSuccess();
  }

  private static List<HasMetadata> render(String... arguments) {
    List<String> all = new java.util.ArrayList<>(List.of("--namespace", "mirror-system"));
    all.addAll(List.of(arguments));
    return parse(helm(all).requireSuccess().stdout());
  }

  private static List<HasMetadata> parse(String yaml) {
    return client.load(new ByteArrayInputStream(yaml.getBytes(StandardCharsets.UTF_8))).items();
  }

  private static <T> List<T> of(List<HasMetadata> objects, Class<T> type) {
    return objects.stream().filter(type::isInstance).map(type::cast).toList();
  }

  private static List<String> kinds(List<HasMetadata> objects) {
    return objects.stream().map(HasMetadata::getKind).toList();
  }

  private static Deployment deployment(List<HasMetadata> objects) {
    return of(objects, Deployment.class).get(0);
  }

  private static Container container(List<HasMetadata> objects) {
    return deployment(objects).getSpec().getTemplate().getSpec().getContainers().get(0);
  }

  private static String env(Container container, String name) {
    Optional<EnvVar> variable =
        container.getEnv().stream().filter(e -> e.getName().equals(name)).findFirst();
    assertThat(variable).as("env %s in %s", name, container.getEnv()).isPresent();
    return variable.get().getValue() == null ? "" : variable.get().getValue();
  }

  private static PolicyRule secretsRule(List<PolicyRule> rules) {
    return rules.stream()
        .filter(r -> r.getResources().contains("secrets"))
        .findFirst()
        .orElseThrow();
  }

  private static String appVersion() {
    try {
      return Files.readAllLines(CHART.resolve("Chart.yaml"), StandardCharsets.UTF_8).stream()
          .filter(l -> l.startsWith("appVersion:"))
          .map(l -> l.substring("appVersion:".length()).trim().replace("\"", ""))
          .findFirst()
          .orElseThrow();
    } catch (java.io.IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
  }
}
