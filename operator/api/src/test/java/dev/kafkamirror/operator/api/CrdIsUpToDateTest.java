package dev.kafkamirror.operator.api;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/** The CRD checked in under crds/ is exactly what the Java model generates. */
class CrdIsUpToDateTest {

  static final String CRD_FILE = "clustermirrors.kafkamirror.dev-v1.yml";

  @Test
  void checkedInCrdMatchesTheGeneratedOne() throws Exception {
    Path generated = Path.of("target/classes/META-INF/fabric8", CRD_FILE);
    Path checkedIn = Path.of(System.getProperty("cmo.crds.dir", "../../crds"), CRD_FILE);
    assertThat(generated).as("the CRD generator ran at process-classes").exists();
    assertThat(checkedIn).as("crds/" + CRD_FILE + " is checked in").exists();
    assertThat(Files.readString(checkedIn))
        .as(
            "crds/%s is stale; regenerate it with: ./mvnw -pl operator/api -am process-classes -Pupdate-crds",
            CRD_FILE)
        .isEqualTo(Files.readString(generated));
    Path inChart =
        Path.of(
            System.getProperty("cmo.chart.dir", "../../charts/cluster-mirror-operator"),
            "crds",
            CRD_FILE);
    assertThat(Files.readString(inChart))
        .as("the Helm chart's copy of the CRD is stale; same command refreshes it")
        .isEqualTo(Files.readString(generated));
  }
}
