package dev.kafkamirror.operator.app;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import dev.kafkamirror.operator.api.v1alpha1.ClusterMirror;
import dev.kafkamirror.operator.api.v1alpha1.ClusterMirrorStatus;
import dev.kafkamirror.operator.api.v1alpha1.Condition;
import dev.kafkamirror.operator.api.v1alpha1.ConsumerGroupSyncStatus;
import dev.kafkamirror.operator.core.PartitionPhase;
import dev.kafkamirror.testing.process.Commands;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;

/**
 * The chart's monitoring assets (alert rules and Grafana dashboard, {@code
 * charts/cluster-mirror-operator/monitoring/}) as Prometheus reads them: cmo-rulecheck (Prometheus'
 * own rule file parser and PromQL parser, built by e2e/tools/install-test-tools.sh) accepts every
 * rule and every dashboard query, and every metric they select is one the operator exports, as read
 * from a real scrape of {@link ClusterMirrorMetrics} (JOSDK's {@code operator_sdk_*} names are
 * those {@code ClusterMirrorLifecycleIT} scrapes from a running operator). Broken input is shown to
 * fail both checks. The chart's PrometheusRule and dashboard ConfigMap carry exactly these files.
 */
class MonitoringAssetsIT {

  private static final Path CHART =
      Path.of(System.getProperty("cmo.chart.dir", "../../charts/cluster-mirror-operator"));
  private static final Path ALERTS = CHART.resolve("monitoring/alerts.yaml");
  private static final Path DASHBOARD = CHART.resolve("monitoring/dashboard.json");

  /**
   * JOSDK's names used by the assets; ClusterMirrorLifecycleIT asserts a running operator has them.
   */
  private static final Set<String> JOSDK =
      Set.of(
          "operator_sdk_reconciliations_started_total",
          "operator_sdk_reconciliations_failed_total",
          "operator_sdk_reconciliations_success_total");

  private static Path bin(String name) {
    return Path.of(
        System.getProperty(
            "cmo.cache.dir", System.getProperty("user.home") + "/.cache/cluster-mirror-operator"),
        "bin",
        name);
  }

  @Test
  void everyAlertRuleParsesAsPrometheusReadsItAndSelectsOnlyExportedMetrics() {
    // Given the chart's rule file
    // When Prometheus' rule parser reads it
    Commands.Result result = rulecheck(List.of("rules", ALERTS.toString()), "");

    // Then every rule is valid and selects only metrics the operator exports
    assertThat(result.exitCode()).as(result.stdout() + result.stderr()).isZero();
    assertThat(result.stdout().lines())
        .hasSizeGreaterThanOrEqualTo(8)
        .allMatch(l -> l.startsWith("OK "));
    assertThat(unknownMetrics(result.stdout())).isEmpty();
  }

  @Test
  void everyDashboardQueryParsesAsPromQlAndSelectsOnlyExportedMetrics() throws Exception {
    // Given the dashboard's queries
    List<String> exprs = dashboardExpressions(Files.readString(DASHBOARD));
    assertThat(exprs).hasSizeGreaterThanOrEqualTo(10);

    // When PromQL's parser reads them
    Commands.Result result = rulecheck(List.of("exprs"), String.join("\n", exprs) + "\n");

    // Then each parses and selects only exported metrics
    assertThat(result.exitCode()).as(result.stdout() + result.stderr()).isZero();
    assertThat(result.stdout().lines()).hasSize(exprs.size()).allMatch(l -> l.startsWith("OK "));
    assertThat(unknownMetrics(result.stdout())).isEmpty();
  }

  @Test
  void aBrokenRuleAndAMisspeltMetricAreBothCaught() throws Exception {
    // Given a rule file with an unparsable expression and a query naming a metric nobody exports
    Path broken = Files.createTempFile("cmo-alerts-", ".yaml");
    try {
      Files.writeString(
          broken,
          Files.readString(ALERTS)
              .replace(
                  "expr: cmo_mirror_partitions{phase=\"FAILED\"} > 0",
                  "expr: cmo_mirror_partitions{phase=\"FAILED\" > 0"));
      Commands.Result rules = rulecheck(List.of("rules", broken.toString()), "");
      Commands.Result typo = rulecheck(List.of("exprs"), "cmo_mirror_max_lag_record > 1\n");

      // Then the parser refuses the rule, naming it, and the name check finds the typo
      assertThat(rules.exitCode()).isEqualTo(1);
      assertThat(rules.stdout()).contains("ERROR").contains("ClusterMirrorPartitionsFailed");
      assertThat(typo.exitCode()).isZero();
      assertThat(unknownMetrics(typo.stdout())).containsExactly("cmo_mirror_max_lag_record");
    } finally {
      Files.delete(broken);
    }
  }

  @Test
  void theChartInstallsExactlyTheseFilesAsAPrometheusRuleAndADashboardConfigMap() throws Exception {
    // Given the chart rendered with both options on
    Commands.Result rendered =
        Commands.run(
            Duration.ofSeconds(60),
            List.of(
                bin("helm").toString(),
                "template",
                "rel",
                CHART.toString(),
                "--set",
                "metrics.prometheusRule.enabled=true",
                "--set",
                "metrics.grafanaDashboard.enabled=true",
                "--api-versions",
                "monitoring.coreos.com/v1/PrometheusRule"));
    assertThat(rendered.exitCode()).as(rendered.stderr()).isZero();
    ObjectMapper yaml = new ObjectMapper(new YAMLFactory());
    JsonNode rule = null;
    JsonNode dashboard = null;
    for (JsonNode doc :
        yaml.readValues(new YAMLFactory().createParser(rendered.stdout()), JsonNode.class)
            .readAll()) {
      if ("PrometheusRule".equals(doc.path("kind").asText())) {
        rule = doc;
      }
      if (doc.path("metadata").path("name").asText().endsWith("-dashboard")) {
        dashboard = doc;
      }
    }

    // Then the PrometheusRule's groups are the rule file's, the ConfigMap holds the dashboard
    assertThat(rule).as("PrometheusRule").isNotNull();
    assertThat(rule.path("spec").path("groups"))
        .isEqualTo(yaml.readTree(Files.readString(ALERTS)).path("groups"));
    assertThat(dashboard).as("dashboard ConfigMap").isNotNull();
    assertThat(dashboard.at("/metadata/labels/grafana_dashboard").asText()).isEqualTo("1");
    assertThat(
            new ObjectMapper()
                .readTree(dashboard.at("/data/cluster-mirror-operator.json").asText()))
        .isEqualTo(new ObjectMapper().readTree(Files.readString(DASHBOARD)));

    // And without the Prometheus Operator's API the rule is refused, saying what to do
    Commands.Result noApi =
        Commands.run(
            Duration.ofSeconds(60),
            List.of(
                bin("helm").toString(),
                "template",
                "rel",
                CHART.toString(),
                "--set",
                "metrics.prometheusRule.enabled=true"));
    assertThat(noApi.exitCode()).isNotZero();
    assertThat(noApi.stderr()).contains("no monitoring.coreos.com/v1 PrometheusRule API");
  }

  private static Commands.Result rulecheck(List<String> arguments, String stdin) {
    Path tool = bin("cmo-rulecheck");
    assertThat(tool).as("cmo-rulecheck is built by e2e/tools/install-test-tools.sh").isExecutable();
    List<String> command = new ArrayList<>(List.of(tool.toString()));
    command.addAll(arguments);
    try {
      Path in = Files.createTempFile("cmo-exprs-", ".txt");
      try {
        Files.writeString(in, stdin, StandardCharsets.UTF_8);
        List<String> shell =
            List.of(
                "sh",
                "-c",
                String.join(" ", command.stream().map(MonitoringAssetsIT::quoted).toList())
                    + " < "
                    + quoted(in.toString()));
        return Commands.run(Duration.ofSeconds(60), shell);
      } finally {
        Files.delete(in);
      }
    } catch (java.io.IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
  }

  private static String quoted(String s) {
    return "'" + s.replace("'", "'\\''") + "'";
  }

  /** The metric names in cmo-rulecheck's OK lines that neither the operator nor JOSDK exports. */
  private static Set<String> unknownMetrics(String rulecheckOutput) {
    Set<String> exported = exportedMetricNames();
    Set<String> unknown = new TreeSet<>();
    for (String line : rulecheckOutput.lines().toList()) {
      if (!line.startsWith("OK ")) {
        continue;
      }
      String names = line.substring(line.lastIndexOf(' ') + 1);
      if (line.substring(3).endsWith(": ") || names.isEmpty()) {
        continue;
      }
      for (String name : names.split(",")) {
        if (!exported.contains(name) && !JOSDK.contains(name)) {
          unknown.add(name);
        }
      }
    }
    return unknown;
  }

  /** Every metric name of a real scrape of the operator's metrics with each kind of series set. */
  private static Set<String> exportedMetricNames() {
    PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
    ClusterMirrorMetrics metrics =
        new ClusterMirrorMetrics(
            registry,
            java.time.Clock.systemUTC(),
            new ClusterMirrorMetrics.BuildInfo("1.0.0", "abc"));
    ClusterMirror cr = new ClusterMirror();
    cr.getMetadata().setNamespace("ns");
    cr.getMetadata().setName("m");
    cr.getMetadata().setUid("u");
    ClusterMirrorStatus status = new ClusterMirrorStatus();
    status.setMaxLagRecords(1L);
    Condition ready = new Condition();
    ready.setType("Ready");
    ready.setStatus("True");
    ready.setReason("Test");
    status.setConditions(List.of(ready));
    ConsumerGroupSyncStatus groups = new ConsumerGroupSyncStatus();
    groups.setPartitionsBehind(0L);
    status.setConsumerGroupSync(groups);
    metrics.recorded(cr, status, Map.of(PartitionPhase.MIRRORING, 1L), 0L);
    metrics.reconciled("u", true);
    metrics.controlCall("DESCRIBE", null);
    metrics.controlCall("TRUNCATE", "TIMEOUT");
    metrics.stopFinished(Duration.ofSeconds(3));
    Set<String> names = new TreeSet<>();
    for (String line : registry.scrape().lines().toList()) {
      if (line.isEmpty() || line.startsWith("#")) {
        continue;
      }
      int end = line.indexOf('{');
      names.add(line.substring(0, end < 0 ? line.indexOf(' ') : end));
    }
    assertThat(names).contains("cmo_mirror_max_lag_records", "cmo_control_call_errors_total");
    return names;
  }

  private static List<String> dashboardExpressions(String json) throws Exception {
    List<String> out = new ArrayList<>();
    for (JsonNode panel : new ObjectMapper().readTree(json).path("panels")) {
      for (JsonNode target : panel.path("targets")) {
        out.add(target.path("expr").asText());
      }
    }
    return out;
  }
}
