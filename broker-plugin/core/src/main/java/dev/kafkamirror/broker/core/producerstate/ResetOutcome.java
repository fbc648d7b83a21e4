package dev.kafkamirror.broker.core.producerstate;

import java.util.List;

/**
 * What one barrier did to one partition's producer state.
 *
 * @param barrierOffset the barrier's offset
 * @param producersRemoved producer entries removed
 * @param forcedAborts transactions that were still open at the barrier and were recorded as aborted
 */
public record ResetOutcome(
    long barrierOffset, int producersRemoved, List<OpenTransaction> forcedAborts) {

  public ResetOutcome {
    forcedAborts = List.copyOf(forcedAborts);
  }
}
