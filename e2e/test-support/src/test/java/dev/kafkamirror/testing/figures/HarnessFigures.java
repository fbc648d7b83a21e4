package dev.kafkamirror.testing.figures;

import dev.kafkamirror.testing.kafka.KafkaCluster;
import dev.kafkamirror.testing.kafka.KafkaClusterConfig;
import dev.kafkamirror.testing.kube.KubeApiServerHarness;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * Prints the harness figures quoted in docs/testing.md: cluster start times, broker RSS, API server
 * start time.
 *
 * <p>Run: {@code ./mvnw -q -pl e2e/test-support -am test-compile exec:java
 * -Dexec.classpathScope=test -Dexec.mainClass=dev.kafkamirror.testing.figures.HarnessFigures}
 */
public final class HarnessFigures {

  private HarnessFigures() {}

  public static void main(String[] args) throws Exception {
    int rounds = args.length > 0 ? Integer.parseInt(args[0]) : 3;
    List<String> rows = new ArrayList<>();
    for (int round = 1; round <= rounds; round++) {
      long t0 = System.nanoTime();
      try (KafkaCluster single = KafkaClusterConfig.builder("figures-1").singleNode().start()) {
        long startMs = (System.nanoTime() - t0) / 1_000_000;
        rows.add(
            String.format(
                "| %d | single combined node | %,d | %s |",
                round, startMs, rssMiB(single.node(1).pid())));
      }
      t0 = System.nanoTime();
      try (KafkaCluster four =
          KafkaClusterConfig.builder("figures-4").controllerPlusBrokers(3).start()) {
        long startMs = (System.nanoTime() - t0) / 1_000_000;
        List<String> rss = new ArrayList<>();
        for (int id = 0; id <= 3; id++) {
          rss.add(rssMiB(four.node(id).pid()));
        }
        rows.add(
            String.format(
                "| %d | controller + 3 brokers | %,d | %s |",
                round, startMs, String.join(" / ", rss)));
      }
      t0 = System.nanoTime();
      try (KubeApiServerHarness api = KubeApiServerHarness.start()) {
        long startMs = (System.nanoTime() - t0) / 1_000_000;
        List<String> rss = api.processes().stream().map(p -> rssMiB(p.pid())).toList();
        rows.add(
            String.format(
                "| %d | kube-apiserver + etcd | %,d | %s |",
                round, startMs, String.join(" / ", rss)));
      }
    }
    System.out.println("| round | what | start to ready (ms) | RSS after start (MiB) |");
    System.out.println("|---|---|---|---|");
    rows.forEach(System.out::println);
  }

  private static String rssMiB(long pid) {
    try {
      for (String line : Files.readAllLines(Path.of("/proc/" + pid + "/status"))) {
        if (line.startsWith("VmRSS:")) {
          long kb = Long.parseLong(line.replaceAll("[^0-9]", ""));
          return Long.toString(kb / 1024);
        }
      }
    } catch (IOException e) {
      return "?";
    }
    return "?";
  }
}
