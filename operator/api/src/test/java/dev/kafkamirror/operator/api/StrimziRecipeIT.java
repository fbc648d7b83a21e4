package dev.kafkamirror.operator.api;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import com.fasterxml.jackson.dataformat.yaml.YAMLParser;
import dev.kafkamirror.testing.kube.KubeApiServerHarness;
import dev.kafkamirror.testing.process.Commands;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The Strimzi recipe of {@code deploy/strimzi/} (a Kafka with the plugin, its node pools, the
 * plugin's KafkaUser, the control secret and the control port's NetworkPolicy) against Strimzi's
 * own API: the Strimzi resources are read into Strimzi's published model ({@code io.strimzi:api}
 * 0.50.0, the newest built for Java 17), and a field that model does not declare anywhere in the
 * tree (a misspelling, a field of another version) fails with its path; the Kubernetes resources
 * are applied to a real kube-apiserver as a server-side dry run with strict field validation.
 *
 * <p>Not checked here: Strimzi's CRD schema itself (its bounds, enums and CEL rules), which needs
 * Strimzi's CRD files installed; the project does not vendor them.
 */
class StrimziRecipeIT {

  private static final Path RECIPE =
      Path.of(System.getProperty("cmo.strimzi.dir", "../../deploy/strimzi"));
  private static final Map<String, Class<?>> STRIMZI_KINDS =
      Map.of(
          "Kafka", io.strimzi.api.kafka.model.kafka.Kafka.class,
          "KafkaNodePool", io.strimzi.api.kafka.model.nodepool.KafkaNodePool.class,
          "KafkaUser", io.strimzi.api.kafka.model.user.KafkaUser.class);
  private static final List<String> KUBERNETES_SAMPLES =
      List.of("control-secret.yaml", "network-policy.yaml");
  private static final List<String> STRIMZI_SAMPLES = List.of("kafka.yaml", "kafka-user.yaml");

  private static KubeApiServerHarness apiServer;

  @BeforeAll
  static void start() {
    apiServer = KubeApiServerHarness.start();
    kubectl("create", "namespace", "kafka").requireSuccess();
  }

  @AfterAll
  static void stop() {
    if (apiServer != null) {
      apiServer.close();
    }
  }

  private static Commands.Result kubectl(String... args) {
    List<String> command =
        new ArrayList<>(
            List.of(
                KubeApiServerHarness.kubectl().toString(),
                "--kubeconfig",
                apiServer.kubeconfigFile().toString()));
    command.addAll(List.of(args));
    return Commands.run(Duration.ofSeconds(60), command);
  }

  private static Commands.Result dryRun(Path file) {
    return kubectl(
        "apply", "--server-side", "--dry-run=server", "--validate=strict", "-f", file.toString());
  }

  @Test
  void theKubernetesSamplesAreAcceptedInAStrictServerSideDryRun() {
    // Given a real API server
    // When the Secret and the NetworkPolicy are applied as a strict server-side dry run
    StringBuilder applied = new StringBuilder();
    for (String sample : KUBERNETES_SAMPLES) {
      Commands.Result result = dryRun(RECIPE.resolve(sample));
      // Then the API server accepts them
      assertThat(result.exitCode()).as(sample + ": " + result.stderr()).isZero();
      applied.append(result.stdout());
    }
    assertThat(applied.toString())
        .contains(
            "networkpolicy.networking.k8s.io/my-cluster-cluster-mirror-control serverside-applied"
                + " (server dry run)")
        .contains("secret/cluster-mirror-control serverside-applied (server dry run)");
  }

  @Test
  void everyStrimziResourceOfTheRecipeReadsIntoStrimzisModelWithoutAnUndeclaredField()
      throws Exception {
    // Given the recipe's Strimzi resources
    List<String> kinds = new ArrayList<>();
    for (String sample : STRIMZI_SAMPLES) {
      for (JsonNode doc : documents(RECIPE.resolve(sample))) {
        String kind = doc.path("kind").asText();
        if (!STRIMZI_KINDS.containsKey(kind)) {
          continue;
        }
        kinds.add(kind + "/" + doc.at("/metadata/name").asText());
        // When each is read into Strimzi's model, Then no field is left undeclared
        assertThat(undeclaredFields(doc)).as(sample + " " + kind).isEmpty();
        assertThat(doc.path("apiVersion").asText()).startsWith("kafka.strimzi.io/");
      }
    }
    assertThat(kinds)
        .containsExactlyInAnyOrder(
            "Kafka/my-cluster",
            "KafkaNodePool/broker",
            "KafkaNodePool/controller",
            "KafkaUser/cluster-mirror-plugin");
  }

  @Test
  void aMisspeltFieldInTheKafkaSampleIsFoundWithItsPath() throws Exception {
    String kafka = Files.readString(RECIPE.resolve("kafka.yaml"), StandardCharsets.UTF_8);
    for (Map.Entry<String, String> typo :
        Map.of(
                "      kafkaContainer:", "      kafkaContainr:",
                "        volumeMounts:", "        volumeMount:",
                "  roles:", "  role:")
            .entrySet()) {
      // Given the Kafka sample with one field misspelt
      assertThat(kafka).contains(typo.getKey());
      Path bad = Files.createTempFile("strimzi-kafka-", ".yaml");
      Files.writeString(bad, kafka.replace(typo.getKey(), typo.getValue()));
      try {
        // When it is read into Strimzi's model
        List<String> undeclared = new ArrayList<>();
        for (JsonNode doc : documents(bad)) {
          if (STRIMZI_KINDS.containsKey(doc.path("kind").asText())) {
            undeclared.addAll(undeclaredFields(doc));
          }
        }
        // Then the misspelt field is reported
        String field = typo.getValue().trim().replace(":", "");
        assertThat(undeclared).as(field).anyMatch(u -> u.endsWith("." + field));
      } finally {
        Files.delete(bad);
      }
    }
  }

  /**
   * Reads {@code doc} into Strimzi's model class of its kind and returns the path of every field
   * the model does not declare (Strimzi keeps those in {@code additionalProperties}).
   */
  private static List<String> undeclaredFields(JsonNode doc) throws Exception {
    ObjectMapper mapper = new ObjectMapper();
    Object resource = mapper.treeToValue(doc, STRIMZI_KINDS.get(doc.path("kind").asText()));
    List<String> out = new ArrayList<>();
    collectUndeclared(resource, doc.path("kind").asText(), out, new java.util.IdentityHashMap<>());
    // and every field the model dropped without keeping it (a class that ignores unknown fields)
    collectDropped(doc, mapper.valueToTree(resource), doc.path("kind").asText(), out);
    return out;
  }

  private static void collectDropped(JsonNode given, JsonNode read, String path, List<String> out) {
    if (given.isObject()) {
      given
          .fields()
          .forEachRemaining(
              e -> {
                JsonNode back = read == null ? null : read.get(e.getKey());
                if (back == null || back.isNull() && !e.getValue().isNull()) {
                  out.add(path + "." + e.getKey());
                } else {
                  collectDropped(e.getValue(), back, path + "." + e.getKey(), out);
                }
              });
    } else if (given.isArray()) {
      for (int i = 0; i < given.size(); i++) {
        collectDropped(
            given.get(i),
            read != null && read.size() > i ? read.get(i) : null,
            path + "[" + i + "]",
            out);
      }
    }
  }

  private static void collectUndeclared(
      Object o, String path, List<String> out, java.util.IdentityHashMap<Object, Boolean> seen)
      throws IllegalAccessException {
    if (o == null || seen.put(o, Boolean.TRUE) != null) {
      return;
    }
    if (o instanceof java.util.Collection<?> c) {
      int i = 0;
      for (Object e : c) {
        collectUndeclared(e, path + "[" + i++ + "]", out, seen);
      }
      return;
    }
    if (o instanceof Map<?, ?> m) {
      for (Map.Entry<?, ?> e : m.entrySet()) {
        collectUndeclared(e.getValue(), path + "." + e.getKey(), out, seen);
      }
      return;
    }
    if (!o.getClass().getName().startsWith("io.strimzi.") || o instanceof Enum<?>) {
      return;
    }
    if (o instanceof io.fabric8.kubernetes.client.CustomResource<?, ?> resource) {
      // spec and status are declared by Fabric8's base class, not by Strimzi's
      collectUndeclared(resource.getSpec(), path + ".spec", out, seen);
    }
    if (o instanceof io.strimzi.api.kafka.model.common.UnknownPropertyPreserving u
        && u.getAdditionalProperties() != null) {
      u.getAdditionalProperties().keySet().forEach(k -> out.add(path + "." + k));
    }
    for (Class<?> c = o.getClass();
        c != null && c.getName().startsWith("io.strimzi.");
        c = c.getSuperclass()) {
      for (java.lang.reflect.Field f : c.getDeclaredFields()) {
        if (java.lang.reflect.Modifier.isStatic(f.getModifiers())
            || f.getName().equals("additionalProperties")
            || f.getType().isPrimitive()) {
          continue;
        }
        f.setAccessible(true);
        collectUndeclared(f.get(o), path + "." + f.getName(), out, seen);
      }
    }
  }

  /** Every document of a multi-document YAML file. */
  private static List<JsonNode> documents(Path file) throws Exception {
    ObjectMapper mapper = new ObjectMapper(new YAMLFactory());
    try (YAMLParser parser = new YAMLFactory().createParser(file.toFile())) {
      return mapper.readValues(parser, JsonNode.class).readAll();
    }
  }

  @Test
  void theKafkaSampleWiresTheAgentTheSecretsAndTheControlPortTogether() throws Exception {
    // Given the recipe's Kafka and NetworkPolicy
    JsonNode kafka = document(RECIPE.resolve("kafka.yaml"), "Kafka");
    JsonNode policy = document(RECIPE.resolve("network-policy.yaml"), "NetworkPolicy");
    JsonNode spec = kafka.path("spec").path("kafka");
    JsonNode config = spec.path("config");
    JsonNode template = spec.path("template");

    // Then the broker JVM gets the agent through KAFKA_OPTS, at the path the Dockerfile puts it
    String dockerfile = Files.readString(RECIPE.resolve("Dockerfile"));
    String agentPath = "/opt/cluster-mirror/cmo-broker-agent.jar";
    assertThat(dockerfile).contains("COPY cmo-broker-agent.jar " + agentPath);
    assertThat(template.path("kafkaContainer").path("env").findValuesAsText("value"))
        .contains("-javaagent:" + agentPath);
    // And the NetworkPolicy opens exactly the control listener's port on the broker pods
    String listener = config.path("cluster.mirror.control.listener").asText();
    assertThat(listener).endsWith(":" + policy.at("/spec/ingress/0/ports/0/port").asInt());
    assertThat(policy.at("/spec/podSelector/matchLabels/strimzi.io~1cluster").asText())
        .isEqualTo(kafka.at("/metadata/name").asText());
    // And every mounted volume is declared, every file the settings name is under a mount
    Set<String> mounts = new java.util.HashSet<>();
    template
        .path("kafkaContainer")
        .path("volumeMounts")
        .forEach(m -> mounts.add(m.path("name").asText()));
    Set<String> volumes = new java.util.HashSet<>();
    template.path("pod").path("volumes").forEach(v -> volumes.add(v.path("name").asText()));
    assertThat(volumes).isEqualTo(mounts);
    List<String> paths = new ArrayList<>();
    template
        .path("kafkaContainer")
        .path("volumeMounts")
        .forEach(m -> paths.add(m.path("mountPath").asText()));
    List<String> files =
        config.properties().stream()
            .filter(e -> e.getKey().startsWith("cluster.mirror."))
            .map(e -> e.getValue().asText())
            .filter(v -> v.contains("/mnt/"))
            .map(v -> v.substring(v.indexOf("/mnt/")))
            .collect(Collectors.toList());
    assertThat(files).isNotEmpty();
    for (String file : files) {
      assertThat(paths).as(file).anyMatch(file::startsWith);
    }
    // And the secret-bearing values are config provider references, not values
    assertThat(config.path("cluster.mirror.local.client.ssl.keystore.password").asText())
        .startsWith("${" + config.path("config.providers").asText() + ":/mnt/");
  }

  /** The first document of {@code kind} in a multi-document YAML file. */
  private static JsonNode document(Path file, String kind) throws Exception {
    ObjectMapper mapper = new ObjectMapper(new YAMLFactory());
    try (YAMLParser parser = new YAMLFactory().createParser(file.toFile())) {
      for (JsonNode doc : mapper.readValues(parser, JsonNode.class).readAll()) {
        if (kind.equals(doc.path("kind").asText())) {
          return doc;
        }
      }
    }
    throw new AssertionError("no " + kind + " in " + file);
  }
}
