package dev.kafkamirror.testing.arch;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import com.tngtech.archunit.lang.ArchRule;
import com.tngtech.archunit.lang.EvaluationResult;
import org.junit.jupiter.api.Assertions;

/**
 * What the modules' {@code LayeringTest}s share (docs/architecture.md): the rule that main code
 * uses no test harness, importing a module's main classes, and the proof that a rule reports a
 * fixture class that breaks it. Stateless.
 */
public final class Layering {

  /** No main class depends on this harness ({@code dev.kafkamirror.testing}) or a test library. */
  public static final ArchRule MAIN_CODE_USES_NO_TEST_HARNESS =
      noClasses()
          .should()
          .dependOnClassesThat()
          .resideInAnyPackage(
              "dev.kafkamirror.testing..",
              "org.junit..",
              "org.assertj..",
              "org.awaitility..",
              "net.jqwik..")
          .because("main code runs in production; test fixtures and libraries stay in test code");

  private Layering() {}

  /**
   * The main classes of the module that holds {@code anyMainClass} (its {@code target/classes}),
   * failing when fewer than {@code atLeast} are found, so that a rule never passes on nothing.
   */
  public static JavaClasses mainClassesBeside(Class<?> anyMainClass, int atLeast) {
    JavaClasses main =
        new ClassFileImporter()
            .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
            .importUrl(anyMainClass.getProtectionDomain().getCodeSource().getLocation());
    Assertions.assertTrue(
        main.size() >= atLeast,
        "expected at least " + atLeast + " main classes beside " + anyMainClass.getName());
    return main;
  }

  /**
   * Evaluates {@code rule} against {@code fixture} alone and asserts that it reports a violation
   * naming both the fixture and {@code forbiddenClassName}: the proof that the rule can fail.
   */
  public static void assertReportsViolation(
      ArchRule rule, Class<?> fixture, String forbiddenClassName) {
    EvaluationResult result = rule.evaluate(new ClassFileImporter().importClasses(fixture));
    String report = String.join("\n", result.getFailureReport().getDetails());
    Assertions.assertTrue(result.hasViolation(), "no violation reported for " + fixture.getName());
    Assertions.assertTrue(
        report.contains(fixture.getName()) && report.contains(forbiddenClassName),
        "the report does not name "
            + fixture.getName()
            + " and "
            + forbiddenClassName
            + ":\n"
            + report);
  }
}
