package dev.kafkamirror.operator.it;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import dev.cel.bundle.Cel;
import dev.cel.bundle.CelFactory;
import dev.cel.common.CelAbstractSyntaxTree;
import dev.cel.common.CelValidationException;
import dev.cel.common.types.SimpleType;
import dev.cel.extensions.CelOptionalLibrary;
import dev.cel.parser.CelStandardMacro;
import dev.cel.runtime.CelEvaluationException;
import dev.kafkamirror.testing.process.Commands;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * What Argo CD and Flux conclude about a ClusterMirror with the health checks the chart ships
 * ({@code charts/cluster-mirror-operator/health/}): the Lua health script run by {@code lua5.4}
 * (from Debian's packages, installed by {@code e2e/tools/install-test-tools.sh}) under {@code
 * e2e/tools/argocd-health-harness.lua}, which hands it the object as Argo CD does; and the Flux
 * {@code healthCheckExprs} evaluated with CEL for Java, the object's top-level fields bound as
 * variables as Flux binds them. A missing {@code lua5.4} fails the test; it is never skipped.
 */
final class GitOpsHealth {

  /** A health verdict: Argo CD's status (Healthy, Progressing, Degraded) or Flux's, and why. */
  record Verdict(String status, String message) {}

  private static final ObjectMapper JSON = new ObjectMapper();
  private static final List<String> FLUX_VARIABLES =
      List.of("apiVersion", "kind", "metadata", "spec", "status");

  private GitOpsHealth() {}

  static Path chartHealthDir() {
    return Path.of(
        System.getProperty("cmo.chart.dir", "../../charts/cluster-mirror-operator"), "health");
  }

  static Path luaScript() {
    return Path.of(
        System.getProperty(
            "cmo.argocd.health.lua",
            chartHealthDir().resolve("clustermirror-health.lua").toString()));
  }

  static Path fluxExprs() {
    return Path.of(
        System.getProperty(
            "cmo.flux.health.exprs",
            chartHealthDir().resolve("flux-health-check-exprs.yaml").toString()));
  }

  static Path luaHarness() {
    return Path.of(
        System.getProperty("cmo.e2e.tools.dir", "../../e2e/tools"), "argocd-health-harness.lua");
  }

  /** Runs the chart's Argo CD health script on {@code object}. */
  static Verdict argoCd(JsonNode object) {
    Path file = null;
    try {
      file = Files.createTempFile("cmo-argocd-health-", ".json");
      Files.writeString(file, JSON.writeValueAsString(object), StandardCharsets.UTF_8);
      Commands.Result r =
          Commands.run(
              Duration.ofSeconds(30),
              List.of("lua5.4", luaHarness().toString(), luaScript().toString(), file.toString()));
      assertThat(r.exitCode())
          .as("lua5.4 (install-test-tools.sh installs it) on the health script: %s", r)
          .isZero();
      String line = r.stdout().strip();
      int tab = line.indexOf('\t');
      assertThat(tab).as("the harness prints status<TAB>message: %s", r).isPositive();
      return new Verdict(line.substring(0, tab), line.substring(tab + 1));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } finally {
      if (file != null) {
        try {
          Files.deleteIfExists(file);
        } catch (IOException ignored) {
          // a temp file left behind
        }
      }
    }
  }

  /**
   * Evaluates the chart's Flux {@code healthCheckExprs} on {@code object}: {@code Current}, {@code
   * InProgress} or {@code Failed}, the one expression that holds (the snippet promises that they
   * never hold together, so it is asserted), or {@code Error} with CEL's message when the object
   * cannot be evaluated (no status yet).
   */
  static Verdict flux(JsonNode object) {
    JsonNode check = fluxCheck();
    Cel cel = celEnvironment();
    Map<String, Object> variables = new HashMap<>();
    Map<String, Object> whole = toCel(object);
    for (String name : FLUX_VARIABLES) {
      if (whole.containsKey(name)) {
        variables.put(name, whole.get(name));
      }
    }
    Map<String, Boolean> results = new LinkedHashMap<>();
    for (String[] expr :
        List.of(
            new String[] {"InProgress", "inProgress"},
            new String[] {"Failed", "failed"},
            new String[] {"Current", "current"})) {
      String source = check.path(expr[1]).asText();
      assertThat(source).as("healthCheckExprs.%s", expr[1]).isNotBlank();
      try {
        CelAbstractSyntaxTree ast = cel.compile(source).getAst();
        Object result = cel.createProgram(ast).eval(variables);
        assertThat(result).as("healthCheckExprs.%s is a bool", expr[1]).isInstanceOf(Boolean.class);
        results.put(expr[0], (Boolean) result);
      } catch (CelValidationException e) {
        throw new AssertionError("healthCheckExprs." + expr[1] + " does not compile", e);
      } catch (CelEvaluationException e) {
        return new Verdict("Error", expr[1] + ": " + e.getMessage());
      }
    }
    List<String> holding =
        results.entrySet().stream().filter(Map.Entry::getValue).map(Map.Entry::getKey).toList();
    assertThat(holding)
        .as("exactly one of the healthCheckExprs holds for %s: %s", object.path("status"), results)
        .hasSize(1);
    return new Verdict(holding.get(0), "");
  }

  /**
   * Asserts that Argo CD's and Flux's verdicts with the chart's checks agree with kstatus' on the
   * same object: InProgress is Progressing, Current is Healthy, Failed is Degraded with Stalled's
   * message.
   */
  static void assertAgreesWithKstatus(Kstatus.Verdict kstatus) {
    Verdict argo = argoCd(kstatus.object());
    String expectedArgo =
        switch (kstatus.status()) {
          case "InProgress" -> "Progressing";
          case "Current" -> "Healthy";
          case "Failed" -> "Degraded";
          default -> throw new AssertionError("kstatus status with no Argo CD match: " + kstatus);
        };
    assertThat(argo.status()).as("Argo CD health (Lua) of %s", kstatus).isEqualTo(expectedArgo);
    if (kstatus.status().equals("Failed")) {
      assertThat(argo.message()).as("Argo CD message of %s", kstatus).isEqualTo(kstatus.message());
    } else if (kstatus.status().equals("InProgress")) {
      assertThat(argo.message()).as("Argo CD message of %s", kstatus).contains(kstatus.reason());
    }
    Verdict flux = flux(kstatus.object());
    assertThat(flux.status())
        .as("Flux healthCheckExprs (CEL) of %s", kstatus)
        .isEqualTo(kstatus.status());
  }

  private static JsonNode fluxCheck() {
    try {
      JsonNode checks = new ObjectMapper(new YAMLFactory()).readTree(fluxExprs().toFile());
      for (JsonNode check : checks) {
        if (check.path("apiVersion").asText().equals("kafkamirror.dev/v1alpha1")
            && check.path("kind").asText().equals("ClusterMirror")) {
          return check;
        }
      }
      throw new AssertionError("no ClusterMirror check in " + fluxExprs());
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static Cel celEnvironment() {
    var builder =
        CelFactory.standardCelBuilder()
            .setStandardMacros(CelStandardMacro.STANDARD_MACROS)
            .addCompilerLibraries(CelOptionalLibrary.INSTANCE)
            .addRuntimeLibraries(CelOptionalLibrary.INSTANCE);
    for (String name : FLUX_VARIABLES) {
      builder.addVar(name, SimpleType.DYN);
    }
    return builder.build();
  }

  /** JSON as CEL values: integers as long, other numbers as double, objects as maps. */
  @SuppressWarnings("unchecked")
  private static <T> T toCel(JsonNode node) {
    if (node.isObject()) {
      Map<String, Object> map = new LinkedHashMap<>();
      node.fields().forEachRemaining(e -> map.put(e.getKey(), toCel(e.getValue())));
      return (T) map;
    }
    if (node.isArray()) {
      List<Object> list = new ArrayList<>();
      node.forEach(e -> list.add(toCel(e)));
      return (T) list;
    }
    if (node.isIntegralNumber()) {
      return (T) Long.valueOf(node.asLong());
    }
    if (node.isNumber()) {
      return (T) Double.valueOf(node.asDouble());
    }
    if (node.isBoolean()) {
      return (T) Boolean.valueOf(node.asBoolean());
    }
    if (node.isNull()) {
      return (T) dev.cel.common.values.NullValue.NULL_VALUE;
    }
    return (T) node.asText();
  }
}
