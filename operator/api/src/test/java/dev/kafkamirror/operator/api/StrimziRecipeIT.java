package dev.kafkamirror.operator.api;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import com.fasterxml.jackson.dataformat.yaml.YAMLParser;
import dev.kafkamirror.testing.kube.KubeApiServerHarness;
import dev.kafkamirror.testing.process.Commands;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.stream.Collectors;
import org.assertj.core.api.SoftAssertions;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The Strimzi recipe of {@code deploy/strimzi/} (a Kafka with the plugin, its node pools, the
 * plugin's KafkaUser, the control secret and the control port's NetworkPolicy) against Strimzi's
 * own schema and model, on a real kube-apiserver.
 *
 * <p>Strimzi's CRDs for {@code Kafka}, {@code KafkaNodePool} and {@code KafkaUser} are those of
 * Strimzi {@value #STRIMZI_SCHEMA}: generated at build time by {@code e2e/strimzi-crds} from
 * Strimzi's published model ({@code io.strimzi:api}) by Strimzi's own generator ({@code
 * io.strimzi:crd-generator}, {@code CrdGenerator}) with the arguments of Strimzi's build (served
 * and stored version {@code v1}), so nothing of Strimzi's is copied into this repository. They are
 * installed with {@code kubectl apply --server-side}, and every recipe file is applied as a
 * server-side dry run with strict field validation: the API server checks each Strimzi resource
 * against Strimzi's OpenAPI schema (types, enums, bounds, required fields) and its CEL rules, and
 * refuses a field the schema does not declare. The Strimzi resources are also read into Strimzi's
 * Java model ({@code io.strimzi:api} 0.50.0, the newest built for Java 17), which reports a field
 * it does not declare with its path.
 *
 * <p>Not checked here: what only Strimzi's cluster operator checks when it reconciles (that the
 * {@code spec.kafka.version} is one its release supports, the node pools' roles and storage across
 * the cluster, the listener names and ports against each other), which needs a running Strimzi.
 *
 * <p>The test methods share one API server and run on JUnit's single thread.
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

  /** The Strimzi release whose CRDs e2e/strimzi-crds generates (its strimzi.version). */
  static final String STRIMZI_SCHEMA = "1.2.0";

  /** The generated CRDs on the test classpath (the cmo-strimzi-crds jar), and their names. */
  private static final Map<String, String> STRIMZI_CRDS =
      Map.of(
          "strimzi-crds/040-Crd-kafka.yaml", "kafkas.kafka.strimzi.io",
          "strimzi-crds/045-Crd-kafkanodepool.yaml", "kafkanodepools.kafka.strimzi.io",
          "strimzi-crds/044-Crd-kafkauser.yaml", "kafkausers.kafka.strimzi.io");

  @TempDir static Path work;

  private static KubeApiServerHarness apiServer;

  @BeforeAll
  static void start() throws Exception {
    apiServer = KubeApiServerHarness.start();
    kubectl("create", "namespace", "kafka").requireSuccess();
    installStrimziCrds();
  }

  /**
   * Installs the generated Strimzi CRDs with a server-side apply and waits, at most 60 s, until
   * each is Established. Fails when the build did not generate them or they are of another Strimzi
   * release than {@link #STRIMZI_SCHEMA}.
   */
  private static void installStrimziCrds() throws Exception {
    Properties generated = new Properties();
    try (InputStream in = resource("strimzi-crds/generated.properties")) {
      generated.load(in);
    }
    assertThat(generated.getProperty("strimzi.version"))
        .as(
            "the Strimzi release of the generated CRDs (e2e/strimzi-crds, strimzi.version) against"
                + " the one this test and docs/install.md name")
        .isEqualTo(STRIMZI_SCHEMA);
    Path dir = Files.createDirectories(work.resolve("strimzi-crds"));
    for (String crd : STRIMZI_CRDS.keySet()) {
      try (InputStream in = resource(crd)) {
        Files.copy(in, dir.resolve(crd.substring(crd.lastIndexOf('/') + 1)));
      }
    }
    kubectl("apply", "--server-side", "-f", dir.toString()).requireSuccess();
    // Right after the apply a CRD may have no status conditions yet, which kubectl wait answers
    // with an error instead of waiting (seen in CI); the harness asks again in that case.
    KubeApiServerHarness.awaitCrdsEstablished(
        apiServer.kubeconfigFile(),
        Duration.ofSeconds(60),
        STRIMZI_CRDS.values().toArray(String[]::new));
  }

  private static InputStream resource(String name) {
    InputStream in = StrimziRecipeIT.class.getClassLoader().getResourceAsStream(name);
    if (in == null) {
      throw new IllegalStateException(
          "no "
              + name
              + " on the test classpath: it is generated by the module e2e/strimzi-crds (artifact"
              + " cmo-strimzi-crds), which needs a JDK 21 or newer on the machine (see"
              + " e2e/strimzi-crds/generate-crds.sh); build with -pl operator/api -am");
    }
    return in;
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
  void theStrimziSamplesAreAcceptedByStrimzisSchemaInAStrictServerSideDryRun() {
    // Given a real API server with Strimzi's CRDs installed
    // When the Kafka with its node pools and the KafkaUser are applied as a strict server-side dry
    // run
    StringBuilder applied = new StringBuilder();
    for (String sample : STRIMZI_SAMPLES) {
      Commands.Result result = dryRun(RECIPE.resolve(sample));
      // Then the API server accepts every resource against Strimzi's schema, without a warning
      assertThat(result.exitCode()).as(sample + ": " + result.stderr()).isZero();
      assertThat(result.stderr()).as(sample).isBlank();
      applied.append(result.stdout());
    }
    assertThat(applied.toString())
        .contains("kafkanodepool.kafka.strimzi.io/controller serverside-applied (server dry run)")
        .contains("kafkanodepool.kafka.strimzi.io/broker serverside-applied (server dry run)")
        .contains("kafka.kafka.strimzi.io/my-cluster serverside-applied (server dry run)")
        .contains(
            "kafkauser.kafka.strimzi.io/cluster-mirror-plugin serverside-applied (server dry run)");
  }

  @Test
  void aWrongFieldTypeEnumBoundOrRuleInACopyOfTheSamplesIsRefusedByStrimzisSchemaNamingIt()
      throws Exception {
    record Mutation(String sample, String from, String to, String refusal) {}
    List<Mutation> mutations =
        List.of(
            // a field Strimzi's schema does not declare (strict field validation)
            new Mutation(
                "kafka.yaml",
                "      kafkaContainer:",
                "      kafkaContainr:",
                ".spec.kafka.template.kafkaContainr: field not declared in schema"),
            // a value of the wrong type
            new Mutation(
                "kafka.yaml",
                "  replicas: 3",
                "  replicas: three",
                ".spec.replicas: expected numeric (int or float), got string"),
            // a value outside an enum
            new Mutation(
                "kafka.yaml",
                "        type: internal\n        tls: true\n        authentication:",
                "        type: intern\n        tls: true\n        authentication:",
                "spec.kafka.listeners[1].type: Unsupported value: \"intern\""),
            // a number below a bound (listener ports start at 9092)
            new Mutation(
                "kafka.yaml",
                "        port: 9094",
                "        port: 9000",
                "spec.kafka.listeners[1].port: Invalid value: 9000: spec.kafka.listeners[1].port in"
                    + " body should be greater than or equal to 9092"),
            // a value a CEL rule refuses (validityDays only together with renewalDays)
            new Mutation(
                "kafka-user.yaml",
                "    type: tls",
                "    type: tls\n    validityDays: 30",
                "spec.authentication: Invalid value: Both 'validityDays' and 'renewalDays' must be"
                    + " set together, or both must be unset"));
    SoftAssertions softly = new SoftAssertions();
    for (Mutation m : mutations) {
      // Given a copy of a sample with one mistake
      String sample = Files.readString(RECIPE.resolve(m.sample()), StandardCharsets.UTF_8);
      assertThat(sample).as(m.sample()).contains(m.from());
      Path bad = Files.createTempDirectory(work, "mutated-").resolve(m.sample());
      Files.writeString(bad, sample.replace(m.from(), m.to()));
      // When it is applied as a strict server-side dry run
      Commands.Result result = dryRun(bad);
      // Then the API server refuses it, naming the field
      softly.assertThat(result.exitCode()).as(m.to() + ": " + result.stdout()).isNotZero();
      softly.assertThat(result.stderr()).as(m.to()).contains(m.refusal());
    }
    softly.assertAll();
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
