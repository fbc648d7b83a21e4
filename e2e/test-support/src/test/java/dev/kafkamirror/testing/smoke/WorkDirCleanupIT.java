package dev.kafkamirror.testing.smoke;

import static org.assertj.core.api.Assertions.assertThat;

import dev.kafkamirror.testing.kafka.KafkaCluster;
import dev.kafkamirror.testing.kafka.KafkaClusterConfig;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * A cluster built to delete its work on close leaves no data behind: the benchmarks write gigabytes
 * per run under {@code java.io.tmpdir}, and a second run must not fail for a full disk.
 */
class WorkDirCleanupIT {

  @Test
  void aClusterThatDeletesItsWorkOnCloseLeavesNoDirectoryBehind() {
    // Given a running single-node cluster that holds a topic's data
    KafkaCluster cluster =
        KafkaClusterConfig.builder("cleanup").singleNode().deleteWorkOnClose(true).start();
    Path workDir = cluster.workDir();
    try {
      cluster.createTopic("cleanup-topic", 1, 1, Map.of());
      assertThat(workDir).isDirectory();
      assertThat(workDir.resolve("node-1")).isDirectory();
    } finally {
      // When it closes
      cluster.close();
    }

    // Then its work directory is gone, and no node runs
    assertThat(Files.exists(workDir)).as("work directory %s after close", workDir).isFalse();
    assertThat(cluster.node(1).isRunning()).isFalse();
  }

  @Test
  void theDefaultKeepsTheWorkForAPostMortem() {
    // Given no deleteWorkOnClose call and no system property (the suite sets none)
    // When a config is built
    KafkaClusterConfig config = KafkaClusterConfig.builder("kept").build();

    // Then it keeps its work directory on close
    assertThat(System.getProperty(KafkaClusterConfig.DELETE_WORK_ON_CLOSE_PROPERTY)).isNull();
    assertThat(config.deleteWorkOnClose()).isFalse();
  }
}
