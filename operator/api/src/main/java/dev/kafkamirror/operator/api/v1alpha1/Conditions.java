package dev.kafkamirror.operator.api.v1alpha1;

import java.util.List;
import java.util.Optional;

/**
 * The condition types of a ClusterMirror's status and the questions every client asks of them (the
 * operator, the tests, the demo, a user's program): one place, so that no client spells a type as a
 * string literal. Types have positive polarity (True is the good or the asked-for state), so {@code
 * kubectl wait --for=condition=Stopped} works, except kstatus' two abnormal-true types ({@link
 * #RECONCILING}, {@link #STALLED}), whose True is the state a GitOps tool waits out or alerts on.
 *
 * <p>Static helpers rather than getters on {@link ClusterMirrorStatus}: a getter there would become
 * a status field in the generated CRD.
 */
public final class Conditions {

  /**
   * Every partition is where the spec wants it (mirroring, paused or stopped) and nothing fails.
   */
  public static final String READY = "Ready";

  /** Every selected partition mirrors its source. */
  public static final String MIRRORING = "Mirroring";

  /** Every selected partition is STOPPED: writable, barrier durable. */
  public static final String STOPPED = "Stopped";

  /** Something needs attention: the reason and message say what. */
  public static final String DEGRADED = "Degraded";

  /**
   * kstatus' abnormal-true condition: True while the operator is still moving some partition to
   * where the spec wants it (the reason says what it waits for). kstatus (Flux, cli-utils) reads it
   * as InProgress.
   */
  public static final String RECONCILING = "Reconciling";

  /**
   * kstatus' abnormal-true condition: True when progress needs a human (a refused stop, a source
   * that is another cluster, halted or FAILED partitions that block the target, an invalid spec);
   * the reason is Degraded's. kstatus reads it as Failed. Never True together with Reconciling.
   */
  public static final String STALLED = "Stalled";

  /** Every type the operator writes, in the order it writes them. */
  public static final List<String> TYPES =
      List.of(READY, MIRRORING, STOPPED, DEGRADED, RECONCILING, STALLED);

  /** A condition's status values. */
  public static final String TRUE = "True";

  public static final String FALSE = "False";
  public static final String UNKNOWN = "Unknown";

  private Conditions() {}

  /** The condition of {@code type}, or empty when the status (or the condition) is absent. */
  public static Optional<Condition> find(ClusterMirrorStatus status, String type) {
    if (status == null || status.getConditions() == null) {
      return Optional.empty();
    }
    return status.getConditions().stream().filter(c -> type.equals(c.getType())).findFirst();
  }

  /** The status (True, False, Unknown) of the condition of {@code type}, or null when absent. */
  public static String statusOf(ClusterMirrorStatus status, String type) {
    return find(status, type).map(Condition::getStatus).orElse(null);
  }

  /** Whether the condition of {@code type} is present and True. */
  public static boolean isTrue(ClusterMirrorStatus status, String type) {
    return TRUE.equals(statusOf(status, type));
  }

  /** Whether every selected partition is STOPPED (the Stopped condition is True). */
  public static boolean isStopped(ClusterMirrorStatus status) {
    return isTrue(status, STOPPED);
  }

  /** Whether the mirror is where its spec wants it and nothing fails (Ready is True). */
  public static boolean isReady(ClusterMirrorStatus status) {
    return isTrue(status, READY);
  }

  /** Whether every selected partition mirrors (Mirroring is True). */
  public static boolean isMirroring(ClusterMirrorStatus status) {
    return isTrue(status, MIRRORING);
  }

  /** Whether the operator is still moving partitions to the spec's state (Reconciling is True). */
  public static boolean isReconciling(ClusterMirrorStatus status) {
    return isTrue(status, RECONCILING);
  }

  /** Whether progress needs a human (Stalled is True). */
  public static boolean isStalled(ClusterMirrorStatus status) {
    return isTrue(status, STALLED);
  }

  /** Whether something needs attention (Degraded is True). */
  public static boolean isDegraded(ClusterMirrorStatus status) {
    return isTrue(status, DEGRADED);
  }
}
