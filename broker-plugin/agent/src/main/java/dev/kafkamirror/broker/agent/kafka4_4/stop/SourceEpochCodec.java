package dev.kafkamirror.broker.agent.kafka4_4.stop;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.kafkamirror.broker.core.mirror.SourceEpochHistory;
import dev.kafkamirror.broker.core.stop.StopStateKey;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * JSON key and value of the source-epoch records of the stop-state topic, beside the stop-state
 * records of {@link StopStateCodec} and the membership records of {@link MembershipCodec}; keyed
 * and partitioned like the partition's stop state, so it is read in the order it was written:
 *
 * <p>key {@code {"v":0,"kind":"source-epochs","mirror":"m","topicId":"…","partition":3}}, value
 * {@code {"v":0,"topic":"t","leaderEpoch":7,"writerBrokerId":1,"epochs":[[0,0],[4,100]],
 * "recordedAtMs":…}}: the whole {@link SourceEpochHistory} of the partition (source epoch, first
 * destination offset), written by the destination leader of {@code leaderEpoch}. Compaction keeps
 * the newest per partition; a record of an older destination leader epoch than the one read already
 * never replaces it.
 *
 * <p>Stateless and thread-safe.
 */
final class SourceEpochCodec {

  static final String KIND = "source-epochs";
  private static final ObjectMapper MAPPER = new ObjectMapper();

  private SourceEpochCodec() {}

  /** A decoded record. */
  record Decoded(
      StopStateKey key,
      String topic,
      int leaderEpoch,
      long recordedAtMs,
      SourceEpochHistory history) {}

  static byte[] key(StopStateKey key) {
    ObjectNode node = MAPPER.createObjectNode();
    node.put("v", StopStateCodec.VERSION);
    node.put("kind", KIND);
    node.put("mirror", key.mirrorName());
    node.put("topicId", key.topicId());
    node.put("partition", key.partition());
    return node.toString().getBytes(StandardCharsets.UTF_8);
  }

  static byte[] value(
      String topic, int leaderEpoch, int writerBrokerId, SourceEpochHistory history, long nowMs) {
    ObjectNode node = MAPPER.createObjectNode();
    node.put("v", StopStateCodec.VERSION);
    node.put("topic", topic);
    node.put("leaderEpoch", leaderEpoch);
    node.put("writerBrokerId", writerBrokerId);
    ArrayNode epochs = node.putArray("epochs");
    for (SourceEpochHistory.Entry e : history.entries()) {
      epochs.addArray().add(e.sourceEpoch()).add(e.startOffset());
    }
    node.put("recordedAtMs", nowMs);
    return node.toString().getBytes(StandardCharsets.UTF_8);
  }

  /**
   * Decodes a source-epoch record.
   *
   * @throws StopStateCodec.StopStateFormatException naming {@code where} when it cannot be read
   */
  static Decoded decode(byte[] key, byte[] value, String where)
      throws StopStateCodec.StopStateFormatException {
    JsonNode k = StateJson.object(key, "source-epoch key", where);
    JsonNode v = StateJson.object(value, "source-epoch value", where);
    JsonNode epochs = v.get("epochs");
    if (epochs == null || !epochs.isArray()) {
      throw new StopStateCodec.StopStateFormatException(
          where + ": field epochs is missing or not an array");
    }
    try {
      List<SourceEpochHistory.Entry> entries = new ArrayList<>();
      for (JsonNode pair : epochs) {
        if (!pair.isArray()
            || pair.size() != 2
            || !pair.get(0).canConvertToInt()
            || !pair.get(1).canConvertToLong()) {
          throw new StopStateCodec.StopStateFormatException(
              where + ": an entry of epochs is not [epoch, offset]: " + pair);
        }
        entries.add(new SourceEpochHistory.Entry(pair.get(0).asInt(), pair.get(1).asLong()));
      }
      return new Decoded(
          new StopStateKey(
              StateJson.text(k, "mirror", where),
              StateJson.text(k, "topicId", where),
              StateJson.integer(k, "partition", where)),
          StateJson.text(v, "topic", where),
          StateJson.integer(v, "leaderEpoch", where),
          v.path("recordedAtMs").asLong(0L),
          SourceEpochHistory.of(entries));
    } catch (IllegalArgumentException e) {
      throw new StopStateCodec.StopStateFormatException(
          where + ": invalid source-epoch record: " + e.getMessage());
    }
  }
}
