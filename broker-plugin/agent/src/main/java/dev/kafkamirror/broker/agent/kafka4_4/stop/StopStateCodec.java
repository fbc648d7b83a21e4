package dev.kafkamirror.broker.agent.kafka4_4.stop;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.kafkamirror.broker.core.stop.StopState;
import dev.kafkamirror.broker.core.stop.StopStateKey;
import dev.kafkamirror.broker.core.stop.StopStep;
import java.nio.charset.StandardCharsets;

/**
 * JSON keys and values of the stop-state topic, readable with any console consumer. Version 0.
 *
 * <p>Key: {@code {"v":0,"mirror":"m","topicId":"…","partition":3,"leaderEpoch":7}}. Value: the
 * other {@link StopState} fields. A record of an unknown version, or one that does not parse, is a
 * {@link StopStateFormatException} naming the topic partition and offset; readers skip it and
 * report it, and it can never advance a stop.
 *
 * <p>Stateless and thread-safe.
 */
final class StopStateCodec {

  static final int VERSION = 0;
  private static final ObjectMapper MAPPER = new ObjectMapper();

  private StopStateCodec() {}

  /** A key with its leader epoch. */
  record VersionedKey(StopStateKey key, int leaderEpoch) {}

  /** A record of the stop-state topic that cannot be read. */
  static final class StopStateFormatException extends Exception {
    private static final long serialVersionUID = 1L;

    StopStateFormatException(String message) {
      super(message);
    }
  }

  static byte[] partitionKey(StopStateKey key) {
    return (key.mirrorName() + "/" + key.topicId() + "/" + key.partition())
        .getBytes(StandardCharsets.UTF_8);
  }

  static byte[] encodeKey(StopStateKey key, int leaderEpoch) {
    ObjectNode node = MAPPER.createObjectNode();
    node.put("v", VERSION);
    node.put("mirror", key.mirrorName());
    node.put("topicId", key.topicId());
    node.put("partition", key.partition());
    node.put("leaderEpoch", leaderEpoch);
    return node.toString().getBytes(StandardCharsets.UTF_8);
  }

  static byte[] encodeValue(StopState state) {
    ObjectNode node = MAPPER.createObjectNode();
    node.put("v", VERSION);
    node.put("topic", state.topic());
    node.put("writerBrokerId", state.writerBrokerId());
    node.put("step", state.step().name());
    node.put("truncateTargetOffset", state.truncateTargetOffset());
    node.put("truncatedToOffset", state.truncatedToOffset());
    node.put("lastMirroredOffset", state.lastMirroredOffset());
    node.put("lastMirroredEpoch", state.lastMirroredEpoch());
    node.put("barrierOffset", state.barrierOffset());
    if (state.sourceClusterId() != null) {
      node.put("sourceClusterId", state.sourceClusterId());
    }
    node.put("updatedAtMs", state.updatedAtMs());
    // Added after version 0 shipped, as an optional field: older records lack it (read as -1) and
    // older readers ignore it.
    node.put("lastMirroredSourceEpoch", state.lastMirroredSourceEpoch());
    return node.toString().getBytes(StandardCharsets.UTF_8);
  }

  static VersionedKey decodeKey(byte[] bytes, String where) throws StopStateFormatException {
    JsonNode node = StateJson.object(bytes, "key", where);
    try {
      return new VersionedKey(
          new StopStateKey(
              StateJson.text(node, "mirror", where),
              StateJson.text(node, "topicId", where),
              StateJson.integer(node, "partition", where)),
          StateJson.integer(node, "leaderEpoch", where));
    } catch (IllegalArgumentException e) {
      throw new StopStateFormatException(where + ": invalid key: " + e.getMessage());
    }
  }

  static StopState decodeValue(VersionedKey key, byte[] bytes, String where)
      throws StopStateFormatException {
    JsonNode node = StateJson.object(bytes, "value", where);
    String stepName = StateJson.text(node, "step", where);
    StopStep step;
    try {
      step = StopStep.valueOf(stepName);
    } catch (IllegalArgumentException e) {
      throw new StopStateFormatException(where + ": unknown step '" + stepName + "'");
    }
    JsonNode source = node.get("sourceClusterId");
    JsonNode sourceEpoch = node.get("lastMirroredSourceEpoch");
    if (sourceEpoch != null && !sourceEpoch.canConvertToInt()) {
      throw new StopStateFormatException(where + ": field lastMirroredSourceEpoch is not an int");
    }
    try {
      return new StopState(
          key.key(),
          StateJson.text(node, "topic", where),
          key.leaderEpoch(),
          StateJson.integer(node, "writerBrokerId", where),
          step,
          StateJson.longValue(node, "truncateTargetOffset", where),
          StateJson.longValue(node, "truncatedToOffset", where),
          StateJson.longValue(node, "lastMirroredOffset", where),
          StateJson.integer(node, "lastMirroredEpoch", where),
          StateJson.longValue(node, "barrierOffset", where),
          source == null || source.isNull() ? null : source.asText(),
          StateJson.longValue(node, "updatedAtMs", where),
          sourceEpoch == null ? -1 : sourceEpoch.asInt());
    } catch (IllegalArgumentException e) {
      throw new StopStateFormatException(where + ": invalid value: " + e.getMessage());
    }
  }
}
