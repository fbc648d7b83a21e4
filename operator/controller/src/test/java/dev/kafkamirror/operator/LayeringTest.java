package dev.kafkamirror.operator;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.classes;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static org.assertj.core.api.Assertions.assertThat;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import com.tngtech.archunit.lang.ArchRule;
import com.tngtech.archunit.lang.EvaluationResult;
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

  static final ArchRule MAIN_CODE_USES_NO_TEST_HARNESS =
      noClasses()
          .should()
          .dependOnClassesThat()
          .resideInAnyPackage(
              "dev.kafkamirror.testing..",
              "org.junit..",
              "org.assertj..",
              "org.awaitility..",
              "net.jqwik..")
          .because("the operator image runs in production; test fixtures stay in test code");

  private static JavaClasses mainClasses() {
    JavaClasses main =
        new ClassFileImporter()
            .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
            .importUrl(StatusComputer.class.getProtectionDomain().getCodeSource().getLocation());
    assertThat(main)
        .as("the operator's main classes found on the class path")
        .hasSizeGreaterThan(20);
    return main;
  }

  @Test
  void coreImportsOnlyTheJdkAndTheApi() {
    CORE_IMPORTS_ONLY_THE_JDK_AND_THE_API.check(mainClasses());
  }

  @Test
  void mainCodeUsesNoTestHarness() {
    MAIN_CODE_USES_NO_TEST_HARNESS.check(mainClasses());
  }

  @Test
  void theCoreRuleReportsACoreClassThatUsesTheKubernetesClient() {
    // Given a class in core's package that uses the Kubernetes client (a test-source fixture)
    JavaClasses fixture =
        new ClassFileImporter().importClasses(CoreClassThatUsesTheKubernetesClient.class);

    // When the rule is evaluated against it
    EvaluationResult result = CORE_IMPORTS_ONLY_THE_JDK_AND_THE_API.evaluate(fixture);

    // Then it reports the violation, naming both classes
    assertThat(result.hasViolation()).isTrue();
    assertThat(String.join("\n", result.getFailureReport().getDetails()))
        .contains(CoreClassThatUsesTheKubernetesClient.class.getName())
        .contains("io.fabric8.kubernetes.client.KubernetesClient");
  }

  @Test
  void theHarnessRuleReportsAClassThatUsesTheTestHarness() {
    // Given a class that uses e2e test-support's Kubernetes harness (a test-source fixture)
    JavaClasses fixture = new ClassFileImporter().importClasses(MainClassThatUsesTheHarness.class);

    // When the rule is evaluated against it
    EvaluationResult result = MAIN_CODE_USES_NO_TEST_HARNESS.evaluate(fixture);

    // Then it reports the violation, naming both classes
    assertThat(result.hasViolation()).isTrue();
    assertThat(String.join("\n", result.getFailureReport().getDetails()))
        .contains(MainClassThatUsesTheHarness.class.getName())
        .contains("dev.kafkamirror.testing.kube.KubeApiServerHarness");
  }
}
