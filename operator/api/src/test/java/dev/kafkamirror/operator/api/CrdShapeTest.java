package dev.kafkamirror.operator.api;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import dev.kafkamirror.operator.api.crd.CrdPostProcessor;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The CRD users install (crds/) has its conditions shaped as Kubernetes' conventions say
 * (metav1.Condition: list-map keyed by type, required fields, status enum, date-time) and its
 * printer columns in the order kubectl should show them, whatever the generator did.
 */
class CrdShapeTest {

  private static final ObjectMapper YAML = new ObjectMapper(new YAMLFactory());

  private static JsonNode installedVersion() throws Exception {
    Path checkedIn =
        Path.of(System.getProperty("cmo.crds.dir", "../../crds"), CrdIsUpToDateTest.CRD_FILE);
    return YAML.readTree(Files.readString(checkedIn)).path("spec").path("versions").get(0);
  }

  @Test
  void conditionsAreAListMapKeyedByTypeWithTheMetav1ConditionShape() throws Exception {
    // Given the installed CRD
    JsonNode status =
        installedVersion().path("schema").path("openAPIV3Schema").path("properties").path("status");

    // When its conditions are read
    JsonNode conditions = status.path("properties").path("conditions");
    JsonNode item = conditions.path("items");

    // Then server-side apply can merge them by type, and the API server refuses a malformed one
    assertThat(conditions.path("x-kubernetes-list-type").asText()).isEqualTo("map");
    assertThat(conditions.path("x-kubernetes-list-map-keys").toString()).isEqualTo("[\"type\"]");
    assertThat(texts(item.path("required")))
        .containsExactlyInAnyOrder("type", "status", "reason", "message", "lastTransitionTime");
    assertThat(texts(item.path("properties").path("status").path("enum")))
        .containsExactly("True", "False", "Unknown");
    assertThat(item.path("properties").path("lastTransitionTime").path("format").asText())
        .isEqualTo("date-time");
    // And the observed phase is a status field with its values
    assertThat(texts(status.path("properties").path("phase").path("enum")))
        .contains("Pending", "Mirroring", "Paused", "Stopping", "Stopped", "Failed", "Aligning");
  }

  @Test
  void printerColumnsAreReadyPhaseStoppedMaxLagThenAge() throws Exception {
    // When the installed CRD's printer columns are read
    List<String> names = new ArrayList<>();
    List<String> paths = new ArrayList<>();
    installedVersion()
        .path("additionalPrinterColumns")
        .forEach(
            c -> {
              names.add(c.path("name").asText());
              paths.add(c.path("jsonPath").asText());
            });

    // Then they are in the declared order, observed state only, Age last
    assertThat(names).containsExactly("Ready", "Phase", "Stopped", "Max Lag", "Age");
    assertThat(paths)
        .containsExactly(
            ".status.conditions[?(@.type==\"Ready\")].status",
            ".status.phase",
            ".status.stoppedOfTotal",
            ".status.maxLagRecords",
            ".metadata.creationTimestamp");
  }

  @Test
  void shapingIsIdempotentAndRefusesAColumnMissingFromTheDeclaredOrder() throws Exception {
    // Given the shaped CRD
    Path checkedIn =
        Path.of(System.getProperty("cmo.crds.dir", "../../crds"), CrdIsUpToDateTest.CRD_FILE);
    String shaped = Files.readString(checkedIn);

    // When it is shaped again, it is unchanged
    assertThat(CrdPostProcessor.shape(shaped, "crd.yml")).isEqualTo(shaped);

    // And a column nobody placed in the order fails the build, naming it
    String extra =
        shaped.replace(
            "    name: \"v1alpha1\"\n",
            "    - jsonPath: \".spec.state\"\n      name: \"State\"\n      type: \"string\"\n"
                + "    name: \"v1alpha1\"\n");
    org.assertj.core.api.Assertions.assertThatThrownBy(
            () -> CrdPostProcessor.shape(extra, "crd.yml"))
        .hasMessageContaining("State")
        .hasMessageContaining("PRINTER_COLUMNS");
  }

  private static List<String> texts(JsonNode array) {
    List<String> out = new ArrayList<>();
    array.forEach(n -> out.add(n.asText()));
    return out;
  }
}
