package dev.kafkamirror.broker.agent.control;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
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
  private static final Set<String> FIELDS =
      Set.of("partitions", "timeoutMs", "mirrorName", "source");
  private static final Set<String> SOURCE_FIELDS =
      Set.of("bootstrapServers", "clusterId", "properties");
  private static final Pattern MIRROR_NAME = Pattern.compile("[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?");
  private static final Pattern HOST_PORT =
      Pattern.compile("(\\[[0-9a-fA-F:.]+\\]|[a-zA-Z0-9]([-a-zA-Z0-9.]*[a-zA-Z0-9])?):[0-9]{1,5}");
  private static final List<String> PASSED_THROUGH_PREFIXES =
      List.of("security.protocol", "ssl.", "sasl.", "client.dns.lookup");
  private static final Set<String> PARTITION_FIELDS =
      Set.of("topic", "partition", "sourceClusterId");

  private final ObjectMapper mapper = new ObjectMapper();

  /** A parsed request. */
  public record Parsed(
      List<PartitionRef> partitions, long timeoutMs, String mirrorName, MirrorSource source) {}

  /**
   * The source cluster of a mirror start.
   *
   * @param bootstrapServers host:port list
   * @param expectedClusterId the cluster id the source must report, or null to accept any
   * @param clientProperties security settings passed to the clients that talk to the source
   */
  public record MirrorSource(
      String bootstrapServers, String expectedClusterId, Map<String, String> clientProperties) {}

  /**
   * Parses a start-mirroring body: partitions plus {@code mirrorName} and {@code source}, both
   * required.
   */
  public Parsed parseStart(byte[] body) throws ControlRequestException {
    Parsed parsed = parse(body, false);
    if (parsed.mirrorName() == null) {
      throw bad("\"mirrorName\" is required to start mirroring");
    }
    if (parsed.source() == null) {
      throw bad("\"source\" is required to start mirroring");
    }
    return parsed;
  }

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
    String mirrorName = null;
    JsonNode name = root.get("mirrorName");
    if (name != null) {
      if (!name.isTextual() || !MIRROR_NAME.matcher(name.asText()).matches()) {
        throw bad(
            "mirrorName must be a DNS label (lower-case letters, digits, '-', at most 63), got "
                + name);
      }
      mirrorName = name.asText();
    }
    MirrorSource source = root.has("source") ? source(root.get("source")) : null;
    return new Parsed(List.copyOf(refs), timeoutMs, mirrorName, source);
  }

  private static MirrorSource source(JsonNode node) throws ControlRequestException {
    if (!node.isObject()) {
      throw bad("source must be an object, got " + node);
    }
    for (Iterator<String> names = node.fieldNames(); names.hasNext(); ) {
      String name = names.next();
      if (!SOURCE_FIELDS.contains(name)) {
        throw bad("source has unknown field \"" + name + "\"; known fields are " + SOURCE_FIELDS);
      }
    }
    JsonNode bootstrap = node.get("bootstrapServers");
    if (bootstrap == null || !bootstrap.isTextual() || bootstrap.asText().isBlank()) {
      throw bad("source.bootstrapServers must be a non-empty host:port list, got " + bootstrap);
    }
    for (String address : bootstrap.asText().split(",")) {
      if (!HOST_PORT.matcher(address.trim()).matches()) {
        throw bad(
            "source.bootstrapServers has a malformed address '"
                + address
                + "' (expected host:port)");
      }
      int port = Integer.parseInt(address.trim().substring(address.trim().lastIndexOf(':') + 1));
      if (port < 1 || port > 65535) {
        throw bad(
            "source.bootstrapServers has port " + port + " out of range in '" + address + "'");
      }
    }
    JsonNode clusterId = node.get("clusterId");
    if (clusterId != null
        && !clusterId.isNull()
        && (!clusterId.isTextual() || clusterId.asText().isBlank())) {
      throw bad("source.clusterId must be a non-empty string when given, got " + clusterId);
    }
    Map<String, String> props = new java.util.LinkedHashMap<>();
    JsonNode properties = node.get("properties");
    if (properties != null && !properties.isNull()) {
      if (!properties.isObject()) {
        throw bad("source.properties must be an object of strings, got " + properties);
      }
      for (Iterator<Map.Entry<String, JsonNode>> it = properties.fields(); it.hasNext(); ) {
        Map.Entry<String, JsonNode> e = it.next();
        if (!e.getValue().isTextual()) {
          throw bad("source.properties." + e.getKey() + " must be a string, got " + e.getValue());
        }
        if (PASSED_THROUGH_PREFIXES.stream().noneMatch(p -> e.getKey().startsWith(p))) {
          throw bad(
              "source.properties."
                  + e.getKey()
                  + " is not a client security setting; only keys starting with "
                  + PASSED_THROUGH_PREFIXES
                  + " are passed to the source clients");
        }
        props.put(e.getKey(), e.getValue().asText());
      }
    }
    return new MirrorSource(
        bootstrap.asText(),
        clusterId == null || clusterId.isNull() ? null : clusterId.asText(),
        Map.copyOf(props));
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
