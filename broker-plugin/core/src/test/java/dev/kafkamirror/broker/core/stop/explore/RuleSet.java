package dev.kafkamirror.broker.core.stop.explore;

import dev.kafkamirror.broker.core.stop.rules.Decision;
import dev.kafkamirror.broker.core.stop.rules.PartitionView;
import dev.kafkamirror.broker.core.stop.rules.StopCall;
import dev.kafkamirror.broker.core.stop.rules.StopRules;

/**
 * The rules the model executes. {@link #REAL} is the core's {@link StopRules}, the very rules the
 * agent runs; a test seeds a broken rule by wrapping it and changing one decision.
 */
@FunctionalInterface
interface RuleSet {

  RuleSet REAL = StopRules::decide;

  Decision decide(StopCall call, PartitionView view, String requestedSourceClusterId);
}
