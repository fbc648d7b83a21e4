package dev.kafkamirror.operator.api.docs;

import io.fabric8.kubernetes.api.model.apiextensions.v1.CustomResourceColumnDefinition;
import io.fabric8.kubernetes.api.model.apiextensions.v1.CustomResourceDefinition;
import io.fabric8.kubernetes.api.model.apiextensions.v1.CustomResourceDefinitionVersion;
import io.fabric8.kubernetes.api.model.apiextensions.v1.JSONSchemaProps;
import io.fabric8.kubernetes.api.model.apiextensions.v1.ValidationRule;
import io.fabric8.kubernetes.client.utils.Serialization;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

/**
 * Renders {@code docs/crd-reference.md} from the generated CRD YAML (itself generated from the API
 * classes and drift-checked by {@code CrdIsUpToDateTest}): every field of spec and status with its
 * type, whether it is required, its description and every constraint the API server enforces (enum,
 * bounds, pattern, default, item limits, CEL rules with their messages).
 *
 * <p>Pure: the same YAML always gives the same text (fields in the schema's order, which Fabric8
 * writes sorted). {@code CrdReferenceIsUpToDateTest} fails when the checked-in file differs and
 * rewrites it with {@code -Dcmo.docs.update=true}.
 */
public final class CrdReference {

  private CrdReference() {}

  /** The reference of the CRD in {@code crdYaml}. */
  public static String render(InputStream crdYaml) {
    CustomResourceDefinition crd = Serialization.unmarshal(crdYaml, CustomResourceDefinition.class);
    var spec = crd.getSpec();
    StringBuilder out = new StringBuilder();
    out.append("# ").append(spec.getNames().getKind()).append(" reference\n\n");
    out.append(
        "<!-- Generated from crds/"
            + crd.getMetadata().getName()
            + "-v1.yml by CrdReference (operator/api tests); do not edit. Refresh:"
            + " ./mvnw -pl operator/api test -Dtest=CrdReferenceIsUpToDateTest"
            + " -Dcmo.docs.update=true -->\n\n");
    out.append("| | |\n|---|---|\n");
    out.append("| API group | `").append(spec.getGroup()).append("` |\n");
    out.append("| kind | `").append(spec.getNames().getKind()).append("` |\n");
    out.append("| plural | `").append(spec.getNames().getPlural()).append("` |\n");
    if (spec.getNames().getShortNames() != null && !spec.getNames().getShortNames().isEmpty()) {
      out.append("| short names | `")
          .append(String.join("`, `", spec.getNames().getShortNames()))
          .append("` |\n");
    }
    out.append("| scope | ").append(spec.getScope()).append(" |\n");
    for (CustomResourceDefinitionVersion version : spec.getVersions()) {
      out.append("\n## Version `").append(version.getName()).append("`\n\n");
      out.append("Served: ")
          .append(version.getServed())
          .append(", storage: ")
          .append(version.getStorage())
          .append(
              version.getSubresources() != null && version.getSubresources().getStatus() != null
                  ? ", status subresource (`kubectl get` shows spec; the operator writes status)"
                  : "")
          .append(".\n");
      if (version.getAdditionalPrinterColumns() != null
          && !version.getAdditionalPrinterColumns().isEmpty()) {
        out.append(
            "\n### Columns of `kubectl get`\n\n| column | JSON path | type |\n|---|---|---|\n");
        for (CustomResourceColumnDefinition c : version.getAdditionalPrinterColumns()) {
          out.append("| ")
              .append(c.getName())
              .append(" | `")
              .append(c.getJsonPath())
              .append("` | ")
              .append(c.getType())
              .append(" |\n");
        }
      }
      JSONSchemaProps root = version.getSchema().getOpenAPIV3Schema();
      for (String top : List.of("spec", "status")) {
        JSONSchemaProps props = root.getProperties().get(top);
        if (props == null) {
          continue;
        }
        out.append("\n### `").append(top).append("`\n\n");
        if (props.getDescription() != null) {
          out.append(oneLine(props.getDescription())).append("\n\n");
        }
        List<String> objectRules = rules(props);
        if (!objectRules.isEmpty()) {
          out.append("Rules on `").append(top).append("`: ");
          out.append(String.join("; ", objectRules)).append(".\n\n");
        }
        out.append("| field | type | required | description | constraints |\n");
        out.append("|---|---|---|---|---|\n");
        fields(out, top, props);
      }
    }
    return out.toString();
  }

  private static void fields(StringBuilder out, String path, JSONSchemaProps object) {
    Map<String, JSONSchemaProps> properties = object.getProperties();
    if (properties == null) {
      return;
    }
    Set<String> required =
        object.getRequired() == null ? Set.of() : new TreeSet<>(object.getRequired());
    for (Map.Entry<String, JSONSchemaProps> e : properties.entrySet()) {
      String field = path + "." + e.getKey();
      JSONSchemaProps p = e.getValue();
      out.append("| `")
          .append(field)
          .append("` | ")
          .append(type(p))
          .append(" | ")
          .append(required.contains(e.getKey()) ? "yes" : "")
          .append(" | ")
          .append(p.getDescription() == null ? "" : cell(p.getDescription()))
          .append(" | ")
          .append(cell(String.join("; ", constraints(p))))
          .append(" |\n");
      fields(out, field, p);
      if (p.getItems() != null && p.getItems().getSchema() != null) {
        fields(out, field + "[]", p.getItems().getSchema());
      }
      if (p.getAdditionalProperties() != null && p.getAdditionalProperties().getSchema() != null) {
        fields(out, field + ".*", p.getAdditionalProperties().getSchema());
      }
    }
  }

  private static String type(JSONSchemaProps p) {
    String type = p.getType() == null ? "any" : p.getType();
    if ("array".equals(type) && p.getItems() != null && p.getItems().getSchema() != null) {
      return "array of " + type(p.getItems().getSchema());
    }
    if ("object".equals(type)
        && p.getAdditionalProperties() != null
        && p.getAdditionalProperties().getSchema() != null) {
      return "map of " + type(p.getAdditionalProperties().getSchema());
    }
    return type;
  }

  private static List<String> constraints(JSONSchemaProps p) {
    List<String> c = new ArrayList<>();
    if (p.getEnum() != null && !p.getEnum().isEmpty()) {
      List<String> values = new ArrayList<>();
      p.getEnum().forEach(v -> values.add("`" + v.asText() + "`"));
      c.add("one of " + String.join(", ", values));
    }
    if (p.getDefault() != null) {
      c.add("default `" + p.getDefault().asText() + "`");
    }
    if (p.getMinimum() != null) {
      c.add("minimum " + number(p.getMinimum()));
    }
    if (p.getMaximum() != null) {
      c.add("maximum " + number(p.getMaximum()));
    }
    if (p.getMinLength() != null) {
      c.add("min length " + p.getMinLength());
    }
    if (p.getMaxLength() != null) {
      c.add("max length " + p.getMaxLength());
    }
    if (p.getPattern() != null) {
      c.add("pattern `" + p.getPattern() + "`");
    }
    if (p.getMinItems() != null) {
      c.add("at least " + p.getMinItems() + " items");
    }
    if (p.getMaxItems() != null) {
      c.add("at most " + p.getMaxItems() + " items");
    }
    if (Boolean.TRUE.equals(p.getNullable())) {
      c.add("nullable");
    }
    c.addAll(rules(p));
    if (p.getItems() != null && p.getItems().getSchema() != null) {
      constraints(p.getItems().getSchema()).forEach(i -> c.add("each item: " + i));
    }
    if (p.getAdditionalProperties() != null && p.getAdditionalProperties().getSchema() != null) {
      constraints(p.getAdditionalProperties().getSchema()).forEach(i -> c.add("each value: " + i));
    }
    return c;
  }

  private static List<String> rules(JSONSchemaProps p) {
    List<String> c = new ArrayList<>();
    if (p.getXKubernetesValidations() != null) {
      for (ValidationRule r : p.getXKubernetesValidations()) {
        c.add(
            "rule `"
                + r.getRule()
                + "`"
                + (r.getMessage() == null ? "" : " (refused with: " + r.getMessage() + ")"));
      }
    }
    return c;
  }

  private static String number(Double d) {
    return d == Math.rint(d) ? Long.toString(d.longValue()) : d.toString();
  }

  private static String oneLine(String text) {
    return text.replace("\r", "").replace('\n', ' ').trim();
  }

  /** Text for a Markdown table cell: one line, pipes escaped. */
  private static String cell(String text) {
    return oneLine(text).replace("|", "\\|");
  }

  /** Writes the reference of {@code crd} to {@code target}. */
  public static void write(Path crd, Path target) throws IOException {
    try (InputStream in = Files.newInputStream(crd)) {
      Files.writeString(target, render(in), StandardCharsets.UTF_8);
    }
  }
}
