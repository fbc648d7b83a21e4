package dev.kafkamirror.operator.api.docs;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayInputStream;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/**
 * {@code docs/crd-reference.md} is exactly what {@link CrdReference} renders from the checked-in
 * CRD ({@code CrdIsUpToDateTest} keeps that one equal to the API classes). With {@code
 * -Dcmo.docs.update=true} it rewrites the file instead.
 */
class CrdReferenceIsUpToDateTest {

  private static final String CRD_FILE = "clustermirrors.kafkamirror.dev-v1.yml";

  private static Path crd() {
    return Path.of(System.getProperty("cmo.crds.dir", "../../crds"), CRD_FILE);
  }

  private static Path reference() {
    return crd().getParent().resolveSibling("docs").resolve("crd-reference.md");
  }

  @Test
  void checkedInCrdReferenceMatchesTheOneRenderedFromTheCrd() throws Exception {
    // Given the checked-in CRD
    assertThat(crd()).as("crds/%s is checked in", CRD_FILE).exists();

    // When the reference is rendered from it
    String rendered;
    try (InputStream in = Files.newInputStream(crd())) {
      rendered = CrdReference.render(in);
    }
    if (Boolean.getBoolean("cmo.docs.update")) {
      Files.writeString(reference(), rendered, StandardCharsets.UTF_8);
    }

    // Then docs/crd-reference.md holds exactly that
    assertThat(reference()).as("docs/crd-reference.md is checked in").exists();
    assertThat(Files.readString(reference()))
        .as(
            "docs/crd-reference.md is stale; regenerate it with: ./mvnw -pl operator/api test"
                + " -Dtest=CrdReferenceIsUpToDateTest -Dcmo.docs.update=true")
        .isEqualTo(rendered);
  }

  @Test
  void everyFieldOfTheSchemaIsInTheReferenceWithItsConstraintsAndRules() throws Exception {
    // Given a CRD with a required field, an enum with a default, bounds and a CEL rule
    String yaml =
        """
        apiVersion: apiextensions.k8s.io/v1
        kind: CustomResourceDefinition
        metadata: {name: things.example.dev}
        spec:
          group: example.dev
          names: {kind: Thing, plural: things, shortNames: [th]}
          scope: Namespaced
          versions:
          - name: v1
            served: true
            storage: true
            schema:
              openAPIV3Schema:
                properties:
                  spec:
                    required: [size]
                    properties:
                      mode: {type: string, enum: [A, B], default: A, description: "The mode | pipe"}
                      size: {type: integer, minimum: 1, maximum: 10}
                      tags:
                        type: array
                        maxItems: 3
                        items:
                          type: object
                          properties:
                            name: {type: string}
                          x-kubernetes-validations:
                          - {rule: "size(self.name) > 0", message: "a tag needs a name"}
        """;

    // When it is rendered
    String md =
        CrdReference.render(new ByteArrayInputStream(yaml.getBytes(StandardCharsets.UTF_8)));

    // Then every field is a row with its type, requiredness, description and constraints
    assertThat(md)
        .contains("# Thing reference")
        .contains("| short names | `th` |")
        .contains("| `spec.mode` | string |  | The mode \\| pipe | one of `A`, `B`; default `A` |")
        .contains("| `spec.size` | integer | yes |  | minimum 1; maximum 10 |")
        .contains(
            "| `spec.tags` | array of object |  |  | at most 3 items; each item: rule"
                + " `size(self.name) > 0` (refused with: a tag needs a name) |")
        .contains("| `spec.tags[].name` | string |  |  |  |")
        .doesNotContain("status");
  }
}
