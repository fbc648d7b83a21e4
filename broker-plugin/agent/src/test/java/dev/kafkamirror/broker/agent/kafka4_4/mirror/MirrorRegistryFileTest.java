package dev.kafkamirror.broker.agent.kafka4_4.mirror;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class MirrorRegistryFileTest {

  @TempDir Path dir;

  private static MirrorRegistryFile.Row row() {
    return new MirrorRegistryFile.Row(
        "orders", 0, "m", "MIRRORING", "src", Map.of("bootstrap.servers", "a:9092"), "start");
  }

  @Test
  void rowsReadBackAsWrittenAndNoTemporaryFileIsLeft() throws Exception {
    MirrorRegistryFile file = new MirrorRegistryFile(dir);
    file.write(List.of(row()));
    assertThat(file.read()).containsExactly(row());
    assertThat(dir.resolve(MirrorRegistryFile.FILE_NAME + ".tmp")).doesNotExist();
  }

  @Test
  void theRecordedSourceTopicIdReadsBackAndAnOlderFileHasNone() throws Exception {
    // Given a row with the source topic id recorded for a destination topic id
    MirrorRegistryFile file = new MirrorRegistryFile(dir);
    MirrorRegistryFile.Row pinned =
        new MirrorRegistryFile.Row(
            "orders", 0, "m", "MIRRORING", "src", Map.of(), "start", "SRC-TOPIC", "DST-TOPIC");
    file.write(List.of(pinned));
    assertThat(file.read()).containsExactly(pinned);

    // And a file written before the id was recorded reads with none
    Files.writeString(
        file.path(),
        "[{\"topic\":\"orders\",\"partition\":0,\"mirrorName\":\"m\",\"state\":\"MIRRORING\","
            + "\"expectedSourceClusterId\":\"src\",\"clientProperties\":{},\"knownFrom\":\"start\"}]");
    assertThat(file.read())
        .containsExactly(
            new MirrorRegistryFile.Row("orders", 0, "m", "MIRRORING", "src", Map.of(), "start"));
  }

  @Test
  void noFileMeansNoRows() throws Exception {
    assertThat(new MirrorRegistryFile(dir).read()).isEmpty();
  }

  @Test
  void anEmptyOrHalfFileIsUnreadableNotEmpty() throws Exception {
    MirrorRegistryFile file = new MirrorRegistryFile(dir);
    file.write(List.of(row()));
    byte[] whole = Files.readAllBytes(file.path());
    Files.write(file.path(), new byte[0]);
    assertThatThrownBy(file::read)
        .isInstanceOf(MirrorRegistryFile.UnreadableRegistryException.class)
        .hasMessageContaining("is empty")
        .hasMessageContaining(file.path().toString());
    Files.write(file.path(), java.util.Arrays.copyOf(whole, whole.length / 2));
    assertThatThrownBy(file::read)
        .isInstanceOf(MirrorRegistryFile.UnreadableRegistryException.class)
        .hasMessageContaining("cannot be read");
    Path copy = file.keepUnreadableCopy();
    assertThat(Files.readAllBytes(copy)).hasSize(whole.length / 2);
  }

  @Test
  void aFileWithoutTheKnownFromFieldStillReads() throws Exception {
    Files.writeString(
        dir.resolve(MirrorRegistryFile.FILE_NAME),
        "[{\"topic\":\"orders\",\"partition\":0,\"mirrorName\":\"m\",\"state\":\"MIRRORING\","
            + "\"expectedSourceClusterId\":null,\"clientProperties\":{}}]");
    assertThat(new MirrorRegistryFile(dir).read()).hasSize(1);
  }
}
