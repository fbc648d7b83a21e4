package dev.kafkamirror.operator.app;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fabric8.kubernetes.client.ConfigBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.javaoperatorsdk.operator.Operator;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.util.Map;
import org.junit.jupiter.api.Test;

class OperatorConfigTest {

  @Test
  void theReconcilePoolHasTenThreadsUnlessCmoReconcileThreadsSaysOtherwise() {
    // Given no setting, and then a setting of 3
    OperatorConfig unset = OperatorConfig.fromEnvironment(Map.of());
    OperatorConfig three = OperatorConfig.fromEnvironment(Map.of("CMO_RECONCILE_THREADS", " 3 "));

    // When the JOSDK operator is made from each (not started: no API server is needed)
    // Then its reconcile pool has that many threads, not JOSDK's own default of 50
    assertThat(unset.reconcileThreads()).isEqualTo(10);
    assertThat(reconcilePoolOf(unset)).isEqualTo(10);
    assertThat(reconcilePoolOf(three)).isEqualTo(3);
  }

  @Test
  void aReconcilePoolOfLessThanOneThreadOrNotANumberIsRefusedWithTheVariablesName() {
    // Given CMO_RECONCILE_THREADS of 0, and of "many"
    // When the configuration is read
    // Then it is refused, naming the variable and what to do
    assertThatThrownBy(() -> OperatorConfig.fromEnvironment(Map.of("CMO_RECONCILE_THREADS", "0")))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("CMO_RECONCILE_THREADS must be at least 1, got 0")
        .hasMessageContaining("unset it for the default 10");
    assertThatThrownBy(
            () -> OperatorConfig.fromEnvironment(Map.of("CMO_RECONCILE_THREADS", "many")))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("CMO_RECONCILE_THREADS must be an integer, got 'many'");
  }

  private static int reconcilePoolOf(OperatorConfig config) {
    try (KubernetesClient client =
        new KubernetesClientBuilder()
            .withConfig(new ConfigBuilder().withMasterUrl("https://127.0.0.1:1").build())
            .build()) {
      Operator operator =
          OperatorMain.newOperator(
              config, client, new PrometheusMeterRegistry(PrometheusConfig.DEFAULT));
      return operator.getConfigurationService().concurrentReconciliationThreads();
    }
  }
}
