package dev.kafkamirror.contract;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.classes;
import static org.assertj.core.api.Assertions.assertThat;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import com.tngtech.archunit.lang.ArchRule;
import com.tngtech.archunit.lang.EvaluationResult;
import dev.kafkamirror.contract.layeringfixture.ContractClassThatImportsALibrary;
import org.junit.jupiter.api.Test;

/**
 * The layering rule of {@code control-contract} (docs/architecture.md): the one wire definition
 * used by the agent, the operator and the test client depends on nothing but the JDK, so that it
 * can be shaded into the agent and used by the operator without dragging a library into either. The
 * second test proves that the rule can fail, against a fixture class in the test sources.
 */
class LayeringTest {

  static final String CONTRACT = "dev.kafkamirror.contract";

  static final ArchRule CONTRACT_IMPORTS_ONLY_THE_JDK =
      classes()
          .that()
          .resideInAPackage(CONTRACT + "..")
          .should()
          .onlyDependOnClassesThat()
          .resideInAnyPackage("java..", "javax..", CONTRACT + "..")
          .because(
              "control-contract is the one wire definition of both sides and depends on nothing"
                  + " but the JDK (docs/architecture.md)");

  @Test
  void contractMainCodeImportsOnlyTheJdk() {
    // Given the main classes of control-contract (not its tests)
    JavaClasses main =
        new ClassFileImporter()
            .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
            .importUrl(ControlCall.class.getProtectionDomain().getCodeSource().getLocation());
    assertThat(main)
        .as("the contract's main classes found on the class path")
        .hasSizeGreaterThan(5);

    // When / Then the rule holds for every one of them
    CONTRACT_IMPORTS_ONLY_THE_JDK.check(main);
  }

  @Test
  void theRuleReportsAContractClassThatImportsALibrary() {
    // Given a class in the contract's package that uses a library (a test-source fixture)
    JavaClasses fixture =
        new ClassFileImporter().importClasses(ContractClassThatImportsALibrary.class);

    // When the rule is evaluated against it
    EvaluationResult result = CONTRACT_IMPORTS_ONLY_THE_JDK.evaluate(fixture);

    // Then it reports the violation, naming the class and the library class
    assertThat(result.hasViolation()).isTrue();
    assertThat(String.join("\n", result.getFailureReport().getDetails()))
        .contains(ContractClassThatImportsALibrary.class.getName())
        .contains("org.assertj.core.api.Assertions");
  }
}
