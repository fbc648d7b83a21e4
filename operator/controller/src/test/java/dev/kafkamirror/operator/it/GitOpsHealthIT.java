package dev.kafkamirror.operator.it;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.kafkamirror.operator.core.StatusComputer;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import org.junit.jupiter.api.Test;

/**
 * The chart's Argo CD health check (Lua) and Flux healthCheckExprs (CEL) on the states that {@code
 * ClusterMirrorLifecycleIT} cannot hold still long enough to read: no status yet, the operator's
 * first-visit seed status, a status of an earlier generation, a resource being deleted. Every other
 * phase is checked against kstatus on the real API server's objects in that IT. An IT and not a
 * Test because it runs {@code lua5.4}; it needs no API server.
 */
class GitOpsHealthIT {

  private static final ObjectMapper JSON = new ObjectMapper();
  private static final Clock CLOCK =
      Clock.fixed(Instant.parse("2026-01-01T00:00:00Z"), ZoneOffset.UTC);

  private static ObjectNode object(long generation) {
    ObjectNode o = JSON.createObjectNode();
    o.put("apiVersion", "kafkamirror.dev/v1alpha1");
    o.put("kind", "ClusterMirror");
    ObjectNode metadata = o.putObject("metadata");
    metadata.put("name", "orders-mirror");
    metadata.put("namespace", "mirrors");
    metadata.put("generation", generation);
    o.putObject("spec").put("state", "Stopped");
    return o;
  }

  /** The seed status as the operator writes it (fabric8's serialization, as to the API server). */
  private static ObjectNode withSeed(ObjectNode o, long observedGeneration) throws Exception {
    String status =
        new KubernetesSerialization().asJson(StatusComputer.seed(observedGeneration, CLOCK));
    o.set("status", JSON.readTree(status));
    return o;
  }

  private static void setCondition(JsonNode o, String type, String status) {
    for (JsonNode c : o.path("status").path("conditions")) {
      if (c.path("type").asText().equals(type)) {
        ((ObjectNode) c).put("status", status);
      }
    }
  }

  @Test
  void noStatusYetIsProgressingAndNeverCurrent() {
    ObjectNode o = object(1);

    assertThat(GitOpsHealth.argoCd(o).status()).isEqualTo("Progressing");
    // Flux cannot evaluate expressions on a missing status and keeps waiting
    assertThat(GitOpsHealth.flux(o).status()).isEqualTo("Error");
  }

  @Test
  void theFirstVisitSeedIsInProgress() throws Exception {
    ObjectNode o = withSeed(object(1), 1);

    GitOpsHealth.Verdict argo = GitOpsHealth.argoCd(o);
    assertThat(argo.status()).isEqualTo("Progressing");
    assertThat(argo.message()).startsWith("FirstObservation: ");
    assertThat(GitOpsHealth.flux(o).status()).isEqualTo("InProgress");
  }

  @Test
  void aStatusOfAnEarlierGenerationIsInProgressWhateverItsConditions() throws Exception {
    // Given conditions that would read Healthy, and then Stalled, at the generation they were of
    ObjectNode o = withSeed(object(3), 2);
    setCondition(o, "Reconciling", "False");
    setCondition(o, "Stalled", "False");
    setCondition(o, "Ready", "True");

    assertThat(GitOpsHealth.argoCd(o).status()).isEqualTo("Progressing");
    assertThat(GitOpsHealth.argoCd(o).message()).contains("generation 3");
    assertThat(GitOpsHealth.flux(o).status()).isEqualTo("InProgress");

    setCondition(o, "Stalled", "True");
    assertThat(GitOpsHealth.argoCd(o).status()).isEqualTo("Progressing");
    assertThat(GitOpsHealth.flux(o).status()).isEqualTo("InProgress");

    // And once the generation is observed, the same conditions decide
    ((ObjectNode) o.path("status")).put("observedGeneration", 3);
    assertThat(GitOpsHealth.argoCd(o).status()).isEqualTo("Degraded");
    assertThat(GitOpsHealth.flux(o).status()).isEqualTo("Failed");
    setCondition(o, "Stalled", "False");
    assertThat(GitOpsHealth.argoCd(o).status()).isEqualTo("Healthy");
    assertThat(GitOpsHealth.flux(o).status()).isEqualTo("Current");
  }

  @Test
  void aResourceBeingDeletedIsInProgress() throws Exception {
    ObjectNode o = withSeed(object(1), 1);
    setCondition(o, "Reconciling", "False");
    setCondition(o, "Ready", "True");
    ((ObjectNode) o.path("metadata")).put("deletionTimestamp", "2026-01-01T00:01:00Z");

    assertThat(GitOpsHealth.argoCd(o).status()).isEqualTo("Progressing");
    assertThat(GitOpsHealth.flux(o).status()).isEqualTo("InProgress");
  }

  @Test
  void operatorMdShowsTheShippedChecksAsTheyAre() throws Exception {
    String doc =
        Files.readString(Path.of(System.getProperty("cmo.docs.dir", "../../docs"), "operator.md"));

    assertThat(doc).contains("```lua\n" + Files.readString(GitOpsHealth.luaScript()) + "```\n");
    assertThat(doc).contains("```yaml\n" + Files.readString(GitOpsHealth.fluxExprs()) + "```\n");
  }
}
