package dev.kafkamirror.demo;

import dev.kafkamirror.operator.api.v1alpha1.BrokerControlEndpoint;
import dev.kafkamirror.operator.api.v1alpha1.ClusterMirror;
import dev.kafkamirror.operator.api.v1alpha1.ClusterMirrorSpec;
import dev.kafkamirror.operator.api.v1alpha1.ClusterMirrorStatus;
import dev.kafkamirror.operator.api.v1alpha1.Condition;
import dev.kafkamirror.operator.api.v1alpha1.Conditions;
import dev.kafkamirror.operator.api.v1alpha1.ControlEndpoint;
import dev.kafkamirror.operator.api.v1alpha1.DestinationCluster;
import dev.kafkamirror.operator.api.v1alpha1.MirrorState;
import dev.kafkamirror.operator.api.v1alpha1.PartitionStatus;
import dev.kafkamirror.operator.api.v1alpha1.SecretKeyRef;
import dev.kafkamirror.operator.api.v1alpha1.SourceCluster;
import dev.kafkamirror.operator.api.v1alpha1.TopicSelection;
import dev.kafkamirror.operator.app.OperatorConfig;
import dev.kafkamirror.operator.app.OperatorMain;
import dev.kafkamirror.testing.kafka.KafkaCluster;
import dev.kafkamirror.testing.kafka.KafkaClusterConfig;
import dev.kafkamirror.testing.kafka.TestClients;
import dev.kafkamirror.testing.kube.KubeApiServerHarness;
import dev.kafkamirror.testing.plugin.PluginControlClient;
import dev.kafkamirror.testing.process.Commands;
import io.fabric8.kubernetes.api.model.Secret;
import io.fabric8.kubernetes.api.model.SecretBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.utils.Serialization;
import java.io.InputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.ProducerState;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.IsolationLevel;
import org.apache.kafka.common.TopicPartition;

/**
 * The local failover demo: what the product is for, end to end, narrated.
 *
 * <ol>
 *   <li>starts a source cluster (one node), a destination cluster (a controller and three brokers,
 *       each with the plugin), a kube-apiserver with etcd, and the operator;
 *   <li>applies a ClusterMirror and writes idempotent and transactional records to the source, one
 *       transaction left open;
 *   <li>shows the mirroring, then kills the source and sets {@code state: Stopped}, printing the
 *       status as it changes;
 *   <li>writes on the destination with a new producer whose producer id collides with a mirrored
 *       one, consumes, and prints a verification summary.
 * </ol>
 *
 * <p>Everything runs on loopback ports it picks and stops when it ends, also on failure.
 */
public final class LocalFailoverDemo {

  static final String TOPIC = "payments";
  static final int PARTITIONS = 3;
  static final String NAMESPACE = "demo";
  static final String NAME = "payments";
  static final String SECRET = "destination-control";
  static final Duration WAIT = Duration.ofMinutes(3);

  /** The system property (set by {@code ./demo.sh --failback}) that adds the failback leg. */
  static final String FAILBACK_PROPERTY = "cmo.demo.failback";

  /** What the demo found at the end. */
  public record Summary(
      int expected,
      int found,
      int duplicates,
      int missing,
      int unexpected,
      Map<Integer, Long> barrierOffsets,
      boolean producerIdCollided,
      boolean stopped,
      Summary failback) {

    /**
     * Whether the failover kept every committed record exactly once and wrote one barrier each;
     * with a failback leg, whether that leg did too.
     */
    public boolean ok() {
      return (failback == null || failback.ok())
          && stopped
          && missing == 0
          && duplicates == 0
          && unexpected == 0
          && found == expected
          && barrierOffsets.size() == PARTITIONS
          && barrierOffsets.values().stream().allMatch(o -> o >= 0);
    }
  }

  private final PrintStream out;
  private final boolean failback;
  private final long startNanos = System.nanoTime();

  /** What the failover leg leaves for the failback leg. */
  record FailoverLeg(
      List<String> committedOnA,
      List<String> writtenOnB,
      ClusterMirrorStatus stopped,
      int sourceBroker,
      Summary summary) {}

  LocalFailoverDemo(PrintStream out) {
    this(out, false);
  }

  LocalFailoverDemo(PrintStream out, boolean failback) {
    this.out = out;
    this.failback = failback;
  }

  public static void main(String[] args) throws Exception {
    boolean failback = Boolean.getBoolean(FAILBACK_PROPERTY);
    for (String a : args) {
      if (a.equals("--failback")) {
        failback = true;
      } else {
        System.err.println("unknown argument " + a + "; usage: ./demo.sh [--failback]");
        System.exit(2);
      }
    }
    Summary summary = new LocalFailoverDemo(System.out, failback).run();
    System.exit(summary.ok() ? 0 : 1);
  }

  Summary run() throws Exception {
    banner(
        failback
            ? "Cluster Mirror Operator: a local failover and failback, narrated"
            : "Cluster Mirror Operator: a local failover, narrated");
    say("Everything runs on this machine, on loopback ports, and is removed at the end.");
    Path agentJar = Path.of(required("cmo.agent.jar"));
    Path crd = Path.of(required("cmo.crds.dir")).resolve("clustermirrors.kafkamirror.dev-v1.yml");

    step(
        "1. Start a source cluster A, a destination cluster B (3 brokers with the plugin), a"
            + " Kubernetes API server and the operator");
    KafkaClusterConfig.Builder sourceConfig = KafkaClusterConfig.builder("demo-a").singleNode();
    if (failback) {
      // A is a destination in the failback leg: it runs the plugin from the start.
      sourceConfig
          .javaAgent(agentJar, null)
          .perBrokerListener(PluginControlClient.LISTENER_PROPERTY)
          .brokerProperty(PluginControlClient.SECRET_PROPERTY, PluginControlClient.TEST_SECRET)
          .brokerProperty(PluginControlClient.INSECURE_PLAINTEXT_PROPERTY, "true");
    }
    try (KafkaCluster source = sourceConfig.start();
        KafkaCluster destination =
            KafkaClusterConfig.builder("demo-b")
                .controllerPlusBrokers(3)
                .javaAgent(agentJar, null)
                .perBrokerListener(PluginControlClient.LISTENER_PROPERTY)
                .brokerProperty(
                    PluginControlClient.SECRET_PROPERTY, PluginControlClient.TEST_SECRET)
                // The demo runs on loopback only; a real deployment configures TLS (ssl.*).
                .brokerProperty(PluginControlClient.INSECURE_PLAINTEXT_PROPERTY, "true")
                .start();
        KubeApiServerHarness kube = KubeApiServerHarness.start();
        KubernetesClient client = kube.newClient()) {
      try (InputStream in = Files.newInputStream(crd)) {
        KubeApiServerHarness.installCrd(client, in);
      }
      awaitTrue("the ClusterMirror API to serve", () -> listable(client));
      try (OperatorMain operator = startOperator(kube)) {
        FailoverLeg leg = failOver(source, destination, kube, client);
        if (!failback || !leg.summary().ok()) {
          return leg.summary();
        }
        Summary back = new FailbackLeg(this, source, destination, kube, client).run(leg);
        Summary first = leg.summary();
        return new Summary(
            first.expected(),
            first.found(),
            first.duplicates(),
            first.missing(),
            first.unexpected(),
            first.barrierOffsets(),
            first.producerIdCollided(),
            first.stopped(),
            back);
      }
    } finally {
      say("cleaned up: every process this demo started is stopped");
    }
  }

  private FailoverLeg failOver(
      KafkaCluster source,
      KafkaCluster destination,
      KubeApiServerHarness kube,
      KubernetesClient client)
      throws Exception {
    {
      String sourceId = source.clusterId();
      say("A  " + source.bootstrapServers() + "  cluster id " + sourceId);
      say("B  " + destination.bootstrapServers() + "  brokers " + destination.brokerIds());
      say("kube-apiserver ready; operator running (kubeconfig " + kube.kubeconfigFile() + ")");

      step(
          "2. Apply the ClusterMirror \""
              + NAME
              + "\" (topic "
              + TOPIC
              + ", "
              + PARTITIONS
              + " partitions) and write to A");
      source.createTopic(TOPIC, PARTITIONS, 1, Map.of());
      Path manifest = writeManifest(clusterMirror(source, sourceId, destination));
      say(
          "the test kubectl, with KUBECONFIG="
              + kube.kubeconfigFile()
              + ", runs what you would type:");
      say("the Secret and the ClusterMirror are in " + manifest + " (read it; state: Mirroring)");
      kubectl(kube, "create", "namespace", NAMESPACE);
      kubectl(kube, "apply", "-f", manifest.toString());

      List<String> committed = new ArrayList<>();
      writeIdempotent(source.bootstrapServers(), "a-idempotent", 30, committed);
      writeTransactions(source.bootstrapServers(), "a-tx", 2, 6, committed);
      KafkaProducer<String, String> open =
          TestClients.transactionalProducer(source.bootstrapServers(), "a-tx-open");
      open.initTransactions();
      open.beginTransaction();
      for (int i = 0; i < PARTITIONS; i++) {
        open.send(new ProducerRecord<>(TOPIC, i, "k", "a-never-committed-" + i));
      }
      open.flush();
      say(
          "on A: 30 idempotent records, 2 committed transactions of 6, and 1 transaction of "
              + PARTITIONS
              + " left open (it will never commit: A is about to die)");
      Map<Integer, Set<Long>> mirroredProducerIds = producerIds(source);
      say("producer ids on A, per partition: " + mirroredProducerIds);

      step("3. Watch the mirroring");
      ClusterMirror mirroring =
          awaitStatus(
              client,
              "every partition mirrored and caught up",
              s -> Conditions.isMirroring(s) && Objects.equals(s.getMaxLagRecords(), 0L));
      // The status can say lag 0 before the first fetch (lag unknown); wait for B's log ends too.
      awaitTrue("B's log ends to reach A's", () -> mirroredUpToSource(source, destination));
      kubectl(kube, "get", "cmirror", "-n", NAMESPACE);
      printMirror(source, destination);
      say("B is a read-only, offset-identical copy: batches, offsets and producer ids as on A");

      step(
          "4. Lose A, then fail over: kubectl patch clustermirror "
              + NAME
              + " -p '{\"spec\":{\"state\":\"Stopped\"}}'");
      open.close(Duration.ZERO);
      int sourceBroker = source.brokerIds().get(0);
      source.killBroker(sourceBroker);
      say("A is gone (its data centre is lost: kill -9 of its broker; its disk stays)");
      long stopAskedNanos = System.nanoTime();
      kubectl(
          kube,
          "patch",
          "cmirror",
          NAME,
          "-n",
          NAMESPACE,
          "--type",
          "merge",
          "-p",
          "{\"spec\":{\"state\":\"Stopped\"}}");
      ClusterMirror stopped = watchUntilStopped(client, NAME);
      say(
          String.format(
              "Stopped=True %.1f s after the spec change",
              (System.nanoTime() - stopAskedNanos) / 1e9));
      kubectl(kube, "get", "cmirror", "-n", NAMESPACE);
      printPartitions(stopped.getStatus());

      step("5. Write on B with new producers; one gets a producer id that A's producers used");
      List<String> local = new ArrayList<>();
      // Producer ids come in blocks per broker, and the broker that took B's first block hands out
      // the ids A's producers had (0, 1, 2, ...). A producer gets its id from its transaction
      // coordinator, so one transactional producer per broker, each with a transactional id that
      // broker coordinates, makes one of them draw from that first block. (An idempotent producer
      // asks whichever broker its client picks, so "through each broker" is not enough.)
      writeTransactions(destination.bootstrapServers(), "b-tx", 1, 3, local);
      for (Map.Entry<Integer, String> e :
          transactionalIdPerCoordinator(destination, "b-via-").entrySet()) {
        writeTransactions(destination.bootstrapServers(), e.getValue(), 1, PARTITIONS, local);
      }
      Map<Integer, Set<Long>> newIds = producerIds(destination);
      say("producer ids on B after the new writes, per partition: " + newIds);
      boolean collided = false;
      for (Map.Entry<Integer, Set<Long>> e : newIds.entrySet()) {
        Set<Long> both = new TreeSet<>(e.getValue());
        both.retainAll(mirroredProducerIds.getOrDefault(e.getKey(), Set.of()));
        if (!both.isEmpty()) {
          collided = true;
          say(
              "partition "
                  + e.getKey()
                  + ": new producer id(s) "
                  + both
                  + " were also used on A, and A's state for them was mirrored here");
        }
      }
      say(
          collided
              ? "without the barrier, Kafka would judge these writes against A's sequence numbers:"
                  + " silently dropped as duplicates, or a local commit closing A's transaction"
              : "no producer id collided this time (ids are allocated per cluster)");

      step("6. Consume B (read_committed) and verify");
      List<String> expected = new ArrayList<>(committed);
      expected.addAll(local);
      List<String> found =
          TestClients.values(
              TestClients.readAll(
                  destination.bootstrapServers(),
                  TOPIC,
                  IsolationLevel.READ_COMMITTED,
                  Duration.ofSeconds(60)));
      Map<Integer, Long> barriers = barrierOffsets(destination);
      Summary summary = verify(expected, found, barriers, collided, true);
      printSummary(summary, found.size());
      step(summary.ok() ? "Done: the failover kept every committed record, once." : "FAILED");
      return new FailoverLeg(committed, local, stopped.getStatus(), sourceBroker, summary);
    }
  }

  static Summary verify(
      List<String> expected,
      List<String> found,
      Map<Integer, Long> barriers,
      boolean collided,
      boolean stopped) {
    Map<String, Integer> counts = new HashMap<>();
    found.forEach(v -> counts.merge(v, 1, Integer::sum));
    int duplicates = 0;
    for (int c : counts.values()) {
      duplicates += c - 1;
    }
    Set<String> expectedSet = new TreeSet<>(expected);
    int missing = (int) expectedSet.stream().filter(v -> !counts.containsKey(v)).count();
    int unexpected = (int) counts.keySet().stream().filter(v -> !expectedSet.contains(v)).count();
    return new Summary(
        expected.size(),
        found.size(),
        duplicates,
        missing,
        unexpected,
        barriers,
        collided,
        stopped,
        null);
  }

  private OperatorMain startOperator(KubeApiServerHarness kube) throws Exception {
    Map<String, String> env = new HashMap<>();
    env.put("CMO_HEALTH_PORT", "0");
    env.put("CMO_METRICS_PORT", "0");
    env.put("CMO_REQUEUE_MS", "200");
    env.put("CMO_LOG_LEVEL", "error");
    return OperatorMain.start(
        OperatorConfig.fromEnvironment(env), kube.newClient(), Clock.systemUTC());
  }

  /**
   * Writes the Secret and the ClusterMirror the demo applies to a file a user can read and copy
   * (the demo's work directory, kept after the run).
   */
  private static Path writeManifest(ClusterMirror cr) throws java.io.IOException {
    return writeManifest(
        "# Written by ./demo.sh: the control Secret and the ClusterMirror it applies with kubectl.\n",
        controlSecret(SECRET, NAME),
        cr);
  }

  /** A control Secret the ClusterMirror {@code reader} may read (opted in by annotation). */
  static Secret controlSecret(String name, String reader) {
    return new SecretBuilder()
        .withNewMetadata()
        .withName(name)
        .withNamespace(NAMESPACE)
        // Opt in: a ClusterMirror reads only Secrets that name it (or *) here.
        .addToAnnotations("kafkamirror.dev/cluster-mirrors", reader)
        .endMetadata()
        .withStringData(Map.of("secret", PluginControlClient.TEST_SECRET))
        .build();
  }

  /**
   * Writes a Secret and a ClusterMirror to a file a user can read and copy (the demo's work
   * directory, kept after the run), named after the ClusterMirror.
   */
  static Path writeManifest(String header, Secret secret, ClusterMirror cr)
      throws java.io.IOException {
    Path dir =
        Files.createDirectories(
            Path.of(System.getProperty("cmo.test.workdir", System.getProperty("java.io.tmpdir"))));
    Path file = dir.resolve("clustermirror-" + cr.getMetadata().getName() + ".yaml");
    Files.writeString(
        file,
        header + Serialization.asYaml(secret) + Serialization.asYaml(cr),
        StandardCharsets.UTF_8);
    return file;
  }

  /** Runs the test kubectl against the demo's API server, printing the command and its output. */
  void kubectl(KubeApiServerHarness kube, String... arguments) {
    List<String> command = new ArrayList<>(List.of(KubeApiServerHarness.kubectl().toString()));
    command.addAll(List.of(arguments));
    say("$ kubectl " + String.join(" ", quoted(arguments)));
    Commands.Result result =
        Commands.run(
                Duration.ofSeconds(60),
                command,
                Map.of("KUBECONFIG", kube.kubeconfigFile().toString()))
            .requireSuccess();
    result.stdout().lines().forEach(line -> say("  " + line));
  }

  private static List<String> quoted(String... arguments) {
    List<String> out = new ArrayList<>();
    for (String a : arguments) {
      out.add(a.contains("{") ? "'" + a + "'" : a);
    }
    return out;
  }

  private static boolean listable(KubernetesClient client) {
    try {
      client.resources(ClusterMirror.class).inNamespace(NAMESPACE).list();
      return true;
    } catch (RuntimeException e) {
      return false;
    }
  }

  private static ClusterMirror clusterMirror(
      KafkaCluster source, String sourceId, KafkaCluster destination) {
    ClusterMirror cr = new ClusterMirror();
    cr.getMetadata().setName(NAME);
    cr.getMetadata().setNamespace(NAMESPACE);
    ClusterMirrorSpec spec = new ClusterMirrorSpec();
    SourceCluster s = new SourceCluster();
    s.setBootstrapServers(source.bootstrapServers());
    s.setClusterId(sourceId);
    spec.setSource(s);
    DestinationCluster d = new DestinationCluster();
    d.setBootstrapServers(destination.bootstrapServers());
    d.setControl(control(destination, SECRET));
    spec.setDestination(d);
    TopicSelection topics = new TopicSelection();
    topics.setNames(List.of(TOPIC));
    spec.setTopics(topics);
    spec.setState(MirrorState.Mirroring);
    cr.setSpec(spec);
    return cr;
  }

  /** The plugin's control endpoints of {@code cluster}'s brokers, with the Secret to present. */
  static ControlEndpoint control(KafkaCluster cluster, String secretName) {
    ControlEndpoint control = new ControlEndpoint();
    List<BrokerControlEndpoint> endpoints = new ArrayList<>();
    for (int id : cluster.brokerIds()) {
      String address = cluster.listenerOf(id, PluginControlClient.LISTENER_PROPERTY);
      endpoints.add(new BrokerControlEndpoint(id, address));
      control.setPort(Integer.parseInt(address.substring(address.lastIndexOf(':') + 1)));
    }
    // On one machine every broker is 127.0.0.1, each with its own control port.
    control.setBrokerEndpoints(endpoints);
    SecretKeyRef ref = new SecretKeyRef();
    ref.setName(secretName);
    ref.setKey("secret");
    control.setSecretRef(ref);
    return control;
  }

  /**
   * For each broker of {@code cluster}, a transactional id ({@code prefix} + n) whose transaction
   * coordinator is that broker: the leader of its {@code __transaction_state} partition, which
   * Kafka picks as abs(hashCode) modulo the partition count.
   */
  static Map<Integer, String> transactionalIdPerCoordinator(KafkaCluster cluster, String prefix)
      throws Exception {
    try (Admin admin = cluster.admin()) {
      org.apache.kafka.clients.admin.TopicDescription state =
          admin
              .describeTopics(List.of("__transaction_state"))
              .allTopicNames()
              .get(30, TimeUnit.SECONDS)
              .get("__transaction_state");
      Map<Integer, Integer> leaderOf = new HashMap<>();
      state
          .partitions()
          .forEach(
              p -> {
                if (p.leader() != null) {
                  leaderOf.put(p.partition(), p.leader().id());
                }
              });
      int count = state.partitions().size();
      Map<Integer, String> out = new TreeMap<>();
      for (int n = 0; n < 100_000 && out.size() < cluster.brokerIds().size(); n++) {
        String id = prefix + n;
        Integer leader =
            leaderOf.get(org.apache.kafka.common.utils.Utils.abs(id.hashCode()) % count);
        if (leader != null) {
          out.putIfAbsent(leader, id);
        }
      }
      return out;
    }
  }

  static void writeIdempotent(String bootstrap, String prefix, int count, List<String> written)
      throws Exception {
    try (KafkaProducer<String, String> p = TestClients.idempotentProducer(bootstrap)) {
      for (int i = 0; i < count; i++) {
        String value = prefix + "-" + i;
        p.send(new ProducerRecord<>(TOPIC, i % PARTITIONS, "k", value)).get(30, TimeUnit.SECONDS);
        written.add(value);
      }
    }
  }

  static void writeTransactions(
      String bootstrap,
      String transactionalId,
      int transactions,
      int perTransaction,
      List<String> written) {
    try (KafkaProducer<String, String> tx =
        TestClients.transactionalProducer(bootstrap, transactionalId)) {
      tx.initTransactions();
      for (int t = 0; t < transactions; t++) {
        tx.beginTransaction();
        List<String> values = new ArrayList<>();
        for (int i = 0; i < perTransaction; i++) {
          String value = transactionalId + "-" + t + "-" + i;
          tx.send(new ProducerRecord<>(TOPIC, i % PARTITIONS, "k", value));
          values.add(value);
        }
        TestClients.commitAndAwaitMarkers(tx, bootstrap, transactionalId);
        written.addAll(values);
      }
    }
  }

  static Map<Integer, Set<Long>> producerIds(KafkaCluster cluster) throws Exception {
    List<TopicPartition> partitions = new ArrayList<>();
    for (int i = 0; i < PARTITIONS; i++) {
      partitions.add(new TopicPartition(TOPIC, i));
    }
    Map<Integer, Set<Long>> out = new TreeMap<>();
    try (Admin admin = cluster.admin()) {
      var described = admin.describeProducers(partitions).all().get(30, TimeUnit.SECONDS);
      for (TopicPartition tp : partitions) {
        Set<Long> ids = new TreeSet<>();
        for (ProducerState state : described.get(tp).activeProducers()) {
          ids.add(state.producerId());
        }
        out.put(tp.partition(), ids);
      }
    }
    return out;
  }

  static Map<Integer, Long> barrierOffsets(KafkaCluster destination) {
    Map<Integer, Long> out = new TreeMap<>();
    for (int broker : destination.brokerIds()) {
      PluginControlClient control =
          new PluginControlClient(
              destination.listenerOf(broker, PluginControlClient.LISTENER_PROPERTY),
              PluginControlClient.TEST_SECRET);
      int[] all = new int[PARTITIONS];
      for (int i = 0; i < PARTITIONS; i++) {
        all[i] = i;
      }
      for (var r : control.describe(TOPIC, all).body().get("results")) {
        if (!r.has("error") && "LEADER".equals(r.get("role").asText()) && r.has("stop")) {
          out.put(r.get("partition").asInt(), r.get("stop").get("barrierOffset").asLong());
        }
      }
    }
    return out;
  }

  private ClusterMirror awaitStatus(
      KubernetesClient client, String what, java.util.function.Predicate<ClusterMirrorStatus> test)
      throws InterruptedException {
    return awaitStatus(client, NAME, what, test);
  }

  ClusterMirror awaitStatus(
      KubernetesClient client,
      String name,
      String what,
      java.util.function.Predicate<ClusterMirrorStatus> test)
      throws InterruptedException {
    long deadline = System.nanoTime() + WAIT.toNanos();
    while (System.nanoTime() < deadline) {
      ClusterMirror cm =
          client.resources(ClusterMirror.class).inNamespace(NAMESPACE).withName(name).get();
      if (cm != null && cm.getStatus() != null && test.test(cm.getStatus())) {
        say("status: " + what);
        return cm;
      }
      Thread.sleep(200);
    }
    throw new IllegalStateException("waited " + WAIT + " for " + what);
  }

  /** Prints every change of the conditions and counts until Stopped=True. */
  ClusterMirror watchUntilStopped(KubernetesClient client, String name)
      throws InterruptedException {
    long deadline = System.nanoTime() + WAIT.toNanos();
    String last = "";
    while (System.nanoTime() < deadline) {
      ClusterMirror cm =
          client.resources(ClusterMirror.class).inNamespace(NAMESPACE).withName(name).get();
      ClusterMirrorStatus s = cm == null ? null : cm.getStatus();
      if (s != null) {
        String line = describeStatus(s);
        if (!line.equals(last)) {
          say("status: " + line);
          last = line;
        }
        if (Conditions.isStopped(s)) {
          return cm;
        }
      }
      Thread.sleep(100);
    }
    throw new IllegalStateException(
        "the ClusterMirror " + name + " did not report Stopped=True within " + WAIT);
  }

  static String describeStatus(ClusterMirrorStatus s) {
    StringBuilder b = new StringBuilder();
    for (Condition c : s.getConditions()) {
      b.append(c.getType()).append('=').append(c.getStatus());
      if (c.getReason() != null) {
        b.append('(').append(c.getReason()).append(')');
      }
      b.append(' ');
    }
    if (s.getPartitionCounts() != null) {
      var p = s.getPartitionCounts();
      b.append(
          String.format(
              "| mirroring %d, stopping %d, stopped %d of %d",
              nz(p.getMirroring()), nz(p.getStopping()), nz(p.getStopped()), nz(p.getTotal())));
    }
    Map<String, Integer> steps = new TreeMap<>();
    for (PartitionStatus p : s.getPartitions()) {
      if (p.getStep() != null) {
        steps.merge(p.getStep(), 1, Integer::sum);
      }
    }
    if (!steps.isEmpty()) {
      b.append(" | steps ").append(steps);
    }
    return b.toString();
  }

  /** The log end offset of each partition of the demo's topic on {@code source}. */
  static Map<Integer, Long> logEnds(KafkaCluster source) throws Exception {
    Map<Integer, Long> ends = new TreeMap<>();
    try (Admin admin = source.admin()) {
      Map<TopicPartition, org.apache.kafka.clients.admin.OffsetSpec> latest = new HashMap<>();
      for (int i = 0; i < PARTITIONS; i++) {
        latest.put(
            new TopicPartition(TOPIC, i), org.apache.kafka.clients.admin.OffsetSpec.latest());
      }
      admin
          .listOffsets(latest)
          .all()
          .get(30, TimeUnit.SECONDS)
          .forEach((tp, info) -> ends.put(tp.partition(), info.offset()));
    }
    return ends;
  }

  private static boolean mirroredUpToSource(KafkaCluster source, KafkaCluster destination) {
    try {
      Map<Integer, Long> ends = logEnds(source);
      long caughtUp =
          leaderDescribes(destination).stream()
              .filter(r -> r.get("highWatermark").asLong() == ends.get(r.get("partition").asInt()))
              .count();
      return caughtUp == PARTITIONS;
    } catch (Exception e) {
      return false;
    }
  }

  /** Log end offsets on A and on B's leaders, and B's producer ids, per partition. */
  private void printMirror(KafkaCluster source, KafkaCluster destination) throws Exception {
    Map<Integer, Long> sourceEnds = logEnds(source);
    Map<Integer, Set<Long>> idsOnB = producerIds(destination);
    say(
        String.format(
            "%-12s %-12s %-12s %-18s", "partition", "A log end", "B log end", "producer ids on B"));
    for (com.fasterxml.jackson.databind.JsonNode r : leaderDescribes(destination)) {
      int p = r.get("partition").asInt();
      say(
          String.format(
              "%-12s %-12s %-12s %-18s",
              TOPIC + "-" + p, sourceEnds.get(p), r.get("logEndOffset").asLong(), idsOnB.get(p)));
    }
  }

  /** The plugin's describe of each partition of the demo's topic, from the broker that leads it. */
  static List<com.fasterxml.jackson.databind.JsonNode> leaderDescribes(KafkaCluster destination) {
    List<com.fasterxml.jackson.databind.JsonNode> leaders = new ArrayList<>();
    for (int broker : destination.brokerIds()) {
      PluginControlClient control =
          new PluginControlClient(
              destination.listenerOf(broker, PluginControlClient.LISTENER_PROPERTY),
              PluginControlClient.TEST_SECRET);
      for (var r : control.describe(TOPIC, 0, 1, 2).body().get("results")) {
        if (!r.has("error") && "LEADER".equals(r.get("role").asText())) {
          leaders.add(r);
        }
      }
    }
    return leaders;
  }

  void printPartitions(ClusterMirrorStatus s) {
    say(
        String.format(
            "%-12s %-9s %-10s %-10s %-12s %-10s %-6s",
            "partition", "state", "step", "mirrored", "truncatedTo", "barrier", "lag"));
    for (PartitionStatus p : s.getPartitions()) {
      say(
          String.format(
              "%-12s %-9s %-10s %-10s %-12s %-10s %-6s",
              p.getTopic() + "-" + p.getPartition(),
              p.getState(),
              dash(p.getStep()),
              dash(p.getLastMirroredOffset()),
              dash(p.getTruncatedToOffset()),
              dash(p.getBarrierOffset()),
              dash(p.getLagRecords())));
    }
  }

  private void printSummary(Summary s, int read) {
    say("");
    say("  records expected (committed on A before it died, then written on B): " + s.expected());
    say("  records found on B (read_committed):                                " + s.found());
    say("  duplicates:                                                         " + s.duplicates());
    say("  missing:                                                            " + s.missing());
    say("  never committed, yet visible:                                       " + s.unexpected());
    say(
        "  MIRROR_PID_RESET barrier offset per partition:                      "
            + s.barrierOffsets());
    say(
        "  a new producer on B reused a mirrored producer id:                  "
            + (s.producerIdCollided() ? "yes, harmlessly" : "no"));
  }

  static void awaitTrue(String what, Supplier<Boolean> test) throws InterruptedException {
    long deadline = System.nanoTime() + WAIT.toNanos();
    while (!test.get()) {
      if (System.nanoTime() > deadline) {
        throw new IllegalStateException("waited " + WAIT + " for " + what);
      }
      Thread.sleep(100);
    }
  }

  static int nz(Integer i) {
    return i == null ? 0 : i;
  }

  static String dash(Object o) {
    return o == null ? "-" : o.toString();
  }

  private static String required(String property) {
    String value = System.getProperty(property);
    if (value == null || value.isBlank()) {
      throw new IllegalStateException(
          "system property " + property + " is not set; run the demo with ./demo.sh");
    }
    return value;
  }

  private void banner(String text) {
    out.println();
    out.println("=".repeat(text.length()));
    out.println(text);
    out.println("=".repeat(text.length()));
  }

  void step(String text) {
    out.println();
    out.printf("[%6.1fs] %s%n", elapsedSeconds(), text);
  }

  void say(String text) {
    out.printf("          %s%n", text);
  }

  private double elapsedSeconds() {
    return (System.nanoTime() - startNanos) / 1e9;
  }
}
