package dev.kafkamirror.broker.agent.control;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.Iterator;
import java.util.List;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * Parses and validates control request bodies. Every problem is a {@link ControlRequestException}
 * with status 400 and a message naming the field, the index and the value; a request with any
 * problem changes nothing.
 *
 * <p>Body: {@code {"partitions": [{"topic": "t", "partition": 0, "sourceClusterId": "..."}],
 * "timeoutMs": 30000}}.
 *
 * <p>Stateless and thread-safe.
 */
public final class ControlRequests {

  /** At most this many partitions in one call. */
  public static final int MAX_PARTITIONS = 10_000;

  /** Bounds of {@code timeoutMs}. */
  public static final long MAX_TIMEOUT_MS = 300_000L;

  public static final long DEFAULT_TIMEOUT_MS = 30_000L;

  private static final Pattern LEGAL_TOPIC = Pattern.compile("[a-zA-Z0-9._-]{1,249}");
  private static final Set<String> FIELDS = Set.of("partitions", "timeoutMs");
  private static final Set<String> PARTITION_FIELDS =
      Set.of("topic", "partition", "sourceClusterId");

  private final ObjectMapper mapper = new ObjectMapper();

  /** A parsed request. */
  public record Parsed(List<PartitionRef> partitions, long timeoutMs) {}

  /**
   * Parses {@code body}.
   *
   * @param requireSourceClusterId whether every partition must name a non-empty sourceClusterId
   */
  public Parsed parse(byte[] body, boolean requireSourceClusterId) throws ControlRequestException {
    JsonNode root;
    try {
      root = mapper.readTree(body);
    } catch (com.fasterxml.jackson.core.JsonProcessingException e) {
      throw bad("the body is not valid JSON: " + e.getOriginalMessage());
    } catch (IOException e) {
      throw bad("the body cannot be read: " + e.getMessage());
    }
    if (root == null || !root.isObject()) {
      throw bad("the body must be a JSON object with a \"partitions\" array");
    }
    for (Iterator<String> names = root.fieldNames(); names.hasNext(); ) {
      String name = names.next();
      if (!FIELDS.contains(name)) {
        throw bad("unknown field \"" + name + "\"; known fields are " + FIELDS);
      }
    }
    long timeoutMs = DEFAULT_TIMEOUT_MS;
    JsonNode timeout = root.get("timeoutMs");
    if (timeout != null) {
      if (!timeout.isIntegralNumber()
          || timeout.asLong() < 1
          || timeout.asLong() > MAX_TIMEOUT_MS) {
        throw bad("timeoutMs must be an integer from 1 to " + MAX_TIMEOUT_MS + ", got " + timeout);
      }
      timeoutMs = timeout.asLong();
    }
    JsonNode partitions = root.get("partitions");
    if (partitions == null || !partitions.isArray() || partitions.isEmpty()) {
      throw bad("\"partitions\" must be a non-empty array");
    }
    if (partitions.size() > MAX_PARTITIONS) {
      throw bad(
          "\"partitions\" has "
              + partitions.size()
              + " entries; one call takes at most "
              + MAX_PARTITIONS);
    }
    List<PartitionRef> refs = new ArrayList<>();
    Set<String> seen = new HashSet<>();
    for (int i = 0; i < partitions.size(); i++) {
      PartitionRef ref = partition(partitions.get(i), i, requireSourceClusterId);
      if (!seen.add(ref.key())) {
        throw bad("partitions[" + i + "] names " + ref.key() + " a second time");
      }
      refs.add(ref);
    }
    return new Parsed(List.copyOf(refs), timeoutMs);
  }

  private static PartitionRef partition(JsonNode node, int index, boolean requireSource)
      throws ControlRequestException {
    String where = "partitions[" + index + "]";
    if (!node.isObject()) {
      throw bad(where + " must be an object, got " + node);
    }
    for (Iterator<String> names = node.fieldNames(); names.hasNext(); ) {
      String name = names.next();
      if (!PARTITION_FIELDS.contains(name)) {
        throw bad(
            where + " has unknown field \"" + name + "\"; known fields are " + PARTITION_FIELDS);
      }
    }
    JsonNode topic = node.get("topic");
    if (topic == null || !topic.isTextual() || !LEGAL_TOPIC.matcher(topic.asText()).matches()) {
      throw bad(
          where
              + ".topic must be a legal topic name ([a-zA-Z0-9._-], 1 to 249 characters), got "
              + topic);
    }
    if (topic.asText().equals(".") || topic.asText().equals("..")) {
      throw bad(where + ".topic cannot be '.' or '..'");
    }
    JsonNode partition = node.get("partition");
    if (partition == null
        || !partition.isIntegralNumber()
        || !partition.canConvertToInt()
        || partition.asInt() < 0) {
      throw bad(where + ".partition must be an integer of at least 0, got " + partition);
    }
    JsonNode source = node.get("sourceClusterId");
    String sourceClusterId = null;
    if (source != null && !source.isNull()) {
      if (!source.isTextual() || source.asText().isBlank() || source.asText().length() > 0x7fff) {
        throw bad(where + ".sourceClusterId must be a non-empty string, got " + source);
      }
      sourceClusterId = source.asText();
    }
    if (requireSource && sourceClusterId == null) {
      throw bad(
          where
              + " ("
              + topic.asText()
              + "-"
              + partition.asInt()
              + ") needs a sourceClusterId: a barrier always names its source");
    }
    return new PartitionRef(topic.asText(), partition.asInt(), sourceClusterId);
  }

  private static ControlRequestException bad(String message) {
    return new ControlRequestException(400, message);
  }
}
