package dev.kafkamirror.operator.reconciler;

/**
 * Tuning of the reconciler (environment variables in parentheses, see docs/operator.md).
 *
 * @param maxRoundsPerReconcile observe-plan-act rounds in one reconcile before status is written
 *     (CMO_ROUNDS_PER_RECONCILE); 1 writes status after every step
 * @param requeueMs delay before the next reconcile while work remains (CMO_REQUEUE_MS)
 * @param idleRequeueMs delay before re-observing a resource at its target (CMO_RESYNC_MS)
 * @param adminTimeoutMs bound of every Kafka Admin call (CMO_ADMIN_TIMEOUT_MS)
 * @param maxPartitionsListed bound of status.partitions
 */
public record ReconcilerSettings(
    int maxRoundsPerReconcile,
    long requeueMs,
    long idleRequeueMs,
    long adminTimeoutMs,
    int maxPartitionsListed) {

  public static ReconcilerSettings defaults() {
    return new ReconcilerSettings(12, 1_000L, 30_000L, 10_000L, 1_000);
  }
}
