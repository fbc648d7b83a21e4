package dev.kafkamirror.broker.agent.stop;

import dev.kafkamirror.broker.agent.control.PartitionOperationException;
import dev.kafkamirror.broker.agent.control.PartitionRef;
import dev.kafkamirror.broker.agent.control.StepOutcome;
import dev.kafkamirror.broker.core.stop.rules.StopCall;
import dev.kafkamirror.contract.PartitionError.Code;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;

/**
 * The state of one stop call while {@link StopExecutor} runs it: its deadline, the outcome of each
 * partition (the first one given counts), and what this call did (barriers appended, waits made,
 * STOPPED recorded). Confined to the calling thread.
 */
final class StopRun {

  private final StopCall call;
  private final long timeoutMs;
  private final long deadlineNanos;
  private final Map<PartitionRef, StepOutcome> out = new LinkedHashMap<>();
  private final Set<PartitionRef> appended = new HashSet<>();
  private final Set<PartitionRef> awaited = new HashSet<>();

  StopRun(StopCall call, long timeoutMs) {
    this.call = call;
    this.timeoutMs = timeoutMs;
    this.deadlineNanos = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(timeoutMs);
  }

  StopCall call() {
    return call;
  }

  long timeoutMs() {
    return timeoutMs;
  }

  long remainingNanos() {
    return deadlineNanos - System.nanoTime();
  }

  long remainingMs() {
    return Math.max(1L, TimeUnit.NANOSECONDS.toMillis(remainingNanos()));
  }

  /** The barrier call's writes share its deadline; the other calls give each write the timeout. */
  long writeTimeoutMs() {
    return call == StopCall.BARRIER ? remainingMs() : timeoutMs;
  }

  boolean answered(PartitionRef ref) {
    return out.containsKey(ref);
  }

  void fail(PartitionRef ref, PartitionOperationException e) {
    out.putIfAbsent(ref, StepOutcome.failed(ref, e));
  }

  void ok(PartitionRef ref, Map<String, Object> result) {
    out.putIfAbsent(ref, StepOutcome.ok(ref, result));
  }

  void okUnlessAnswered(PartitionRef ref, Map<String, Object> result) {
    ok(ref, result);
  }

  void appended(StopTarget t) {
    appended.add(t.ref());
  }

  boolean appendedHere(StopTarget t) {
    return appended.contains(t.ref());
  }

  /** Whether this call waited for {@code t}'s barrier before; marks it as waited for. */
  boolean awaitedBefore(StopTarget t) {
    return !awaited.add(t.ref());
  }

  /** One outcome per ref, in the order of the request. */
  List<StepOutcome> ordered(List<PartitionRef> refs) {
    List<StepOutcome> list = new ArrayList<>(refs.size());
    for (PartitionRef ref : refs) {
      StepOutcome o = out.get(ref);
      list.add(
          o != null
              ? o
              : StepOutcome.failed(
                  ref, new PartitionOperationException(Code.INTERNAL, ref.key() + ": no outcome")));
    }
    return list;
  }
}
