package dev.kafkamirror.broker.core.mirror;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class MetadataBackoffTest {

  @Test
  void theFirstRefreshAndOneAfterEveryPartitionResolvedRunAtOnce() {
    // Given a new backoff, Then a refresh may run at once
    MetadataBackoff backoff = new MetadataBackoff();
    assertThat(backoff.due(1_000)).isTrue();

    // When a refresh resolved every partition, Then the next one (a leadership error) runs at once
    backoff.refreshed(1_000, false);
    assertThat(backoff.delayMs()).isZero();
    assertThat(backoff.due(1_000)).isTrue();
  }

  @Test
  void aPartitionThatStaysUnresolvedDoublesTheDelayUpToTheMaximum() {
    // Given a source topic that is gone: every refresh leaves its partition unresolved
    MetadataBackoff backoff = new MetadataBackoff();
    long now = 0;
    long expected = MetadataBackoff.INITIAL_DELAY_MS;
    int refreshes = 0;
    // When the fetcher asks every 50 ms (its idle pause) for a minute
    for (long t = 0; t <= 60_000; t += 50) {
      if (backoff.due(t)) {
        if (refreshes > 0) {
          // Then each refresh comes only once the previous delay has passed
          assertThat(t - now).isGreaterThanOrEqualTo(expected);
          expected = Math.min(expected * 2, MetadataBackoff.MAX_DELAY_MS);
        }
        backoff.refreshed(t, true);
        now = t;
        refreshes++;
      }
    }
    // And the delay is capped, so the topic's recreation is seen within the maximum
    assertThat(backoff.delayMs()).isEqualTo(MetadataBackoff.MAX_DELAY_MS);
    assertThat(backoff.due(now + MetadataBackoff.MAX_DELAY_MS - 1)).isFalse();
    assertThat(backoff.due(now + MetadataBackoff.MAX_DELAY_MS)).isTrue();
    // And far fewer refreshes than the 1,201 rounds of 50 ms (about 12 + 55 s / 5 s)
    assertThat(refreshes).isLessThan(25);
  }

  @Test
  void aRefreshThatResolvesEveryPartitionEndsTheBackoff() {
    // Given a backoff grown by three unresolved refreshes
    MetadataBackoff backoff = new MetadataBackoff();
    backoff.refreshed(0, true);
    backoff.refreshed(100, true);
    backoff.refreshed(300, true);
    assertThat(backoff.delayMs()).isEqualTo(400);
    assertThat(backoff.due(500)).isFalse();

    // When the next refresh resolves everything (the topic was created again)
    backoff.refreshed(700, false);

    // Then a later stale refresh runs at once
    assertThat(backoff.due(700)).isTrue();
    assertThat(backoff.delayMs()).isZero();
  }
}
