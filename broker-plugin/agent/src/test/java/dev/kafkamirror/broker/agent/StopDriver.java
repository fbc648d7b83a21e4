package dev.kafkamirror.broker.agent;

import com.fasterxml.jackson.databind.JsonNode;
import dev.kafkamirror.testing.kafka.KafkaCluster;
import dev.kafkamirror.testing.plugin.PluginControlClient;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.apache.kafka.common.TopicPartition;

/**
 * Drives the plugin's stop sequence over a multi-broker destination as an operator would: each step
 * batched per broker, sent to the partition's current leader (found with describe), repeated on the
 * new leader after LEADER_MOVED or NOT_LEADER, bounded in attempts.
 */
public final class StopDriver {

  public static final List<String> STEPS =
      List.of("remove-fetchers", "truncate", "persist-offsets", "barrier", "make-writable");

  private static final int MAX_ATTEMPTS = 20;

  /** Threads for the per-broker calls (the common pool has one thread on two cores). */
  private static final java.util.concurrent.ExecutorService CALLS =
      java.util.concurrent.Executors.newCachedThreadPool(
          r -> {
            Thread t = new Thread(r, "stop-driver-call");
            t.setDaemon(true);
            return t;
          });

  private final KafkaCluster destination;
  private final String sourceClusterId;
  private int leaderMoves;

  public StopDriver(KafkaCluster destination, String sourceClusterId) {
    this.destination = destination;
    this.sourceClusterId = sourceClusterId;
  }

  /** How many LEADER_MOVED answers (fences) the driver has seen. */
  public int leaderMoves() {
    return leaderMoves;
  }

  /** Runs every step. */
  public void stop(List<TopicPartition> partitions) {
    for (String step : STEPS) {
      step(step, partitions);
    }
  }

  /** Runs the steps up to and including {@code lastStep}. */
  void stopUpTo(List<TopicPartition> partitions, String lastStep) {
    for (String step : STEPS) {
      step(step, partitions);
      if (step.equals(lastStep)) {
        return;
      }
    }
  }

  /** One step for every partition; fails the test on an error other than a leader change. */
  public void step(String step, List<TopicPartition> partitions) {
    if (step.equals("remove-fetchers")) {
      // Every replica stops fetching; only the leader's answer must be clean.
      Map<TopicPartition, Integer> leaders = leaders(partitions);
      Map<Integer, List<JsonNode>> answers = new TreeMap<>();
      for (int broker : liveBrokers()) {
        answers.put(broker, List.of());
      }
      answers =
          postInParallel(
              step,
              answers.keySet().stream()
                  .collect(java.util.stream.Collectors.toMap(b -> b, b -> partitions)));
      for (int broker : answers.keySet()) {
        for (JsonNode r : answers.get(broker)) {
          TopicPartition tp =
              new TopicPartition(r.get("topic").asText(), r.get("partition").asInt());
          if (r.has("error") && leaders.get(tp) == broker) {
            throw new AssertionError(step + " on leader " + broker + ": " + r);
          }
        }
      }
      return;
    }
    List<TopicPartition> pending = new ArrayList<>(partitions);
    List<String> lastErrors = new ArrayList<>();
    for (int attempt = 0; attempt < MAX_ATTEMPTS && !pending.isEmpty(); attempt++) {
      lastErrors.clear();
      Map<Integer, List<TopicPartition>> byLeader = new TreeMap<>();
      leaders(pending)
          .forEach((tp, l) -> byLeader.computeIfAbsent(l, k -> new ArrayList<>()).add(tp));
      List<TopicPartition> retry = new ArrayList<>();
      Map<Integer, List<JsonNode>> answers = postInParallel(step, byLeader);
      for (Map.Entry<Integer, List<TopicPartition>> e : byLeader.entrySet()) {
        for (JsonNode r : answers.get(e.getKey())) {
          TopicPartition tp =
              new TopicPartition(r.get("topic").asText(), r.get("partition").asInt());
          if (!r.has("error")) {
            continue;
          }
          String code = r.get("error").get("code").asText();
          if (code.equals("LEADER_MOVED")) {
            leaderMoves++;
          }
          if (code.equals("LEADER_MOVED")
              || code.equals("NOT_LEADER")
              || code.equals("STATE_STORE_UNAVAILABLE")
              || code.equals("TIMEOUT")
              || code.equals("NOT_ENOUGH_REPLICAS")) {
            retry.add(tp);
            lastErrors.add(r.toString());
          } else {
            throw new AssertionError(step + " on broker " + e.getKey() + ": " + r);
          }
        }
      }
      pending = retry;
      if (!pending.isEmpty()) {
        sleep(500);
      }
    }
    if (!pending.isEmpty()) {
      throw new AssertionError(step + " did not complete for " + pending + ": " + lastErrors);
    }
    if (step.equals("make-writable")) {
      // Followers follow the recorded STOPPED (they also adopt it on their own).
      Map<Integer, List<TopicPartition>> all = new TreeMap<>();
      liveBrokers().forEach(b -> all.put(b, partitions));
      postInParallel(step, all);
    }
  }

  /** Describe of each partition on its leader. */
  public Map<TopicPartition, JsonNode> describeOnLeaders(List<TopicPartition> partitions) {
    Map<TopicPartition, JsonNode> out = new LinkedHashMap<>();
    for (int broker : liveBrokers()) {
      for (JsonNode r : post(broker, "describe", partitions)) {
        if (!r.has("error") && r.get("role").asText().equals("LEADER")) {
          out.put(new TopicPartition(r.get("topic").asText(), r.get("partition").asInt()), r);
        }
      }
    }
    return out;
  }

  /** The current leader of each partition, as the live brokers report it (waits for one). */
  Map<TopicPartition, Integer> leaders(List<TopicPartition> partitions) {
    long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
    while (true) {
      Map<TopicPartition, Integer> out = new LinkedHashMap<>();
      Map<Integer, List<TopicPartition>> all = new TreeMap<>();
      liveBrokers().forEach(b -> all.put(b, partitions));
      Map<Integer, List<JsonNode>> answers = postInParallel("describe", all);
      for (int broker : answers.keySet()) {
        for (JsonNode r : answers.get(broker)) {
          if (!r.has("error") && r.get("role").asText().equals("LEADER")) {
            out.put(
                new TopicPartition(r.get("topic").asText(), r.get("partition").asInt()), broker);
          }
        }
      }
      if (out.size() == partitions.size()) {
        return out;
      }
      if (System.nanoTime() > deadline) {
        throw new AssertionError("no leader for some of " + partitions + " after 60 s: " + out);
      }
      sleep(200);
    }
  }

  List<Integer> liveBrokers() {
    List<Integer> live = new ArrayList<>();
    for (int id : destination.brokerIds()) {
      if (destination.node(id).isRunning()) {
        live.add(id);
      }
    }
    return live;
  }

  /** One call per broker, all brokers at once (as an operator does), answers by broker. */
  private Map<Integer, List<JsonNode>> postInParallel(
      String step, Map<Integer, List<TopicPartition>> byBroker) {
    Map<Integer, java.util.concurrent.CompletableFuture<List<JsonNode>>> calls = new TreeMap<>();
    byBroker.forEach(
        (broker, tps) ->
            calls.put(
                broker,
                java.util.concurrent.CompletableFuture.supplyAsync(
                    () -> post(broker, step, tps), CALLS)));
    Map<Integer, List<JsonNode>> out = new TreeMap<>();
    calls.forEach(
        (broker, call) -> {
          try {
            out.put(broker, call.join());
          } catch (java.util.concurrent.CompletionException e) {
            if (e.getCause() instanceof AssertionError a) {
              throw a;
            }
            throw e;
          }
        });
    return out;
  }

  private List<JsonNode> post(int broker, String step, List<TopicPartition> partitions) {
    List<Map<String, Object>> body = new ArrayList<>();
    boolean withSource = step.equals("persist-offsets") || step.equals("barrier");
    for (TopicPartition tp : partitions) {
      Map<String, Object> p = new LinkedHashMap<>();
      p.put("topic", tp.topic());
      p.put("partition", tp.partition());
      if (withSource) {
        p.put("sourceClusterId", sourceClusterId);
      }
      body.add(p);
    }
    PluginControlClient client = MirrorOps.control(destination, broker);
    PluginControlClient.Response response =
        step.equals("describe")
            ? client.describe(partitions)
            : client.stopStep(step, body, 60_000L);
    if (response.status() != 200) {
      throw new AssertionError(
          step + " on broker " + broker + ": HTTP " + response.status() + " " + response.body());
    }
    List<JsonNode> out = new ArrayList<>();
    response.body().get("results").forEach(out::add);
    return out;
  }

  private static void sleep(long ms) {
    try {
      Thread.sleep(ms);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new AssertionError("interrupted", e);
    }
  }
}
