package dev.kafkamirror.broker.core.stop.rules;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class LeadershipInFlightTest {

  @Test
  void aLeadershipTheImageGivesThisBrokerAndTheReplicaHasNotAppliedIsAwaited() {
    // Given broker 2's image names it leader in epoch 6
    // Then it awaits that while its replica is missing, a follower, or leads in epoch 5
    assertThat(LeadershipInFlight.awaiting(2, 2, 6, false, false, 0)).isTrue();
    assertThat(LeadershipInFlight.awaiting(2, 2, 6, true, false, 5)).isTrue();
    assertThat(LeadershipInFlight.awaiting(2, 2, 6, true, true, 5)).isTrue();
  }

  @Test
  void aFollowerAskedToLeadAwaitsEvenBeforeItsImageShowsTheMove() {
    // Given broker 2 follows and its image still names broker 3 (the caller saw newer metadata)
    // Then it awaits the leadership the caller expects of it
    assertThat(LeadershipInFlight.awaiting(2, 3, 6, true, false, 6)).isTrue();
  }

  @Test
  void anUpToDateLeaderOrABrokerWithoutAReplicaThatWillNotLeadAwaitsNothing() {
    // Given a replica leading in its image's epoch, Then nothing is awaited
    assertThat(LeadershipInFlight.awaiting(2, 2, 6, true, true, 6)).isFalse();
    // Given a broker without a replica that its image does not name, Then nothing is awaited
    assertThat(LeadershipInFlight.awaiting(2, 3, 6, false, false, 0)).isFalse();
    assertThat(LeadershipInFlight.awaiting(2, -1, 6, false, false, 0)).isFalse();
  }
}
