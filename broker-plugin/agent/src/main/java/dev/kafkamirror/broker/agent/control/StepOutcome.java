package dev.kafkamirror.broker.agent.control;

import java.util.Map;

/** The outcome of a batched call for one partition: a result, or the error. */
public record StepOutcome(
    PartitionRef partition, Map<String, Object> result, PartitionOperationException error) {

  public static StepOutcome ok(PartitionRef partition, Map<String, Object> result) {
    return new StepOutcome(partition, result, null);
  }

  public static StepOutcome failed(PartitionRef partition, PartitionOperationException error) {
    return new StepOutcome(partition, null, error);
  }
}
