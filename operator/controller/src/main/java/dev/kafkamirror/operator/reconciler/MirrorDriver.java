package dev.kafkamirror.operator.reconciler;

import dev.kafkamirror.contract.ControlRequest;
import dev.kafkamirror.contract.Fields;
import dev.kafkamirror.operator.control.BrokerControl;
import dev.kafkamirror.operator.control.ControlResult;
import dev.kafkamirror.operator.core.Action;
import dev.kafkamirror.operator.core.FailoverPlan;
import dev.kafkamirror.operator.core.PartitionDecision;
import dev.kafkamirror.operator.core.PartitionKey;
import dev.kafkamirror.operator.core.PartitionObservation;
import dev.kafkamirror.operator.core.StopChaining;
import dev.kafkamirror.operator.kafka.ClusterAdmin;
import dev.kafkamirror.operator.kafka.PartitionPlacement;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The I/O half of a reconcile: observes the destination (Kafka metadata, then one describe call per
 * leader broker) and carries out a plan (one call per action and broker, brokers in parallel). It
 * decides nothing: {@link dev.kafkamirror.operator.core.FailoverPlanner} does.
 */
public final class MirrorDriver {

  private static final Logger LOG = LoggerFactory.getLogger(MirrorDriver.class);

  private final BrokerControl control;
  private final ExecutorService executor;

  /**
   * @param control the brokers' control endpoints
   * @param executor runs the calls to different brokers in parallel, and the follower half of
   *     make-writable after a round (not waited for)
   */
  public MirrorDriver(BrokerControl control, ExecutorService executor) {
    this.control = control;
    this.executor = executor;
  }

  /**
   * One observation of the destination.
   *
   * @param fenceWaitNanos how long its metadata reads waited for fenced partitions to show their
   *     new leaders (0 when there was nothing to wait for)
   */
  public record Observation(
      List<PartitionObservation> partitions,
      Map<PartitionKey, PartitionPlacement> placements,
      Map<Integer, String> brokerHosts,
      long fenceWaitNanos) {

    public Observation(
        List<PartitionObservation> partitions,
        Map<PartitionKey, PartitionPlacement> placements,
        Map<Integer, String> brokerHosts) {
      this(partitions, placements, brokerHosts, 0L);
    }
  }

  /**
   * Metadata, then describe on each partition's leader; with {@code followers}, also on every other
   * replica, to find the ones without a mirror registration.
   */
  public Observation observe(ResolvedMirror mirror, ClusterAdmin destination, boolean followers)
      throws ClusterAdmin.KafkaCallException {
    return observe(mirror, destination, followers, Map.of(), 0);
  }

  /**
   * {@link #observe(ResolvedMirror, ClusterAdmin, boolean)} after fences: reads the metadata again,
   * {@link #FENCE_POLL_MS} apart and for at most {@code fenceWaitMs}, while it shows a partition of
   * {@code fencedBy} still led by the broker that fenced it, or without a leader ({@link
   * StopChaining#notMovedYet}), and describes only then.
   *
   * <p>Why: the controller committed each election before its old leader answered {@code
   * LEADER_MOVED}, but the broker that answers a metadata read applies it later, and each read may
   * go to another broker. At 1,000 fenced partitions a read right after the fence still named the
   * old leaders of a third to two thirds of them; and a read that showed every move could be
   * followed by one from a broker that had not applied them yet (seen in a benchmark run: the
   * metadata named broker 1 again for 333 partitions it had fenced away a second earlier), whose
   * truncate then answered {@code NOT_LEADER} and split the stop into staggered rounds. So it is
   * the observation's own metadata that must show the moves. Never decides anything: at the bound
   * the observation goes on with what it read, and the calls sent to an old leader answer {@code
   * NOT_LEADER} and are sent again.
   *
   * @param fencedBy the partitions the last round fenced, each with the broker that fenced it
   * @throws IllegalStateException when the thread is interrupted while it waits (the reconcile
   *     fails, as an interrupted control call makes it)
   */
  public Observation observe(
      ResolvedMirror mirror,
      ClusterAdmin destination,
      boolean followers,
      Map<PartitionKey, Integer> fencedBy,
      long fenceWaitMs)
      throws ClusterAdmin.KafkaCallException {
    long started = System.nanoTime();
    Map<Integer, String> hosts = destination.brokerHosts();
    long placementsStarted = System.nanoTime();
    List<PartitionPlacement> placements =
        placementsShowingMoves(mirror, destination, fencedBy, fenceWaitMs);
    long metadataNanos = System.nanoTime() - started;
    long fenceWaitNanos = fencedBy.isEmpty() ? 0L : System.nanoTime() - placementsStarted;
    Map<PartitionKey, PartitionPlacement> byKey = new LinkedHashMap<>();
    Map<Integer, List<PartitionKey>> byLeader = new TreeMap<>();
    List<PartitionObservation> out = new ArrayList<>();
    for (PartitionPlacement p : placements) {
      byKey.put(p.key(), p);
      if (p.leaderId() == null) {
        out.add(
            PartitionObservation.failed(
                p.key(),
                null,
                p.replicas(),
                "NO_LEADER",
                "partition " + p.key() + " has no leader on the destination"));
      } else {
        byLeader.computeIfAbsent(p.leaderId(), k -> new ArrayList<>()).add(p.key());
      }
    }
    Map<Integer, List<ControlResult>> described =
        perBroker(
            byLeader,
            (brokerId) -> {
              String address = mirror.controlAddress(brokerId, hosts);
              if (address == null) {
                return unknownBroker(brokerId, byLeader.get(brokerId));
              }
              long callStarted = System.nanoTime();
              List<ControlResult> rs =
                  control.describe(
                      brokerId, address, mirror.controlChannel(), byLeader.get(brokerId));
              LOG.debug(
                  "mirror={} broker={} action=DESCRIBE leader partitions={} ms={} (metadata"
                      + " before it: {} ms)",
                  mirror.mirrorName(),
                  brokerId,
                  byLeader.get(brokerId).size(),
                  (System.nanoTime() - callStarted) / 1_000_000L,
                  metadataNanos / 1_000_000L);
              return rs;
            });
    for (List<ControlResult> results : described.values()) {
      for (ControlResult r : results) {
        PartitionPlacement p = byKey.get(r.key());
        PartitionObservation.Described d = null;
        String invalid = null;
        if (r.ok()) {
          try {
            d = r.described();
          } catch (IllegalArgumentException e) {
            invalid = e.getMessage();
          }
        }
        if (d != null) {
          out.add(PartitionObservation.described(r.key(), p.leaderId(), p.replicas(), d));
        } else if (invalid != null) {
          out.add(
              PartitionObservation.failed(
                  r.key(), p.leaderId(), p.replicas(), ControlResult.HTTP_ERROR, invalid));
        } else {
          out.add(
              PartitionObservation.failed(
                  r.key(), p.leaderId(), p.replicas(), r.errorCode(), r.errorMessage()));
        }
      }
    }
    out.sort((a, b) -> a.key().compareTo(b.key()));
    if (followers) {
      out = withUnregisteredFollowers(mirror, hosts, out);
    }
    return new Observation(out, byKey, hosts, fenceWaitNanos);
  }

  /**
   * A round logs at most this many leader errors of one code from one broker at INFO, then one line
   * with their count: a fence of 1,000 partitions answers LEADER_MOVED 1,000 times.
   */
  static final int LEADER_ERRORS_LOGGED_PER_CODE = 5;

  /** The pause between two metadata reads of an observation after fences. */
  static final long FENCE_POLL_MS = 50;

  /**
   * The mirror's placements, read until they show every move of {@code fencedBy} or {@code
   * fenceWaitMs} has passed; logs, at debug, how long that took when there was anything to wait
   * for.
   */
  private List<PartitionPlacement> placementsShowingMoves(
      ResolvedMirror mirror,
      ClusterAdmin destination,
      Map<PartitionKey, Integer> fencedBy,
      long fenceWaitMs)
      throws ClusterAdmin.KafkaCallException {
    long start = System.nanoTime();
    long deadline = start + TimeUnit.MILLISECONDS.toNanos(Math.max(0L, fenceWaitMs));
    int reads = 0;
    List<PartitionPlacement> placements = destination.placements(mirror.topics());
    while (true) {
      reads++;
      if (fencedBy.isEmpty()) {
        return placements;
      }
      Map<PartitionKey, Integer> leaders = new HashMap<>();
      for (PartitionPlacement p : placements) {
        leaders.put(p.key(), p.leaderId());
      }
      Set<PartitionKey> notMoved = StopChaining.notMovedYet(fencedBy, leaders);
      if (notMoved.isEmpty() || System.nanoTime() - deadline >= 0) {
        LOG.debug(
            "mirror={} waited {} ms ({} metadata reads) for the metadata to show {} fenced"
                + " partitions on their new leaders; not shown yet: {}",
            mirror.mirrorName(),
            TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start),
            reads,
            fencedBy.size(),
            notMoved.size());
        return placements;
      }
      try {
        Thread.sleep(FENCE_POLL_MS);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new IllegalStateException(
            "interrupted while waiting for fenced partitions to show their new leaders", e);
      }
      try {
        placements = destination.placements(mirror.topics());
      } catch (ClusterAdmin.KafkaCallException | RuntimeException e) {
        // A read that fails while waiting ends the wait: the observation goes on with the last
        // read it has (only the first read of an observation fails it).
        LOG.info(
            "mirror={} metadata read while waiting for {} fenced partitions to show their new"
                + " leaders failed; the observation goes on with the previous read: {}",
            mirror.mirrorName(),
            notMoved.size(),
            e.toString());
        return placements;
      }
    }
  }

  private List<PartitionObservation> withUnregisteredFollowers(
      ResolvedMirror mirror, Map<Integer, String> hosts, List<PartitionObservation> leaders) {
    Map<Integer, List<PartitionKey>> byFollower = new TreeMap<>();
    for (PartitionObservation o : leaders) {
      if (o.described() == null || o.described().mirror() == null) {
        continue; // the leader is started first; followers are looked at once it mirrors
      }
      for (int replica : o.replicas()) {
        if (o.leaderId() != null && replica != o.leaderId()) {
          byFollower.computeIfAbsent(replica, k -> new ArrayList<>()).add(o.key());
        }
      }
    }
    Map<Integer, List<ControlResult>> described =
        perBroker(
            byFollower,
            brokerId -> {
              String address = mirror.controlAddress(brokerId, hosts);
              return address == null
                  ? unknownBroker(brokerId, byFollower.get(brokerId))
                  : control.describe(
                      brokerId, address, mirror.controlChannel(), byFollower.get(brokerId));
            });
    Map<PartitionKey, List<Integer>> missing = new HashMap<>();
    for (List<ControlResult> results : described.values()) {
      for (ControlResult r : results) {
        boolean unregistered = r.ok() ? !r.body().has(Fields.Describe.MIRROR) : !r.notDelivered();
        if (unregistered) {
          missing.computeIfAbsent(r.key(), k -> new ArrayList<>()).add(r.brokerId());
        }
      }
    }
    if (missing.isEmpty()) {
      return leaders;
    }
    List<PartitionObservation> out = new ArrayList<>();
    for (PartitionObservation o : leaders) {
      List<Integer> brokers = missing.get(o.key());
      out.add(brokers == null ? o : o.withReplicasWithoutMirror(brokers));
    }
    return out;
  }

  /**
   * What one round of calls did.
   *
   * @param alignments a failback start's {@code alignment} answer per partition, from its leader
   * @param answers every answer of the calls that were waited for (leaders and, for
   *     remove-fetchers, followers), as {@link StopChaining} reads them
   */
  public record RoundResult(
      int calls,
      int succeeded,
      Map<PartitionKey, String> leaderErrors,
      Map<PartitionKey, com.fasterxml.jackson.databind.JsonNode> alignments,
      List<StopChaining.Answer> answers) {

    public RoundResult(int calls, int succeeded, Map<PartitionKey, String> leaderErrors) {
      this(calls, succeeded, leaderErrors, Map.of(), List.of());
    }
  }

  /**
   * Carries out every action of the plan. Partitions are independent; a leader's error is kept for
   * status and the next round re-plans from a fresh observation (a moved leader, a TIMEOUT that
   * completes later, LEADER_MOVED after truncate). Followers' errors on ALL_REPLICAS and the
   * follower half of make-writable do not block the partition.
   */
  public RoundResult execute(
      String resourceRef,
      ResolvedMirror mirror,
      FailoverPlan plan,
      Observation observation,
      Map<Action, Long> callsByAction) {
    return execute(resourceRef, mirror, plan, observation, callsByAction, null);
  }

  /**
   * As {@link #execute(String, ResolvedMirror, FailoverPlan, Observation, Map)}; with {@code
   * failback}, every START_MIRRORING is a failback start carrying the partition's alignment.
   */
  public RoundResult execute(
      String resourceRef,
      ResolvedMirror mirror,
      FailoverPlan plan,
      Observation observation,
      Map<Action, Long> callsByAction,
      BrokerControl.Failback failback) {
    Map<Action, List<PartitionDecision>> byAction = new LinkedHashMap<>();
    for (PartitionDecision d : plan.decisions()) {
      if (d.action().callsBroker()) {
        byAction.computeIfAbsent(d.action(), a -> new ArrayList<>()).add(d);
      }
    }
    Map<PartitionKey, String> leaderErrors = new HashMap<>();
    Map<PartitionKey, com.fasterxml.jackson.databind.JsonNode> alignments = new HashMap<>();
    List<StopChaining.Answer> answers = new ArrayList<>();
    int calls = 0;
    int succeeded = 0;
    // Leader errors per broker and code in this round, to log a few and count the rest.
    Map<BrokerCode, Integer> sameError = new LinkedHashMap<>();
    // Group (action, broker) calls; each broker gets its calls in step order, brokers in parallel.
    // The follower half of make-writable waits until every leader call is done.
    Map<Integer, List<Call>> first = new TreeMap<>();
    Map<Integer, List<Call>> later = new TreeMap<>();
    for (Map.Entry<Action, List<PartitionDecision>> e : byAction.entrySet()) {
      Action action = e.getKey();
      Map<Integer, List<PartitionKey>> leaders = new TreeMap<>();
      Map<Integer, List<PartitionKey>> followers = new TreeMap<>();
      for (PartitionDecision d : e.getValue()) {
        PartitionPlacement p = observation.placements().get(d.key());
        if (p == null || p.leaderId() == null) {
          leaderErrors.put(d.key(), "partition " + d.key() + " has no leader");
          continue;
        }
        leaders.computeIfAbsent(p.leaderId(), k -> new ArrayList<>()).add(d.key());
        for (int replica : p.replicas()) {
          if (replica != p.leaderId()) {
            followers.computeIfAbsent(replica, k -> new ArrayList<>()).add(d.key());
          }
        }
      }
      leaders.forEach(
          (b, keys) ->
              first.computeIfAbsent(b, k -> new ArrayList<>()).add(new Call(action, keys, true)));
      Map<Integer, List<Call>> followerPhase =
          switch (action.route()) {
            case ALL_REPLICAS -> first;
            case LEADER_THEN_REPLICAS -> later;
            default -> null;
          };
      if (followerPhase != null) {
        followers.forEach(
            (b, keys) ->
                followerPhase
                    .computeIfAbsent(b, k -> new ArrayList<>())
                    .add(new Call(action, keys, false)));
      }
    }
    // Brokers in parallel.
    first
        .values()
        .forEach(list -> list.forEach(c -> callsByAction.merge(c.action(), 1L, Long::sum)));
    for (Answered answered : runCalls(resourceRef, mirror, observation, first, failback)) {
      ControlResult r = answered.result();
      answers.add(r.stepAnswer(answered.leader()));
      calls++;
      if (r.ok()) {
        succeeded++;
        // Only the leader aligns; a follower registers ALIGNING and answers no accounting.
        if (r.body() != null
            && r.body().has(dev.kafkamirror.contract.Fields.StepResult.ALIGNMENT)) {
          alignments.put(
              r.key(), r.body().get(dev.kafkamirror.contract.Fields.StepResult.ALIGNMENT));
        }
        continue;
      }
      boolean fromFollower = r.errorMessage() != null && r.errorMessage().startsWith("follower: ");
      if (fromFollower) {
        try (PartitionLogFields fields =
            PartitionLogFields.of(resourceRef, r.key(), r.brokerId(), r.errorCode())) {
          LOG.debug(
              "clusterMirror={} partition={} broker={} follower call failed (not blocking): {}",
              resourceRef,
              r.key(),
              r.brokerId(),
              r.errorMessage());
        }
      } else {
        leaderErrors.put(r.key(), r.errorCode() + ": " + r.errorMessage());
        int seen = sameError.merge(new BrokerCode(r.brokerId(), r.errorCode()), 1, Integer::sum);
        try (PartitionLogFields fields =
            PartitionLogFields.of(resourceRef, r.key(), r.brokerId(), r.errorCode())) {
          LOG.atLevel(
                  seen <= LEADER_ERRORS_LOGGED_PER_CODE
                      ? org.slf4j.event.Level.INFO
                      : org.slf4j.event.Level.DEBUG)
              .log(
                  "clusterMirror={} partition={} broker={} code={} {}",
                  resourceRef,
                  r.key(),
                  r.brokerId(),
                  r.errorCode(),
                  r.errorMessage());
        }
      }
    }
    sameError.forEach(
        (brokerCode, count) -> {
          if (count > LEADER_ERRORS_LOGGED_PER_CODE) {
            try (PartitionLogFields fields =
                PartitionLogFields.of(
                    resourceRef, null, brokerCode.brokerId(), brokerCode.code())) {
              LOG.info(
                  "clusterMirror={} broker={} code={}: {} partitions answered so in this round; the"
                      + " first {} are logged above, the rest at debug, and every partition's error is"
                      + " in status.partitions",
                  resourceRef,
                  brokerCode.brokerId(),
                  brokerCode.code(),
                  count,
                  LEADER_ERRORS_LOGGED_PER_CODE);
            }
          }
        });
    // The follower half of make-writable, after every leader call, is not waited for: a partition
    // is
    // STOPPED once its leader is, followers adopt the recorded STOPPED on their own, and this call
    // only hurries them (idempotent; errors are logged).
    if (!later.isEmpty()) {
      executor.submit(
          () -> {
            for (Map.Entry<Integer, List<Call>> e : later.entrySet()) {
              for (Call call : e.getValue()) {
                for (ControlResult r :
                    oneCall(resourceRef, mirror, observation, e.getKey(), call, failback)) {
                  if (!r.ok()) {
                    try (PartitionLogFields fields =
                        PartitionLogFields.of(resourceRef, r.key(), r.brokerId(), r.errorCode())) {
                      LOG.debug(
                          "clusterMirror={} partition={} broker={} follower call failed (not"
                              + " blocking): {}",
                          resourceRef,
                          r.key(),
                          r.brokerId(),
                          r.errorMessage());
                    }
                  }
                }
              }
            }
          });
    }
    return new RoundResult(calls, succeeded, leaderErrors, alignments, answers);
  }

  private record Call(Action action, List<PartitionKey> keys, boolean leader) {}

  /** A broker and an error code it answered with. */
  private record BrokerCode(int brokerId, String code) {}

  /** One partition's result of a leader or follower call. */
  private record Answered(ControlResult result, boolean leader) {}

  /**
   * Runs the calls, brokers in parallel, and returns all results; a follower's errors are marked.
   * On each broker the leader calls run one at a time (a leader works through its partitions one by
   * one, and writes their stop state; parallel leader calls to it measured slower), and the
   * follower calls, which are independent of them (another partition set, no stop-state write), run
   * beside them.
   */
  private List<Answered> runCalls(
      String resourceRef,
      ResolvedMirror mirror,
      Observation observation,
      Map<Integer, List<Call>> calls,
      BrokerControl.Failback failback) {
    List<Future<List<Answered>>> futures = new ArrayList<>();
    for (Map.Entry<Integer, List<Call>> e : calls.entrySet()) {
      for (boolean leader : new boolean[] {true, false}) {
        List<Call> these = e.getValue().stream().filter(c -> c.leader() == leader).toList();
        if (these.isEmpty()) {
          continue;
        }
        futures.add(
            executor.submit(
                () -> {
                  List<Answered> out = new ArrayList<>();
                  for (Call call : these) {
                    for (ControlResult r :
                        oneCall(resourceRef, mirror, observation, e.getKey(), call, failback)) {
                      out.add(new Answered(r, call.leader()));
                    }
                  }
                  return out;
                }));
      }
    }
    List<Answered> out = new ArrayList<>();
    for (Future<List<Answered>> f : futures) {
      try {
        out.addAll(f.get());
      } catch (ExecutionException e) {
        throw new IllegalStateException("a control call failed: " + e.getCause(), e.getCause());
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new IllegalStateException("interrupted during control calls", e);
      }
    }
    return out;
  }

  private List<ControlResult> oneCall(
      String resourceRef,
      ResolvedMirror mirror,
      Observation observation,
      int brokerId,
      Call call,
      BrokerControl.Failback failback) {
    String address = mirror.controlAddress(brokerId, observation.brokerHosts());
    if (address == null) {
      return unknownBroker(brokerId, call.keys());
    }
    long callStarted = System.nanoTime();
    List<ControlResult> rs =
        failback != null && call.action() == Action.START_MIRRORING
            ? control.startFailback(
                brokerId,
                address,
                mirror.controlChannel(),
                call.keys(),
                null,
                mirror.mirrorName(),
                new ControlRequest.MirrorSource(
                    mirror.sourceBootstrapServers(),
                    mirror.sourceClusterId(),
                    mirror.sourceClientSecurity()),
                failback)
            : control.act(
                call.action(),
                brokerId,
                address,
                mirror.controlChannel(),
                call.keys(),
                mirror.sourceClusterId(),
                call.action() == Action.START_MIRRORING ? mirror.mirrorName() : null,
                call.action() == Action.START_MIRRORING
                    ? new ControlRequest.MirrorSource(
                        mirror.sourceBootstrapServers(),
                        mirror.sourceClusterId(),
                        mirror.sourceClientSecurity())
                    : null);
    LOG.debug(
        "clusterMirror={} broker={} action={} {} partitions={} ms={} errors={}",
        resourceRef,
        brokerId,
        call.action(),
        call.leader() ? "leader" : "follower",
        call.keys().size(),
        (System.nanoTime() - callStarted) / 1_000_000L,
        rs.stream().filter(r -> !r.ok()).count());
    List<ControlResult> out = new ArrayList<>();
    for (ControlResult r : rs) {
      out.add(
          new ControlResult(
              r.key(),
              r.brokerId(),
              r.body(),
              r.errorCode(),
              r.errorMessage() == null
                  ? null
                  : (call.leader() ? "" : "follower: ") + r.errorMessage()));
    }
    return out;
  }

  private static List<ControlResult> unknownBroker(int brokerId, List<PartitionKey> keys) {
    List<ControlResult> out = new ArrayList<>();
    for (PartitionKey k : keys) {
      out.add(
          new ControlResult(
              k,
              brokerId,
              null,
              ControlResult.UNREACHABLE,
              "broker "
                  + brokerId
                  + " has no control endpoint the operator may call: it is not among the"
                  + " destination's live brokers, or its spec.destination.control.brokerEndpoints"
                  + " address is not on the host the destination's metadata gives for it"));
    }
    return out;
  }

  private <T> Map<Integer, List<ControlResult>> perBroker(
      Map<Integer, T> work, Function<Integer, List<ControlResult>> call) {
    Map<Integer, Future<List<ControlResult>>> futures = new TreeMap<>();
    for (Integer brokerId : work.keySet()) {
      futures.put(brokerId, executor.submit(() -> call.apply(brokerId)));
    }
    Map<Integer, List<ControlResult>> out = new TreeMap<>();
    for (Map.Entry<Integer, Future<List<ControlResult>>> f : futures.entrySet()) {
      try {
        out.put(f.getKey(), f.getValue().get());
      } catch (ExecutionException e) {
        throw new IllegalStateException(
            "control calls to broker " + f.getKey() + " failed: " + e.getCause(), e.getCause());
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new IllegalStateException("interrupted during control calls", e);
      }
    }
    return out;
  }
}
