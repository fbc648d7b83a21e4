package dev.kafkamirror.operator.it;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.kafkamirror.testing.kube.KubeApiServerHarness;
import dev.kafkamirror.testing.process.Commands;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;

/**
 * What Flux and every sigs.k8s.io/cli-utils based tool conclude about a ClusterMirror: the object
 * as the real API server returns it ({@code kubectl get -o json}), read by {@code cmo-kstatus}, the
 * kstatus library of sigs.k8s.io/cli-utils built by {@code e2e/tools/install-test-tools.sh}. A
 * missing tool fails the test; it is never skipped.
 */
final class Kstatus {

  /**
   * kstatus' verdict on one object: its status, the reason and message of the Reconciling or
   * Stalled condition it was based on ("" for Current), and the object it was computed from.
   */
  record Verdict(String status, String reason, String message, JsonNode object) {
    /** {@code status.phase} of the object read, or "" when it has none. */
    String phase() {
      return object.path("status").path("phase").asText();
    }

    @Override
    public String toString() {
      return status + " (" + reason + ": " + message + ") of " + object.path("status");
    }
  }

  private static final ObjectMapper JSON = new ObjectMapper();

  private Kstatus() {}

  static Path binary() {
    return Path.of(
        System.getProperty(
            "cmo.cache.dir", System.getProperty("user.home") + "/.cache/cluster-mirror-operator"),
        "bin",
        "cmo-kstatus");
  }

  /** Reads {@code clustermirror/name} through kubectl and computes its kstatus. */
  static Verdict of(KubeApiServerHarness apiServer, String namespace, String name) {
    assertThat(binary())
        .as("cmo-kstatus is built by e2e/tools/install-test-tools.sh")
        .isExecutable();
    Commands.Result got =
        Commands.run(
            Duration.ofSeconds(30),
            List.of(
                KubeApiServerHarness.kubectl().toString(),
                "--kubeconfig",
                apiServer.kubeconfigFile().toString(),
                "-n",
                namespace,
                "get",
                "clustermirror",
                name,
                "-o",
                "json"));
    assertThat(got.exitCode()).as(got.toString()).isZero();
    Path object = null;
    try {
      object = Files.createTempFile("cmo-kstatus-", ".json");
      Files.writeString(object, got.stdout(), StandardCharsets.UTF_8);
      Commands.Result computed =
          Commands.run(Duration.ofSeconds(30), List.of(binary().toString(), object.toString()));
      assertThat(computed.exitCode()).as(computed.toString()).isZero();
      JsonNode verdict = JSON.readTree(computed.stdout());
      return new Verdict(
          verdict.path("status").asText(),
          verdict.path("reason").asText(),
          verdict.path("message").asText(),
          JSON.readTree(got.stdout()));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } finally {
      if (object != null) {
        try {
          Files.deleteIfExists(object);
        } catch (IOException ignored) {
          // a temp file left behind
        }
      }
    }
  }
}
