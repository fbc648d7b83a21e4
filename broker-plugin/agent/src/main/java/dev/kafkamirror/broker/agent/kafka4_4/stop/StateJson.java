package dev.kafkamirror.broker.agent.kafka4_4.stop;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.kafkamirror.broker.agent.kafka4_4.stop.StopStateCodec.StopStateFormatException;
import java.io.IOException;

/**
 * Reading the JSON of the state topic's records (stop state, membership, source epochs): one place
 * for the typed errors that name the record ({@code where}), the part and the field, so that every
 * record kind refuses malformed input the same way. Stateless and thread-safe.
 */
final class StateJson {

  private static final ObjectMapper MAPPER = new ObjectMapper();

  private StateJson() {}

  /**
   * The JSON object in {@code bytes}, of the record version this plugin reads ({@link
   * StopStateCodec#VERSION}, field {@code v}, which every state record's key and value carry).
   *
   * @param what the part read, as the error names it (e.g. "key", "membership value")
   */
  static JsonNode object(byte[] bytes, String what, String where) throws StopStateFormatException {
    JsonNode node = parse(bytes, what, where);
    JsonNode v = node.get("v");
    if (v == null || !v.canConvertToInt() || v.asInt() != StopStateCodec.VERSION) {
      throw new StopStateFormatException(
          where
              + ": the "
              + what
              + " has version "
              + v
              + "; this plugin reads version "
              + StopStateCodec.VERSION);
    }
    return node;
  }

  private static JsonNode parse(byte[] bytes, String what, String where)
      throws StopStateFormatException {
    if (bytes == null) {
      throw new StopStateFormatException(where + ": the " + what + " is null");
    }
    try {
      JsonNode node = MAPPER.readTree(bytes);
      if (node == null || !node.isObject()) {
        throw new StopStateFormatException(where + ": the " + what + " is not a JSON object");
      }
      return node;
    } catch (IOException e) {
      throw new StopStateFormatException(
          where + ": the " + what + " is not JSON: " + e.getMessage());
    }
  }

  static String text(JsonNode node, String field, String where) throws StopStateFormatException {
    JsonNode v = node.get(field);
    if (v == null || !v.isTextual()) {
      throw new StopStateFormatException(where + ": field " + field + " is missing or not text");
    }
    return v.asText();
  }

  static int integer(JsonNode node, String field, String where) throws StopStateFormatException {
    JsonNode v = node.get(field);
    if (v == null || !v.canConvertToInt()) {
      throw new StopStateFormatException(where + ": field " + field + " is missing or not an int");
    }
    return v.asInt();
  }

  static long longValue(JsonNode node, String field, String where) throws StopStateFormatException {
    JsonNode v = node.get(field);
    if (v == null || !v.canConvertToLong()) {
      throw new StopStateFormatException(where + ": field " + field + " is missing or not a long");
    }
    return v.asLong();
  }
}
