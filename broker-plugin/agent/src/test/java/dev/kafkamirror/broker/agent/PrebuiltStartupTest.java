package dev.kafkamirror.broker.agent;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * On the Kafka build the agent jar holds prebuilt classes for, the agent's preparation installs
 * without ByteBuddy ever being loaded: each run is a JVM of its own that logs every class it loads
 * ({@code -Xlog:class+load}), with the Kafka 4.4 broker classes of this build's class path.
 */
class PrebuiltStartupTest {

  /** What the probe JVM printed: its {@code OUTCOME} line and every class it loaded. */
  private record Run(String outcome, List<String> byteBuddyClasses) {}

  private static Run probe(String... args) throws IOException, InterruptedException {
    List<String> command = new java.util.ArrayList<>();
    command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    command.add("-Xlog:class+load=info:stdout");
    command.add("-cp");
    command.add(System.getProperty("java.class.path"));
    command.add(PrebuiltStartupProbe.class.getName());
    command.addAll(List.of(args));
    Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
    String output;
    try {
      output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
      assertThat(process.waitFor(2, TimeUnit.MINUTES)).isTrue();
    } finally {
      process.destroyForcibly();
    }
    assertThat(process.exitValue()).as(output).isZero();
    List<String> lines = output.lines().toList();
    String outcome =
        lines.stream().filter(line -> line.startsWith("OUTCOME ")).findFirst().orElse(output);
    List<String> byteBuddy =
        lines.stream().filter(line -> line.contains("[class,load] net.bytebuddy.")).toList();
    return new Run(outcome, byteBuddy);
  }

  @Test
  void theBuildsKafkaInstallsFromThePrebuiltClassesWithoutLoadingByteBuddy() throws Exception {
    // Given the Kafka build the agent jar holds prebuilt classes for
    // When the agent's preparation runs in a fresh JVM
    Run run = probe();

    // Then it installs on the prebuilt path, and the JVM never loaded a ByteBuddy class
    assertThat(run.outcome())
        .isEqualTo("OUTCOME Installed " + StartupCost.PREBUILT_PATH.replace(' ', '_'));
    assertThat(run.byteBuddyClasses()).isEmpty();
  }

  @Test
  void withoutPrebuiltClassesThePreparationLoadsByteBuddy() throws Exception {
    // Given an agent jar without prebuilt classes (the check above must be able to fail)
    // When the agent's preparation runs in a fresh JVM
    Run run = probe("bytebuddy");

    // Then it installs on the ByteBuddy path, and the class-load log shows ByteBuddy's classes
    assertThat(run.outcome())
        .isEqualTo("OUTCOME Installed " + StartupCost.BYTE_BUDDY_PATH.replace(' ', '_'));
    assertThat(run.byteBuddyClasses()).isNotEmpty();
  }
}
