package dev.kafkamirror.operator.control;

import static org.assertj.core.api.Assertions.assertThat;

import dev.kafkamirror.broker.agent.control.ControlEndpoint;
import dev.kafkamirror.broker.agent.control.PartitionControl;
import dev.kafkamirror.broker.agent.control.PartitionOperationException;
import dev.kafkamirror.broker.agent.control.PartitionRef;
import dev.kafkamirror.broker.agent.control.StepOutcome;
import dev.kafkamirror.contract.ControlCall;
import dev.kafkamirror.contract.ControlRequest;
import dev.kafkamirror.contract.Fields;
import dev.kafkamirror.contract.MirrorState;
import dev.kafkamirror.contract.PartitionError;
import dev.kafkamirror.contract.Role;
import dev.kafkamirror.contract.StopStep;
import dev.kafkamirror.operator.core.Action;
import dev.kafkamirror.operator.core.PartitionKey;
import dev.kafkamirror.operator.core.PartitionObservation;
import dev.kafkamirror.operator.core.ReportedMirrorState;
import dev.kafkamirror.operator.core.ReportedStopStep;
import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.lang.reflect.RecordComponent;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.EnumSet;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The control contract, end to end in one JVM: the operator's {@link ControlClient} calls the
 * agent's real {@link ControlEndpoint} (its request parser and answer writer) on a loopback port,
 * in front of a {@link PartitionControl} that only records what it was asked. Every call the
 * operator makes must arrive as exactly the request it meant, and every answer must come back as
 * the result the broker gave.
 */
class ControlContractTest {

  private static final String SECRET = "contract-secret-0123456789";
  private static final String SOURCE_ID = "source-cluster-A";
  private static final long STEP_TIMEOUT_MS = 12_345L;
  private static final ControlClient.Channel CHANNEL = new ControlClient.Channel(SECRET, null);

  private final Recorder recorder = new Recorder();
  private ControlEndpoint endpoint;
  private String address;
  private final ControlClient client = new ControlClient(5_000L, STEP_TIMEOUT_MS);

  @BeforeEach
  void start() throws Exception {
    endpoint = ControlEndpoint.start("127.0.0.1:0", SECRET, recorder);
    address = "127.0.0.1:" + endpoint.address().getPort();
  }

  @AfterEach
  void stop() {
    endpoint.close();
  }

  /** One received call: what the agent's parser made of the operator's request. */
  record Received(
      ControlCall call,
      List<PartitionRef> partitions,
      Long timeoutMs,
      String mirrorName,
      ControlRequest.MirrorSource source) {}

  @Test
  void everyActionArrivesAtTheBrokerExactlyAsTheOperatorMeantIt() {
    // Given two partitions of two topics, a source with security settings
    List<PartitionKey> keys = List.of(new PartitionKey("orders", 0), new PartitionKey("pay.v1", 7));
    ControlRequest.MirrorSource source =
        new ControlRequest.MirrorSource(
            "a-0.kafka:9093,a-1.kafka:9093",
            SOURCE_ID,
            Map.of("security.protocol", "SASL_SSL", "sasl.mechanism", "SCRAM-SHA-512"));
    Set<ControlCall> called = EnumSet.noneOf(ControlCall.class);
    for (Action action : Action.values()) {
      if (ControlClient.callOf(action) == null) {
        continue;
      }
      recorder.received.clear();
      // When the operator sends the action
      List<ControlResult> results =
          client.act(action, 3, address, CHANNEL, keys, SOURCE_ID, "orders-mirror", source);
      // Then every partition succeeded, and the broker was asked exactly this
      assertThat(results).as(action.name()).allSatisfy(r -> assertThat(r.ok()).isTrue());
      assertThat(results).extracting(ControlResult::key).containsExactlyElementsOf(keys);
      ControlCall call = ControlClient.callOf(action);
      String expectedSource = call.sourceClusterIdRequired() ? SOURCE_ID : null;
      List<PartitionRef> expectedPartitions = new ArrayList<>();
      for (PartitionKey k : keys) {
        expectedPartitions.add(new PartitionRef(k.topic(), k.partition(), expectedSource));
      }
      assertThat(recorder.received)
          .as(action.name())
          .containsExactly(
              new Received(
                  call,
                  expectedPartitions,
                  STEP_TIMEOUT_MS,
                  call.takesMirrorSource() ? "orders-mirror" : null,
                  call.takesMirrorSource() ? source : null));
      called.add(call);
    }
    // And every call but describe is some action of the operator
    assertThat(called).isEqualTo(EnumSet.complementOf(EnumSet.of(ControlCall.DESCRIBE)));
  }

  @Test
  void theCoreReadsTheContractsStopStepsAndMirrorStatesByTheSameNamesInTheSameOrder() {
    // Given the contract's enums and the core's readings of them (the core imports no contract)
    // Then the names agree one for one, so a describe value the broker sends is one the core knows
    assertThat(Arrays.stream(ReportedStopStep.values()).map(Enum::name))
        .containsExactlyElementsOf(Arrays.stream(StopStep.values()).map(Enum::name).toList());
    assertThat(Arrays.stream(ReportedMirrorState.values()).map(Enum::name))
        .containsExactlyElementsOf(Arrays.stream(MirrorState.values()).map(Enum::name).toList());
    // And so do the role and the fence's error code that the stop chaining reads
    assertThat(dev.kafkamirror.operator.core.StopChaining.LEADER_ROLE)
        .isEqualTo(dev.kafkamirror.contract.Role.LEADER.name());
    assertThat(dev.kafkamirror.operator.core.StopChaining.FOLLOWER_ROLE)
        .isEqualTo(dev.kafkamirror.contract.Role.FOLLOWER.name());
    assertThat(dev.kafkamirror.operator.core.StopChaining.LEADER_MOVED)
        .isEqualTo(dev.kafkamirror.contract.PartitionError.Code.LEADER_MOVED.name());
  }

  @Test
  void anActionIsAStopStepExactlyWhenItsCallIsAndCallsABrokerExactlyWhenItHasACall() {
    for (Action action : Action.values()) {
      // Given an action and the contract call it maps to
      ControlCall call = ControlClient.callOf(action);
      // Then the core's view of the action agrees with the contract's view of the call
      assertThat(action.callsBroker()).as(action.name()).isEqualTo(call != null);
      assertThat(action.isStopStep())
          .as(action.name())
          .isEqualTo(call != null && call.isStopStep());
    }
  }

  @Test
  void aDescribeComesBackAsTheCoreRecordFieldForField() {
    // Given a broker that describes a stopping mirror partition, with fields the operator ignores
    List<PartitionKey> keys = List.of(new PartitionKey("orders", 0));
    // When the operator describes it
    List<ControlResult> results = client.describe(3, address, CHANNEL, keys);
    // Then the core record holds every value the broker sent
    assertThat(results).hasSize(1);
    assertThat(results.get(0).ok()).isTrue();
    PartitionObservation.Described d = results.get(0).described();
    assertThat(d)
        .isEqualTo(
            new PartitionObservation.Described(
                true,
                Role.LEADER.name(),
                5,
                120L,
                118L,
                110L,
                new PartitionObservation.Mirror(
                    "orders-mirror",
                    MirrorState.STOPPING.name(),
                    SOURCE_ID,
                    SOURCE_ID,
                    109L,
                    0L,
                    "fetch failed: boom",
                    null,
                    null),
                new PartitionObservation.Stop(
                    StopStep.BARRIER_WRITTEN.name(), 6, 110L, 109L, 111L, SOURCE_ID),
                List.of(new PartitionObservation.BarrierReset("LEADER_APPEND", 111L, SOURCE_ID))));
    assertThat(recorder.received)
        .containsExactly(
            new Received(
                ControlCall.DESCRIBE,
                List.of(new PartitionRef("orders", 0, null)),
                STEP_TIMEOUT_MS,
                null,
                null));
  }

  @Test
  void aPartitionErrorComesBackWithTheContractsCodeAndTheOthersStillSucceed() {
    // Given a broker that does not lead one of two partitions
    recorder.failing.add("orders-1");
    List<PartitionKey> keys = List.of(new PartitionKey("orders", 0), new PartitionKey("orders", 1));
    // When the operator sends a stop step and a start
    for (Action action : List.of(Action.TRUNCATE, Action.START_MIRRORING)) {
      List<ControlResult> results =
          client.act(
              action,
              2,
              address,
              CHANNEL,
              keys,
              SOURCE_ID,
              "m",
              new ControlRequest.MirrorSource("a:9092", null, Map.of()));
      // Then the failed one carries NOT_LEADER and its message, the other one succeeded
      assertThat(results.get(0).ok()).as(action.name()).isTrue();
      assertThat(results.get(1).errorCode()).isEqualTo(PartitionError.Code.NOT_LEADER.name());
      assertThat(results.get(1).errorMessage()).contains("orders-1", "broker 2", "leader is 4");
    }
  }

  @Test
  void aWrongSecretIsRefusedAsAWholeAndReachesNoPartition() {
    // When the operator calls with a wrong secret
    List<ControlResult> results =
        client.act(
            Action.WRITE_BARRIER,
            1,
            address,
            new ControlClient.Channel("not-the-secret-0123456789", null),
            List.of(new PartitionKey("orders", 0)),
            SOURCE_ID,
            null,
            null);
    // Then the call failed with HTTP 401 and the contract's code, and nothing was asked
    assertThat(results.get(0).errorCode()).isEqualTo(ControlResult.HTTP_ERROR);
    assertThat(results.get(0).errorMessage()).contains("HTTP 401", "UNAUTHENTICATED");
    assertThat(recorder.received).isEmpty();
  }

  @Test
  void aFailedMirrorsReasonReachesTheCore() {
    // Given a describe of a partition whose plugin halted its mirror: the source diverged
    com.fasterxml.jackson.databind.node.ObjectNode body = leaderDescribe();
    com.fasterxml.jackson.databind.node.ObjectNode mirror = body.putObject(Fields.Describe.MIRROR);
    mirror.put(Fields.Mirror.MIRROR_NAME, "orders-mirror");
    mirror.put(Fields.Mirror.STATE, MirrorState.FAILED.name());
    mirror.put(Fields.Mirror.FAILED_REASON, "SourceDiverged");
    mirror.put(Fields.Mirror.LAST_ERROR, "records from offset 100 are not on the source");
    // When the operator binds it
    PartitionObservation.Mirror m = boundMirror(body);
    // Then the state and the reason are there
    assertThat(m.state()).isEqualTo("FAILED");
    assertThat(m.failedReason()).isEqualTo("SourceDiverged");
    assertThat(m.lastError()).contains("offset 100");
  }

  @Test
  void aSilentSourceReachesTheCoreWithSinceWhen() {
    // Given a describe of a mirroring leader whose source has not answered since 18:02:40
    com.fasterxml.jackson.databind.node.ObjectNode body = leaderDescribe();
    com.fasterxml.jackson.databind.node.ObjectNode mirror = body.putObject(Fields.Describe.MIRROR);
    mirror.put(Fields.Mirror.MIRROR_NAME, "orders-mirror");
    mirror.put(Fields.Mirror.STATE, MirrorState.MIRRORING.name());
    mirror.put(Fields.Mirror.SOURCE_SILENT_SINCE, "2026-12-04T18:02:40Z");
    // When the operator binds it
    PartitionObservation.Mirror m = boundMirror(body);
    // Then since when is there, as an instant
    assertThat(m.sourceSilentSinceInstant())
        .isEqualTo(java.time.Instant.parse("2026-12-04T18:02:40Z"));
  }

  /** A describe body of orders-0 from its leader, broker 1, without a mirror yet. */
  private static com.fasterxml.jackson.databind.node.ObjectNode leaderDescribe() {
    com.fasterxml.jackson.databind.node.ObjectNode body =
        new com.fasterxml.jackson.databind.ObjectMapper().createObjectNode();
    body.put(Fields.Describe.LEADER_ID, 1);
    return body;
  }

  /** The mirror the operator binds from {@code body}, described by broker 1. */
  private static PartitionObservation.Mirror boundMirror(
      com.fasterxml.jackson.databind.node.ObjectNode body) {
    return new ControlResult(new PartitionKey("orders", 0), 1, body, null, null)
        .described()
        .mirror();
  }

  @Test
  void theOperatorsDescribeRecordsNameOnlyFieldsOfTheContract() throws Exception {
    // The core records are bound by their components' names: each one must be a contract field
    assertNamesAreContractFields(
        PartitionObservation.Described.class, Fields.Describe.class, Set.of("stopAware"));
    assertNamesAreContractFields(PartitionObservation.Mirror.class, Fields.Mirror.class, Set.of());
    assertNamesAreContractFields(PartitionObservation.Stop.class, Fields.Stop.class, Set.of());
    assertNamesAreContractFields(
        PartitionObservation.BarrierReset.class, Fields.BarrierReset.class, Set.of());
  }

  private static void assertNamesAreContractFields(
      Class<?> record, Class<?> fields, Set<String> notBound) throws IllegalAccessException {
    Set<String> contract = new HashSet<>();
    for (Field f : fields.getFields()) {
      if (Modifier.isStatic(f.getModifiers()) && f.getType() == String.class) {
        contract.add((String) f.get(null));
      }
    }
    List<String> components =
        Arrays.stream(record.getRecordComponents())
            .map(RecordComponent::getName)
            .filter(n -> !notBound.contains(n))
            .toList();
    assertThat(contract).as(record.getSimpleName()).containsAll(components);
  }

  /** Records every call and answers as a broker would, with the contract's field names. */
  private static final class Recorder implements PartitionControl {
    final List<Received> received = new CopyOnWriteArrayList<>();
    final Set<String> failing = new HashSet<>();

    private void check(PartitionRef p) throws PartitionOperationException {
      if (failing.contains(p.key())) {
        throw new PartitionOperationException(
            PartitionError.Code.NOT_LEADER, p.key() + ": not the leader; the leader is 4");
      }
    }

    private void record(
        ControlCall call,
        List<PartitionRef> partitions,
        Long timeoutMs,
        String mirrorName,
        ControlRequest.MirrorSource source) {
      // One entry per call: the per-partition operations of one call are folded together
      if (!received.isEmpty() && received.get(received.size() - 1).call() == call) {
        Received last = received.remove(received.size() - 1);
        List<PartitionRef> all = new ArrayList<>(last.partitions());
        all.addAll(partitions);
        received.add(new Received(call, all, last.timeoutMs(), mirrorName, source));
      } else {
        received.add(new Received(call, partitions, timeoutMs, mirrorName, source));
      }
    }

    @Override
    public Map<String, Object> describe(PartitionRef partition) throws PartitionOperationException {
      record(ControlCall.DESCRIBE, List.of(partition), STEP_TIMEOUT_MS, null, null);
      check(partition);
      Map<String, Object> out = new LinkedHashMap<>();
      out.put(Fields.Describe.ROLE, Role.LEADER.name());
      out.put(Fields.Describe.LEADER_ID, 3);
      out.put(Fields.Describe.LEADER_EPOCH, 5);
      out.put(Fields.Describe.REPLICAS, List.of(3, 4));
      out.put(Fields.Describe.LOG_END_OFFSET, 120L);
      out.put(Fields.Describe.HIGH_WATERMARK, 118L);
      out.put(Fields.Describe.LAST_STABLE_OFFSET, 110L);
      out.put(Fields.Describe.PRODUCER_ENTRIES, 2);
      out.put(
          Fields.Describe.BARRIER_RESETS,
          List.of(
              Map.of(
                  Fields.BarrierReset.PATH,
                  "LEADER_APPEND",
                  Fields.BarrierReset.BARRIER_OFFSET,
                  111L,
                  Fields.BarrierReset.SOURCE_CLUSTER_ID,
                  SOURCE_ID,
                  Fields.BarrierReset.PRODUCERS_REMOVED,
                  2)));
      Map<String, Object> mirror = new LinkedHashMap<>();
      mirror.put(Fields.Mirror.MIRROR_NAME, "orders-mirror");
      mirror.put(Fields.Mirror.STATE, MirrorState.STOPPING.name());
      mirror.put(Fields.Mirror.SOURCE_CLUSTER_ID, SOURCE_ID);
      mirror.put(Fields.Mirror.EXPECTED_SOURCE_CLUSTER_ID, SOURCE_ID);
      mirror.put(Fields.Mirror.LAST_MIRRORED_OFFSET, 109L);
      mirror.put(Fields.Mirror.LAG_RECORDS, 0L);
      mirror.put(Fields.Mirror.BATCHES_APPENDED, 17);
      mirror.put(Fields.Mirror.LAST_ERROR, "fetch failed: boom");
      out.put(Fields.Describe.MIRROR, mirror);
      Map<String, Object> stop = new LinkedHashMap<>();
      stop.put(Fields.Stop.STEP, StopStep.BARRIER_WRITTEN.name());
      stop.put(Fields.Stop.STEP_NUMBER, 5);
      stop.put(Fields.Stop.STATE_LEADER_EPOCH, 6);
      stop.put(Fields.Stop.TRUNCATED_TO_OFFSET, 110L);
      stop.put(Fields.Stop.LAST_MIRRORED_OFFSET, 109L);
      stop.put(Fields.Stop.BARRIER_OFFSET, 111L);
      stop.put(Fields.Stop.SOURCE_CLUSTER_ID, SOURCE_ID);
      out.put(Fields.Describe.STOP, stop);
      return out;
    }

    @Override
    public Map<String, Object> appendBarrier(PartitionRef partition, long timeoutMs) {
      throw new AssertionError("the endpoint writes barriers through the stop step only");
    }

    @Override
    public Map<String, Object> startMirroring(
        PartitionRef partition, String mirrorName, ControlRequest.MirrorSource source)
        throws PartitionOperationException {
      record(ControlCall.START_MIRRORING, List.of(partition), STEP_TIMEOUT_MS, mirrorName, source);
      check(partition);
      return Map.of(Fields.StepResult.STATE, MirrorState.MIRRORING.name());
    }

    @Override
    public Map<String, Object> transition(PartitionRef partition, ControlCall action)
        throws PartitionOperationException {
      record(action, List.of(partition), STEP_TIMEOUT_MS, null, null);
      check(partition);
      return Map.of(Fields.StepResult.STATE, MirrorState.PAUSED.name());
    }

    @Override
    public List<StepOutcome> stopStep(
        StopCall step, List<PartitionRef> partitions, long timeoutMs) {
      record(step.call(), partitions, timeoutMs, null, null);
      List<StepOutcome> out = new ArrayList<>();
      for (PartitionRef p : partitions) {
        try {
          check(p);
          out.add(StepOutcome.ok(p, Map.of(Fields.StepResult.STATE, MirrorState.STOPPING.name())));
        } catch (PartitionOperationException e) {
          out.add(StepOutcome.failed(p, e));
        }
      }
      return out;
    }
  }
}
