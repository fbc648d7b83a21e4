package dev.kafkamirror.broker.agent.control;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.kafkamirror.contract.ControlCall;
import dev.kafkamirror.contract.ControlLimits;
import dev.kafkamirror.contract.ControlRequest;
import dev.kafkamirror.contract.ControlRequest.MirrorSource;
import dev.kafkamirror.contract.Fields;
import dev.kafkamirror.contract.InitialSync;
import dev.kafkamirror.contract.RequestError;
import java.io.IOException;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * Parses and validates control request bodies ({@link ControlRequest} of the contract) for one
 * {@link ControlCall}. Every problem is a {@link ControlRequestException} with status 400 and a
 * message naming the field, the index and the value; a request with any problem changes nothing.
 *
 * <p>Which fields a call takes is the contract's: {@code sourceClusterId} on every partition of the
 * calls that {@linkplain ControlCall#sourceClusterIdRequired() require it} and on no other, {@code
 * mirrorName} and {@code source} on {@link ControlCall#START_MIRRORING} only.
 *
 * <p>Thread-safe: its only state is the source settings policy, which a dynamic broker config may
 * replace at any time ({@link #policy(SourceSettingsPolicy)}); a call is checked against the policy
 * in force when it is parsed.
 */
public final class ControlRequests {

  private static final Pattern LEGAL_TOPIC = Pattern.compile(ControlLimits.TOPIC_PATTERN);
  private static final Pattern MIRROR_NAME = Pattern.compile(ControlLimits.MIRROR_NAME_PATTERN);
  private static final Pattern HOST_PORT =
      Pattern.compile("(\\[[0-9a-fA-F:.]+\\]|[a-zA-Z0-9]([-a-zA-Z0-9.]*[a-zA-Z0-9])?):[0-9]{1,5}");

  private volatile SourceSettingsPolicy policy;

  /** A parser whose starts may pass no setting that names a class or program. */
  public ControlRequests() {
    this(SourceSettingsPolicy.STRICT);
  }

  /** A parser whose starts pass source settings as far as {@code policy} allows. */
  public ControlRequests(SourceSettingsPolicy policy) {
    this.policy = java.util.Objects.requireNonNull(policy, "policy");
  }

  /** Checks the source settings of the calls parsed from now on against {@code policy}. */
  public void policy(SourceSettingsPolicy policy) {
    this.policy = java.util.Objects.requireNonNull(policy, "policy");
  }

  /**
   * A parsed request.
   *
   * @param request the request exactly as the contract reads it
   * @param partitions its partitions as the agent's operations take them
   * @param timeoutMs the request's timeout or the default
   */
  public record Parsed(
      ControlCall call, ControlRequest request, List<PartitionRef> partitions, long timeoutMs) {

    public String mirrorName() {
      return request.mirrorName();
    }

    public MirrorSource source() {
      return request.source();
    }
  }

  /** Parses {@code body} as a request of {@code call}. */
  public Parsed parse(byte[] body, ControlCall call) throws ControlRequestException {
    JsonNode root;
    try {
      root = Json.MAPPER.readTree(body);
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
      if (!Fields.REQUEST.contains(name)) {
        throw bad("unknown field \"" + name + "\"; known fields are " + Fields.REQUEST);
      }
    }
    if (!call.takesMirrorSource()) {
      for (String field : List.of(Fields.MIRROR_NAME, Fields.SOURCE)) {
        if (root.has(field)) {
          throw bad(
              "\""
                  + field
                  + "\" is only taken by "
                  + ControlCall.START_MIRRORING.path()
                  + ", not by "
                  + call.path());
        }
      }
    }
    Long timeoutMs = null;
    JsonNode timeout = root.get(Fields.TIMEOUT_MS);
    if (timeout != null) {
      if (!timeout.isIntegralNumber()
          || !timeout.canConvertToLong()
          || timeout.asLong() < ControlLimits.MIN_TIMEOUT_MS
          || timeout.asLong() > ControlLimits.MAX_TIMEOUT_MS) {
        throw bad(
            "timeoutMs must be an integer from "
                + ControlLimits.MIN_TIMEOUT_MS
                + " to "
                + ControlLimits.MAX_TIMEOUT_MS
                + ", got "
                + timeout);
      }
      timeoutMs = timeout.asLong();
    }
    JsonNode partitions = root.get(Fields.PARTITIONS);
    if (partitions == null || !partitions.isArray() || partitions.isEmpty()) {
      throw bad("\"partitions\" must be a non-empty array");
    }
    if (partitions.size() > ControlLimits.MAX_PARTITIONS) {
      throw bad(
          "\"partitions\" has "
              + partitions.size()
              + " entries; one call takes at most "
              + ControlLimits.MAX_PARTITIONS);
    }
    InitialSync initialSync = null;
    JsonNode sync = root.get(Fields.INITIAL_SYNC);
    if (sync != null) {
      if (call != ControlCall.START_MIRRORING) {
        throw bad(
            "\""
                + Fields.INITIAL_SYNC
                + "\" is only taken by "
                + ControlCall.START_MIRRORING.path()
                + ", not by "
                + call.path());
      }
      initialSync = sync.isTextual() ? InitialSync.parse(sync.asText()) : null;
      if (initialSync == null) {
        throw bad(
            "initialSync must be one of "
                + java.util.Arrays.toString(InitialSync.values())
                + ", got "
                + sync);
      }
    }
    boolean dryRun = false;
    JsonNode dry = root.get(Fields.DRY_RUN);
    if (dry != null) {
      if (initialSync == null) {
        throw bad("\"" + Fields.DRY_RUN + "\" is only taken with \"" + Fields.INITIAL_SYNC + "\"");
      }
      if (!dry.isBoolean()) {
        throw bad("dryRun must be true or false, got " + dry);
      }
      dryRun = dry.asBoolean();
    }
    List<ControlRequest.Partition> parts = new ArrayList<>();
    List<PartitionRef> refs = new ArrayList<>();
    Set<String> seen = new HashSet<>();
    for (int i = 0; i < partitions.size(); i++) {
      ControlRequest.Partition p = partition(partitions.get(i), i, call, initialSync);
      if (!seen.add(p.key())) {
        throw bad("partitions[" + i + "] names " + p.key() + " a second time");
      }
      parts.add(p);
      refs.add(new PartitionRef(p.topic(), p.partition(), p.sourceClusterId(), p.alignTo()));
    }
    String mirrorName = null;
    JsonNode name = root.get(Fields.MIRROR_NAME);
    MirrorSource source = null;
    if (call.takesMirrorSource()) {
      if (name == null) {
        throw bad("\"mirrorName\" is required to start mirroring");
      }
      if (!name.isTextual() || !MIRROR_NAME.matcher(name.asText()).matches()) {
        throw bad(
            "mirrorName must be a DNS label (lower-case letters, digits, '-', at most 63), got "
                + name);
      }
      mirrorName = name.asText();
      if (!root.has(Fields.SOURCE)) {
        throw bad("\"source\" is required to start mirroring");
      }
      source = source(root.get(Fields.SOURCE));
    }
    ControlRequest request =
        new ControlRequest(parts, timeoutMs, mirrorName, source, initialSync, dryRun);
    return new Parsed(
        call,
        request,
        List.copyOf(refs),
        timeoutMs == null ? ControlLimits.DEFAULT_TIMEOUT_MS : timeoutMs);
  }

  private MirrorSource source(JsonNode node) throws ControlRequestException {
    if (!node.isObject()) {
      throw bad("source must be an object, got " + node);
    }
    for (Iterator<String> names = node.fieldNames(); names.hasNext(); ) {
      String name = names.next();
      if (!Fields.REQUEST_SOURCE.contains(name)) {
        throw bad(
            "source has unknown field \"" + name + "\"; known fields are " + Fields.REQUEST_SOURCE);
      }
    }
    JsonNode bootstrap = node.get(Fields.BOOTSTRAP_SERVERS);
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
    JsonNode clusterId = node.get(Fields.CLUSTER_ID);
    if (clusterId != null
        && !clusterId.isNull()
        && (!clusterId.isTextual() || clusterId.asText().isBlank())) {
      throw bad("source.clusterId must be a non-empty string when given, got " + clusterId);
    }
    Map<String, String> props = new java.util.LinkedHashMap<>();
    JsonNode properties = node.get(Fields.PROPERTIES);
    if (properties != null && !properties.isNull()) {
      if (!properties.isObject()) {
        throw bad("source.properties must be an object of strings, got " + properties);
      }
      for (Iterator<Map.Entry<String, JsonNode>> it = properties.fields(); it.hasNext(); ) {
        Map.Entry<String, JsonNode> e = it.next();
        if (!e.getValue().isTextual()) {
          throw bad("source.properties." + e.getKey() + " must be a string, got " + e.getValue());
        }
        if (ControlLimits.SOURCE_PROPERTY_PREFIXES.stream()
            .noneMatch(p -> e.getKey().startsWith(p))) {
          throw bad(
              "source.properties."
                  + e.getKey()
                  + " is not a client security setting; only keys starting with "
                  + ControlLimits.SOURCE_PROPERTY_PREFIXES
                  + " are passed to the source clients");
        }
        props.put(e.getKey(), e.getValue().asText());
      }
    }
    SourceSettingsPolicy inForce = policy;
    inForce.check(props);
    return new MirrorSource(
        bootstrap.asText(),
        clusterId == null || clusterId.isNull() ? null : clusterId.asText(),
        props);
  }

  private static ControlRequest.Partition partition(
      JsonNode node, int index, ControlCall call, InitialSync initialSync)
      throws ControlRequestException {
    String where = "partitions[" + index + "]";
    if (!node.isObject()) {
      throw bad(where + " must be an object, got " + node);
    }
    for (Iterator<String> names = node.fieldNames(); names.hasNext(); ) {
      String name = names.next();
      if (!Fields.REQUEST_PARTITION.contains(name)) {
        throw bad(
            where
                + " has unknown field \""
                + name
                + "\"; known fields are "
                + Fields.REQUEST_PARTITION);
      }
    }
    JsonNode topic = node.get(Fields.TOPIC);
    if (topic == null || !topic.isTextual() || !LEGAL_TOPIC.matcher(topic.asText()).matches()) {
      throw bad(
          where
              + ".topic must be a legal topic name ([a-zA-Z0-9._-], 1 to 249 characters), got "
              + topic);
    }
    if (topic.asText().equals(".") || topic.asText().equals("..")) {
      throw bad(where + ".topic cannot be '.' or '..'");
    }
    JsonNode partition = node.get(Fields.PARTITION);
    if (partition == null
        || !partition.isIntegralNumber()
        || !partition.canConvertToInt()
        || partition.asInt() < 0) {
      throw bad(where + ".partition must be an integer of at least 0, got " + partition);
    }
    String key = topic.asText() + "-" + partition.asInt();
    JsonNode source = node.get(Fields.SOURCE_CLUSTER_ID);
    String sourceClusterId = null;
    if (source != null) {
      if (!call.sourceClusterIdRequired()) {
        throw bad(
            where
                + " ("
                + key
                + ") names a sourceClusterId, which "
                + call.path()
                + " does not take; only "
                + ControlCall.PERSIST_OFFSETS.path()
                + " and "
                + ControlCall.BARRIER.path()
                + " do");
      }
      if (!source.isTextual()
          || source.asText().isBlank()
          || source.asText().length() > ControlLimits.MAX_SOURCE_CLUSTER_ID_LENGTH) {
        throw bad(where + ".sourceClusterId must be a non-empty string, got " + source);
      }
      sourceClusterId = source.asText();
    }
    if (call.sourceClusterIdRequired() && sourceClusterId == null) {
      throw bad(
          where
              + " ("
              + key
              + ") needs a sourceClusterId: "
              + call.path()
              + " always names the source cluster");
    }
    ControlRequest.AlignTo alignTo = null;
    JsonNode align = node.get(Fields.ALIGN_TO);
    if (align != null && initialSync == null) {
      throw bad(
          where
              + " ("
              + key
              + ") names "
              + Fields.ALIGN_TO
              + ", which is only taken with \""
              + Fields.INITIAL_SYNC
              + "\"");
    }
    if (initialSync != null) {
      if (align == null || !align.isObject()) {
        throw bad(
            where
                + " ("
                + key
                + ") needs "
                + Fields.ALIGN_TO
                + " {"
                + Fields.LAST_MIRRORED_OFFSET
                + ", "
                + Fields.LAST_MIRRORED_SOURCE_EPOCH
                + "}: the new source's recorded stop of this partition; got "
                + align);
      }
      for (Iterator<String> names = align.fieldNames(); names.hasNext(); ) {
        String name = names.next();
        if (!Fields.REQUEST_ALIGN_TO.contains(name)) {
          throw bad(
              where
                  + "."
                  + Fields.ALIGN_TO
                  + " has unknown field \""
                  + name
                  + "\"; known fields are "
                  + Fields.REQUEST_ALIGN_TO);
        }
      }
      JsonNode lmo = align.get(Fields.LAST_MIRRORED_OFFSET);
      JsonNode epoch = align.get(Fields.LAST_MIRRORED_SOURCE_EPOCH);
      if (lmo == null || !lmo.isIntegralNumber() || !lmo.canConvertToLong() || lmo.asLong() < 0) {
        throw badAlignTo(where, key, Fields.LAST_MIRRORED_OFFSET, "an integer of at least 0", lmo);
      }
      if (epoch == null
          || !epoch.isIntegralNumber()
          || !epoch.canConvertToInt()
          || epoch.asInt() < -1) {
        throw badAlignTo(
            where,
            key,
            Fields.LAST_MIRRORED_SOURCE_EPOCH,
            "an integer of at least -1 (unknown)",
            epoch);
      }
      JsonNode expectedEnd = align.get(Fields.EXPECTED_LOG_END_OFFSET);
      if (expectedEnd != null
          && (!expectedEnd.isIntegralNumber()
              || !expectedEnd.canConvertToLong()
              || expectedEnd.asLong() < 0)) {
        throw badAlignTo(
            where,
            key,
            Fields.EXPECTED_LOG_END_OFFSET,
            "an integer of at least 0 (the log end the failback report covered)",
            expectedEnd);
      }
      JsonNode expectedTopic = align.get(Fields.EXPECTED_TOPIC_ID);
      if (expectedTopic != null && !isTopicId(expectedTopic)) {
        throw badAlignTo(
            where,
            key,
            Fields.EXPECTED_TOPIC_ID,
            "a Kafka topic id (22 characters of URL-safe base64, the former destination's"
                + " mirror.sourceTopicId)",
            expectedTopic);
      }
      alignTo =
          new ControlRequest.AlignTo(
              lmo.asLong(),
              epoch.asInt(),
              expectedEnd == null ? null : expectedEnd.asLong(),
              expectedTopic == null ? null : expectedTopic.asText());
    }
    return new ControlRequest.Partition(
        topic.asText(), partition.asInt(), sourceClusterId, alignTo);
  }

  /** A JSON string that reads as a Kafka topic id (a UUID in URL-safe base64, unpadded). */
  private static boolean isTopicId(JsonNode node) {
    return node.isTextual() && node.asText().matches("[A-Za-z0-9_-]{22}");
  }

  /**
   * The refusal of field {@code field} of partition {@code key}'s {@link Fields#ALIGN_TO}: {@code
   * partitions[i] (topic-p).alignTo.field must be <what>, got <value>}.
   */
  private static ControlRequestException badAlignTo(
      String where, String key, String field, String mustBe, JsonNode got) {
    return bad(
        where
            + " ("
            + key
            + ")."
            + Fields.ALIGN_TO
            + "."
            + field
            + " must be "
            + mustBe
            + ", got "
            + got);
  }

  private static ControlRequestException bad(String message) {
    return new ControlRequestException(RequestError.Code.INVALID_REQUEST, message);
  }

  /**
   * Jackson, created at the first request rather than when the endpoint starts: building an
   * ObjectMapper loads some 370 classes, which would otherwise run on the broker's start-up thread
   * (docs/benchmarks.md, "Restart after kill -9"). Thread-safe once built.
   */
  private static final class Json {
    static final ObjectMapper MAPPER = new ObjectMapper();

    private Json() {}
  }
}
