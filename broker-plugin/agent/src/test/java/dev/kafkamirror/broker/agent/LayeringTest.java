package dev.kafkamirror.broker.agent;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static dev.kafkamirror.testing.arch.Layering.MAIN_CODE_USES_NO_TEST_HARNESS;
import static dev.kafkamirror.testing.arch.Layering.assertReportsViolation;
import static dev.kafkamirror.testing.arch.Layering.mainClassesBeside;
import static org.assertj.core.api.Assertions.assertThat;

import com.tngtech.archunit.lang.ArchRule;
import dev.kafkamirror.broker.agent.layeringfixture.MainClassThatUsesTheHarness;
import dev.kafkamirror.broker.agent.layeringfixture.NeutralClassThatReachesIntoKafka44;
import java.util.List;
import java.util.ServiceLoader;
import org.junit.jupiter.api.Test;

/**
 * The layering rules of the agent (docs/architecture.md), each checked on the agent's main classes
 * and each shown to fail on a fixture class in the test sources that breaks it:
 *
 * <ul>
 *   <li>the version-neutral packages (everything outside {@code kafka4_4}) import nothing from
 *       {@code kafka4_4}: they reach it only through {@link KafkaBinding};
 *   <li>no main class depends on the test harness ({@code dev.kafkamirror.testing}, e2e
 *       test-support) or on a test library.
 * </ul>
 */
class LayeringTest {

  static final String AGENT = "dev.kafkamirror.broker.agent";
  static final String KAFKA44 = AGENT + ".kafka4_4..";

  static final ArchRule NEUTRAL_PACKAGES_IMPORT_NOTHING_FROM_KAFKA44 =
      noClasses()
          .that()
          .resideInAPackage(AGENT + "..")
          .and()
          .resideOutsideOfPackage(KAFKA44)
          .should()
          .dependOnClassesThat()
          .resideInAPackage(KAFKA44)
          .because(
              "the version-neutral agent reaches Kafka 4.4's code only through KafkaBinding, so that"
                  + " another Kafka version is a new package, not an edit of the neutral ones");

  @Test
  void neutralPackagesImportNothingFromKafka44() {
    NEUTRAL_PACKAGES_IMPORT_NOTHING_FROM_KAFKA44.check(
        mainClassesBeside(ClusterMirrorAgent.class, 50));
  }

  @Test
  void mainCodeUsesNoTestHarness() {
    MAIN_CODE_USES_NO_TEST_HARNESS.check(mainClassesBeside(ClusterMirrorAgent.class, 50));
  }

  @Test
  void theAgentFindsTheKafka44BindingThroughTheServiceLoader() {
    // Given the seam the neutral agent uses instead of importing kafka4_4
    // When the agent looks the binding up as it does at premain
    List<String> bindings =
        ServiceLoader.load(KafkaBinding.class, KafkaBinding.class.getClassLoader()).stream()
            .map(provider -> provider.type().getName())
            .toList();

    // Then it finds exactly the Kafka 4.4 one
    assertThat(bindings).containsExactly(AGENT + ".kafka4_4.Kafka44Binding");
    assertThat(KafkaBinding.load()).isPresent();
  }

  @Test
  void theKafka44RuleReportsANeutralClassThatReachesIntoKafka44() {
    // Given a class in a neutral package that uses a kafka4_4 class (a test-source fixture)
    // When the rule is evaluated against it
    // Then it reports the violation, naming both classes
    assertReportsViolation(
        NEUTRAL_PACKAGES_IMPORT_NOTHING_FROM_KAFKA44,
        NeutralClassThatReachesIntoKafka44.class,
        AGENT + ".kafka4_4.mirror.MirrorRegistry");
  }

  @Test
  void theHarnessRuleReportsAClassThatUsesTheTestHarness() {
    // Given a class that uses e2e test-support's Kafka cluster harness (a test-source fixture)
    // When the rule is evaluated against it
    // Then it reports the violation, naming both classes
    assertReportsViolation(
        MAIN_CODE_USES_NO_TEST_HARNESS,
        MainClassThatUsesTheHarness.class,
        "dev.kafkamirror.testing.kafka.KafkaCluster");
  }
}
