package dev.kafkamirror.operator.control;

import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.kafkamirror.contract.Fields;
import dev.kafkamirror.operator.core.PartitionKey;
import dev.kafkamirror.operator.core.PartitionObservation;
import dev.kafkamirror.operator.core.StopChaining;

/**
 * One partition's answer to a control call: the result fields, or an error code and message.
 *
 * @param body the per-partition JSON object (null when the call failed as a whole)
 * @param errorCode the plugin's {@link dev.kafkamirror.contract.PartitionError.Code} (NOT_LEADER,
 *     LEADER_MOVED, TIMEOUT, ...), or one of this client's: UNREACHABLE, BUSY, HTTP_ERROR,
 *     MISSING_RESULT; null on success
 */
public record ControlResult(
    PartitionKey key, int brokerId, JsonNode body, String errorCode, String errorMessage) {

  public static final String UNREACHABLE = "UNREACHABLE";

  /**
   * The call was not sent: the operator's own calls to the endpoint took every turn for as long as
   * one call may take. Like {@link #UNREACHABLE}, it says nothing about the partition.
   */
  public static final String BUSY = "BUSY";

  public static final String HTTP_ERROR = "HTTP_ERROR";
  public static final String MISSING_RESULT = "MISSING_RESULT";

  /**
   * Binds a describe result by the record components' names, which are the contract's field names
   * ({@link Fields.Describe}, {@link Fields.Mirror}, {@link Fields.Stop}, {@link
   * Fields.BarrierReset}; a unit test holds them to it). Fields the operator does not read are
   * ignored, so that the plugin may add some.
   */
  private static final ObjectMapper DESCRIBE_READER =
      new ObjectMapper().configure(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES, false);

  public boolean ok() {
    return errorCode == null;
  }

  /**
   * Whether the call never reached a broker that could answer for the partition (unreachable, or
   * not sent because the endpoint's turns were all taken): the result says nothing about it.
   */
  public boolean notDelivered() {
    return UNREACHABLE.equals(errorCode) || BUSY.equals(errorCode);
  }

  /**
   * This result as an answer to a step call, as {@link StopChaining} reads it: the error code, or
   * the fields every stop step answers with ({@code state}, {@code leaderEpoch}, {@code
   * logEndOffset}, {@code stop}). A field that is absent or of another type than the contract's is
   * left null (the rule then observes again); never throws.
   *
   * @param leader whether the call was the partition's leader call
   */
  public StopChaining.Answer stepAnswer(boolean leader) {
    if (!ok() || body == null || !body.isObject()) {
      return StopChaining.Answer.failed(key, brokerId, leader, ok() ? MISSING_RESULT : errorCode);
    }
    JsonNode stopNode = body.get(Fields.StepResult.STOP);
    PartitionObservation.Stop stop = null;
    boolean current = true;
    if (stopNode != null && stopNode.isObject()) {
      try {
        stop = DESCRIBE_READER.treeToValue(stopNode, PartitionObservation.Stop.class);
      } catch (com.fasterxml.jackson.core.JsonProcessingException | IllegalArgumentException e) {
        stop = null;
      }
      JsonNode currentNode = stopNode.get(Fields.Stop.STATE_CURRENT);
      current = currentNode == null || !currentNode.isBoolean() || currentNode.booleanValue();
    }
    JsonNode epoch = body.get(Fields.StepResult.LEADER_EPOCH);
    JsonNode logEnd = body.get(Fields.StepResult.LOG_END_OFFSET);
    JsonNode state = body.get(Fields.StepResult.STATE);
    return new StopChaining.Answer(
        key,
        brokerId,
        leader,
        null,
        epoch != null && epoch.isInt() ? epoch.intValue() : null,
        logEnd != null && logEnd.isIntegralNumber() ? logEnd.longValue() : null,
        state != null && state.isTextual() ? state.textValue() : null,
        stop,
        current);
  }

  /**
   * This successful describe result as the core's plain record.
   *
   * @throws IllegalArgumentException when a field has a type the contract does not give it
   */
  public PartitionObservation.Described described() {
    try {
      PartitionObservation.Described d =
          DESCRIBE_READER.treeToValue(body, PartitionObservation.Described.class);
      return new PartitionObservation.Described(
          body.has(Fields.Describe.LEADER_ID) || body.has(Fields.Describe.STOP),
          d.role(),
          d.leaderEpoch(),
          d.logEndOffset(),
          d.highWatermark(),
          d.lastStableOffset(),
          d.mirror(),
          d.stop(),
          d.barrierResets());
    } catch (com.fasterxml.jackson.core.JsonProcessingException e) {
      throw new IllegalArgumentException(
          "broker "
              + brokerId
              + " described "
              + key
              + " in a form the contract does not allow: "
              + e.getOriginalMessage(),
          e);
    }
  }
}
