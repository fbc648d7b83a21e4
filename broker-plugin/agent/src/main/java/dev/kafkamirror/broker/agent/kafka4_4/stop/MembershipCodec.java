package dev.kafkamirror.broker.agent.kafka4_4.stop;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.kafkamirror.broker.core.stop.MirrorMembership;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * JSON keys and values of the membership records of the stop-state topic, beside the stop-state
 * records of {@link StopStateCodec}. A membership key carries {@code "kind"}, which stop-state keys
 * never do, so both kinds share the topic and its partitioning (by mirror, topic id and partition,
 * so a partition's membership is read before its stop state):
 *
 * <ul>
 *   <li>membership: key {@code {"v":0,"kind":"mirror-member","mirror":"m","topicId":"…",
 *       "partition":3}}, value {@code {"v":0,"topic":"t","writerBrokerId":1,
 *       "expectedSourceClusterId":"…","clientProperties":{…},"recordedAtMs":…,
 *       "sourceTopicId":"…","generation":1}} ({@code sourceTopicId} absent in records of earlier
 *       plugins; {@code generation} absent for generation 0);
 *   <li>holder acknowledgement: key {@code {"v":0,"kind":"mirror-member-holder","mirror":"m",
 *       "topicId":"…","partition":3,"broker":2}}, value {@code {"v":0,"topic":"t","ackedAtMs":…}}.
 * </ul>
 *
 * <p>Stateless and thread-safe.
 */
final class MembershipCodec {

  static final String MEMBER = "mirror-member";
  static final String HOLDER = "mirror-member-holder";
  private static final ObjectMapper MAPPER = new ObjectMapper();

  private MembershipCodec() {}

  /** A decoded membership-kind record. Exactly one of member and holderBroker is set. */
  record Decoded(MirrorMembership member, String topicId, int partition, Integer holderBroker) {}

  /** The kind of a key, or null for a stop-state key (or one that does not parse). */
  static String kindOf(byte[] key) {
    if (key == null) {
      return null;
    }
    try {
      JsonNode node = MAPPER.readTree(key);
      JsonNode kind = node == null ? null : node.get("kind");
      return kind == null || !kind.isTextual() ? null : kind.asText();
    } catch (IOException e) {
      return null;
    }
  }

  static byte[] memberKey(MirrorMembership m) {
    ObjectNode node = MAPPER.createObjectNode();
    node.put("v", StopStateCodec.VERSION);
    node.put("kind", MEMBER);
    node.put("mirror", m.mirrorName());
    node.put("topicId", m.topicId());
    node.put("partition", m.partition());
    return bytes(node);
  }

  static byte[] memberValue(MirrorMembership m) {
    ObjectNode node = MAPPER.createObjectNode();
    node.put("v", StopStateCodec.VERSION);
    node.put("topic", m.topic());
    node.put("writerBrokerId", m.writerBrokerId());
    if (m.expectedSourceClusterId() != null) {
      node.put("expectedSourceClusterId", m.expectedSourceClusterId());
    }
    ObjectNode props = node.putObject("clientProperties");
    m.clientProperties().forEach(props::put);
    node.put("recordedAtMs", m.recordedAtMs());
    if (m.sourceTopicId() != null) {
      node.put("sourceTopicId", m.sourceTopicId());
    }
    if (m.generation() > 0) {
      node.put("generation", m.generation());
    }
    return bytes(node);
  }

  static byte[] holderKey(MirrorMembership m, int brokerId) {
    ObjectNode node = MAPPER.createObjectNode();
    node.put("v", StopStateCodec.VERSION);
    node.put("kind", HOLDER);
    node.put("mirror", m.mirrorName());
    node.put("topicId", m.topicId());
    node.put("partition", m.partition());
    node.put("broker", brokerId);
    return bytes(node);
  }

  static byte[] holderValue(MirrorMembership m, long nowMs) {
    ObjectNode node = MAPPER.createObjectNode();
    node.put("v", StopStateCodec.VERSION);
    node.put("topic", m.topic());
    node.put("ackedAtMs", nowMs);
    return bytes(node);
  }

  /**
   * Decodes a membership-kind record.
   *
   * @throws StopStateCodec.StopStateFormatException naming {@code where} when it cannot be read
   */
  static Decoded decode(byte[] key, byte[] value, String where)
      throws StopStateCodec.StopStateFormatException {
    JsonNode k = StateJson.object(key, "membership key", where);
    JsonNode v = StateJson.object(value, "membership value", where);
    String kind = StateJson.text(k, "kind", where);
    String mirror = StateJson.text(k, "mirror", where);
    String topicId = StateJson.text(k, "topicId", where);
    int partition = StateJson.integer(k, "partition", where);
    String topic = StateJson.text(v, "topic", where);
    try {
      if (kind.equals(MEMBER)) {
        Map<String, String> props = new LinkedHashMap<>();
        JsonNode p = v.get("clientProperties");
        if (p != null && p.isObject()) {
          p.fields().forEachRemaining(e -> props.put(e.getKey(), e.getValue().asText()));
        }
        JsonNode expected = v.get("expectedSourceClusterId");
        JsonNode recorded = v.get("recordedAtMs");
        JsonNode sourceTopicId = v.get("sourceTopicId");
        JsonNode generation = v.get("generation");
        return new Decoded(
            new MirrorMembership(
                topicId,
                partition,
                topic,
                mirror,
                expected == null || expected.isNull() ? null : expected.asText(),
                StateJson.integer(v, "writerBrokerId", where),
                props,
                recorded == null ? 0L : recorded.asLong(),
                sourceTopicId == null || sourceTopicId.isNull() ? null : sourceTopicId.asText(),
                generation == null ? 0 : StateJson.integer(v, "generation", where)),
            topicId,
            partition,
            null);
      }
      if (kind.equals(HOLDER)) {
        return new Decoded(null, topicId, partition, StateJson.integer(k, "broker", where));
      }
    } catch (IllegalArgumentException e) {
      throw new StopStateCodec.StopStateFormatException(
          where + ": invalid membership record: " + e.getMessage());
    }
    throw new StopStateCodec.StopStateFormatException(
        where + ": unknown record kind '" + kind + "'");
  }

  private static byte[] bytes(ObjectNode node) {
    return node.toString().getBytes(StandardCharsets.UTF_8);
  }
}
