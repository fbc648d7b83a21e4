package dev.kafkamirror.operator.app;

import static org.assertj.core.api.Assertions.assertThat;

import dev.kafkamirror.contract.ControlRequest;
import dev.kafkamirror.operator.api.v1alpha1.ClusterMirror;
import dev.kafkamirror.operator.api.v1alpha1.ClusterMirrorStatus;
import dev.kafkamirror.operator.api.v1alpha1.Condition;
import dev.kafkamirror.operator.api.v1alpha1.ConsumerGroupSyncStatus;
import dev.kafkamirror.operator.control.BrokerControl;
import dev.kafkamirror.operator.control.ControlClient;
import dev.kafkamirror.operator.control.ControlResult;
import dev.kafkamirror.operator.core.Action;
import dev.kafkamirror.operator.core.PartitionKey;
import dev.kafkamirror.operator.core.PartitionPhase;
import dev.kafkamirror.testing.time.SettableClock;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The names, labels and values the operator's /metrics shows (the Prometheus text that dashboards
 * and alert rules read), and that a ClusterMirror's series leave with it.
 */
class ClusterMirrorMetricsTest {

  private static final Instant NOW = Instant.parse("2026-12-01T05:00:00Z");

  private final SettableClock clock = new SettableClock(NOW);
  private final PrometheusMeterRegistry registry =
      new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
  private final ClusterMirrorMetrics metrics =
      new ClusterMirrorMetrics(
          registry, clock, new ClusterMirrorMetrics.BuildInfo("1.2.3", "abc123"));

  @Test
  void eachMirrorExportsLagPartitionsConditionsAndReconcileAgeUnderItsNamespaceAndName() {
    // Given two ClusterMirrors whose status was recorded, one of them reconciled 90 s ago
    metrics.recorded(
        mirror("ns", "orders", "u1"),
        status(1234L, "True", 7L),
        Map.of(PartitionPhase.MIRRORING, 5L, PartitionPhase.FAILED, 1L),
        3L);
    metrics.reconciled("u1", true);
    metrics.recorded(mirror("ns", "payments", "u2"), status(null, "False", null), Map.of());
    clock.set(NOW.plusSeconds(90));

    // When Prometheus scrapes
    String text = registry.scrape();

    // Then each mirror has its series, in Prometheus names with every phase present
    assertThat(text)
        .contains("cmo_mirror_max_lag_records{name=\"orders\",namespace=\"ns\"} 1234.0")
        .contains("cmo_mirror_max_lag_records{name=\"payments\",namespace=\"ns\"} NaN")
        .contains("cmo_mirror_partitions{name=\"orders\",namespace=\"ns\",phase=\"MIRRORING\"} 5.0")
        .contains("cmo_mirror_partitions{name=\"orders\",namespace=\"ns\",phase=\"FAILED\"} 1.0")
        .contains("cmo_mirror_partitions{name=\"orders\",namespace=\"ns\",phase=\"STOPPED\"} 0.0")
        .contains(
            "cmo_mirror_condition{name=\"orders\",namespace=\"ns\",status=\"True\",type=\"Ready\"}"
                + " 1.0")
        .contains(
            "cmo_mirror_condition{name=\"orders\",namespace=\"ns\",status=\"False\",type=\"Ready\"}"
                + " 0.0")
        .contains(
            "cmo_mirror_condition{name=\"payments\",namespace=\"ns\",status=\"False\","
                + "type=\"Ready\"} 1.0")
        .contains(
            "cmo_mirror_last_successful_reconcile_timestamp_seconds{name=\"orders\","
                + "namespace=\"ns\"} "
                + (double) NOW.getEpochSecond())
        .contains(
            "cmo_mirror_seconds_since_last_successful_reconcile{name=\"orders\",namespace=\"ns\"}"
                + " 90.0")
        .contains(
            "cmo_mirror_seconds_since_last_successful_reconcile{name=\"payments\","
                + "namespace=\"ns\"} NaN")
        .contains(
            "cmo_mirror_consumer_group_sync_partitions_behind{name=\"orders\",namespace=\"ns\"}"
                + " 7.0")
        .contains("cmo_mirror_source_partitions_pending{name=\"orders\",namespace=\"ns\"} 3.0")
        .contains("cmo_mirror_source_partitions_pending{name=\"payments\",namespace=\"ns\"} 0.0")
        .contains("cmo_build_info{git_commit=\"abc123\",version=\"1.2.3\"} 1");
  }

  @Test
  void aForgottenMirrorLeavesNoSeriesAndAFailedReconcileKeepsTheLastSuccess() {
    // Given two recorded ClusterMirrors
    metrics.recorded(mirror("ns", "orders", "u1"), status(3L, "True", null), Map.of());
    metrics.reconciled("u1", true);
    metrics.recorded(mirror("ns", "payments", "u2"), status(4L, "True", null), Map.of());

    // When one is deleted, and the other's next reconcile fails a minute later
    metrics.forget("u2");
    clock.set(NOW.plusSeconds(60));
    metrics.reconciled("u1", false);
    metrics.reconciled("u2", true);

    // Then nothing names the deleted one (a late reconcile does not bring it back), and the other's
    // last success is still the first reconcile
    String text = registry.scrape();
    assertThat(text).doesNotContain("name=\"payments\"");
    assertThat(text)
        .contains(
            "cmo_mirror_seconds_since_last_successful_reconcile{name=\"orders\",namespace=\"ns\"}"
                + " 60.0");
  }

  @Test
  void controlCallsAreCountedPerCallAndErrorsPerCode() {
    // Given a broker that answers a describe of two partitions with one NOT_LEADER
    BrokerControl broker =
        new BrokerControl() {
          @Override
          public List<ControlResult> describe(
              int brokerId,
              String address,
              ControlClient.Channel channel,
              List<PartitionKey> partitions) {
            return List.of(
                new ControlResult(partitions.get(0), brokerId, null, null, null),
                new ControlResult(
                    partitions.get(1), brokerId, null, "NOT_LEADER", "broker 1 is not leader"));
          }

          @Override
          public List<ControlResult> act(
              Action action,
              int brokerId,
              String address,
              ControlClient.Channel channel,
              List<PartitionKey> partitions,
              String sourceClusterId,
              String mirrorName,
              ControlRequest.MirrorSource source) {
            return List.of(
                new ControlResult(
                    partitions.get(0), brokerId, null, ControlResult.UNREACHABLE, "refused"));
          }

          @Override
          public List<ControlResult> startFailback(
              int brokerId,
              String address,
              ControlClient.Channel channel,
              List<PartitionKey> partitions,
              String sourceClusterId,
              String mirrorName,
              ControlRequest.MirrorSource source,
              Failback failback) {
            return List.of(
                new ControlResult(
                    partitions.get(0),
                    brokerId,
                    null,
                    "INVALID_STATE",
                    "FailbackEpochNotInLocalHistory"));
          }
        };
    MeteredBrokerControl metered = new MeteredBrokerControl(broker, metrics);
    List<PartitionKey> two = List.of(new PartitionKey("orders", 0), new PartitionKey("orders", 1));

    // When the operator describes twice and truncates once through the metered control
    List<ControlResult> results = metered.describe(1, "b1:9443", null, two);
    metered.describe(1, "b1:9443", null, two);
    metered.act(Action.TRUNCATE, 1, "b1:9443", null, two, "SRC", null, null);
    // and sends one failback start, which the wrapper must pass on (not fail) and count as a start
    List<ControlResult> failback =
        metered.startFailback(
            1,
            "b1:9443",
            null,
            two.subList(0, 1),
            null,
            "b-to-a",
            null,
            new BrokerControl.Failback(
                Map.of(two.get(0), new ControlRequest.AlignTo(80L, 3)), true));
    metrics.stopFinished(Duration.ofSeconds(3));

    // Then the results pass unchanged and the counters say what failed, with which code
    assertThat(results).hasSize(2);
    assertThat(results.get(1).errorCode()).isEqualTo("NOT_LEADER");
    assertThat(failback)
        .singleElement()
        .extracting(ControlResult::errorCode)
        .isEqualTo("INVALID_STATE");
    assertThat(registry.scrape())
        .contains("cmo_control_calls_total{call=\"DESCRIBE\"} 4.0")
        .contains("cmo_control_call_errors_total{call=\"DESCRIBE\",code=\"NOT_LEADER\"} 2.0")
        .contains("cmo_control_call_errors_total{call=\"TRUNCATE\",code=\"UNREACHABLE\"} 1.0")
        .contains(
            "cmo_control_call_errors_total{call=\"START_MIRRORING\",code=\"INVALID_STATE\"} 1.0")
        .contains("cmo_stop_duration_seconds_count 1");
  }

  @Test
  void buildInfoIsReadFromTheBuildsPropertiesFile() {
    // When the build info is read from the classpath the build wrote
    ClusterMirrorMetrics.BuildInfo build = ClusterMirrorMetrics.BuildInfo.fromClasspath();

    // Then the version is the project's, never a placeholder
    assertThat(build.version()).matches("\\d+\\.\\d+\\.\\d+.*");
    assertThat(build.gitCommit()).doesNotContain("${");
  }

  private static ClusterMirror mirror(String namespace, String name, String uid) {
    ClusterMirror cr = new ClusterMirror();
    cr.getMetadata().setNamespace(namespace);
    cr.getMetadata().setName(name);
    cr.getMetadata().setUid(uid);
    return cr;
  }

  private static ClusterMirrorStatus status(Long maxLag, String ready, Long groupsBehind) {
    ClusterMirrorStatus s = new ClusterMirrorStatus();
    s.setMaxLagRecords(maxLag);
    Condition c = new Condition();
    c.setType("Ready");
    c.setStatus(ready);
    c.setReason("Test");
    s.setConditions(List.of(c));
    if (groupsBehind != null) {
      ConsumerGroupSyncStatus g = new ConsumerGroupSyncStatus();
      g.setPartitionsBehind(groupsBehind);
      s.setConsumerGroupSync(g);
    }
    return s;
  }
}
