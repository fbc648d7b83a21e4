package dev.kafkamirror.broker.agent;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class StartupGuardTest {

  @TempDir Path dir;

  private Map<String, String> settings() {
    return Map.of("log.dirs", dir.toString());
  }

  @Test
  void aBrokerWithoutARegistryStartsUnmodified() {
    assertThat(StartupGuard.refusal("Kafka 4.3.1 is not a supported version", settings()))
        .isEmpty();
  }

  @Test
  void aRegistryWithAMirroringPartitionRefusesNamingItTheCauseAndTheOverride() throws Exception {
    Files.writeString(
        dir.resolve(StartupGuard.REGISTRY_FILE),
        "[{\"topic\":\"orders\",\"partition\":2,\"mirrorName\":\"m\",\"state\":\"STOPPING\"},"
            + "{\"topic\":\"done\",\"partition\":0,\"mirrorName\":\"m\",\"state\":\"STOPPED\"}]");
    assertThat(StartupGuard.refusal("a missing hook", settings()))
        .get()
        .asString()
        .contains("REFUSING TO START")
        .contains("a missing hook")
        .contains("orders-2 (mirror m, STOPPING")
        .doesNotContain("done-0")
        .contains("cluster.mirror.agent.allow.unprotected.start=true");
  }

  @Test
  void onlyStoppedPartitionsDoNotRefuse() throws Exception {
    Files.writeString(
        dir.resolve(StartupGuard.REGISTRY_FILE),
        "[{\"topic\":\"done\",\"partition\":0,\"mirrorName\":\"m\",\"state\":\"STOPPED\"}]");
    assertThat(StartupGuard.refusal("x", settings())).isEmpty();
  }

  @Test
  void anEmptyOrCorruptRegistryRefuses() throws Exception {
    Files.writeString(dir.resolve(StartupGuard.REGISTRY_FILE), "");
    assertThat(StartupGuard.refusal("x", settings())).get().asString().contains("unreadable");
    Files.writeString(dir.resolve(StartupGuard.REGISTRY_FILE), "[{\"topic\":\"or");
    assertThat(StartupGuard.refusal("x", settings())).get().asString().contains("unreadable");
  }

  @Test
  void theOverrideLetsTheBrokerStart() throws Exception {
    Files.writeString(
        dir.resolve(StartupGuard.REGISTRY_FILE),
        "[{\"topic\":\"orders\",\"partition\":2,\"mirrorName\":\"m\",\"state\":\"MIRRORING\"}]");
    assertThat(
            StartupGuard.refusal(
                "x",
                Map.of("log.dirs", dir.toString(), PluginConfig.ALLOW_UNPROTECTED_START, "true")))
        .isEmpty();
  }
}
