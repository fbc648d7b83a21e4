package dev.kafkamirror.demo;

import static dev.kafkamirror.demo.LocalFailoverDemo.NAME;
import static dev.kafkamirror.demo.LocalFailoverDemo.NAMESPACE;
import static dev.kafkamirror.demo.LocalFailoverDemo.PARTITIONS;
import static dev.kafkamirror.demo.LocalFailoverDemo.TOPIC;

import dev.kafkamirror.demo.LocalFailoverDemo.FailoverLeg;
import dev.kafkamirror.demo.LocalFailoverDemo.Summary;
import dev.kafkamirror.operator.api.v1alpha1.ClusterMirror;
import dev.kafkamirror.operator.api.v1alpha1.ClusterMirrorSpec;
import dev.kafkamirror.operator.api.v1alpha1.ClusterMirrorStatus;
import dev.kafkamirror.operator.api.v1alpha1.Conditions;
import dev.kafkamirror.operator.api.v1alpha1.DestinationCluster;
import dev.kafkamirror.operator.api.v1alpha1.FailbackDiscard;
import dev.kafkamirror.operator.api.v1alpha1.InitialSync;
import dev.kafkamirror.operator.api.v1alpha1.MirrorState;
import dev.kafkamirror.operator.api.v1alpha1.PartitionStatus;
import dev.kafkamirror.operator.api.v1alpha1.SourceCluster;
import dev.kafkamirror.operator.api.v1alpha1.StopMode;
import dev.kafkamirror.operator.api.v1alpha1.StopPolicy;
import dev.kafkamirror.operator.api.v1alpha1.TopicSelection;
import dev.kafkamirror.testing.kafka.KafkaCluster;
import dev.kafkamirror.testing.kafka.TestClients;
import dev.kafkamirror.testing.kube.KubeApiServerHarness;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import org.apache.kafka.common.IsolationLevel;

/**
 * The demo's optional failback leg ({@code ./demo.sh --failback}), after the failover A→B:
 *
 * <ol>
 *   <li>A comes back on its disk, holding records B never received (the transaction that was open
 *       when A died, and records a producer wrote to A after it returned);
 *   <li>the stopped ClusterMirror is deleted and a ClusterMirror B→A with {@code initialSync:
 *       TruncateAndRestore} is applied: the operator reports what A will discard (status and an
 *       Event), truncates A to where B's recorded stop says both agree, and A mirrors B;
 *   <li>a planned switchback ({@code stop.mode: AfterCatchUp}) stops the mirror on A behind A's own
 *       barrier;
 *   <li>new producers write on A; A is read back and verified: every record committed on A before
 *       the loss, every record written on B, every new one, once; none of what A held alone.
 * </ol>
 *
 * <p>Not thread-safe; the demo runs it on its one thread.
 */
final class FailbackLeg {

  static final String BACK = NAME + "-back";
  private static final String BACK_SECRET = "failback-control";

  private final LocalFailoverDemo demo;
  private final KafkaCluster a;
  private final KafkaCluster b;
  private final KubeApiServerHarness kube;
  private final KubernetesClient client;

  FailbackLeg(
      LocalFailoverDemo demo,
      KafkaCluster a,
      KafkaCluster b,
      KubeApiServerHarness kube,
      KubernetesClient client) {
    this.demo = demo;
    this.a = a;
    this.b = b;
    this.kube = kube;
    this.client = client;
  }

  Summary run(FailoverLeg leg) throws Exception {
    demo.step("7. Data centre A comes back: its broker restarts on its disk");
    a.restartBroker(leg.sourceBroker());
    LocalFailoverDemo.awaitTrue("A to serve again", () -> readable(a));
    List<String> splitBrain = new ArrayList<>();
    LocalFailoverDemo.writeIdempotent(a.bootstrapServers(), "a-split-brain", 6, splitBrain);
    demo.say(
        "a producer that was never told about the failover wrote "
            + splitBrain.size()
            + " records to A; A also still holds the transaction that was open when it died");
    Map<Integer, Long> aEnds = LocalFailoverDemo.logEnds(a);
    demo.say(String.format("%-12s %-22s %-12s", "partition", "B mirrored up to", "A log end"));
    for (PartitionStatus p : leg.stopped().getPartitions()) {
      demo.say(
          String.format(
              "%-12s %-22s %-12s",
              p.getTopic() + "-" + p.getPartition(),
              LocalFailoverDemo.dash(p.getLastMirroredOffset()),
              aEnds.get(p.getPartition())));
    }
    demo.say(
        "above B's mirrored end A's log is its own: B cut the open transaction off at its stop"
            + " and never saw the rest");

    demo.step(
        "8. Fail back: delete \""
            + NAME
            + "\" (its stop stays recorded on B), apply \""
            + BACK
            + "\" (B → A, initialSync: TruncateAndRestore)");
    demo.kubectl(kube, "delete", "cmirror", NAME, "-n", NAMESPACE, "--wait=true");
    Path manifest = writeManifest();
    demo.say("the Secret and the ClusterMirror are in " + manifest);
    demo.kubectl(kube, "apply", "-f", manifest.toString());
    ClusterMirror planned =
        demo.awaitStatus(
            client,
            BACK,
            "the discard report is written before anything is truncated",
            s -> s.getFailback() != null && s.getFailback().size() == PARTITIONS);
    printDiscards(planned.getStatus());
    ClusterMirror mirroring =
        demo.awaitStatus(
            client,
            BACK,
            "A truncated to the alignment point and mirroring B",
            s ->
                Conditions.isMirroring(s)
                    && s.getFailback() != null
                    && s.getFailback().stream()
                        .allMatch(r -> Boolean.TRUE.equals(r.getTruncated())));
    LocalFailoverDemo.awaitTrue(
        "A's log ends to reach B's", () -> Objects.equals(ends(a), ends(b)));
    printDiscards(mirroring.getStatus());
    demo.kubectl(
        kube,
        "get",
        "events",
        "-n",
        NAMESPACE,
        "--field-selector",
        "reason=FailbackDiscards",
        "-o",
        "custom-columns=TYPE:.type,REASON:.reason,MESSAGE:.message");
    demo.kubectl(kube, "get", "cmirror", "-n", NAMESPACE);

    demo.step(
        "9. Switch back (B's producers stopped): kubectl patch clustermirror "
            + BACK
            + " -p '{\"spec\":{\"state\":\"Stopped\"}}' (stop.mode AfterCatchUp)");
    demo.kubectl(
        kube,
        "patch",
        "cmirror",
        BACK,
        "-n",
        NAMESPACE,
        "--type",
        "merge",
        "-p",
        "{\"spec\":{\"state\":\"Stopped\"}}");
    ClusterMirror stopped = demo.watchUntilStopped(client, BACK);
    demo.kubectl(kube, "get", "cmirror", "-n", NAMESPACE);
    demo.printPartitions(stopped.getStatus());

    demo.step("10. Write on A with new producers, consume A (read_committed) and verify");
    Map<Integer, Set<Long>> idsBefore = LocalFailoverDemo.producerIds(a);
    Set<Long> copiedFromB = new TreeSet<>();
    LocalFailoverDemo.producerIds(b).values().forEach(copiedFromB::addAll);
    List<String> onA = new ArrayList<>();
    LocalFailoverDemo.writeTransactions(a.bootstrapServers(), "a-again-tx", 1, PARTITIONS, onA);
    LocalFailoverDemo.writeIdempotent(a.bootstrapServers(), "a-again", 6, onA);
    Set<Long> newIds = new TreeSet<>();
    LocalFailoverDemo.producerIds(a).values().forEach(newIds::addAll);
    idsBefore.values().forEach(newIds::removeAll);
    Set<Long> collided = new TreeSet<>(newIds);
    collided.retainAll(copiedFromB);
    demo.say(
        collided.isEmpty()
            ? "new producer ids on A " + newIds + " (none of them was used on B this time)"
            : "new producer id(s) "
                + collided
                + " on A were also used on B, whose producer state A had mirrored: the barrier"
                + " makes that harmless");
    List<String> expected = new ArrayList<>(leg.committedOnA());
    expected.addAll(leg.writtenOnB());
    expected.addAll(onA);
    List<String> found =
        TestClients.values(
            TestClients.readAll(
                a.bootstrapServers(),
                TOPIC,
                IsolationLevel.READ_COMMITTED,
                Duration.ofSeconds(60)));
    Map<Integer, Long> barriers = LocalFailoverDemo.barrierOffsets(a);
    Summary summary =
        LocalFailoverDemo.verify(expected, found, barriers, !collided.isEmpty(), true);
    long splitBrainVisible = found.stream().filter(splitBrain::contains).count();
    demo.say("");
    demo.say(
        "  records expected on A (A's before the loss, B's, A's new ones):   "
            + summary.expected());
    demo.say("  records found on A (read_committed):                              " + found.size());
    demo.say(
        "  duplicates / missing / unexpected:                                "
            + summary.duplicates()
            + " / "
            + summary.missing()
            + " / "
            + summary.unexpected());
    demo.say(
        "  split-brain records still visible on A (reported, then discarded): "
            + splitBrainVisible);
    demo.say("  A's own MIRROR_PID_RESET barrier offset per partition:            " + barriers);
    demo.step(
        summary.ok() && splitBrainVisible == 0
            ? "Done: failed back; A holds every committed record of both sides, once."
            : "FAILED (failback)");
    return summary;
  }

  /** The discard report, one row per partition. */
  private void printDiscards(ClusterMirrorStatus s) {
    demo.say(
        String.format(
            "%-12s %-10s %-14s %-8s %-8s %-10s",
            "partition", "aligned", "discarded", "records", "bytes", "truncated"));
    for (FailbackDiscard r : s.getFailback()) {
      demo.say(
          String.format(
              "%-12s %-10s %-14s %-8s %-8s %-10s",
              r.getTopic() + "-" + r.getPartition(),
              LocalFailoverDemo.dash(r.getAlignmentOffset()),
              range(r.getDiscardedFromOffset(), r.getDiscardedToOffset()),
              LocalFailoverDemo.dash(r.getDiscardedRecords()),
              LocalFailoverDemo.dash(r.getDiscardedBytes()),
              LocalFailoverDemo.dash(r.getTruncated())));
    }
  }

  /** Offsets {@code from} to {@code to} (exclusive) as the Event writes them: inclusive. */
  private static String range(Long from, Long to) {
    if (from == null || to == null) {
      return "-";
    }
    return to > from ? from + ".." + (to - 1) : "none";
  }

  /** The failback ClusterMirror B→A and the Secret both control endpoints use here. */
  private Path writeManifest() throws java.io.IOException {
    ClusterMirror cr = new ClusterMirror();
    cr.getMetadata().setName(BACK);
    cr.getMetadata().setNamespace(NAMESPACE);
    ClusterMirrorSpec spec = new ClusterMirrorSpec();
    SourceCluster source = new SourceCluster();
    source.setBootstrapServers(b.bootstrapServers());
    source.setClusterId(b.clusterId());
    // TruncateAndRestore reads B's recorded stop through B's control endpoints. One Secret serves
    // both clusters' endpoints, as the demo's brokers share it; in a real deployment each cluster
    // has its own.
    source.setControl(LocalFailoverDemo.control(b, BACK_SECRET));
    spec.setSource(source);
    DestinationCluster destination = new DestinationCluster();
    destination.setBootstrapServers(a.bootstrapServers());
    destination.setControl(LocalFailoverDemo.control(a, BACK_SECRET));
    spec.setDestination(destination);
    TopicSelection topics = new TopicSelection();
    topics.setNames(List.of(TOPIC));
    spec.setTopics(topics);
    spec.setInitialSync(InitialSync.TruncateAndRestore);
    StopPolicy stop = new StopPolicy();
    stop.setMode(StopMode.AfterCatchUp);
    spec.setStop(stop);
    spec.setState(MirrorState.Mirroring);
    cr.setSpec(spec);
    return LocalFailoverDemo.writeManifest(
        "# Written by ./demo.sh --failback: the failback ClusterMirror B -> A and its Secret.\n",
        LocalFailoverDemo.controlSecret(BACK_SECRET, BACK),
        cr);
  }

  private static Map<Integer, Long> ends(KafkaCluster cluster) {
    try {
      return new TreeMap<>(LocalFailoverDemo.logEnds(cluster));
    } catch (Exception e) {
      return Map.of();
    }
  }

  private static boolean readable(KafkaCluster cluster) {
    return !ends(cluster).isEmpty();
  }
}
