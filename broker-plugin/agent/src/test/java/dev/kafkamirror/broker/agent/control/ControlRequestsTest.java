package dev.kafkamirror.broker.agent.control;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.kafkamirror.contract.ControlCall;
import dev.kafkamirror.contract.ControlRequest;
import dev.kafkamirror.contract.InitialSync;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class ControlRequestsTest {

  private final ControlRequests requests = new ControlRequests();

  private ControlRequests.Parsed parse(String json, boolean requireSource) throws Exception {
    return parse(json, requireSource ? ControlCall.BARRIER : ControlCall.DESCRIBE);
  }

  private ControlRequests.Parsed parse(String json, ControlCall call) throws Exception {
    return requests.parse(json.getBytes(StandardCharsets.UTF_8), call);
  }

  @Test
  void parsesABatchOfPartitions() throws Exception {
    ControlRequests.Parsed parsed =
        parse(
            """
            {"timeoutMs": 5000, "partitions": [
              {"topic": "orders", "partition": 0, "sourceClusterId": "A"},
              {"topic": "orders", "partition": 1, "sourceClusterId": "A"}]}
            """,
            true);
    assertThat(parsed.timeoutMs()).isEqualTo(5000);
    assertThat(parsed.partitions())
        .containsExactly(new PartitionRef("orders", 0, "A"), new PartitionRef("orders", 1, "A"));
  }

  @Test
  void everyMalformedRequestIsA400NamingTheField() {
    assertBad("not json", "not valid JSON");
    assertBad("[]", "JSON object");
    assertBad("{}", "\"partitions\" must be a non-empty array");
    assertBad("{\"partitions\": []}", "\"partitions\" must be a non-empty array");
    assertBad(
        "{\"partitions\": [{\"topic\": \"t\", \"partition\": 0}], \"extra\": 1}",
        "unknown field \"extra\"");
    assertBad(
        "{\"partitions\": [{\"topic\": \"bad topic\", \"partition\": 0}]}", "partitions[0].topic");
    assertBad("{\"partitions\": [{\"topic\": \"..\", \"partition\": 0}]}", "cannot be '.' or '..'");
    assertBad(
        "{\"partitions\": [{\"topic\": \"t\", \"partition\": -1}]}", "partitions[0].partition");
    assertBad(
        "{\"partitions\": [{\"topic\": \"t\", \"partition\": \"0\"}]}", "partitions[0].partition");
    assertBad("{\"partitions\": [{\"topic\": \"t\"}]}", "partitions[0].partition");
    assertBad(
        "{\"partitions\": [{\"topic\": \"t\", \"partition\": 0}, {\"topic\": \"t\", \"partition\": 0}]}",
        "names t-0 a second time");
    assertBad(
        "{\"partitions\": [{\"topic\": \"t\", \"partition\": 0}], \"timeoutMs\": 0}", "timeoutMs");
    assertThatThrownBy(
            () ->
                parse(
                    "{\"partitions\": [{\"topic\": \"t\", \"partition\": 0, \"sourceClusterId\": \"\"}]}",
                    true))
        .isInstanceOf(ControlRequestException.class)
        .hasMessageContaining("sourceClusterId must be a non-empty string");
    assertBad(
        "{\"partitions\": [{\"topic\": \"t\", \"partition\": 0, \"colour\": 1}]}",
        "unknown field \"colour\"");
  }

  @Test
  void aBarrierCallWithoutSourceIsRefusedNamingThePartition() {
    assertThatThrownBy(
            () -> parse("{\"partitions\": [{\"topic\": \"t\", \"partition\": 3}]}", true))
        .isInstanceOfSatisfying(
            ControlRequestException.class, e -> assertThat(e.status()).isEqualTo(400))
        .hasMessageContaining("t-3")
        .hasMessageContaining("needs a sourceClusterId");
  }

  @Test
  void aCallRefusesTheFieldsItDoesNotTakeSoThatNoCallerBelievesTheyWereChecked() {
    // Given a source cluster id on a call that does not check it, or a source on a stop step
    String withSource =
        "{\"partitions\": [{\"topic\": \"t\", \"partition\": 2, \"sourceClusterId\": \"A\"}]}";
    String withMirrorName =
        "{\"partitions\": [{\"topic\": \"t\", \"partition\": 2}], \"mirrorName\": \"m\"}";
    // Then each is a 400 naming the partition or field and the call
    for (ControlCall call : ControlCall.values()) {
      if (!call.sourceClusterIdRequired()) {
        assertThatThrownBy(() -> parse(withSource, call))
            .isInstanceOfSatisfying(
                ControlRequestException.class, e -> assertThat(e.status()).isEqualTo(400))
            .hasMessageContaining("t-2")
            .hasMessageContaining(call.path());
      }
      if (!call.takesMirrorSource()) {
        assertThatThrownBy(() -> parse(withMirrorName, call))
            .isInstanceOf(ControlRequestException.class)
            .hasMessageContaining("mirrorName")
            .hasMessageContaining(call.path());
      }
    }
    // And a start without its mirror name or source is refused too
    assertThatThrownBy(
            () ->
                parse(
                    "{\"partitions\": [{\"topic\": \"t\", \"partition\": 0}]}",
                    ControlCall.START_MIRRORING))
        .isInstanceOf(ControlRequestException.class)
        .hasMessageContaining("mirrorName");
  }

  @Test
  void aFailbackStartRoundTripsItsAlignmentAndRefusesItOnEveryOtherShape() throws Exception {
    // Given a failback start built by the contract's client side
    ControlRequest sent =
        new ControlRequest(
            List.of(new ControlRequest.Partition("t", 0, null, new ControlRequest.AlignTo(80, 3))),
            null,
            "b-to-a",
            new ControlRequest.MirrorSource("b:9092", "B", Map.of()),
            InitialSync.TRUNCATE_AND_RESTORE,
            true);
    // When the agent parses it
    ControlRequests.Parsed parsed = parse(sent.toJson(), ControlCall.START_MIRRORING);
    // Then it acts on exactly what was sent
    assertThat(parsed.request()).isEqualTo(sent);
    assertThat(parsed.partitions())
        .containsExactly(new PartitionRef("t", 0, null, new ControlRequest.AlignTo(80, 3)));

    String source = ", \"mirrorName\": \"m\", \"source\": {\"bootstrapServers\": \"b:9092\"}";
    // And a real start carrying the log end its report covered round-trips too
    ControlRequest real =
        new ControlRequest(
            List.of(
                new ControlRequest.Partition("t", 0, null, new ControlRequest.AlignTo(80, 3, 95L))),
            null,
            "b-to-a",
            new ControlRequest.MirrorSource("b:9092", "B", Map.of()),
            InitialSync.TRUNCATE_AND_RESTORE,
            false);
    assertThat(real.toJson()).contains("\"expectedLogEndOffset\":95");
    ControlRequests.Parsed parsedReal = parse(real.toJson(), ControlCall.START_MIRRORING);
    assertThat(parsedReal.request()).isEqualTo(real);
    assertThat(parsedReal.partitions().get(0).alignTo().expectedLogEndOffset()).isEqualTo(95L);
    // And the plugin's refusal reason is the one the contract names for callers
    assertThat(dev.kafkamirror.broker.core.mirror.FailbackAlignment.LOG_MOVED_AFTER_REPORT)
        .isEqualTo(dev.kafkamirror.contract.PartitionError.FAILBACK_LOG_MOVED_AFTER_REPORT);
    // And a negative or non-integer expected log end is refused, naming the partition and field
    for (String bad : new String[] {"-1", "1.5", "\"9\""}) {
      assertThatThrownBy(
              () ->
                  parse(
                      "{\"partitions\": [{\"topic\": \"t\", \"partition\": 2, \"alignTo\":"
                          + " {\"lastMirroredOffset\": 1, \"lastMirroredSourceEpoch\": 0,"
                          + " \"expectedLogEndOffset\": "
                          + bad
                          + "}}], \"initialSync\": \"TRUNCATE_AND_RESTORE\""
                          + source
                          + "}",
                      ControlCall.START_MIRRORING))
          .isInstanceOf(ControlRequestException.class)
          .hasMessageContaining("t-2")
          .hasMessageContaining("expectedLogEndOffset")
          .hasMessageContaining(bad);
    }
    // And the id of the topic the former destination mirrored round-trips, and a value that is
    // not a topic id is refused naming the partition and the field
    ControlRequest withTopic =
        new ControlRequest(
            List.of(
                new ControlRequest.Partition(
                    "t",
                    0,
                    null,
                    new ControlRequest.AlignTo(80, 3, 95L, "AAAAAAAAAAAAAAAAAAAAAQ"))),
            null,
            "b-to-a",
            new ControlRequest.MirrorSource("b:9092", "B", Map.of()),
            InitialSync.TRUNCATE_AND_RESTORE,
            false);
    assertThat(withTopic.toJson()).contains("\"expectedTopicId\":\"AAAAAAAAAAAAAAAAAAAAAQ\"");
    assertThat(parse(withTopic.toJson(), ControlCall.START_MIRRORING).request())
        .isEqualTo(withTopic);
    for (String bad : new String[] {"7", "\"short\"", "\"AAAAAAAAAAAAAAAAAAAA=+\""}) {
      assertThatThrownBy(
              () ->
                  parse(
                      "{\"partitions\": [{\"topic\": \"t\", \"partition\": 3, \"alignTo\":"
                          + " {\"lastMirroredOffset\": 1, \"lastMirroredSourceEpoch\": 0,"
                          + " \"expectedTopicId\": "
                          + bad
                          + "}}], \"initialSync\": \"TRUNCATE_AND_RESTORE\""
                          + source
                          + "}",
                      ControlCall.START_MIRRORING))
          .isInstanceOf(ControlRequestException.class)
          .hasMessageContaining("t-3")
          .hasMessageContaining("expectedTopicId");
    }
    // And a partition without its alignment is refused, naming it
    assertThatThrownBy(
            () ->
                parse(
                    "{\"partitions\": [{\"topic\": \"t\", \"partition\": 4}], \"initialSync\":"
                        + " \"TRUNCATE_AND_RESTORE\""
                        + source
                        + "}",
                    ControlCall.START_MIRRORING))
        .isInstanceOf(ControlRequestException.class)
        .hasMessageContaining("t-4")
        .hasMessageContaining("alignTo");
    // And an alignment without an initial sync, an unknown mode, dryRun alone, a negative offset
    // (named with its partition, like every alignTo field)
    assertThatThrownBy(
            () ->
                parse(
                    "{\"partitions\": [{\"topic\": \"t\", \"partition\": 0, \"alignTo\":"
                        + " {\"lastMirroredOffset\": 1, \"lastMirroredSourceEpoch\": 0}}]"
                        + source
                        + "}",
                    ControlCall.START_MIRRORING))
        .hasMessageContaining("initialSync");
    assertThatThrownBy(
            () ->
                parse(
                    "{\"partitions\": [{\"topic\": \"t\", \"partition\": 0}], \"initialSync\":"
                        + " \"Wipe\""
                        + source
                        + "}",
                    ControlCall.START_MIRRORING))
        .hasMessageContaining("TRUNCATE_AND_RESTORE");
    assertThatThrownBy(
            () ->
                parse(
                    "{\"partitions\": [{\"topic\": \"t\", \"partition\": 0}], \"dryRun\": true"
                        + source
                        + "}",
                    ControlCall.START_MIRRORING))
        .hasMessageContaining("dryRun");
    assertThatThrownBy(
            () ->
                parse(
                    "{\"partitions\": [{\"topic\": \"t\", \"partition\": 0, \"alignTo\":"
                        + " {\"lastMirroredOffset\": -5, \"lastMirroredSourceEpoch\": 0}}],"
                        + " \"initialSync\": \"TRUNCATE_AND_RESTORE\""
                        + source
                        + "}",
                    ControlCall.START_MIRRORING))
        .hasMessageContaining("lastMirroredOffset")
        .hasMessageContaining("t-0");
    // And no other call takes an initial sync
    assertThatThrownBy(
            () ->
                parse(
                    "{\"partitions\": [{\"topic\": \"t\", \"partition\": 0}], \"initialSync\":"
                        + " \"TRUNCATE_AND_RESTORE\"}",
                    ControlCall.DESCRIBE))
        .hasMessageContaining("initialSync")
        .hasMessageContaining(ControlCall.DESCRIBE.path());
  }

  private void assertBad(String json, String messagePart) {
    assertThatThrownBy(() -> parse(json, false))
        .isInstanceOfSatisfying(
            ControlRequestException.class, e -> assertThat(e.status()).isEqualTo(400))
        .hasMessageContaining(messagePart);
  }
}
