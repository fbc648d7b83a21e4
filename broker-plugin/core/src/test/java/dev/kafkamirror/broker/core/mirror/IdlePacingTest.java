package dev.kafkamirror.broker.core.mirror;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class IdlePacingTest {

  @Test
  void aRoundThatHeldTheWholeLongPollIsFollowedByNoWait() {
    // Given a round that appended nothing after the source held the fetch for its whole long poll
    long roundMs = 100L;

    // When the fetcher asks how long to wait before the next round
    long waitMs = IdlePacing.waitAfterIdleRoundMs(roundMs, 50L);

    // Then it fetches again at once: a record the source took meanwhile is not held back
    assertThat(waitMs).isZero();
  }

  @Test
  void aRoundAnsweredAtOnceWaitsTheRestOfTheMinimumRound() {
    // Given a round that appended nothing and was answered after 3 ms (an error, say)
    long roundMs = 3L;

    // When the fetcher asks how long to wait before the next round
    long waitMs = IdlePacing.waitAfterIdleRoundMs(roundMs, 50L);

    // Then it waits the rest of the 50 ms: the same question is not asked in a loop
    assertThat(waitMs).isEqualTo(47L);
  }

  @Test
  void aRoundOfExactlyTheMinimumOrAClockThatWentBackIsBounded() {
    // Given rounds of exactly the minimum, and one measured as negative (a clock step)
    // When the fetcher asks
    // Then the first waits nothing and the other at most the minimum, never more
    assertThat(IdlePacing.waitAfterIdleRoundMs(50L, 50L)).isZero();
    assertThat(IdlePacing.waitAfterIdleRoundMs(-20L, 50L)).isEqualTo(50L);
  }
}
