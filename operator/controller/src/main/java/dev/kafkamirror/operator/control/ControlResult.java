package dev.kafkamirror.operator.control;

import com.fasterxml.jackson.databind.JsonNode;
import dev.kafkamirror.operator.core.PartitionKey;

/**
 * One partition's answer to a control call: the result fields, or an error code and message.
 *
 * @param body the per-partition JSON object (null when the call failed as a whole)
 * @param errorCode the plugin's code (NOT_LEADER, LEADER_MOVED, TIMEOUT, ...), or one of this
 *     client's: UNREACHABLE, HTTP_ERROR, UNSUPPORTED, MISSING_RESULT; null on success
 */
public record ControlResult(
    PartitionKey key, int brokerId, JsonNode body, String errorCode, String errorMessage) {

  public static final String UNREACHABLE = "UNREACHABLE";
  public static final String HTTP_ERROR = "HTTP_ERROR";
  public static final String UNSUPPORTED = "UNSUPPORTED";
  public static final String MISSING_RESULT = "MISSING_RESULT";

  public boolean ok() {
    return errorCode == null;
  }
}
