package dev.kafkamirror.operator;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.classes;
import static dev.kafkamirror.testing.arch.Layering.MAIN_CODE_USES_NO_TEST_HARNESS;
import static dev.kafkamirror.testing.arch.Layering.assertReportsViolation;
import static dev.kafkamirror.testing.arch.Layering.mainClassesBeside;

import com.tngtech.archunit.lang.ArchRule;
import dev.kafkamirror.operator.core.StatusComputer;
import dev.kafkamirror.operator.core.layeringfixture.CoreClassThatUsesTheKubernetesClient;
import dev.kafkamirror.operator.layeringfixture.MainClassThatUsesTheHarness;
import org.junit.jupiter.api.Test;

/**
 * The layering rules of the operator (docs/architecture.md), each checked on the operator's main
 * classes and each shown to fail on a fixture class in the test sources that breaks it:
 *
 * <ul>
 *   <li>{@code dev.kafkamirror.operator.core} imports only the JDK and {@code operator/api}: the
 *       failover planning and the status computation are pure and tested without a cluster;
 *   <li>no main class depends on the test harness ({@code dev.kafkamirror.testing}, e2e
 *       test-support) or on a test library.
 * </ul>
 */
class LayeringTest {

  static final String CORE = "dev.kafkamirror.operator.core";

  static final ArchRule CORE_IMPORTS_ONLY_THE_JDK_AND_THE_API =
      classes()
          .that()
          .resideInAPackage(CORE + "..")
          .should()
          .onlyDependOnClassesThat()
          .resideInAnyPackage("java..", "javax..", CORE + "..", "dev.kafkamirror.operator.api..")
          .because(
              "the operator's core (failover planning, status computation) is pure: no Kubernetes"
                  + " client, no Kafka client, no control channel (docs/architecture.md)");

  @Test
  void coreImportsOnlyTheJdkAndTheApi() {
    CORE_IMPORTS_ONLY_THE_JDK_AND_THE_API.check(mainClassesBeside(StatusComputer.class, 20));
  }

  @Test
  void mainCodeUsesNoTestHarness() {
    MAIN_CODE_USES_NO_TEST_HARNESS.check(mainClassesBeside(StatusComputer.class, 20));
  }

  @Test
  void theCoreRuleReportsACoreClassThatUsesTheKubernetesClient() {
    // Given a class in core's package that uses the Kubernetes client (a test-source fixture)
    // When the rule is evaluated against it
    // Then it reports the violation, naming both classes
    assertReportsViolation(
        CORE_IMPORTS_ONLY_THE_JDK_AND_THE_API,
        CoreClassThatUsesTheKubernetesClient.class,
        "io.fabric8.kubernetes.client.KubernetesClient");
  }

  @Test
  void theHarnessRuleReportsAClassThatUsesTheTestHarness() {
    // Given a class that uses e2e test-support's Kubernetes harness (a test-source fixture)
    // When the rule is evaluated against it
    // Then it reports the violation, naming both classes
    assertReportsViolation(
        MAIN_CODE_USES_NO_TEST_HARNESS,
        MainClassThatUsesTheHarness.class,
        "dev.kafkamirror.testing.kube.KubeApiServerHarness");
  }
}
