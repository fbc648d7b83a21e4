package dev.kafkamirror.operator.api.crd;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import com.fasterxml.jackson.dataformat.yaml.YAMLGenerator;
import dev.kafkamirror.operator.api.v1alpha1.ClusterMirror;
import dev.kafkamirror.operator.api.v1alpha1.Conditions;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Shapes the CRD that Fabric8's generator wrote where its annotations cannot: the conditions become
 * a list-map keyed by {@code type} (server-side apply merges them by type), their {@code status}
 * gets the enum True/False/Unknown and their {@code lastTransitionTime} the {@code date-time}
 * format, as Kubernetes' metav1.Condition; the printer columns are put in {@link
 * ClusterMirror#PRINTER_COLUMNS} order (the generator sorts them by JSON path).
 *
 * <p>Run by the build at process-classes, right after the generator, on {@code
 * target/classes/META-INF/fabric8/*.yml}: the file the drift gate ({@code CrdIsUpToDateTest})
 * compares with the checked-in copies is the shaped one. Idempotent. Fails with a message naming
 * the file and the missing part when the generated CRD is not shaped as expected (a renamed field,
 * a printer column missing from the declared order), rather than writing a half-shaped CRD.
 *
 * <p>Arguments: the generated CRD file, then any directories to copy the shaped file into (the
 * {@code update-crds} profile passes {@code crds/} and the chart's {@code crds/}).
 */
public final class CrdPostProcessor {

  static final String HEADER =
      "# Generated from operator/api by Fabric8 CRDGenerator and shaped by CrdPostProcessor; do not"
          + " edit.\n"
          + "# Regenerate: ./mvnw -pl operator/api -am process-classes -Pupdate-crds\n";

  private static final ObjectMapper YAML =
      new ObjectMapper(
          YAMLFactory.builder().disable(YAMLGenerator.Feature.WRITE_DOC_START_MARKER).build());

  private CrdPostProcessor() {}

  public static void main(String[] args) throws IOException {
    if (args.length < 1) {
      throw new IllegalArgumentException(
          "usage: CrdPostProcessor <generated CRD file> [directory to copy it into]...");
    }
    Path crd = Path.of(args[0]);
    String shaped = shape(Files.readString(crd), crd.toString());
    Files.writeString(crd, shaped);
    for (int i = 1; i < args.length; i++) {
      if (args[i] == null || args[i].isBlank()) {
        continue;
      }
      Path dir = Path.of(args[i].trim());
      Files.createDirectories(dir);
      Files.writeString(dir.resolve(crd.getFileName()), shaped);
    }
  }

  /** The shaped CRD of the generated {@code yaml}; {@code name} names it in errors. */
  public static String shape(String yaml, String name) throws IOException {
    JsonNode root = YAML.readTree(yaml);
    JsonNode versions = root.path("spec").path("versions");
    if (!versions.isArray() || versions.isEmpty()) {
      throw new IllegalStateException(name + ": no spec.versions; is it a CRD?");
    }
    for (JsonNode version : versions) {
      ObjectNode v = (ObjectNode) version;
      orderPrinterColumns(v, name);
      shapeConditions(v, name);
    }
    return HEADER + YAML.writeValueAsString(root);
  }

  private static void orderPrinterColumns(ObjectNode version, String name) {
    JsonNode columns = version.path("additionalPrinterColumns");
    if (!columns.isArray()) {
      throw new IllegalStateException(
          name + ": version " + version.path("name").asText() + " has no additionalPrinterColumns");
    }
    Map<String, JsonNode> byName = new LinkedHashMap<>();
    columns.forEach(c -> byName.put(c.path("name").asText(), c));
    List<String> unlisted = new ArrayList<>(byName.keySet());
    unlisted.removeAll(ClusterMirror.PRINTER_COLUMNS);
    List<String> missing = new ArrayList<>(ClusterMirror.PRINTER_COLUMNS);
    missing.removeAll(byName.keySet());
    if (!unlisted.isEmpty() || !missing.isEmpty()) {
      throw new IllegalStateException(
          name
              + ": the printer columns "
              + byName.keySet()
              + " do not match ClusterMirror.PRINTER_COLUMNS "
              + ClusterMirror.PRINTER_COLUMNS
              + " (not in the order: "
              + unlisted
              + ", not generated: "
              + missing
              + "); list every @AdditionalPrinterColumn there");
    }
    ArrayNode ordered = YAML.createArrayNode();
    ClusterMirror.PRINTER_COLUMNS.forEach(n -> ordered.add(byName.get(n)));
    version.set("additionalPrinterColumns", ordered);
  }

  private static void shapeConditions(ObjectNode version, String name) {
    JsonNode conditions =
        version
            .path("schema")
            .path("openAPIV3Schema")
            .path("properties")
            .path("status")
            .path("properties")
            .path("conditions");
    JsonNode item = conditions.path("items").path("properties");
    for (String field : List.of("type", "status", "lastTransitionTime")) {
      if (!item.path(field).isObject()) {
        throw new IllegalStateException(
            name
                + ": status.conditions[]."
                + field
                + " is not in the generated schema of version "
                + version.path("name").asText()
                + "; the Condition class must keep it");
      }
    }
    ObjectNode list = (ObjectNode) conditions;
    list.put("x-kubernetes-list-type", "map");
    list.set("x-kubernetes-list-map-keys", YAML.createArrayNode().add("type"));
    ArrayNode values = YAML.createArrayNode();
    values.add(Conditions.TRUE).add(Conditions.FALSE).add(Conditions.UNKNOWN);
    ((ObjectNode) item.path("status")).set("enum", values);
    ((ObjectNode) item.path("lastTransitionTime")).put("format", "date-time");
  }
}
