package dev.kafkamirror.broker.agent.control;

import static org.assertj.core.api.Assertions.assertThat;

import dev.kafkamirror.testing.time.SettableClock;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class RotatingSecretTest {

  private static final String OLD = "old-secret-0123456789abcdef";
  private static final String NEW = "new-secret-0123456789abcdef";

  private final SettableClock clock = new SettableClock(Instant.ofEpochMilli(1_000_000L));

  @Test
  void afterARotationBothSecretsPassDuringTheGraceAndThenOnlyTheNewOne(@TempDir Path dir)
      throws Exception {
    Path file = dir.resolve("secret");
    Files.writeString(file, OLD + "\n");
    RotatingSecret secret = new RotatingSecret(OLD, file, 60_000L, clock);
    assertThat(secret.test(OLD)).isTrue();
    assertThat(secret.test(NEW)).isFalse();
    // When the file is rotated, the next call after the check interval sees it
    Files.writeString(file, NEW + "\n");
    clock.advanceMillis(RotatingSecret.CHECK_MS);
    assertThat(secret.test(NEW)).isTrue();
    assertThat(secret.test(OLD)).isTrue();
    assertThat(secret.test("wrong-secret-0123456789")).isFalse();
    // And once the grace has passed, only the new one
    clock.advanceMillis(60_000L);
    assertThat(secret.test(NEW)).isTrue();
    assertThat(secret.test(OLD)).isFalse();
  }

  @Test
  void aFileThatCannotBeReadOrHoldsAShortSecretChangesNothing(@TempDir Path dir) throws Exception {
    Path file = dir.resolve("secret");
    Files.writeString(file, OLD);
    RotatingSecret secret = new RotatingSecret(OLD, file, 60_000L, clock);
    Files.writeString(file, "short");
    clock.advanceMillis(RotatingSecret.CHECK_MS);
    assertThat(secret.test(OLD)).isTrue();
    assertThat(secret.test("short")).isFalse();
    Files.delete(file);
    clock.advanceMillis(RotatingSecret.CHECK_MS);
    assertThat(secret.test(OLD)).isTrue();
  }

  @Test
  void aFixedSecretIsNeverReadAgain() {
    RotatingSecret secret = new RotatingSecret(OLD, null, 60_000L, clock);
    clock.advanceMillis(10 * RotatingSecret.CHECK_MS);
    assertThat(secret.test(OLD)).isTrue();
    assertThat(secret.test(NEW)).isFalse();
  }
}
