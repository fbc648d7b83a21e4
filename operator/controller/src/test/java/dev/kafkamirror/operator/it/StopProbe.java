package dev.kafkamirror.operator.it;

import com.fasterxml.jackson.databind.JsonNode;
import dev.kafkamirror.testing.kafka.KafkaCluster;
import dev.kafkamirror.testing.plugin.PluginControlClient;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

/**
 * Reads, through the plugin's describe on every live broker, where each partition's stop stands.
 */
final class StopProbe {

  private final KafkaCluster destination;
  private final String topic;
  private final int partitions;

  StopProbe(KafkaCluster destination, String topic, int partitions) {
    this.destination = destination;
    this.topic = topic;
    this.partitions = partitions;
  }

  /** Each partition's describe on every live broker that hosts it: partition -> broker -> JSON. */
  Map<Integer, Map<Integer, JsonNode>> describeAll() {
    Map<Integer, Map<Integer, JsonNode>> out = new LinkedHashMap<>();
    int[] ps = new int[partitions];
    for (int p = 0; p < partitions; p++) {
      ps[p] = p;
      out.put(p, new LinkedHashMap<>());
    }
    for (int broker : destination.brokerIds()) {
      if (!destination.node(broker).isRunning()) {
        continue;
      }
      PluginControlClient.Response r;
      try {
        r = MirrorFixtures.control(destination, broker).describe(topic, ps);
      } catch (IllegalStateException e) {
        continue; // the broker is starting or stopping
      }
      if (r.status() != 200) {
        continue;
      }
      for (JsonNode result : r.body().path("results")) {
        if (!result.has("error")) {
          out.get(result.path("partition").asInt()).put(broker, result);
        }
      }
    }
    return out;
  }

  /** "state/step" of each partition on its leader, e.g. "STOPPING/TRUNCATED"; "?" when unknown. */
  List<String> signature() {
    Map<Integer, Map<Integer, JsonNode>> all = describeAll();
    return all.values().stream()
        .map(
            byBroker ->
                byBroker.values().stream()
                    .filter(d -> "LEADER".equals(d.path("role").asText()))
                    .findFirst()
                    .map(
                        d ->
                            d.path("mirror").path("state").asText("-")
                                + "/"
                                + d.path("stop").path("step").asText("-"))
                    .orElse("?"))
        .toList();
  }

  /** Distinct barrier offsets naming {@code sourceId} in one replica's describe. */
  static Set<Long> barrierOffsets(JsonNode describe, String sourceId) {
    Set<Long> offsets = new TreeSet<>();
    for (JsonNode r : describe.path("barrierResets")) {
      if (sourceId.equals(r.path("sourceClusterId").asText())) {
        offsets.add(r.path("barrierOffset").asLong());
      }
    }
    return offsets;
  }
}
