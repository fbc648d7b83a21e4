package dev.kafkamirror.broker.core.mirror;

/**
 * How long a mirror fetcher waits after a round that appended nothing, before it fetches again.
 *
 * <p>A round that appended nothing is of two kinds. Either the source answered at once, with an
 * error or with nothing for a reason of its own: fetching again at once would ask the same question
 * in a loop, so the fetcher waits. Or the source held the fetch for its whole long poll and then
 * answered that nothing was new: the fetcher has waited already, and a record the source took
 * meanwhile is fetched at once. The rule covers both without telling them apart: a round that
 * appended nothing lasts at least {@code minRoundMs} in all, its own time included. A fetcher used
 * to wait {@code minRoundMs} after every such round, so a record written on the source just after a
 * long poll expired waited up to that long more before it was mirrored.
 *
 * <p>Pure and stateless.
 */
public final class IdlePacing {

  private IdlePacing() {}

  /**
   * The wait after a round that appended nothing and took {@code roundMs}: what is left of {@code
   * minRoundMs}, never negative.
   */
  public static long waitAfterIdleRoundMs(long roundMs, long minRoundMs) {
    return Math.max(0L, minRoundMs - Math.max(0L, roundMs));
  }
}
