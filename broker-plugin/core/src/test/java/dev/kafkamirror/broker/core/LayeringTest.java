package dev.kafkamirror.broker.core;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.classes;
import static org.assertj.core.api.Assertions.assertThat;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import com.tngtech.archunit.lang.ArchRule;
import com.tngtech.archunit.lang.EvaluationResult;
import dev.kafkamirror.broker.core.layeringfixture.CoreClassThatImportsALibrary;
import dev.kafkamirror.broker.core.stop.StopStateTable;
import org.junit.jupiter.api.Test;

/**
 * The layering rule of {@code broker-plugin/core} (docs/architecture.md): its main code imports
 * only the JDK, so that every decision in it can be tested, explored and reused without a broker.
 * The second test proves that the rule can fail: it evaluates the same rule against a fixture class
 * in this module's test sources that breaks it.
 */
class LayeringTest {

  static final String CORE = "dev.kafkamirror.broker.core";

  static final ArchRule CORE_IMPORTS_ONLY_THE_JDK =
      classes()
          .that()
          .resideInAPackage(CORE + "..")
          .should()
          .onlyDependOnClassesThat()
          .resideInAnyPackage("java..", "javax..", CORE + "..")
          .because(
              "broker-plugin/core holds the plugin's decisions as pure functions with no dependency"
                  + " but the JDK (docs/architecture.md)");

  @Test
  void coreMainCodeImportsOnlyTheJdk() {
    // Given the main classes of broker-plugin/core (not its tests)
    JavaClasses main =
        new ClassFileImporter()
            .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
            .importUrl(StopStateTable.class.getProtectionDomain().getCodeSource().getLocation());
    assertThat(main).as("core's main classes found on the class path").hasSizeGreaterThan(10);

    // When / Then the rule holds for every one of them
    CORE_IMPORTS_ONLY_THE_JDK.check(main);
  }

  @Test
  void theRuleReportsACoreClassThatImportsALibrary() {
    // Given a class in core's package that uses a library (a test-source fixture)
    JavaClasses fixture = new ClassFileImporter().importClasses(CoreClassThatImportsALibrary.class);

    // When the rule is evaluated against it
    EvaluationResult result = CORE_IMPORTS_ONLY_THE_JDK.evaluate(fixture);

    // Then it reports the violation, naming the class and the library class
    assertThat(result.hasViolation()).isTrue();
    assertThat(String.join("\n", result.getFailureReport().getDetails()))
        .contains(CoreClassThatImportsALibrary.class.getName())
        .contains("org.apache.kafka.common.TopicPartition");
  }
}
