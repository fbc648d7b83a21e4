package dev.kafkamirror.operator.control;

import com.fasterxml.jackson.databind.JsonNode;
import dev.kafkamirror.operator.core.PartitionObservation;
import java.util.ArrayList;
import java.util.List;

/** Reads one partition's {@code /v1/describe} result into the core's plain records. */
public final class DescribeParser {

  private DescribeParser() {}

  public static PartitionObservation.Described parse(JsonNode r) {
    JsonNode m = r.get("mirror");
    PartitionObservation.Mirror mirror =
        m == null || m.isNull()
            ? null
            : new PartitionObservation.Mirror(
                text(m, "mirrorName"),
                text(m, "state"),
                text(m, "sourceClusterId"),
                text(m, "expectedSourceClusterId"),
                number(m, "lastMirroredOffset"),
                number(m, "lagRecords"),
                text(m, "lastError"));
    JsonNode s = r.get("stop");
    PartitionObservation.Stop stop =
        s == null || s.isNull()
            ? null
            : new PartitionObservation.Stop(
                text(s, "step"),
                s.hasNonNull("stateLeaderEpoch") ? s.get("stateLeaderEpoch").asInt() : null,
                number(s, "truncatedToOffset"),
                number(s, "lastMirroredOffset"),
                number(s, "barrierOffset"),
                text(s, "sourceClusterId"));
    List<PartitionObservation.BarrierReset> resets = new ArrayList<>();
    for (JsonNode b : r.path("barrierResets")) {
      resets.add(
          new PartitionObservation.BarrierReset(
              text(b, "path"), number(b, "barrierOffset"), text(b, "sourceClusterId")));
    }
    return new PartitionObservation.Described(
        r.has("leaderId") || r.has("stop"),
        text(r, "role"),
        r.hasNonNull("leaderEpoch") ? r.get("leaderEpoch").asInt() : null,
        number(r, "logEndOffset"),
        number(r, "highWatermark"),
        number(r, "lastStableOffset"),
        mirror,
        stop,
        resets);
  }

  private static String text(JsonNode node, String field) {
    JsonNode v = node.get(field);
    return v == null || v.isNull() ? null : v.asText();
  }

  private static Long number(JsonNode node, String field) {
    JsonNode v = node.get(field);
    return v == null || v.isNull() || !v.canConvertToLong() ? null : v.asLong();
  }
}
